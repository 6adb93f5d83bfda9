"""Reading GitHub workflows the way a runner would, as far as their commands go: each job's matrix
expanded, the `${{ }}` expressions of each `run:` evaluated per combination, and each script cut into
simple commands (words, quotes removed). Then the checks of workflows_test.py: the repository files a
command names exist, and the options given to `uopfuzz` and to the repository's scripts are theirs."""
import glob
import itertools
import os
import re
import shlex
import subprocess

# Scripts of the repository whose arguments after `--` are options of a uopfuzz subcommand.
FORWARDS = {"fuzz/nightly.sh": ["fuzz"]}
SKIPPED_WORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "exec"}
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "((", "))", "\n", ";;"}


# ---- expressions: literals, context values, == != ! && || and parentheses (enough for run: steps) ----

def expr_tokens(text):
  tokens = re.findall(r"'(?:[^']|'')*'|&&|\|\||==|!=|[!()]|[A-Za-z_][\w.\-*]*|-?\d+(?:\.\d+)?|\S", text)
  return [t for t in tokens if not t.isspace()]


def evaluate(text, ctx):
  """The value of a ${{ }} expression: GitHub's || and && return an operand, as its truthiness decides."""
  toks, pos = expr_tokens(text), [0]
  peek = lambda: toks[pos[0]] if pos[0] < len(toks) else None
  def take():
    pos[0] += 1
    return toks[pos[0] - 1]
  def primary():
    t = take()
    if t == "(":
      v = disjunction()
      if take() != ")": raise ValueError("unbalanced parentheses")
      return v
    if t == "!": return not truthy(primary())
    if t.startswith("'"): return t[1:-1].replace("''", "'")
    if re.fullmatch(r"-?\d+(\.\d+)?", t): return t
    if t in ("true", "false"): return t == "true"
    if peek() == "(": raise ValueError(f"function {t}() is not understood")
    return lookup(t, ctx)
  def comparison():
    v = primary()
    while peek() in ("==", "!="):
      op, w = take(), primary()
      v = (str(v).lower() == str(w).lower()) == (op == "==")
    return v
  def chain(op, operand, pick):
    def parse():
      v = operand()
      while peek() == op:
        take()
        v = pick(v, operand())
      return v
    return parse
  conjunction = chain("&&", comparison, lambda v, w: w if truthy(v) else v)
  disjunction = chain("||", conjunction, lambda v, w: v if truthy(v) else w)
  value = disjunction()
  if peek() is not None: raise ValueError(f"unexpected {peek()!r}")
  return value


def truthy(v):
  return v not in (None, False, "", "0", 0)


def lookup(name, ctx):
  head, _, rest = name.partition(".")
  if head == "matrix": return ctx["matrix"].get(rest, "")
  if head == "inputs": return ""  # a scheduled run: every input at its default, which `|| 'x'` supplies
  if head == "env": return ctx["env"].get(rest, "ENV")
  return head.upper()  # github, steps, runner, secrets, needs: a placeholder word


def substitute(script, ctx):
  def value(m):
    v = evaluate(m.group(1), ctx)
    return "" if v in (None, False) else "true" if v is True else str(v)
  return re.sub(r"\$\{\{(.*?)\}\}", value, script, flags=re.S)


# ---- jobs, matrices, scripts ----

def matrix_combinations(job):
  """Every combination of the job's matrix (lists crossed, exclude dropped, include added or merged)."""
  m = (job.get("strategy") or {}).get("matrix")
  if not isinstance(m, dict): return [{}]
  keys = [k for k in m if k not in ("include", "exclude") and isinstance(m[k], list)]
  combos = [dict(zip(keys, vals)) for vals in itertools.product(*(m[k] for k in keys))]
  matches = lambda c, part: all(str(c.get(k)) == str(v) for k, v in part.items() if k in keys)
  combos = [c for c in combos if not any(matches(c, ex) for ex in m.get("exclude") or [])]
  for inc in m.get("include") or []:
    hits = [c for c in combos if matches(c, inc)]
    for c in hits: c.update(inc)
    if not hits: combos.append(dict(inc))
  return [{k: str(v) for k, v in c.items()} for c in combos] or [{}]


def scripts(workflow):
  """(job name, step name, script) for every run: step under every matrix combination, without repeats."""
  seen = set()
  wf_env = {k: str(v) for k, v in (workflow.get("env") or {}).items()}
  for job_name, job in (workflow.get("jobs") or {}).items():
    for combo in matrix_combinations(job):
      ctx = {"matrix": combo, "env": {**wf_env, **{k: str(v) for k, v in (job.get("env") or {}).items()}}}
      for i, step in enumerate(job.get("steps") or []):
        if "run" not in step: continue
        where = f"{job_name}: {step.get('name', f'step {i + 1}')}"
        try:
          script = substitute(step["run"], ctx)
        except ValueError as e:
          yield where, None, f"cannot evaluate an expression ({e}); teach tests/ci/workflow_check.py"
          continue
        if (where, script) not in seen:
          seen.add((where, script))
          yield where, script, None


def simple_commands(script):
  """Each simple command of a shell script as its list of words, keywords and assignments in front dropped."""
  lines = [l for l in script.replace("\\\n", " ").split("\n") if not l.lstrip().startswith("#")]
  lex = shlex.shlex("\n".join(lines), posix=True, punctuation_chars=";&|()<>\n")
  lex.whitespace, lex.whitespace_split, lex.commenters = " \t\r", True, ""
  words, out = [], []
  for tok in lex:
    if tok in SEPARATORS or (tok and set(tok) <= set(";&|()\n")):
      if words: out.append(words)
      words = []
    elif not words and (tok in SKIPPED_WORDS or re.match(r"^\w+\+?=", tok)):
      continue
    else:
      words.append(tok)
  if words: out.append(words)
  return out


# ---- uopfuzz as the built binary describes itself ----

class Uopfuzz:
  def __init__(self, binary):
    self.binary, self.helps = binary, {}

  def help(self, path):
    """`uopfuzz PATH... --help` as (options: name -> takes a value, subcommands), None for no such command."""
    key = tuple(path)
    if key not in self.helps:
      r = subprocess.run([self.binary, *path, "--help"], capture_output=True, text=True)
      self.helps[key] = None if r.returncode != 0 else parse_help(r.stdout)
    return self.helps[key]


def parse_help(text):
  options, subcommands, section = {}, set(), ""
  for line in text.splitlines():
    if re.match(r"^\S.*:\s*$", line):
      section = line.strip().rstrip(":").lower()
      continue
    # `-o,--out TEXT REQUIRED   text`: a TYPE one space after the names means the option takes a value.
    m = re.match(r"^\s+(-[^\s,]+(?:,-[^\s,]+)*)( [A-Z{])?", line)
    if m and section.startswith("option"):
      for name in re.split(r",\s*", m.group(1)): options[name] = m.group(2) is not None
    elif section.startswith("subcommand") and (s := re.match(r"^\s+([a-z][\w-]*)\b", line)):
      subcommands.add(s.group(1))
  return options, subcommands


# ---- the checks ----

def repo_entries(root):
  """Top-level names git tracks (build trees and campaign output are not the repository's)."""
  r = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
  if r.returncode == 0 and r.stdout:
    return {p.split("/")[0] for p in r.stdout.splitlines()}
  return {n for n in os.listdir(root) if not n.startswith(("build", ".git"))}


def missing_paths(words, root, entries):
  """Words (and the words inside quoted ones) naming a repository path that does not exist."""
  out = []
  for piece in (p for w in words for p in w.split()):
    if "$" in piece or "/" not in piece or piece.split("/")[0] not in entries: continue
    if not glob.glob(os.path.join(root, piece.rstrip("/"))): out.append(piece)
  return out


def check_options(args, options, what):
  """Problems with args given to a command whose options (name -> takes a value) are known."""
  problems, skip = [], False
  for a in args:
    if skip:
      skip = False
      continue
    if a == "--": break
    if not a.startswith("-") or a == "-": continue
    name = a.split("=", 1)[0]
    if name not in options: problems.append(f"{what} has no option {name}")
    else: skip = options[name] and "=" not in a
  return problems


def check_uopfuzz(args, uopfuzz, where=""):
  path = []
  while args and not args[0].startswith("-"):
    h = uopfuzz.help(path)
    if h is None or args[0] not in h[1]: break
    path.append(args.pop(0))
  h = uopfuzz.help(path)
  if not path or h is None: return [f"{where}uopfuzz has no subcommand {args[0] if args else '(none)'}"]
  return check_options(args, h[0], f"uopfuzz {' '.join(path)}")


def check_script(path, args, root, uopfuzz):
  """A repository script's `--options` must be named in its text; after `--`, FORWARDS says whose they are."""
  text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
  own = args[:args.index("--")] if "--" in args else args
  problems = [f"{path} does not know {a}" for a in own
              if a.startswith("--") and not re.search(r"(?<![\w-])" + re.escape(a.split("=")[0]) + r"(?![\w-])", text)]
  if "--" in args and path in FORWARDS:
    problems += check_uopfuzz(FORWARDS[path] + args[args.index("--") + 1:], uopfuzz, f"{path} -- ")
  return problems


def check_command(words, root, entries, uopfuzz):
  problems = [f"no such file in the repository: {p}" for p in missing_paths(words, root, entries)]
  cmd = words[0]
  if os.path.basename(cmd) == "uopfuzz": return problems + check_uopfuzz(words[1:], uopfuzz)
  path = os.path.normpath(cmd)
  if path.split("/")[0] in entries and os.path.isfile(os.path.join(root, path)):
    if not os.access(os.path.join(root, path), os.X_OK): problems.append(f"{path} is not executable")
    problems += check_script(path, words[1:], root, uopfuzz)
  return problems


def check_workflows(directory, root, uopfuzz):
  """Every problem of every workflow in directory, as `FILE: JOB: STEP: problem`."""
  import yaml
  entries, problems = repo_entries(root), []
  files = sorted(glob.glob(os.path.join(directory, "*.yml")) + glob.glob(os.path.join(directory, "*.yaml")))
  for f in files:
    name = os.path.basename(f)
    with open(f, encoding="utf-8") as fh: wf = yaml.safe_load(fh)
    if not isinstance(wf, dict) or not isinstance(wf.get("jobs"), dict):
      problems.append(f"{name}: not a workflow (no jobs)")
      continue
    for where, script, error in scripts(wf):
      if error:
        problems.append(f"{name}: {where}: {error}")
        continue
      for words in simple_commands(script):
        problems += [f"{name}: {where}: {p}" for p in check_command(words, root, entries, uopfuzz)]
  return sorted(set(problems)), len(files)

# uopfuzz_plugin.py: the Python SDK for renderer plug-ins (docs/format.md, section 5). Standard library
# only, Python 3.8+. It serves the handshake and the three modes of protocol 2: `--uopfuzz-describe`,
# `--uopfuzz-serve` (JSON lines), `LIST_FILE` (batch) and `PROGRAM_FILE FUNCTION_NAME` (one program):
#
#   Plugin(name="my-target", version="1.0", without=["vector"], render=render).main()
#
# where render(program, function) returns the translation unit (C; LLVM IR with language="llvm-ir"; the
# machine code as bytes with language="x86-64") or raises RenderError. An executing target runs programs
# instead of rendering them (server mode only):
#
#   Plugin(name="my-device", language="outputs", run=run).main()   # run(program, function, inputs)
#
# Without a `name` the plug-in answers no handshake: uopfuzz then speaks protocol 1 to it, as its flag says.
# `switches` (things of the target a render can switch off, `off`, and report as `used`) and `exports`
# (formats a program can be exported to) are protocol 2's optional keys for culprit searches and
# reproducers; with switches, `reachable` (those a generated program can reach: the denominator of target
# coverage) and `switch_source` (a line about each, what a coverage report shows for one never used). `opts`
# names the optimization actions a program's `opts` line may ask of the target; a render or run may say which
# it applied and skipped, and which `features` (coverage names beyond switches) it exercised. `policy`,
# `seeds`, `known`, `backends`, `cc` and `cflags` are what the target suggests (a generator policy file,
# program seed directories, the directory of its tracked findings, its sibling configurations, the compiler
# its language needs). The
# .uop reader (Program, parse_program, buffer_bytes, ...) lives in uopfuzz_uop.py, what render and run
# return (Rendered, Ran, RunFailure) and the run requests' bytes in uopfuzz_replies.py; both are re-exported
# here, so `from uopfuzz_plugin import ...` gives all of it.
import base64
import json
import os
import re
import shlex
import subprocess
import sys
import traceback

from uopfuzz_uop import (CORE, DTYPES, MAX_LANES, MAX_LENGTH, MAX_SLOT, OP_ALIASES, OPS, RANGE_KINDS, Buffer,  # noqa: F401
                         DType, Node, Op, Program, UopSyntaxError, buffer_bytes, buffer_values, format_opt, format_opts,
                         parse_dtype, parse_program, parse_value, read_program)
from uopfuzz_replies import (REPLY_LISTS, RUN_FAILURE_CLASSES, Ran, Rendered, RunFailure, buffer_sizes,  # noqa: F401
                             check_buffers, decode_inputs, encode_output, encode_outputs, reply_lists)
from uopfuzz_suggest import suggestion_keys  # noqa: E402

MODES = ("server", "batch", "program")  # in the order uopfuzz prefers them
PROTOCOL = 2
LANGUAGES = ("c", "llvm-ir", "x86-64", "outputs")  # what a render is; `outputs`: no render, run requests


class RenderError(Exception):
  """This program cannot be rendered (or run): a render-error of this program alone, with the message.
  bucket, when given, names the failure's cause in one short line (the same for every program it fails
  on): a server reply carries it and the signature becomes `render-error BUCKET`. used, when given, names
  the switches that took effect before it failed: a culprit search of a render error tries only those."""

  def __init__(self, message, bucket=None, used=None):
    super().__init__(message)
    self.bucket, self.used = bucket, list(used or [])


class Failure(str):
  """A program's error message (a str) with the bucket and used switches its error reply carries."""

  def __new__(cls, message, bucket=None, used=()):
    self = super().__new__(cls, message)
    self.bucket, self.used = bucket, list(used)
    return self


def raised_at(e, root=None):
  """`TYPE at FILE:LINE`, the usual bucket of a target's crash: the exception's type and the innermost frame
  of its traceback under root (named relative to root), or of all when root is None or none is under it
  (named by its folder and file)."""
  def under(f): return root is not None and os.path.abspath(f.filename).startswith(os.path.abspath(root) + os.sep)
  frames = traceback.extract_tb(e.__traceback__)
  if not frames: return type(e).__name__
  f = ([f for f in frames if under(f)] or frames)[-1]
  name = os.path.relpath(f.filename, root) if under(f) else "/".join(os.path.normpath(f.filename).split(os.sep)[-2:])
  return f"{type(e).__name__} at {name}:{f.lineno}"


def error_reply(error):
  """The reply of a failed request: its message, and its bucket and used switches when it has them."""
  reply, bucket, used = {"error": str(error)}, getattr(error, "bucket", None), getattr(error, "used", None)
  if bucket is not None: reply["bucket"] = bucket
  if used: reply["used"] = [str(u) for u in used]
  return reply



# ---- helpers for plug-ins built on C: uopfuzz's own C, a compiler ---------------------------------------

_renderer = None  # one `$UOPFUZZ render-plugin --uopfuzz-serve` for this process's renders


def uopfuzz_render(program, function):
  """The C of uopfuzz's own renderer, for plug-ins that break it (the tests'): asked of one `$UOPFUZZ
  render-plugin` server per process (a process a render costs ~8 ms), restarted if it died."""
  global _renderer
  uopfuzz = os.environ.get("UOPFUZZ") or sys.exit("set UOPFUZZ to the uopfuzz binary")
  if _renderer is None or _renderer.poll() is not None:
    _renderer = subprocess.Popen([uopfuzz, "render-plugin", "--uopfuzz-serve"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
  try:
    _renderer.stdin.write(json.dumps({"id": 1, "kind": "render", "function": function, "program": program.text}) + "\n")
    _renderer.stdin.flush()
    reply = json.loads(_renderer.stdout.readline() or "null")
  except (OSError, ValueError) as e: reply = {"error": f"uopfuzz render-plugin: {e}"}
  if not isinstance(reply, dict) or "source" not in reply:
    raise RenderError(f"uopfuzz render-plugin: {reply.get('error') if isinstance(reply, dict) else 'exited'}")
  return reply["source"]


def run_tool(args, cwd=None):
  """Run a tool (a compiler, a linker) to its end and return its stdout (bytes); RenderError with the
  command and the tail of its stderr when it fails or cannot be started."""
  try: r = subprocess.run(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
  except OSError as e: raise RenderError(f"cannot run {args[0]}: {e.strerror}") from e
  if r.returncode != 0:
    raise RenderError(f"{shlex.join(args)}: exit status {r.returncode}\n{r.stderr.decode(errors='replace')[-4000:]}")
  return r.stdout


def tool_version(command):
  """The first line of `COMMAND --version` (COMMAND split as a shell would), "" when it cannot say: a
  handshake's target version for a plug-in whose target is a compiler."""
  try: r = subprocess.run(shlex.split(command) + ["--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
  except OSError: return ""
  return r.stdout.partition("\n")[0] if r.returncode == 0 else ""


def compile_c(source, flags, output, cc=None):
  """Compile the C translation unit `source`, written to OUTPUT.c, with `CC OUTPUT.c -o OUTPUT FLAGS...`
  (flags last, so they may name libraries: -lm) in OUTPUT's directory (so what it writes never names that
  directory) and return OUTPUT. CC is `cc` (a command line, split as a shell would), else $CC, else "cc".
  RenderError with the compiler's message when it fails."""
  directory, name = os.path.split(os.path.abspath(output))
  with open(os.path.join(directory, name + ".c"), "w", encoding="utf-8") as f: f.write(source)
  run_tool(shlex.split(cc or os.environ.get("CC") or "cc") + [name + ".c", "-o", name] + list(flags), cwd=directory)
  return output


# ---- serving: the handshake and the three modes ----------------------------------------------------------

class Plugin:
  """render(program, function) -> the translation unit (or Rendered), or raise RenderError; it is a str for
  language "c" (C) and "llvm-ir" (a textual LLVM IR module), bytes for "x86-64" (a flat machine-code image,
  base64 in server replies, raw in batch files and on stdout). name, version (a string, or a function giving
  one, called only by the handshake) and without describe the target for the handshake; without a name
  there is none (protocol 1). one_unit=True tells uopfuzz that the renders of a batch may be compiled as
  one translation unit (their common leading lines once): true when they differ only after a prelude they
  share, and define nothing two kernels would both define differently. switches (a list, or a function
  giving one, called when first needed: the handshake or an `off`) make the call render(program, function,
  off=frozenset of names); with them, reachable (the switches a generated program can reach, the coverage
  denominator) and switch_source ({switch: one short line about it}), each given likewise, are handshake
  keys too. exports: {FORMAT: fn(program) -> text}, for `export` requests. reach=fn(program) -> (level,
  detail), for `reach` requests, with reach_level the handshake's `reach` (the front end's level, a word):
  whether a finding (the program with its expect and got lines) fails as it does through the target's front
  end (level) or only as a hand-built kernel ("kernel"), and why, in one line.
  language="outputs" with run=fn instead of render (modes: server only): fn(program, function, inputs[,
  off=...]) with inputs a list of {slot: bytes}, one per data set, returns one entry per data set, either
  {slot: bytes} (every BUFFER's final bytes) or RunFailure(cls, message[, signal]), as a list or as Ran(list, used);
  RenderError (or any exception) means the program cannot be run at all. opts: the optimization action names
  (`[A-Z][A-Z_]*`) a program's `opts` line may ask of the target, for the handshake (a list, or a function
  giving one, called by the handshake only); render and run say what they did with Rendered/Ran's
  opts_applied, opts_skipped and features. approximate: the ops the target computes approximately on
  floats (SIN, LOG2, EXP2, POW, SQRT, RECIP), whose stored results uopfuzz then judges by a budget
  (docs/semantics.md, "Approximate ops"), a list or a function giving one.
  What the target suggests for a campaign, handshake keys too, each given as a value or a function giving one
  (called by the handshake only): policy (the path of a generator policy file, what `uopfuzz fuzz --policy`
  reads), seeds (a list of directories of program seeds), known (the directory of the target's tracked
  findings), each path absolute or relative to the working directory and given to uopfuzz relative to it
  (uopfuzz reads them from its own working directory, the plug-in's); backends (a list of {"name": a
  lowercase word, "renderer": a --renderer-cmd, and optionally "cc" and "cflags": the compiler and flags its
  language needs}), the target's sibling configurations; cc and cflags (strings), the compiler and flags its
  own language needs, used where neither a flag nor the program's meta names one; command, its own command line
  with every option spelled out, which a campaign runs and records as a reproducer's renderer."""

  def __init__(self, render=None, name=None, version="", without=(), modes=MODES, language="c", one_unit=False,
               switches=None, exports=None, run=None, reachable=None, switch_source=None, reach=None, reach_level=None,
               opts=None, policy=None, seeds=None, known=None, backends=None, cc=None, cflags=None, command=None, approximate=None):
    self.prog = os.path.splitext(os.path.basename(sys.argv[0]))[0] or "plugin"
    if language not in LANGUAGES: self.fail(2, f"language {language!r} is none of {', '.join(LANGUAGES)}")
    if (language == "outputs") != (run is not None): self.fail(2, "run= goes with language='outputs', and only with it")
    if run is not None and render is not None: self.fail(2, "an executing target (language 'outputs') runs programs: no render=")
    if switches is None and (reachable is not None or switch_source is not None): self.fail(2, "reachable= and switch_source= go with switches=")
    self.render, self.run, self.name, self.version, self.without, self.language = render, run, name, version, list(without), language
    self.modes = ["server"] if language == "outputs" else list(modes)  # run requests travel in server mode only
    self.one_unit, self.switches, self.exports, self._switch_list = one_unit, switches, dict(exports or {}), None
    self.reachable, self.switch_source = reachable, switch_source
    if (reach is None) != (reach_level is None): self.fail(2, "reach= and reach_level= go together")
    if reach_level is not None and not re.fullmatch(r"[a-z][a-z0-9_-]*", reach_level) or reach_level == "kernel":
      self.fail(2, f"reach_level {reach_level!r}: a lowercase word other than 'kernel'")
    self.reach, self.reach_level, self.opts, self.approximate = reach, reach_level, opts, approximate
    self.suggestions = {"policy": policy, "seeds": seeds, "known": known, "backends": backends, "cc": cc, "cflags": cflags,
                        "command": command}

  def switch_list(self):
    if self._switch_list is None:
      self._switch_list = list(self.switches() if callable(self.switches) else self.switches)
      for n in self._switch_list:
        if not isinstance(n, str) or not re.fullmatch(r"[!-+\--~]+", n): self.fail(2, f"switch {n!r}: not printable ASCII without blanks or commas")
    return self._switch_list

  def switch_keys(self):
    """The handshake's reachable and switch_source, those given: {key: its value}, every name a switch."""
    out, known = {}, set(self.switch_list())
    for key, given in (("reachable", self.reachable), ("switch_source", self.switch_source)):
      if given is None: continue
      value = given() if callable(given) else given
      names = list(value)
      if key == "switch_source":
        if not isinstance(value, dict): self.fail(2, f"switch_source: a dict of switch -> text, not {type(value).__name__}")
        bad = next((n for n, t in value.items() if not isinstance(t, str) or "\n" in t), None)
        if bad is not None: self.fail(2, f"switch_source of {bad!r}: not one line of text")
        value = dict(value)
      else: value = names
      unknown = next((n for n in names if n not in known), None)
      if unknown is not None: self.fail(2, f"{key}: {unknown!r} is not one of the switches")
      out[key] = value
    return out

  def describe(self):
    version = self.version() if callable(self.version) else self.version
    d = {"protocol": PROTOCOL, "modes": self.modes, "language": self.language,
         "target": {"name": self.name, "version": str(version)}, "without": self.without}
    if self.one_unit: d["one_unit"] = True
    if self.switches is not None: d.update(switches=self.switch_list(), **self.switch_keys())
    if self.exports: d["exports"] = sorted(self.exports)
    if self.reach_level: d["reach"] = self.reach_level
    if self.opts is not None: d["opts"] = self.opt_names()
    if self.approximate is not None: d["approximate"] = list(self.approximate() if callable(self.approximate) else self.approximate)
    d.update(self.suggestion_keys())
    return d

  def suggestion_keys(self):
    """The handshake's policy, seeds, known, backends, cc and cflags, those given (uopfuzz_suggest.py)."""
    try:
      return suggestion_keys(self.suggestions)
    except ValueError as e:
      self.fail(2, str(e))

  def opt_names(self):
    names = list(self.opts() if callable(self.opts) else self.opts)
    bad = next((n for n in names if not isinstance(n, str) or not re.fullmatch(r"[A-Z][A-Z_]*", n)), None)
    if bad is not None: self.fail(2, f"opts: {bad!r} is not an action name ([A-Z][A-Z_]*)")
    return names

  def render_text(self, text, function, path=None, off=()):
    """(source, error, reply keys) for one program: what a batch line or a server request gets; the keys
    {used, opts_applied, ...: list} those render said (Rendered)."""
    try: program = parse_program(text, path)
    except UopSyntaxError as e: return None, str(e), {}
    return self.render_program(program, function, off)

  def render_program(self, program, function, off=()):
    if not re.fullmatch(r"[A-Za-z_]\w*", function or ""): return None, f"bad FUNCTION_NAME {function!r}", {}
    out, error = self.call(self.render, program, function, **self.off_arg(off))
    source = out.source if isinstance(out, Rendered) else out
    want = (bytes, bytearray) if self.language == "x86-64" else (str,)
    if error is None and not isinstance(source, want):  # a reply of garbage would kill the server
      error = f"render returned {type(source).__name__}, not {want[0].__name__} (language {self.language})"
    try: keys = reply_lists(out) if error is None else {}
    except ValueError as e: error = f"{self.prog}: render returned {e}"
    return (None, error, {}) if error is not None else (source, None, keys)

  def off_arg(self, off):
    return {} if self.switches is None else {"off": frozenset(off)}

  def call(self, fn, *args, **kw):
    """(fn's value, None), or (None, the error) when it raises: that program's error, not the process's end."""
    try:
      return fn(*args, **kw), None
    except Exception as e:  # a RenderError, or a bug of the plug-in or its target
      cause = e.__cause__ if isinstance(e, RenderError) else e
      if os.environ.get("UOPFUZZ_PLUGIN_TRACE") and cause: traceback.print_exception(type(cause), cause, cause.__traceback__)
      if isinstance(e, RenderError): return None, Failure(str(e), e.bucket, e.used)
      return None, Failure(f"{type(e).__name__}: {e}", raised_at(e))

  def main(self, argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--uopfuzz-describe"]:
      if not self.name: self.fail(2, "speaks protocol 1 (no handshake)")
      print(json.dumps(self.describe()))
    elif args == ["--uopfuzz-serve"]: self.serve(sys.stdin.buffer, sys.stdout)
    elif self.language == "outputs" and len(args) in (1, 2) and not args[0].startswith("--"):
      self.fail(2, "an executing target (language outputs) runs programs in server mode only (--uopfuzz-serve)")
    elif len(args) == 1 and not args[0].startswith("--"): self.batch(args[0])
    elif len(args) == 2 and not args[0].startswith("--"): self.one(*args)
    else: self.fail(2, f"usage: {self.prog} PROGRAM_FILE FUNCTION_NAME | LIST_FILE | --uopfuzz-serve | --uopfuzz-describe")

  def fail(self, code, message):
    print(f"{self.prog}: {message}", file=sys.stderr)
    raise SystemExit(code)

  def read(self, path):
    try:
      with open(path, encoding="utf-8") as f: return f.read()
    except (OSError, UnicodeDecodeError) as e: self.fail(2, f"{path}: cannot read ({getattr(e, 'strerror', None) or e})")

  def one(self, path, function):
    """PROGRAM_FILE FUNCTION_NAME: the render on stdout; a program it cannot render is exit 1, bad input exit 2."""
    try: program = parse_program(self.read(path), path)
    except UopSyntaxError as e: self.fail(2, str(e))
    if not re.fullmatch(r"[A-Za-z_]\w*", function): self.fail(2, f"bad FUNCTION_NAME {function!r}")
    source, error, _ = self.render_program(program, function)
    if error is not None: self.fail(1, error)
    sys.stdout.flush()
    sys.stdout.buffer.write(as_bytes(source))  # bytes as they are: machine code is no text
    sys.stdout.buffer.flush()

  def batch(self, list_file):
    """LIST_FILE: for each line `K.uop FUNCTION K.c K.err`, K.c (the render, raw bytes) or K.err beside the list."""
    base = os.path.dirname(os.path.abspath(list_file))
    for line in self.read(list_file).splitlines():
      if not line.strip(): continue
      words = line.split()
      if len(words) != 4: self.fail(2, f"{list_file}: expected 'K.uop FUNCTION_NAME K.c K.err', got {line!r}")
      program, function, c_file, err_file = (os.path.join(base, w) if i != 1 else w for i, w in enumerate(words))
      try:
        with open(program, encoding="utf-8") as f: text = f.read()
        source, error, _ = self.render_text(text, function, program)
      except (OSError, UnicodeDecodeError) as e: source, error = None, f"{program}: cannot read ({e})"
      with open(c_file if error is None else err_file, "wb") as out: out.write(as_bytes(source if error is None else error))

  def serve(self, requests, replies):
    """--uopfuzz-serve: one JSON request a line in, one JSON reply a line out, until end of input. The
    render's own prints go to stderr, so stdout carries replies only."""
    sys.stdout = sys.stderr
    try:
      for line in requests:
        if line.strip(): replies.write(json.dumps(self.answer(line)) + "\n")
        replies.flush()
    finally:
      sys.stdout = replies

  def answer(self, line):
    """The reply to one request line: `render` (with `off`, the switches to switch off), `export`, or `run`."""
    try: request = json.loads(line)
    except ValueError as e: return {"id": None, "error": f"bad request: not JSON ({e})"}
    request = request if isinstance(request, dict) else {}
    kind = request.get("kind")
    handlers = {"render": self.answer_render, "export": self.answer_export, "run": self.answer_run, "reach": self.answer_reach}
    takes_function = kind in ("render", "run")
    if kind not in handlers or not isinstance(request.get("program"), str) or (takes_function and not isinstance(request.get("function"), str)):
      reply = {"error": "bad request: expected {\"id\", \"kind\": \"render\", \"function\", \"program\"}, an export, a run or a reach"}
    elif takes_function and (kind == "run") != (self.language == "outputs"):
      reply = {"error": f"bad request: a {kind} request to a plug-in of language {self.language}"}
    else:
      reply = handlers[kind](request)
    return {"id": request.get("id"), **reply}

  def bad_off(self, off):
    """Why a request's `off` cannot be taken, or None."""
    if not isinstance(off, list) or not all(isinstance(n, str) for n in off): return "bad request: 'off' must be a list of strings"
    if off and self.switches is None: return "bad request: 'off' given, but this plug-in has no switches"
    unknown = next((n for n in off if n not in self.switch_list()), None) if off else None
    return None if unknown is None else f"unknown switch {unknown}"

  def answer_export(self, request):
    fmt = request.get("format")
    if not isinstance(fmt, str) or fmt not in self.exports:
      return {"error": f"unknown export format {fmt!r} (this plug-in exports {', '.join(sorted(self.exports)) or 'nothing'})"}
    try: source, error = self.call(self.exports[fmt], parse_program(request["program"]))
    except UopSyntaxError as e: source, error = None, str(e)
    return {"source": source} if error is None else {"error": error}

  def answer_reach(self, request):
    if self.reach is None: return {"error": "bad request: this plug-in has no `reach` (its handshake names none)"}
    try: out, error = self.call(self.reach, parse_program(request["program"]))
    except UopSyntaxError as e: out, error = None, str(e)
    if error is not None: return {"error": error}
    level, detail = out
    if level not in (self.reach_level, "kernel") or not isinstance(detail, str) or "\n" in detail:
      return {"error": f"{self.prog}: reach returned {out!r}, not ({self.reach_level!r} or 'kernel', one line)"}
    return {"reachable": level, "detail": detail}

  def answer_render(self, request):
    off = request.get("off") or []
    error = self.bad_off(off)
    source, error, keys = (None, error, {}) if error else self.render_text(request["program"], request["function"], off=off)
    if error is not None: return error_reply(error)
    if not isinstance(source, str): source = base64.b64encode(bytes(source)).decode("ascii")  # x86-64 machine code
    return {"source": source, **keys}

  def answer_run(self, request):
    off, function = request.get("off") or [], request["function"]
    error = self.bad_off(off) or (None if re.fullmatch(r"[A-Za-z_]\w*", function) else f"bad FUNCTION_NAME {function!r}")
    if error: return {"error": error}
    try:
      program = parse_program(request["program"])
      inputs = decode_inputs(request.get("inputs"), buffer_sizes(program))
    except UopSyntaxError as e: return {"error": str(e)}
    except ValueError as e: return {"error": f"bad request: {e}"}
    out, error = self.call(self.run, program, function, inputs, **self.off_arg(off))
    if error is not None: return error_reply(error)
    outputs = out.outputs if isinstance(out, Ran) else out
    try: return {"outputs": encode_outputs(outputs, len(inputs), buffer_sizes(program)), **reply_lists(out)}
    except ValueError as e: return {"error": f"{self.prog}: {e}"}  # a wrong return is this program's error, not garbage


def as_bytes(text_or_bytes):
  return text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)

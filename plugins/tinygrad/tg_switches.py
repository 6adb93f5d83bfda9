# tg_switches.py: the tinygrad adapter's switches, tinygrad's rewrite rules, each of which a render can
# switch off (README.md, "Switches"), shared by its backends; and the one place a backend's render or
# run is called, with the rules switched off and the errors said as the protocol wants them.
import functools
import gc
import linecache
import os
import re
import types

import tinygrad
from tinygrad.uop.ops import PatternMatcher
import tinygrad.uop.ops as tg_ops
import tinygrad.uop.upat as tg_upat
from uopfuzz_plugin import RenderError, parse_program, raised_at
from tg_uops import Unsupported
import tg_beam

# ---- switches: tinygrad's rewrite rules, each of which a render can switch off ------------------------
# A rule is a (UPat, function) of a PatternMatcher, named FILE:LINE of its function (FILE relative to the
# tinygrad package; `#2`, `#3` for the second and third function that starts on that line). tinygrad turns
# each rule into a matcher lazily, on its first use (upat_compile, or upat_interpret when it cannot
# compile it), cached per (UPat, function); every copy of a rule (PatternMatchers added with `+` share
# them) calls a copy of the function it makes from the function's code. hook() wraps that call in each
# matcher made: while the rule is in OFF it does not match, and when it returns a rewrite it joins USED.
# The cost is one call a matched pattern, nothing per pattern tried.
OFF, USED = frozenset(), set()  # of the render under way: the rules switched off, the rules that fired
ROOT = os.path.dirname(os.path.abspath(tinygrad.__file__))
# Not switches: the UPat compiler's rules (one off would miscompile the matchers it caches for good), the
# verifier's (they check, not rewrite), and the backend's own text or instructions (its EXCLUDED matchers: without
# one an op has no C, no LLVM IR, no instruction at all).
NOT_RULE_FILES = {os.path.join(ROOT, "uop", "upat.py"), os.path.join(ROOT, "uop", "spec.py")}
NOT_RULES = set()
BACKEND = None  # the backend module (backend_*.py) of this process
NAME_KEYS = {}  # switch name -> (file, line, rank): the handshake's order
FIRED = None  # a collections.Counter that counts every firing, across renders (tools/tinygrad-peer-coverage), or None
ENV_OFF = "UOPFUZZ_TINYGRAD_OFF"  # NAME,NAME: switched off in every render, whatever the mode
WARMUP = "uops 1\n%0 = BUFFER f32[2] slot=0\n%1 = CONST i32 1\n%2 = INDEX f32 %0 %1\n%3 = LOAD f32 %2\n%4 = ADD f32 %3 %3\n%5 = STORE void %2 %4\n%6 = SINK void %5\n"


def body_start(code):
  """Where the code's body starts, (line, column): the order of functions that start on one line."""
  spans = [(l, c) for l, el, c, ec in code.co_positions() if None not in (l, c, el, ec) and (el, ec) > (l, c)]  # not RESUME's (l, l, 0, 0)
  return min(spans, default=(code.co_firstlineno, 0))


@functools.lru_cache(None)
def starts_in(file):
  """{line: [body_start of each function starting there, in order]} of a source file, from its code."""
  out = {}
  def walk(code):
    for c in (c for c in code.co_consts if isinstance(c, types.CodeType)):
      out.setdefault(c.co_firstlineno, []).append(body_start(c))
      walk(c)
  with open(file, encoding="utf-8") as f: walk(compile(f.read(), file, "exec"))
  return {line: sorted(keys) for line, keys in out.items()}


@functools.lru_cache(None)
def rule_name(code):
  rel, line, rank = os.path.relpath(code.co_filename, ROOT), code.co_firstlineno, 1
  if linecache.getline(code.co_filename, line).count("lambda") > 1:  # the file is compiled only for such lines
    starts = starts_in(code.co_filename).get(line, [])
    rank = starts.index(body_start(code)) + 1 if body_start(code) in starts else 1
  name = f"{rel}:{line}" + (f"#{rank}" if rank > 1 else "")
  NAME_KEYS[name] = (rel, line, rank)
  return name


def is_rule(fn):
  return isinstance(fn, types.FunctionType) and not hasattr(fn, "uopfuzz_rule") and fn.__code__ not in NOT_RULES \
    and os.path.abspath(fn.__code__.co_filename) not in NOT_RULE_FILES


def gate(real):
  name = rule_name(real.__code__)
  def gated_rule(*args, **kwargs):
    if name in OFF: return None
    ret = real(*args, **kwargs)
    if ret is not None:
      USED.add(name)
      if FIRED is not None: FIRED[name] += 1
    return ret
  gated_rule.uopfuzz_rule = name
  return gated_rule


def hook(match):
  """A matcher tinygrad made for a rule, its call of the rule's function gated: compiled_match finds it in
  its globals (`_fxn`), universal_match in its closure."""
  if getattr(match, "__name__", None) == "compiled_match" and is_rule(match.__globals__.get("_fxn")):
    match.__globals__["_fxn"] = gate(match.__globals__["_fxn"])
  elif getattr(match, "__name__", None) == "universal_match":
    for cell in match.__closure__ or ():
      if is_rule(getattr(cell, "cell_contents", None)): cell.cell_contents = gate(cell.cell_contents)
  return match


def matchers(): return [o for o in gc.get_objects() if isinstance(o, PatternMatcher)]


def install_hooks():
  """Every matcher made from now on is hooked (lazy_compile looks both functions up at its call), and every
  one already made."""
  compile_rule, interpret_rule = tg_upat.upat_compile, tg_ops.upat_interpret
  tg_upat.upat_compile = lambda p, fxn: hook(compile_rule(p, fxn))
  tg_ops.upat_interpret = lambda p, fxn: hook(interpret_rule(p, fxn))
  for pm in matchers():
    for entries in pm.pdict.values():
      for entry in entries: hook(entry[1])


def setup(backend):
  """The backend of this process: its own matchers are not switches, and the hooks go in."""
  global BACKEND
  BACKEND = backend
  NOT_RULES.update(f.__code__ for pm in backend.EXCLUDED for _, f in pm.patterns)
  install_hooks()


@functools.lru_cache(None)
def switches():
  """The rules of every PatternMatcher alive once a kernel is lowered (tinygrad makes some on first use):
  the backend's pipeline's, and some of the rest of tinygrad that never fire here."""
  width, tg_beam.WIDTH = tg_beam.WIDTH, 0  # no BEAM: it opens the device, whose other renderers' matchers would count
  try: with_off(BACKEND.lower_program, parse_program(WARMUP), "warmup", ())
  finally: tg_beam.WIDTH = width
  codes = {f.__code__ for pm in matchers() for _, f in pm.patterns if is_rule(f)}
  return sorted({rule_name(c) for c in codes}, key=NAME_KEYS.get)


# Not reachable from a kernel (the coverage denominator, `reachable`, leaves them out): the rules of
# tinygrad's front end (Tensor, movement ops, functions), its scheduler and its realize engine, which rewrite
# graphs of tensors before there is a kernel; the UOp pretty-printer's (uop/render.py: debug text, no code);
# and the AMD tensor cores' WMMA validation (codegen/opt/tc.py), which no CPU kernel of ours has. A prefix
# ending in / is a directory. The agreed "kernel-pipeline set" (bench/RESULTS.md, target coverage).
NOT_KERNEL = ("schedule/", "engine/", "tensor.py", "function.py", "uop/movement.py", "uop/render.py", "codegen/opt/tc.py")


def switch_file(name): return name.rsplit(":", 1)[0]


def in_kernel(name):
  """Whether a switch is a rule of the kernel pipeline, one a generated kernel can reach (not NOT_KERNEL's)."""
  f = switch_file(name)
  return not any(f.startswith(p) if p.endswith("/") else f == p for p in NOT_KERNEL)


def reachable():
  """The switches a generated kernel can reach: the handshake's `reachable`."""
  return [n for n in switches() if in_kernel(n)]


def switch_source():
  """{switch: the first line of its rule's source, stripped, at most 160 characters}: the handshake's `switch_source`."""
  out = {}
  for name in switches():
    rel, line, _ = NAME_KEYS[name]
    text = linecache.getline(os.path.join(ROOT, rel), line).strip()
    out[name] = text[:157] + "..." if len(text) > 160 else text
  return out


def switched(fn, program, fname, off=()):
  """fn(program, fname) with the rules in off (and UOPFUZZ_TINYGRAD_OFF's) switched off: (its value, the
  rules that fired). What the adapter cannot express is the render error `unsupported: ...`, anything
  tinygrad raises `tinygrad failed: ...` (a finding)."""
  env = [n.strip() for n in os.environ.get(ENV_OFF, "").split(",") if n.strip()]
  unknown = [n for n in env if n not in switches()] if env else []
  if unknown: raise RenderError(f"{ENV_OFF}: unknown switch {unknown[0]} (the handshake, --uopfuzz-describe, lists them)")
  return with_off(fn, program, fname, {*off, *env})


def failure_bucket(e):
  """Where tinygrad raised e, as FILE:LINE of its package (one bucket per cause, not one for every render
  error); its verifier raises for any op at one line, so a verification failure names the op too."""
  op = re.search(r"verification failed at \d+ on Ops\.(\w+)", str(e))
  return raised_at(e, ROOT) + (f" on {op.group(1)}" if op else "")


def with_off(fn, program, fname, off):
  global OFF
  OFF = frozenset(off)
  USED.clear()
  try: value = fn(program, fname)
  except Unsupported as e: raise RenderError(f"unsupported: {e}") from None
  except Exception as e:  # tinygrad's pipeline rejected or crashed on the program: a render error (a finding),
    # with the rules that fired before it: the only ones whose switching off can change it
    raise RenderError(f"tinygrad failed: {type(e).__name__}: {e}", failure_bucket(e), sorted(USED, key=NAME_KEYS.get)) from e
  finally: OFF = frozenset()
  return value, sorted(USED, key=NAME_KEYS.get)

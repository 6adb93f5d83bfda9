#!/usr/bin/env python3
# uopfuzz_tinygrad.py: a renderer plug-in (docs/format.md, section 5; protocol 2 on the SDK,
# plugins/uopfuzz_plugin.py) that compiles the program with tinygrad. It builds the program as tinygrad
# UOps (our op names are tinygrad's), runs tinygrad's own pipeline for its CPU target (to_program: symbolic
# rewrites, constant folding, decompositions, linearizer, ClangRenderer) and returns the C tinygrad
# renders, wrapped into uopfuzz's calling convention. In server mode tinygrad is imported once per
# process. What tinygrad cannot take from our IR is a render error; its handshake gives uopfuzz the
# --without set that keeps such programs out. Its switches are tinygrad's rewrite rules (a render can switch
# them off, and says which fired), and it exports a program as a standalone tinygrad test. See README.md.
import functools
import gc
import linecache
import os
import platform
import re
import subprocess
import sys
import types

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from uopfuzz_plugin import DTYPES, Plugin, Rendered, RenderError, parse_program  # noqa: E402

try:
  import tinygrad
  from tinygrad.codegen import full_rewrite_to_sink, pm_to_program
  from tinygrad.uop.ops import PatternMatcher, ProgramInfo, graph_rewrite
  from tinygrad.dtype import AddrSpace, dtypes
  from tinygrad.helpers import Target
  from tinygrad.uop.render import pyrender
  from tinygrad.renderer.cstyle import ClangRenderer
  from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp
  import tinygrad.uop.ops as tg_ops
  import tinygrad.uop.upat as tg_upat
except ImportError as e:  # a setup problem, not a finding
  print(f"uopfuzz_tinygrad: cannot import tinygrad ({e}); put a tinygrad checkout on PYTHONPATH", file=sys.stderr)
  sys.exit(2)


class Unsupported(Exception):
  """Our IR has something tinygrad (or this adapter) cannot express: a render error."""


# Our float dtypes by tinygrad's names (integers and bool map by kind and size). The rest, the fp8s, are
# not in tinygrad's ClangRenderer (its supported_dtypes() drops dtypes.fp8s).
FLOATS = {"f16": "half", "f32": "float32", "f64": "float64", "bf16": "bfloat16"}
# The C type of a BUFFER parameter where it is not dtypes.def's: tinygrad's C declares f16 as __fp16.
PARAM_CTYPES = {"bool": "_Bool", "f16": "uint16_t"}
# tinygrad makes MULACC itself, late and only for a renderer that has it; ClangRenderer has not, and a
# MULACC given to its pipeline is not decomposed (KeyError in the renderer).
UNSUPPORTED_OPS = {"MULACC": "pass --without mulacc", "GEP": "vectors; pass --without vector",
                   "STACK": "vectors; pass --without vector"}
RENAMED = {"RECIP": "RECIPROCAL"}
EDGES = {"FLOORDIV", "CDIV", "FLOORMOD", "CMOD", "SHL", "SHR"}
# The handshake's --without set (README.md, "What to pass"): what the adapter cannot map (vectors, MULACC,
# the fp8s), what tinygrad computes inexactly by design (SIN, LOG2, POW), and bf16, which clang <= 16 lacks.
WITHOUT = ["vector", "mulacc", "sin", "log2", "pow", "bf16"] + [
  name for name, d in DTYPES.items() if d.is_float and name not in FLOATS]


def tinygrad_dtype(dt, where):
  if dt.is_vector: raise Unsupported(f"{where}: vector dtype {dt.name} (pass --without vector)")
  bits = dt.itemsize * 8
  name = {"B": "bool", "S": f"int{bits}", "U": f"uint{bits}"}.get(dt.kind) or FLOATS.get(dt.name)
  if name is None: raise Unsupported(f"{where}: dtype {dt.name} (tinygrad's ClangRenderer has no {dt.name})")
  return getattr(dtypes, name)


def tinygrad_version():
  """The tinygrad commit (its checkout's git HEAD, or the one a snapshot's README names), else __version__."""
  root = os.path.dirname(os.path.dirname(os.path.abspath(tinygrad.__file__)))
  try:
    head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    if head.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", head.stdout.strip()): return head.stdout.strip()[:12]
  except (OSError, subprocess.SubprocessError): pass
  try:
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f: m = re.search(r"\b[0-9a-f]{40}\b", f.read())
    if m: return m[0][:12]
  except OSError: pass
  return str(getattr(tinygrad, "__version__", "unknown"))


def edges(op, dt, a, b):
  """Integer division and shifts with the meaning our IR gives their edge cases (docs/semantics.md, after
  tinygrad's exec_alu): b = 0 divides to 0 and leaves a as the remainder, MIN / -1 is MIN, a shift by N or
  more bits gives 0 (or -1, a negative a shifted right). In tinygrad's C these are undefined behaviour, so
  they are made explicit; a constant divisor or shift amount that needs none of it stays as it is."""
  def alu(o, *x): return UOp(o, dt, x)
  signed = not dtypes.is_unsigned(dt) and dt != dtypes.bool
  bits = dt.itemsize * 8
  if op in ("SHL", "SHR"):
    if b.op is Ops.CONST and b.arg < bits: return alu(getattr(Ops, op), a, b)
    big = UOp(Ops.CMPLT, dtypes.bool, (UOp.const(bits - 1, dt), b))
    r = alu(getattr(Ops, op), a, big.where(UOp.const(0, dt), b))
    out = UOp(Ops.CMPLT, dtypes.bool, (a, UOp.const(0, dt))).where(UOp.const(-1, dt), UOp.const(0, dt)) if op == "SHR" and signed else UOp.const(0, dt)
    return big.where(out, r)
  o = getattr(Ops, op)
  if b.op is Ops.CONST and b.arg != 0 and not (signed and b.arg == -1): return alu(o, a, b)
  zero = UOp(Ops.CMPEQ, dtypes.bool, (b, UOp.const(0, dt)))
  minus1 = UOp(Ops.CMPEQ, dtypes.bool, (b, UOp.const(-1, dt))) if signed else UOp.const(False, dtypes.bool)
  if op in ("FLOORDIV", "CDIV"):  # MIN / -1 divides by 1 instead
    is_min = UOp(Ops.CMPEQ, dtypes.bool, (a, UOp.const(dt.min, dt))) if signed else UOp.const(False, dtypes.bool)
    safe = UOp(Ops.OR, dtypes.bool, (zero, UOp(Ops.AND, dtypes.bool, (minus1, is_min)))).where(UOp.const(1, dt), b)
    return zero.where(UOp.const(0, dt), alu(o, a, safe))
  safe = UOp(Ops.OR, dtypes.bool, (zero, minus1)).where(UOp.const(1, dt), b)  # x mod -1 is 0, as x mod 1
  return zero.where(a, alu(o, a, safe))


def float_to_int(x, dt):
  """CAST float -> int as exec_alu does it: truncate, then wrap to the dtype. C (tinygrad's renderer casts
  directly) leaves a value outside the dtype undefined, a negative one to an unsigned dtype included, so
  the cast goes through i64, exact for |x| < 2^63; beyond that the gap stays (docs/findings.md)."""
  if dt == dtypes.int64: return x.cast(dt)
  wide = x.cast(dtypes.int64).cast(dt)
  if dt != dtypes.uint64: return wide
  return UOp(Ops.CMPLT, dtypes.bool, (x, UOp.const(0.0, x.dtype))).where(wide, x.cast(dt))


def gated(addr, gate):
  """INDEX(buf, i) (or an AFTER of it) with the index valid only where gate is true."""
  if addr.op is Ops.AFTER: return gated(addr.src[0], gate).after(*addr.src[1:])
  if addr.op is not Ops.INDEX: raise Unsupported(f"gated access through {addr.op}")
  return addr.src[0].index(addr.src[1].valid(gate))


def merge_ends(sink):
  """Our IR may close one RANGE by several ENDs (one per effect); tinygrad's linearizer needs one END per
  RANGE (its own reductions merge theirs the same way, merge_reduce_ends): independent ENDs of the same
  RANGEs become one END of a GROUP."""
  ends = {}
  for x in sink.toposort():
    if x.op is Ops.END: ends.setdefault(x.src[1:], []).append(x)
  subs = {}
  for rs, es in ends.items():
    if len(es) < 2: continue
    if any(a in b.backward_slice for a in es for b in es if a is not b):
      raise Unsupported("a RANGE closed by two ENDs, one ordered after the other (tinygrad closes a RANGE once)")
    merged = UOp.group(*(e.src[0] for e in es)).end(*rs)
    subs.update({e: merged for e in es})
  return sink.substitute(subs) if subs else sink


def render(sink):
  """tinygrad's to_program for its CPU target, stopped before it runs clang itself."""
  arch = {"x86_64": "x86_64,x86-64", "aarch64": "arm64,generic", "arm64": "arm64,generic"}.get(platform.machine(), "")
  if not arch: raise Unsupported(f"no tinygrad CPU target for machine {platform.machine()}")
  ren = ClangRenderer(Target(device="CPU", arch=arch))
  full = full_rewrite_to_sink(merge_ends(sink), ren, optimize=True)
  prg = UOp(Ops.PROGRAM, src=(full,), arg=ProgramInfo.from_sink(full, ren.target))
  no_compile = PatternMatcher([p for p in pm_to_program.patterns if p[1].__name__ != "do_compile"])
  prg = graph_rewrite(prg, no_compile, ctx=ren, name="linearize/render")
  return next(s.arg for s in prg.src if s.op is Ops.SOURCE)


def build(program, fname):
  """The program's nodes as tinygrad UOps: (sink, [(slot, c type) of every BUFFER])."""
  u, stored = {}, {}
  buffers = [(b.slot, PARAM_CTYPES.get(b.dtype.name, b.dtype.ctype)) for b in program.buffers]
  for n in program.nodes:
    where, op = f"line {n.line}", n.op.name
    srcs = [u[s.id] for s in n.sources]
    if op in ("BUFFER", "ALLOC"):
      dt = tinygrad_dtype(n.dtype, where)
      # ALLOC is kernel-local memory: tinygrad's register BUFFER (what its own accumulators are)
      u[n.id] = UOp.param(n.slot, dt, (n.length,)) if op == "BUFFER" else UOp.placeholder((n.length,), dt, n.slot, AddrSpace.REG)
      continue
    dt = None if n.dtype.is_void else tinygrad_dtype(n.dtype, where)
    if op == "CONST": u[n.id] = UOp.const(n.arg, dt)
    elif op == "INDEX": u[n.id] = srcs[0].index(srcs[1])
    elif op == "LOAD":
      # gated, tinygrad's way: the gate is the validity of the index, an invalid load gives 0, so the alt
      # comes in through a WHERE
      u[n.id] = srcs[0].load() if len(srcs) == 1 else srcs[2].where(gated(srcs[0], srcs[2]).load(), srcs[1])
    elif op == "STORE":
      addr = srcs[0]
      # tinygrad's memory coalescing keys stores by memory and index, and asserts one STORE per global
      # element a kernel ("attempting multiple stores"); ours may write one element again, ordered by a
      # data path. A later store to a BUFFER goes through AFTER(buffer, the previous store to it), so
      # each store has a key of its own (an order our IR allows: a later store to the same BUFFER).
      base = addr.src[0].without_after if addr.op is Ops.INDEX else None
      if base is not None and base.op is Ops.PARAM:
        prev = stored.get(base)
        if prev is not None and not prev.ranges: addr = addr.src[0].after(prev).index(*addr.src[1:])
      u[n.id] = (addr if len(srcs) == 2 else gated(addr, srcs[2])).store(srcs[1])
      if base is not None and base.op is Ops.PARAM: stored[base] = u[n.id]
    elif op == "AFTER":
      # tinygrad orders the memory, not an address: AFTER(INDEX(m, i), deps) is INDEX(AFTER(m, deps), i)
      a = srcs[0]
      u[n.id] = a.src[0].after(*srcs[1:]).index(*a.src[1:]) if a.op is Ops.INDEX else a.after(*srcs[1:])
    elif op == "RANGE": u[n.id] = UOp.range(srcs[0], n.arg, AxisType.LOOP, dtype=dt)
    elif op == "END": u[n.id] = srcs[0].end(*srcs[1:])
    elif op == "SINK": return UOp.sink(*srcs, arg=KernelInfo(name=fname)), buffers
    elif op == "CAST": u[n.id] = float_to_int(srcs[0], dt) if dtypes.is_float(srcs[0].dtype) and dtypes.is_int(dt) else srcs[0].cast(dt)
    elif op == "BITCAST": u[n.id] = srcs[0].bitcast(dt)
    elif op in EDGES: u[n.id] = edges(op, dt, *srcs)
    elif op in UNSUPPORTED_OPS: raise Unsupported(f"{where}: {op} ({UNSUPPORTED_OPS[op]})")
    elif n.op.is_alu and hasattr(Ops, RENAMED.get(op, op)): u[n.id] = UOp(getattr(Ops, RENAMED.get(op, op)), dt, tuple(srcs))
    else: raise Unsupported(f"{where}: {op} (not mapped to tinygrad)")
  raise Unsupported("no SINK")


def wrap(source, fname, buffers):
  """tinygrad's translation unit with its kernel made static, and FUNCTION_NAME(p0, p1, ...) calling it."""
  inner = f"tg_{fname}"
  sig = re.search(r"\bvoid\s+" + re.escape(fname) + r"\s*\(([^)]*)\)", source)
  if not sig: raise Unsupported(f"tinygrad's C has no function {fname}:\n{source}")
  source = source[:sig.start()] + f"static void {inner}({sig[1]})" + source[sig.end():]
  order = [int(s) for s in re.findall(r"\bdata(\d+)_\d+\b", sig[1])]  # tinygrad names a PARAM data{slot}_{len}
  by_slot = {slot: i for i, (slot, _) in enumerate(sorted(buffers))}
  params = ", ".join(f"{ct}* p{i}" for i, (_, ct) in enumerate(sorted(buffers))) or "void"
  call = ", ".join(f"(void*)p{by_slot[s]}" for s in order)
  return f"#include <stdint.h>\n{source}\nvoid {fname}({params}) {{ {inner}({call}); }}\n"


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
# verifier's (they check, not rewrite), and ClangRenderer's C text (without one an op has no C at all).
NOT_RULE_FILES = {os.path.join(ROOT, "uop", "upat.py"), os.path.join(ROOT, "uop", "spec.py")}
NOT_RULES = {f.__code__ for _, f in ClangRenderer.string_rewrite.patterns}
NAME_KEYS = {}  # switch name -> (file, line, rank): the handshake's order
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
    if ret is not None: USED.add(name)
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


@functools.lru_cache(None)
def switches():
  """The rules of every PatternMatcher alive once a kernel is rendered (tinygrad makes some on first use):
  the CPU pipeline's, and some of the rest of tinygrad that never fire here."""
  render_with(parse_program(WARMUP), "warmup", ())
  codes = {f.__code__ for pm in matchers() for _, f in pm.patterns if is_rule(f)}
  return sorted({rule_name(c) for c in codes}, key=NAME_KEYS.get)


def render_program(program, fname, off=frozenset()):
  env = [n.strip() for n in os.environ.get(ENV_OFF, "").split(",") if n.strip()]
  unknown = [n for n in env if n not in switches()] if env else []
  if unknown: raise RenderError(f"{ENV_OFF}: unknown switch {unknown[0]} (the handshake, --uopfuzz-describe, lists them)")
  return render_with(program, fname, {*off, *env})


def render_with(program, fname, off):
  global OFF
  OFF = frozenset(off)
  USED.clear()
  try:
    sink, buffers = build(program, fname)
    source = wrap(render(sink), fname, buffers)
  except Unsupported as e: raise RenderError(f"unsupported: {e}") from None
  except Exception as e:  # tinygrad's pipeline rejected or crashed on the program: a render error (a finding)
    raise RenderError(f"tinygrad failed: {type(e).__name__}: {e}") from e
  finally: OFF = frozenset()
  return Rendered(source, sorted(USED, key=NAME_KEYS.get))


# ---- export: a standalone tinygrad test -------------------------------------------------------------
# The program as a unittest in the style of tinygrad's test/test_uops.py that needs only tinygrad: the
# UOps the adapter gives tinygrad's pipeline (as tinygrad's own pyrender writes them), compiled and run on
# the CPU device by tinygrad (to_program, get_runtime), every BUFFER compared with the program's expect
# lines (exec_alu's values). For an open finding it fails.
TEST_IMPORTS = """import math, struct, unittest
from tinygrad import Device
from tinygrad.codegen import to_program
from tinygrad.device import Buffer
from tinygrad.dtype import AddrSpace, ConstFloat, Invalid, dtypes
from tinygrad.engine.realize import get_runtime
from tinygrad.renderer.cstyle import ClangRenderer
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, ParamArg, UOp
inf, nan = math.inf, math.nan
"""
TEST_BODY = """


def same(fmt, got, want):
  \"\"\"Bit for bit, but any NaN equals any NaN (and any byte but 0 is a true bool, as struct reads it).\"\"\"
  if isinstance(got, float) and math.isnan(got) and math.isnan(want): return True
  return struct.pack("<" + fmt, got) == struct.pack("<" + fmt, want)


class TestUopfuzzFinding(unittest.TestCase):
  def test_kernel(self):
    renderer = Device["CPU"].renderer
    self.assertIsInstance(renderer, ClangRenderer, "found with the CPU device's C renderer: run with DEV=CPU:CLANG")
    bufs = {slot: Buffer("CPU", len(data), dt, initial_value=struct.pack(f"<{len(data)}{dt.fmt}", *data)) for slot, (dt, data, _) in BUFFERS.items()}
    prg = to_program(kernel(), renderer)
    global_size, local_size = prg.arg.launch_dims({})
    # the buffers in the order the kernel's C function takes them: its LINEAR's PARAMs (as to_elf's signature lists them).
    # NOTE: exec_kernel passes them in prg.arg.globals order (by slot), not always the same (a zero-trip RANGE reorders them)
    params = [u.arg.slot for u in next(s for s in prg.src if s.op is Ops.LINEAR).src if u.op is Ops.PARAM and u.addrspace != AddrSpace.ALU]
    get_runtime("CPU", prg)(*[bufs[slot].ensure_allocated()._buf for slot in params], global_size=global_size, local_size=local_size,
                            vals=prg.arg.vals({}))
    wrong = []
    for i, (slot, (dt, _, want)) in enumerate(sorted(BUFFERS.items())):
      got = [v for (v,) in struct.iter_unpack("<" + dt.fmt, bytes(bufs[slot].as_memoryview()))]
      wrong += [f"p{i}[{k}] = {g} expected {w}" for k, (g, w) in enumerate(zip(got, want or got)) if not same(dt.fmt, g, w)]
    if wrong: self.fail("\\n".join(wrong[:20] + [f"({len(wrong)} elements differ)"] * (len(wrong) > 20)))


if __name__ == "__main__":
  unittest.main()
"""


def explicit_uops(sink):
  """The graph as UOp(op, dtype, src, arg) lines, should pyrender's not give back the same graph."""
  names, lines = {}, []
  for k, u in enumerate(sink.toposort()):
    names[u] = "ast" if u is sink else f"u{k}"
    tag = f", {u.tag!r}" if u.tag is not None else ""
    lines.append(f"{names[u]} = UOp({u.op}, {u.dtype}, ({''.join(names[x] + ', ' for x in u.src)}), {u.arg!r}{tag})")
  return "\n".join(lines)


def export_tinygrad(program):
  try: sink = merge_ends(build(program, "uopfuzz_kernel")[0])
  except Unsupported as e: raise RenderError(f"unsupported: {e}") from None
  for code in (pyrender(sink), explicit_uops(sink)):  # the first that builds this very graph (UOps are interned)
    scope = {}
    exec(TEST_IMPORTS + code, scope)
    if scope.get("ast") is sink: break
  else: raise RenderError("neither pyrender nor UOp(...) lines rebuild the graph")
  table = []
  for i, b in enumerate(program.buffers):
    dt = tinygrad_dtype(b.dtype, f"BUFFER p{i}")
    if not dt.fmt: raise RenderError(f"unsupported: BUFFER p{i} of {b.dtype.name}: Python's struct has no {dt!r}")
    data, want = program.data.get(b.slot, [0] * b.length), program.expect.get(b.slot)
    table.append(f"  {b.slot}: ({dt!r}, {data!r}, {want!r}),")
  found = [f"# {k}: {v}" for k, v in program.meta if k in ("tinygrad", "about", "signature", "status", "found", "seed")]
  return "\n".join([
    "# A tinygrad bug found by uopfuzz, the differential fuzzer of UOp code generators, as a standalone test in the",
    "# style of tinygrad's test/test_uops.py; it needs nothing but tinygrad. It builds the kernel's UOps as uopfuzz's",
    "# tinygrad adapter gives them to tinygrad, compiles and runs them on the CPU device with tinygrad's own pipeline",
    "# (to_program: the rewrites, the linearizer, ClangRenderer, clang) and compares every output element with exec_alu's",
    "# values (uopfuzz's reference; floats bit for bit, NaN equal to NaN). It fails while the bug is there.",
    "#   PYTHONPATH=/path/to/tinygrad python3 THIS_FILE.py",
    f"# exported with tinygrad {tinygrad_version()}" + (f", from {program.path}" if program.path else ""),
    *found, "# The program (uopfuzz's .uop):", *(f"#   {n!r}" for n in program.nodes),
    TEST_IMPORTS, "", "def kernel() -> UOp:", *(f"  {l}" for l in code.splitlines()), "  return ast", "",
    "", "# PARAM slot: (dtype, data, expected values after the kernel; None: not checked)", "BUFFERS = {", *table, "}",
  ]) + TEST_BODY


if __name__ == "__main__":
  # one_unit: a kernel is typedefs (the same text for the same vector type), a static kernel and its
  # uniquely named wrapper, so a batch of them compiles as one translation unit.
  install_hooks()
  Plugin(name="tinygrad", version=tinygrad_version, without=WITHOUT, render=render_program, one_unit=True, switches=switches,
         exports={"tinygrad": export_tinygrad}).main()

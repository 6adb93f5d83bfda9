#!/usr/bin/env python3
# uopfuzz_tinygrad.py PROGRAM_FILE FUNCTION_NAME: a --renderer-cmd plug-in (docs/format.md, section 5)
# that compiles the program with tinygrad. It builds the program as tinygrad UOps (our op names are
# tinygrad's), runs tinygrad's own pipeline for its CPU target (to_program: symbolic rewrites, constant
# folding, decompositions, linearizer, ClangRenderer) and prints the C tinygrad renders, wrapped into
# uopfuzz's calling convention. What tinygrad cannot take from our IR is a render error (exit 1, the
# reason on stderr); a program file it cannot read is exit 2. See README.md beside this file.
import os
import platform
import re
import sys
import traceback

USAGE = "usage: uopfuzz_tinygrad.py PROGRAM_FILE FUNCTION_NAME"


class Unsupported(Exception):
  """Our IR has something tinygrad (or this adapter) cannot express: a render error."""


def fail(code, msg):
  print(f"uopfuzz_tinygrad: {msg}", file=sys.stderr)
  sys.exit(code)


try:
  from tinygrad.codegen import full_rewrite_to_sink, pm_to_program
  from tinygrad.uop.ops import PatternMatcher, ProgramInfo, graph_rewrite
  from tinygrad.dtype import AddrSpace, dtypes
  from tinygrad.helpers import Target
  from tinygrad.renderer.cstyle import ClangRenderer
  from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp
except ImportError as e:  # a setup problem, not a finding
  fail(2, f"cannot import tinygrad ({e}); put a tinygrad checkout on PYTHONPATH")

# Our dtype names -> tinygrad's, and the C type of a parameter in uopfuzz's calling convention.
DTYPES = {"bool": (dtypes.bool, "_Bool"), "i8": (dtypes.int8, "int8_t"), "i16": (dtypes.int16, "int16_t"),
          "i32": (dtypes.int32, "int32_t"), "i64": (dtypes.int64, "int64_t"), "u8": (dtypes.uint8, "uint8_t"),
          "u16": (dtypes.uint16, "uint16_t"), "u32": (dtypes.uint32, "uint32_t"), "u64": (dtypes.uint64, "uint64_t"),
          "f16": (dtypes.half, "uint16_t"), "f32": (dtypes.float32, "float"), "f64": (dtypes.float64, "double"),
          "bf16": (dtypes.bfloat16, "uint16_t")}
# fp8: tinygrad's ClangRenderer does not support them (supported_dtypes() drops dtypes.fp8s).
UNSUPPORTED_DTYPES = {"fp8e4m3", "fp8e5m2", "fp8e4m3fnuz", "fp8e5m2fnuz"}
ALU = {"ADD", "SUB", "MUL", "MAX", "CMPLT", "CMPNE", "CMPEQ", "NEG", "AND", "OR", "XOR", "SHL", "SHR", "FLOORDIV",
       "FLOORMOD", "CDIV", "CMOD", "POW", "SQRT", "EXP2", "LOG2", "SIN", "TRUNC", "WHERE"}
# tinygrad makes MULACC itself, late and only for a renderer that has it; ClangRenderer has not, and a
# MULACC given to its pipeline is not decomposed (KeyError in the renderer).
UNSUPPORTED_OPS = {"MULACC": "pass --without mulacc", "GEP": "vectors; pass --without vector",
                   "STACK": "vectors; pass --without vector", "VECTORIZE": "vectors; pass --without vector"}
RENAMED = {"RECIP": "RECIPROCAL"}

NODE = re.compile(r"^%(\d+)\s*=\s*(\w+)\s+(\S+)\s*(.*)$")
MEMORY = re.compile(r"^(\w+)\[(\d+)\]\s+slot=(\d+)$")


def dtype_of(name, where):
  if name in UNSUPPORTED_DTYPES: raise Unsupported(f"{where}: dtype {name} (tinygrad's ClangRenderer has no fp8)")
  if re.fullmatch(r"\w+x\d+", name): raise Unsupported(f"{where}: vector dtype {name} (pass --without vector)")
  if name not in DTYPES: fail(2, f"{where}: unknown dtype {name}")
  return DTYPES[name][0]


def value(text, dt):
  t = text.lower()
  if dt == dtypes.bool: return t in ("true", "1")
  if dtypes.is_int(dt): return int(t)
  if t.startswith(("0x", "-0x", "+0x")): return float.fromhex(t)
  return float(t)  # accepts inf, -inf, nan


EDGES = {"FLOORDIV", "CDIV", "FLOORMOD", "CMOD", "SHL", "SHR"}


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


def build(lines, fname):
  """The program's nodes as tinygrad UOps: (sink, [(slot, c type) of every BUFFER])."""
  u, buffers, stored = {}, [], {}
  for no, line in lines:
    where = f"line {no}"
    m = NODE.match(line)
    if not m: fail(2, f"{where}: not a node: {line}")
    nid, op, dt_text, rest = int(m[1]), m[2], m[3], m[4].split()
    srcs = [u[int(w[1:])] for w in rest if w.startswith("%")]
    args = [w for w in rest if not w.startswith("%")]
    if op in ("BUFFER", "ALLOC"):
      mm = MEMORY.match(f"{dt_text} {' '.join(rest)}")
      if not mm: fail(2, f"{where}: bad {op}: {line}")
      dt, n, slot = dtype_of(mm[1], where), int(mm[2]), int(mm[3])
      if op == "BUFFER":
        u[nid] = UOp.param(slot, dt, (n,))
        buffers.append((slot, DTYPES[mm[1]][1]))
      else:  # kernel-local memory: tinygrad's register BUFFER (what its own accumulators are)
        u[nid] = UOp.placeholder((n,), dt, slot, AddrSpace.REG)
      continue
    dt = None if dt_text == "void" else dtype_of(dt_text, where)
    if op == "CONST": u[nid] = UOp.const(value(args[0], dt), dt)
    elif op == "INDEX": u[nid] = srcs[0].index(srcs[1])
    elif op == "LOAD":
      # gated, tinygrad's way: the gate is the validity of the index, an invalid load gives 0, so the alt
      # comes in through a WHERE
      u[nid] = srcs[0].load() if len(srcs) == 1 else srcs[2].where(gated(srcs[0], srcs[2]).load(), srcs[1])
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
      u[nid] = (addr if len(srcs) == 2 else gated(addr, srcs[2])).store(srcs[1])
      if base is not None and base.op is Ops.PARAM: stored[base] = u[nid]
    elif op == "AFTER":
      # tinygrad orders the memory, not an address: AFTER(INDEX(m, i), deps) is INDEX(AFTER(m, deps), i)
      a = srcs[0]
      u[nid] = a.src[0].after(*srcs[1:]).index(*a.src[1:]) if a.op is Ops.INDEX else a.after(*srcs[1:])
    elif op == "RANGE": u[nid] = UOp.range(srcs[0], int(args[0]), AxisType.LOOP, dtype=dt)
    elif op == "END": u[nid] = srcs[0].end(*srcs[1:])
    elif op == "SINK": u[nid] = UOp.sink(*srcs, arg=KernelInfo(name=fname))
    elif op == "CAST": u[nid] = float_to_int(srcs[0], dt) if dtypes.is_float(srcs[0].dtype) and dtypes.is_int(dt) else srcs[0].cast(dt)
    elif op == "BITCAST": u[nid] = srcs[0].bitcast(dt)
    elif op in EDGES: u[nid] = edges(op, dt, *srcs)
    elif op in ALU or op in RENAMED: u[nid] = UOp(getattr(Ops, RENAMED.get(op, op)), dt, tuple(srcs))
    elif op in UNSUPPORTED_OPS: raise Unsupported(f"{where}: {op} ({UNSUPPORTED_OPS[op]})")
    else: fail(2, f"{where}: unknown op {op}")
    if op == "SINK": return u[nid], buffers
  fail(2, "no SINK")


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


def main(argv):
  if len(argv) != 3: fail(2, USAGE)
  path, fname = argv[1], argv[2]
  if not re.fullmatch(r"[A-Za-z_]\w*", fname): fail(2, f"bad FUNCTION_NAME {fname!r}")
  try:
    with open(path, encoding="utf-8") as f: text = f.read()
  except OSError as e: fail(2, f"{path}: cannot read ({e.strerror})")
  lines = []
  for no, raw in enumerate(text.split("\n"), 1):
    line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("meta") else ""
    if line.startswith("%"): lines.append((no, line))
  try:
    sink, buffers = build(lines, fname)
    sys.stdout.write(wrap(render(sink), fname, buffers))
  except Unsupported as e: fail(1, f"unsupported: {e}")
  except Exception as e:  # tinygrad's pipeline rejected or crashed on the program: a render error (a finding)
    if os.environ.get("UOPFUZZ_TINYGRAD_TRACE"): traceback.print_exc()
    fail(1, f"tinygrad failed: {type(e).__name__}: {e}")


if __name__ == "__main__":
  main(sys.argv)

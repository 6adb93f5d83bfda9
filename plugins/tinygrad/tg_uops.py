# tg_uops.py: what every backend of the tinygrad adapter (uopfuzz_tinygrad.py) shares: a uopfuzz program
# built as tinygrad UOps (our op names are tinygrad's), and tinygrad's own to_program pipeline for a
# renderer, stopped before tinygrad compiles anything itself (uopfuzz does, or the emulator runs it).
import contextlib
import os
import platform
import re
import subprocess

import tinygrad
import tinygrad.codegen as tg_codegen
from tinygrad.codegen import do_to_program
from tinygrad.device import Compiler
from tinygrad.dtype import AddrSpace, dtypes
from tinygrad.helpers import EMULATED_DTYPES, Target
from tinygrad.uop import GroupOp
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp
from tg_opts import optimizing
from tg_params import buffer_params, dense, program_part, remember, threads  # noqa: F401  (program_part: tg_disasm imports it from here)
from tg_edges import edges, float_to_int
from tg_reduce import identity, reductions, users_of
from uopfuzz_plugin import DTYPES


class Unsupported(Exception):
  """Our IR has something tinygrad (or this adapter) cannot express: a render error."""


# Our float dtypes by tinygrad's names (integers and bool map by kind and size); which of them a backend
# takes is its renderer's supported_dtypes().
FLOATS = {"f16": "half", "f32": "float32", "f64": "float64", "bf16": "bfloat16", "fp8e4m3": "fp8e4m3",
          "fp8e5m2": "fp8e5m2", "fp8e4m3fnuz": "fp8e4m3fnuz", "fp8e5m2fnuz": "fp8e5m2fnuz"}
# Vectors: tinygrad has no vector dtypes any more (vectors are shapes).
UNSUPPORTED_OPS = {"GEP": "vectors; pass --without vector", "STACK": "vectors; pass --without vector"}
RENAMED = {"RECIP": "RECIPROCAL"}
EDGES = {"FLOORDIV", "CDIV", "FLOORMOD", "CMOD", "SHL", "SHR"}


def tg_dtype(name):
  """tinygrad's dtype for one of our scalar dtype names, or None."""
  d = DTYPES[name]
  bits = d.itemsize * 8
  tg = {"B": "bool", "S": f"int{bits}", "U": f"uint{bits}"}.get(d.kind) or FLOATS.get(d.name)
  return getattr(dtypes, tg, None) if tg else None


def cpu_target(renderer_name):
  """tinygrad's CPU device target for one of its renderers, for this machine, portable (no `native`)."""
  arch = {"x86_64": "x86_64,x86-64", "aarch64": "arm64,generic", "arm64": "arm64,generic"}.get(platform.machine(), "")
  if not arch: raise SystemExit(f"uopfuzz_tinygrad: no tinygrad CPU target for machine {platform.machine()}")
  return Target(device="CPU", renderer=renderer_name, arch=arch)


# The dtypes tinygrad's kernel pipeline can emulate (the ones its codegen/decomp/dtype.py pm_dtype_decomps
# detects), by the names its EMULATED_DTYPES takes: fp8 as half (as float without half), bf16 and half as
# float, long (i64 and u64) as two 32-bit words. It emulates one when EMULATED_DTYPES names it or the
# renderer lacks it; the adapter takes one (--emulate) only when EMULATED_DTYPES names it.
EMULABLE = ("long", "half", "bfloat16", "fp8e4m3", "fp8e5m2", "fp8e4m3fnuz", "fp8e5m2fnuz")


def emulated():
  """The dtypes the adapter's --emulate (tinygrad's EMULATED_DTYPES) names, u64 with long."""
  named = {getattr(dtypes, n) for n in EMULATED_DTYPES.tolist()}
  return named | ({dtypes.ulong} if dtypes.long in named else set())


def takes(renderer, program=None):
  """The dtypes a kernel (of program, or of any program) for this renderer may have: its own and the ones
  --emulate names, with double where a kernel that has one is lowered with long native (emulation_for)."""
  with emulation_for(program): ok = renderer.supported_dtypes() | emulated()
  if program is None:
    with emulation_for(None, f64=True): ok |= renderer.supported_dtypes() & {dtypes.double}
  return ok


@contextlib.contextmanager
def emulation_for(program, f64=False):
  """tinygrad cannot emulate long beside double (renderer/__init__.py:83: "double can't be bitcast to anything
  without long support", supported_dtypes() drops double then), so a kernel with f64 (program has one, or f64)
  is lowered with long native; every other kernel with the emulation --emulate names."""
  names = EMULATED_DTYPES.value
  has_f64 = f64 or (program is not None and any(n.dtype.scalar.name == "f64" for n in program.nodes))
  if has_f64: EMULATED_DTYPES.value = ",".join(n for n in names.split(",") if n != "long")
  try: yield
  finally: EMULATED_DTYPES.value = names


def approximate(renderer):
  """The handshake's `approximate`: the float ops tinygrad computes with its own approximations for this
  renderer (codegen/decomp/transcendental.py's get_transcendental_patterns): EXP2, LOG2 and SIN when the
  renderer has no instruction for them (xexp2, xlog2, xsin), SQRT when it has none (xpow(x, 0.5)), and POW
  always (xpow, in symbolic). uopfuzz judges their stored results by a budget (docs/semantics.md)."""
  ops = renderer.code_for_op
  return [n for n in ("EXP2", "LOG2", "SIN", "SQRT") if getattr(Ops, n) not in ops] + ["POW"]


def without(renderer, extra=()):
  """A backend's --without set, from what its renderer takes: vectors (not mapped); MULACC unless the
  renderer has it (tinygrad makes MULACC itself, late, only for a renderer that has it: given to the
  pipeline for one that has not, it is not decomposed); POW on integers (pow:int), which tinygrad computes as
  exp2(y * log2 x) too, wrong beyond float precision (its float results are approximate, judged by their
  budget: approximate()); the dtypes it does not take (takes); and extra (a toolchain's limits), but a dtype --emulate
  names (tinygrad emulates it, the toolchain never sees it)."""
  ops, ok = renderer.code_for_op, takes(renderer)
  names = ["vector"] + ["mulacc"] * (Ops.MULACC not in ops) + ["pow:int"] + [x for x in extra if x not in DTYPES or tg_dtype(x) not in emulated()]
  names += [name for name in DTYPES if name != "void" and tg_dtype(name) not in ok]
  return list(dict.fromkeys(names))


def tinygrad_version(root=None):
  """The tinygrad commit: its own checkout's git HEAD (root, the directory holding the tinygrad package, is
  the top of a git work tree), else the commit a snapshot's README names, else __version__. A copy of
  tinygrad inside another repository is not that repository's HEAD."""
  root = os.path.realpath(root or os.path.dirname(os.path.dirname(os.path.abspath(tinygrad.__file__))))
  try:
    git = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel", "HEAD"], capture_output=True, text=True, timeout=5)
    top, head = (git.stdout.split() + ["", ""])[:2]
    if git.returncode == 0 and os.path.realpath(top) == root and re.fullmatch(r"[0-9a-f]{40}", head): return head[:12]
  except (OSError, subprocess.SubprocessError): pass
  try:
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f: m = re.search(r"\b[0-9a-f]{40}\b", f.read())
    if m: return m[0][:12]
  except OSError: pass
  return str(getattr(tinygrad, "__version__", "unknown"))


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


# How SUB and NEG are built (uopfuzz_tinygrad.py --neg): "op", as tinygrad's ops where the renderer has them;
# "front", always as tinygrad's front end writes them (x * -1, a + b * -1), which its decomp/op.py turns
# back into NEG and SUB, and its symbolic rules on `-1 * (...)` see first; "both", by the node's id (even:
# front), so both forms occur in one campaign.
NEG_FORM = "op"


def in_form(form, alternative, n):
  """Whether node n gets an option's alternative form: always, or with "both" when its id is even."""
  return form == alternative or form == "both" and n.id % 2 == 0


def frontend_form(op, dt, srcs):
  """SUB and NEG as tinygrad's own front end writes them (mixin/elementwise.py: a - b is a + -b, -x is x * -1):
  its pipeline makes SUB and NEG only for a renderer that has them (decomp/op.py), so one that has not
  (CPULLVMRenderer) gets no rule for them. bool keeps our meaning: SUB is xor, NEG the operand itself."""
  if dt == dtypes.bool: return srcs[0] if op == "NEG" else UOp(Ops.XOR, dt, tuple(srcs))
  minus = UOp(Ops.MUL, dt, (srcs[-1], UOp.const(dt.max if dtypes.is_unsigned(dt) else -1, dt)))
  return minus if op == "NEG" else UOp(Ops.ADD, dt, (srcs[0], minus))


# How loop variables and index arithmetic are built (uopfuzz_tinygrad.py --index): "i32" as our IR types
# them, or "weak" as tinygrad's own front end builds every kernel: RANGE and the arithmetic on it in
# dtypes.weakint (its `index` dtype, whose width tinygrad picks from bounds), which is what its symbolic,
# div-and-mod and index rules are written for (lift_index below).
INDEX_FORM = "i32"
WEAK_OPS = {"ADD", "SUB", "MUL", "MAX", "FLOORDIV", "FLOORMOD"}  # exact on weakint within int32's range
WEAK_COMPARE = {"CMPLT", "CMPNE", "CMPEQ"}  # a mask on index ranges: bool, as our IR's


# How accumulator loops are given to tinygrad (uopfuzz_tinygrad.py --reduce): "loop" as our IR has them, or
# "int": an integer accumulator loop as the REDUCE tinygrad's front end writes (tg_reduce.py).
REDUCE_FORM = "loop"


# How loads are built (uopfuzz_tinygrad.py --load): "explicit", a LOAD of every INDEX as our IR has them, or
# "index" as tinygrad's front end builds kernels: the INDEX is the loaded value until its pipeline adds the
# LOADs late (pm_add_loads), so its rules that match a value of memory (where_on_load's move of a WHERE into
# the load's gate) see it. A LOAD that gates, orders or indexes something stays explicit (implicit_loads).
LOAD_FORM = "explicit"


def implicit_loads(program, users):
  """The ids of the LOADs built as their INDEX (LOAD_FORM "index", and always in a program whose opts have a
  PADTO: tinygrad's PADTO masks an INDEX with a WHERE, and a LOAD of that WHERE is no form its front end makes,
  tg_opts.check_padto): ungated, and used only as operands of ALU ops or as the value of a STORE, where
  tinygrad's pm_add_loads puts the LOAD back; users: users_of(program)."""
  if LOAD_FORM != "index" and not any(o[0] == "PADTO" for o in program.opts or ()): return set()
  def value_use(u, n): return u.op.is_alu or (u.op.name == "STORE" and all(s is not n for i, s in enumerate(u.sources) if i != 1))
  return {n.id for n in program.nodes if n.op.name == "LOAD" and len(n.sources) == 1 and users[n.id]
          and all(value_use(u, n) for u in users[n.id])}


# How gated stores are built (uopfuzz_tinygrad.py --store): "index", the gate is the validity of the
# STORE's index, or "value" as tinygrad's front end writes a masked store (setitem, a pad with Invalid): the
# value is Invalid where the gate is false, put on an operand of the value's op when the store is that op's
# only user, so tinygrad's pm_data_invalid moves the gate out to the store (uop/symbolic.py:75-91, :460);
# "both", one or the other by the STORE's node id (even: value), so both forms occur in one campaign.
STORE_FORM = "index"


def invalid_where_not(value, gate, only_user, pick):
  """value (a STORE's, gated by gate) as Invalid where gate is false (STORE_FORM "value"): on its operand
  number pick (modulo their count) when the store is its only user and it is an ALU op or a cast, else on
  the value itself. A WHERE's on its condition: an Invalid branch poisons only where it is chosen. Not a
  comparison's: tinygrad never poisons one with Invalid (uop/symbolic.py:82 leaves comparisons out), so
  once a constant gate folds (:104) its Invalid operand would outlive every rule."""
  if only_user and ((value.op in GroupOp.ALU and value.op not in GroupOp.Comparison) or value.op in (Ops.CAST, Ops.BITCAST)):
    k = 0 if value.op is Ops.WHERE else pick % len(value.src)
    return value.replace(src=tuple(s.valid(gate) if i == k else s for i, s in enumerate(value.src)))
  return value.valid(gate)


def weak_form(n, w, axis_type=AxisType.LOOP):
  """The weakint form of i32 node n from the weak forms `w` of its sources, or None when it has none: a
  RANGE with a constant end, WEAK_OPS of weak operands or constants (FLOORDIV and FLOORMOD by a positive
  constant only: our edge cases stay ours) of i32 whose every value fits int32 (tinygrad's bounds, so no
  wrap of our i32 is lost), or a comparison of such."""
  op = n.op.name
  def weak(s): return w.get(s.id) if s.op.name != "CONST" else UOp.const(s.arg, dtypes.weakint)
  if op == "RANGE":
    end = n.sources[0]
    return UOp.range(UOp.const(end.arg, dtypes.weakint), n.arg, axis_type) if end.op.name == "CONST" else None
  if op not in WEAK_OPS | WEAK_COMPARE: return None
  # i32 arithmetic and comparisons of it only (a bool ADD is our OR; a float constant has no weakint form)
  if (n.sources[0] if op in WEAK_COMPARE else n).dtype.name != "i32" or any(weak(s) is None for s in n.sources): return None
  if op in ("FLOORDIV", "FLOORMOD") and not (n.sources[1].op.name == "CONST" and n.sources[1].arg > 0): return None
  a = [weak(s) for s in n.sources]
  if op in WEAK_COMPARE: return UOp(getattr(Ops, op), dtypes.bool, tuple(a))
  if op == "SUB": x = a[0] + a[1] * -1  # as tinygrad's front end writes a - b
  else: x = UOp(getattr(Ops, op), dtypes.weakint, tuple(a))
  return x if -2**31 <= x.vmin and x.vmax <= 2**31 - 1 else None


def axis_type(n, reduce_axes):
  """tinygrad's AxisType for RANGE n: REDUCE where the adapter builds its loop as tinygrad's REDUCE (--reduce
  int; never a loop with an accumulator of ours, which UNROLL miscompiles: not tinygrad's form), WEAK for a
  RANGE of kind `global` (an output axis tinygrad's optimizer may upcast or thread), else LOOP."""
  if n.id in reduce_axes: return AxisType.REDUCE
  return AxisType.WEAK if n.kind == "global" else AxisType.LOOP


# Why an opt on such a range (private_scratch_loops) is skipped: said before tinygrad's own message
PRIVATE_SCRATCH = "a register accumulator inside this range: tinygrad cannot privatize it (kind=global given as its LOOP, not WEAK)"


def private_scratch_loops(sink):
  """The sink with each WEAK range inside which the kernel stores to a register buffer (an ALLOC of ours that
  stayed one) made LOOP. Our semantics gives every iteration of a kind=global loop its own copy of scratch
  it writes first; tinygrad makes its register accumulators after its optimizer, from REDUCE, so one that
  exists before it is shared by the lanes an UPCAST makes (every output its last lane's): not its form.
  (With --reduce int an integer accumulator is a REDUCE, its ALLOC gone: its range stays WEAK.)"""
  stores = [x for x in sink.toposort() if x.op is Ops.STORE and x.src[0].addrspace is AddrSpace.REG]
  weak = {r for st in stores for r in st.ranges if r.arg[-1] is AxisType.WEAK}
  return sink.substitute({r: r.replace(arg=r.arg[:-1] + (AxisType.LOOP,)) for r in weak}) if weak else sink


def demoted_axes(program, sink):
  """{axis: why} for each kind=global RANGE of the program that the built sink has as LOOP
  (private_scratch_loops): tg_opts says why before tinygrad's message for an opt on it it skips."""
  weak = {n.arg for n in program.nodes if n.op.name == "RANGE" and n.kind == "global"}
  return {r.arg[0]: PRIVATE_SCRATCH for r in sink.toposort() if r.op is Ops.RANGE and r.arg[0] in weak and r.arg[-1] is AxisType.LOOP}


def build(program, fname, renderer=None):
  """The program's nodes as a tinygrad SINK (its ENDs merged as tinygrad needs them), for the renderer: a
  dtype it does not take (takes), or a MULACC it has no instruction for, is Unsupported. With
  INDEX_FORM "weak", i32 loop variables and index arithmetic are weakint (weak_form), cast to int32 where
  a value is used as data. With LOAD_FORM "index", a LOAD used only as data is its INDEX (implicit_loads).
  With STORE_FORM "value" (or "both"), a gated STORE's value is Invalid where the gate is false
  (invalid_where_not).
  With REDUCE_FORM "int", an integer accumulator loop's result is a REDUCE over
  ranges of AxisType.REDUCE (tg_reduce.py). A RANGE's AxisType comes from its kind (axis_type). Its BUFFER
  PARAMs are numbered 0 .. n-1 in slot order, as tinygrad's own kernels are (tg_params.dense: our slots by
  tg_params.kernel_slots)."""
  supported = takes(renderer, program) if renderer is not None else None
  u, stored, w = {}, {}, {}
  reduced = reductions(program) if REDUCE_FORM == "int" else {}
  reduce_axes = {r.id for x in reduced.values() for r in x.ranges}
  users = users_of(program)
  as_index = implicit_loads(program, users)
  for n in program.nodes:
    where, op = f"line {n.line}", n.op.name
    at = axis_type(n, reduce_axes) if op == "RANGE" else AxisType.LOOP
    if INDEX_FORM == "weak" and n.dtype.name in ("i32", "bool") and (x := weak_form(n, w, at)) is not None:
      w[n.id] = x
      u[n.id] = x if x.dtype == dtypes.bool else x.cast(dtypes.int32)
      continue
    srcs = [w[s.id] if op == "INDEX" and i == 1 and s.id in w else w[s.id] if op == "END" and s.id in w else u[s.id]
            for i, s in enumerate(n.sources)]
    if n.dtype.is_vector: raise Unsupported(f"{where}: vector dtype {n.dtype.name} (pass --without vector)")
    dt = None if n.dtype.is_void else tg_dtype(n.dtype.name)
    if not n.dtype.is_void and (dt is None or (supported is not None and dt not in supported)):
      raise Unsupported(f"{where}: dtype {n.dtype.name} (this tinygrad renderer has no {n.dtype.name}; pass --without {n.dtype.name})")
    if n.id in reduced: u[n.id] = reduce_of(reduced[n.id], dt, u, w)
    elif op == "BUFFER": u[n.id] = UOp.param(n.slot, dt, (n.length,))
    # ALLOC is kernel-local memory: tinygrad's register BUFFER (what its own accumulators are)
    elif op == "ALLOC": u[n.id] = UOp.placeholder((n.length,), dt, n.slot, AddrSpace.REG)
    elif op == "CONST": u[n.id] = UOp.const(n.arg, dt)
    elif op == "INDEX": u[n.id] = srcs[0].index(srcs[1])
    elif op == "LOAD":
      # gated, tinygrad's way: the gate is the validity of the index, an invalid load gives 0, so the alt
      # comes in through a WHERE
      u[n.id] = srcs[0] if n.id in as_index else srcs[0].load() if len(srcs) == 1 else srcs[2].where(gated(srcs[0], srcs[2]).load(), srcs[1])
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
      if len(srcs) == 3 and in_form(STORE_FORM, "value", n):
        u[n.id] = addr.store(invalid_where_not(srcs[1], srcs[2], users[n.sources[1].id] == [n], n.id // 2))
      else: u[n.id] = (addr if len(srcs) == 2 else gated(addr, srcs[2])).store(srcs[1])
      if base is not None and base.op is Ops.PARAM: stored[base] = u[n.id]
    elif op == "AFTER":
      # tinygrad orders the memory, not an address: AFTER(INDEX(m, i), deps) is INDEX(AFTER(m, deps), i)
      a = srcs[0]
      u[n.id] = a.src[0].after(*srcs[1:]).index(*a.src[1:]) if a.op is Ops.INDEX else a.after(*srcs[1:])
    elif op == "RANGE": u[n.id] = UOp.range(srcs[0], n.arg, at, dtype=dt)
    elif op == "END": u[n.id] = srcs[0].end(*srcs[1:])
    elif op == "SINK":
      sink = private_scratch_loops(merge_ends(UOp.sink(*srcs, arg=KernelInfo(name=fname))))
      return dense(sink, dropped_params(program, sink, renderer))
    elif op == "CAST": u[n.id] = float_to_int(srcs[0], dt) if dtypes.is_float(srcs[0].dtype) and dtypes.is_int(dt) else srcs[0].cast(dt)
    elif op == "BITCAST": u[n.id] = srcs[0].bitcast(dt)
    elif op in EDGES: u[n.id] = edges(op, dt, *srcs)
    elif op in ("SUB", "NEG") and (renderer is not None and getattr(Ops, op) not in renderer.code_for_op or
                                   in_form(NEG_FORM, "front", n)): u[n.id] = frontend_form(op, dt, srcs)
    elif op == "MULACC" and renderer is not None and Ops.MULACC not in renderer.code_for_op: raise Unsupported(f"{where}: MULACC (pass --without mulacc)")
    elif op in UNSUPPORTED_OPS: raise Unsupported(f"{where}: {op} ({UNSUPPORTED_OPS[op]})")
    elif n.op.is_alu and hasattr(Ops, RENAMED.get(op, op)): u[n.id] = UOp(getattr(Ops, RENAMED.get(op, op)), dt, tuple(srcs))
    else: raise Unsupported(f"{where}: {op} (not mapped to tinygrad)")
  raise Unsupported("no SINK")


def dropped_params(program, sink, renderer):
  """Our slots of the BUFFERs whose PARAMs tinygrad's passes drop (every load of them folded away, before or after
  its optimizer), for a program whose opts may thread its kernel: a trial of its pipeline up to the renderer
  (full_rewrite_to_sink, the opts applied) says which. Numbered last (tg_params.dense), they leave the rest
  0 .. m-1, so tinygrad numbers THREAD's core_id after them, not as a BUFFER's slot (its bug: tg_opts.check_thread)."""
  if renderer is None or not renderer.has_threads or not any(o[0] == "THREAD" for o in program.opts or ()): return ()
  with optimizing(program.opts, range_axes(program), demoted_axes(program, sink)):
    kept = {p.arg.slot for p in buffer_params(tg_codegen.full_rewrite_to_sink(sink, renderer))}
  return {p.arg.slot for p in buffer_params(sink)} - kept


def range_axes(program): return {n.arg for n in program.nodes if n.op.name == "RANGE"}


def reduce_of(r, dt, u, w):
  """tinygrad's REDUCE for a Reduction of ours: op over the value in its ranges, joined with a start value
  other than op's identity (exact for integers, where op is associative)."""
  red = u[r.value.id].reduce(*(w.get(x.id, u[x.id]) for x in r.ranges), arg=getattr(Ops, r.op))
  if r.init.op.name == "CONST" and r.init.arg == identity(r.op, r.init.dtype): return red
  return UOp(getattr(Ops, r.op), dt, (u[r.init.id], red))


def without_compiler(renderer):
  """The renderer with tinygrad's empty Compiler (its compile returns the source's bytes): to_program runs
  all of tinygrad's pipeline but the compiler, which is uopfuzz's to run."""
  renderer.compiler = Compiler()
  return renderer


def lower(sink, renderer, opts=None, axes=(), grid=False, why=None):
  """tinygrad's to_program for the renderer (do_to_program: full_rewrite_to_sink, an ISA renderer's
  instruction selection, the linearizer, the renderer, the renderer's compiler): the PROGRAM UOp, its
  optimizer applying opts (the program's `opts` line; None: tinygrad's heuristic) on the RANGEs of axes
  (tg_opts; its report in tg_opts.LAST; why: {axis: a reason said first when an opt on it is skipped}). A
  threaded kernel (THREAD: a `core_id` variable, global_size[0] threads) is run by each backend as tinygrad's CPU runtime runs it; a launch grid (gidx, lidx) only by a
  backend that runs one (grid: the python emulator); any other variable is Unsupported. Its parameters map to
  our slots as the sink's (tg_params.remember)."""
  with optimizing(opts, axes, why) as report: report.prg = prg = remember(do_to_program(sink, renderer), sink)
  others = [v.expr for v in prg.arg.vars if v.expr != "core_id"]
  if others: raise Unsupported(f"tinygrad's kernel takes variables {others}")
  if not threads(prg) and not grid and (tuple(prg.arg.global_size) != (1, 1, 1) or prg.arg.local_size not in (None, (1, 1, 1))):
    raise Unsupported(f"tinygrad made a kernel for a launch grid (global size {prg.arg.global_size}, local size {prg.arg.local_size})")
  return prg


def lowering(renderer, grid=False):
  """A backend's lower_program(program, fname): the program built for the renderer and lowered by it (the
  PROGRAM's parameters mapped to our slots: tg_params.kernel_slots)."""
  def lower_program(program, fname):
    with emulation_for(program):
      sink = build(program, fname, renderer)
      return lower(sink, renderer, program.opts, range_axes(program), grid, demoted_axes(program, sink))
  return lower_program

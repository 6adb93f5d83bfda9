# tg_params.py: a kernel's parameters between our IR and tinygrad. Our BUFFERs are the kernel's parameters by
# slot, any distinct numbers, and a kernel may skip one it does not use; tinygrad's own kernels number theirs
# 0 .. n-1, and its codegen relies on it: it numbers the PARAM of a runtime variable (THREAD's core_id) after
# them, as their count (pm_number_params), so a kernel of slots 0 and 2 gets a core_id of slot 2 beside a
# BUFFER's, which its linearizer cannot take. So the kernel is built with its PARAMs renumbered densely in slot
# order (dense), and every backend passes uopfuzz's buffers (FUNCTION's arguments, one a BUFFER in slot order)
# through the map back (kernel_slots), as tinygrad's runtime passes its buffers by PARAM slot.
import weakref
from dataclasses import replace

from tinygrad.dtype import AddrSpace
from tinygrad.uop.ops import Ops

# {SINK or PROGRAM UOp: (our slot of its PARAM 0, of PARAM 1, ...)}, weak: UOps are interned, so two programs
# with the same kernel share one UOp, and the entry is that of the program built or lowered last (each render
# reads it right after its own lowering).
SLOTS = weakref.WeakKeyDictionary()
FAR = 1 << 30  # slots no program has (the reader's limit is 2^20): the renumbering's intermediate step


def buffer_params(u):
  """The kernel's BUFFER PARAMs (not a variable's: those are AddrSpace.ALU), sorted by slot."""
  return sorted({x for x in u.toposort() if x.op is Ops.PARAM and x.arg.addrspace is not AddrSpace.ALU}, key=lambda x: x.arg.slot)


def dense(sink, last=()):
  """The sink with its BUFFER PARAMs numbered 0 .. n-1 in slot order, those of our slots in last after the
  others (BUFFERs tinygrad drops before its optimizer: the rest stay 0 .. m-1), our slots remembered
  (kernel_slots). Through slots no PARAM has (FAR + k): a PARAM renumbered k may be the very UOp of the PARAM
  of slot k (interned), which a one-step substitution could renumber again."""
  params = sorted(buffer_params(sink), key=lambda p: (p.arg.slot in last, p.arg.slot))
  out = sink
  if any(p.arg.slot != k for k, p in enumerate(params)):
    far = {p: p.replace(arg=replace(p.arg, slot=FAR + k)) for k, p in enumerate(params)}
    out = sink.substitute(far).substitute({f: f.replace(arg=replace(f.arg, slot=k)) for k, f in enumerate(far.values())})
  SLOTS[out] = tuple(p.arg.slot for p in params)
  return out


def remember(prg, sink):
  """The PROGRAM lowered from sink takes its parameters by the same slots: its map is the sink's."""
  SLOTS[prg] = SLOTS[sink]
  return prg


def kernel_slots(u):
  """Our slot of each of the kernel's PARAM slots 0 .. n-1 (a SINK built by tg_uops.build, or its PROGRAM)."""
  return SLOTS[u]


def program_part(prg, op):
  """The PROGRAM's SOURCE (text), BINARY (bytes) or LINEAR (the UOp)."""
  s = next(s for s in prg.src if s.op is op)
  return s if op is Ops.LINEAR else s.arg


def param_slots(prg):
  """Our BUFFER slots in the order the compiled kernel takes them (its LINEAR's PARAMs). tinygrad's runtime
  passes prg.arg.globals order (by slot) instead; a zero-trip RANGE makes them differ (tinygrad bug 7)."""
  ours = kernel_slots(prg)
  return [ours[u.arg.slot] for u in program_part(prg, Ops.LINEAR).src if u.op is Ops.PARAM and u.addrspace != AddrSpace.ALU]


def threads(prg):
  """How many times tinygrad's CPU runtime runs a kernel it threaded (core_id 0 .. n-1), 0 when it did not."""
  return int(prg.arg.global_size[0]) if "core_id" in prg.arg.runtimevars else 0

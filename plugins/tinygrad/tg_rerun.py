# tg_rerun.py: whether tinygrad may run a kernel once per index of one of its ranges. Its THREAD makes the CPU
# runtime run the whole kernel once per core_id, and on a renderer with locals convert_loop_to_global makes each
# WEAK output range GLOBAL, run once per index of the launch grid (the python emulator's); each run does its part of
# the range, and everything outside the range again. tinygrad checks only that the range is an output range
# (Scheduler._globalizable_rngs): its own kernels have every store inside their output ranges. Ours may have stores
# beside such a loop (a scalar chain, another loop), which the program means to run once: run again, one that reads
# an element the kernel writes (a[0] += 1), or that writes an element the range writes, gives another result, a
# false alarm (docs/semantics.md: a kind=global loop's iterations are independent, the rest of the kernel is not).
from tinygrad.codegen.opt.postrange import Scheduler
from tinygrad.uop.ops import AxisType, Ops

RERUN = ("a store outside this range reads an element the kernel writes, or writes one the range writes: run once per "
         "thread or grid index (tinygrad runs the kernel again for each), it would not give the same result again")


def memory(store):
  """The memory a STORE writes (a PARAM, or a register BUFFER)."""
  return store.src[0].src[0].buf_uop if store.src[0].op is Ops.INDEX else store.src[0].buf_uop


def element(index):
  """(memory, element) of an INDEX: the element where its index is a constant, else None (any of them)."""
  i = index.src[1].get_idx() if len(index.src) > 1 else None
  return index.src[0].buf_uop, (i.arg if i is not None and i.op is Ops.CONST else None)


def overlap(a, b):
  """Whether two sets of (memory, element) share an element (None: any element of its memory)."""
  return any(m is n and (e is None or f is None or e == f) for m, e in a for n, f in b)


def value_reads(roots):
  """The (memory, element)s the values of roots read: each INDEX reached through values, and through what was
  stored in register memory (an ALLOC of ours: the stores an AFTER of it waits for); not into an effect on
  global memory (its STORE, or an AFTER's wait for one), whose reads are its own."""
  seen, out, todo = set(), set(), list(roots)
  while todo:
    u = todo.pop()
    if u in seen or u.op is Ops.STORE and memory(u).op is Ops.PARAM: continue
    seen.add(u)
    if u.op is Ops.INDEX: out.add(element(u))
    todo.extend(u.src[:1] if u.op is Ops.AFTER and u.src[0].buf_uop.op is Ops.PARAM else u.src)
  return out


def rerun_breaks(ast, rng):
  """Whether running the kernel once per index of rng (each run its part of rng, the rest again) changes its result:
  a store to global memory outside rng reads an element some store writes, or writes an element rng's stores write."""
  stores = [u for u in ast.toposort() if u.op is Ops.STORE and u.src[0].op is Ops.INDEX and memory(u).op is Ops.PARAM]
  written, inside = {element(u.src[0]) for u in stores}, {element(u.src[0]) for u in stores if rng in u.ranges}
  return any(rng not in u.ranges and (overlap({element(u.src[0])}, inside) or overlap(value_reads(u.src[1:] + u.src[0].src[1:]), written))
             for u in stores)


def run_once(ast, ren):
  """The kernel with each WEAK range tinygrad would make GLOBAL (a renderer with locals) but whose kernel cannot run
  once per grid index (rerun_breaks) given as LOOP, and {axis: why} for an opt on one (said first)."""
  if not ren.has_local: return ast, {}
  bad = [r for r in Scheduler(ast, ren)._globalizable_rngs() if rerun_breaks(ast, r)]
  if not bad: return ast, {}
  return ast.substitute({r: r.replace(arg=r.arg[:-1] + (AxisType.LOOP,)) for r in bad}), {r.arg[0]: RERUN for r in bad}

# tg_opts.py: tinygrad's optimizer under the program's control (README.md, "Optimizations: the opts line").
# tinygrad's codegen (full_rewrite_to_sink) calls its `apply_opts` once per kernel: its Scheduler, its
# convert_loop_to_global, then the kernel's opts_to_apply, a BEAM search or its heuristic
# (hand_coded_optimizations; with the adapter's --beam N, BEAM: tg_beam.py). For one lowering, `optimizing`
# puts its own function in that name's place: with
# the program's `opts` line it applies exactly those opts in order through tinygrad's Scheduler.apply_opt,
# each one's axis (our RANGE's axis number) translated to the scheduler's axis at the moment it is applied,
# and an opt tinygrad refuses (KernelOptError) is skipped and said, then the kernel goes through tinygrad's own
# apply_opts with the steps taken as its opts_to_apply; without the line it calls tinygrad's own apply_opts
# (its heuristic, or BEAM for the share tg_beam.chooses) and says what it applied. The report also names the
# coverage features of the lowering.
import contextlib
import re
from dataclasses import dataclass, field, replace

import tinygrad.codegen as tg_codegen
from tinygrad.codegen.opt import KernelOptError, Opt, OptOps
from tinygrad.codegen.opt.postrange import Scheduler
from tinygrad.dtype import AddrSpace
from tinygrad.helpers import NUM_CPU_THREADS
from tinygrad.uop.ops import AxisType, KernelInfo, Ops
import tg_beam
from tg_rerun import RERUN, rerun_breaks, run_once
from uopfuzz_plugin import format_opt

TINYGRAD_APPLY_OPTS = tg_codegen.apply_opts  # tinygrad's own, put back after every lowering

# What an OptOp needs of a renderer to apply at all (Scheduler.apply_opt's checks); the others need nothing.
# TC is never offered: its arg is a tuple (tensor core, opt level, use), which the opts notation cannot write,
# and no CPU renderer has tensor cores.
NEEDS = {"LOCAL": lambda r: r.has_local, "GROUP": lambda r: r.has_local, "GROUPTOP": lambda r: r.has_local,
         "SWAP": lambda r: r.has_local,  # it swaps GLOBAL axes, which only convert_loop_to_global makes (has_local)
         "THREAD": lambda r: r.has_threads and bool(r.global_max) and r.global_max[0] > 1, "TC": lambda r: False}
# What the adapter refuses on a renderer although tinygrad applies it, by the renderer's class, with why: the
# kernel could not run as tinygrad runs it, so a failure would be a false alarm.
REFUSED = {"PythonRenderer": {"NOLOCALS": "the PYTHON emulator (PythonProgram) runs gidx and lidx launch dims, not the idx ones of NOLOCALS"}}
NO_AXIS = {"NOLOCALS"}  # the opts that take neither an axis nor an amount
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # tinygrad colours the shapes in its messages


def names(renderer):
  """The handshake's `opts`: the OptOps that can apply on this renderer, in tinygrad's order."""
  return [op.name for op in OptOps if NEEDS.get(op.name, lambda r: True)(renderer) and op.name not in refused(renderer)]


def refused(renderer): return REFUSED.get(type(renderer).__name__, {})


@dataclass
class Report:
  """What one lowering's optimizer did: the opts applied (our notation) and the tinygrad Opts they were (the
  export's opts_to_apply; None when the heuristic chose; trying: the one being applied, while tinygrad
  applies it), those skipped with why, and coverage features."""
  applied: list = field(default_factory=list)
  skipped: list = field(default_factory=list)
  features: list = field(default_factory=list)
  tinygrad: list = None
  trying: object = None
  prg: object = None  # the PROGRAM lowered (tg_uops.lower sets it)
  optimizer: str = None  # without an opts line: which of tinygrad's optimizers chose, `beam` or `heuristic`


LAST = None  # the report of the lowering that ran last in this process


def reply(backend_features):
  """The last lowering's reply keys (the SDK's Rendered and Ran fields): opts_applied, opts_skipped and its
  features, those of its opts, `threads` (a kernel tinygrad threaded: a core_id), `grid` (one for a launch
  grid, gidx/lidx: the python emulator's), `optimizer:beam` or `optimizer:heuristic` (which chose, for a
  kernel without an opts line) and the backend's own of the PROGRAM (backend_features(prg))."""
  r = LAST
  if r is None or r.prg is None: return {}
  info = r.prg.arg
  threaded = "core_id" in info.runtimevars
  grid = not threaded and (tuple(info.global_size), tuple(info.local_size or (1, 1, 1))) != ((1, 1, 1), (1, 1, 1))
  kernel = ["threads"] * threaded + ["grid"] * grid + [f"optimizer:{r.optimizer}"] * bool(r.optimizer)
  return dict(opts_applied=list(r.applied), opts_skipped=list(r.skipped),
              features=list(dict.fromkeys(r.features + kernel + list(backend_features(r.prg)))))


@contextlib.contextmanager
def optimizing(opts, axes, why=None):
  """For the lowerings inside it, tinygrad's apply_opts applies `opts` ([(NAME, axis, arg)], the program's
  `opts` line; None: tinygrad's own choice). axes: the program's RANGE axis numbers (others are `new`);
  why: {axis: the adapter's reason}, said before tinygrad's message of an opt on that axis it skips."""
  global LAST
  LAST = report = Report(tinygrad=None if opts is None else [])

  def apply(ast, ren, beam=0):
    if ast.tag is not None: return ast  # already optimized, as tinygrad's own
    ast, once = run_once(ast, ren)  # (a renderer with locals: a grid range beside stores that cannot run again is a LOOP)
    if opts is None and tg_beam.chooses(ast):
      report.optimizer = "beam"
      with tg_beam.deterministic(NUM_CPU_THREADS.value, thread_ok): return heuristic(ast, ren, tg_beam.WIDTH, report, axes)
    if opts is None:
      report.optimizer = "heuristic"
      return heuristic(ast, ren, beam, report, axes)
    return apply_listed(ast, ren, opts, report, {**once, **(why or {})})
  tg_codegen.apply_opts = apply
  try: yield report
  finally: tg_codegen.apply_opts = TINYGRAD_APPLY_OPTS


def scheduler(ast, ren):
  """tinygrad's Scheduler of the kernel as its apply_opts starts it (WEAK axes GLOBAL where it has locals)."""
  k = Scheduler(ast, ren)
  k.convert_loop_to_global()
  return k


def apply_listed(ast, ren, opts, report, why):
  """Exactly the program's opts, in order; each applied to a copy of the scheduler, kept only when tinygrad
  takes it, so a refused one changes nothing; a refused one on an axis in why said with why's reason first."""
  k = scheduler(ast, ren)
  for name, axis, arg in opts:
    try:
      if name in refused(ren): raise KernelOptError(refused(ren)[name])
      report.trying = opt = to_tinygrad(k, name, axis, arg)
      feature = opt_feature(k, opt)
      trial = k.copy()
      trial.apply_opt(opt)
      if opt.op is OptOps.THREAD: check_thread(k, k.rngs[opt.axis])  # tinygrad took it: can the kernel run once per thread?
    except KernelOptError as e:
      report.trying = None
      report.skipped.append(f"{format_opt(name, axis, arg)}: {why[axis] + '; ' if axis in why else ''}{message(e)}")
      continue
    report.trying, k = None, trial  # (still set when tinygrad raised something else: the export needs it)
    report.applied.append(format_opt(name, axis, arg))
    report.tinygrad.append(opt)
    report.features.append(feature)
  # The kernel itself through tinygrad's own apply_opts, given the steps it took as its opts_to_apply (as a
  # kernel of tinygrad's optimizer tests is): the same steps from the same scheduler, so the same kernel.
  return TINYGRAD_APPLY_OPTS(ast.replace(arg=replace(ast.arg or KernelInfo(), opts_to_apply=tuple(report.tinygrad))), ren)


def heuristic(ast, ren, beam, report, axes):
  """tinygrad's own apply_opts, unchanged; what it applied (its KernelInfo's applied_opts) replayed on a
  scheduler of the same kernel to name each opt's range in our notation."""
  out = TINYGRAD_APPLY_OPTS(ast, ren, beam=beam)
  k = scheduler(ast, ren) if out.arg.applied_opts else None  # (most kernels: none applied, nothing to replay)
  for opt in out.arg.applied_opts:
    report.applied.append(our_notation(k, opt, axes))
    report.features.append(opt_feature(k, opt))
    k.apply_opt(opt)
  return out


def message(e):
  """A KernelOptError's message as one line of printable ASCII (its shapes uncoloured)."""
  text = " ".join(ANSI.sub("", str(e)).split())
  return re.sub(r"[^ -~]", "?", text) or "KernelOptError (no message)"


def find_range(k, axis):
  """The scheduler's position of our RANGE `axis` (tinygrad keeps a range's axis number as arg[0])."""
  at = [i for i, r in enumerate(k.rngs) if r.arg[0] == axis]
  if len(at) != 1:
    raise KernelOptError(f"no range with axis {axis} in tinygrad's kernel (folded, merged or of one trip)" if not at else
                         f"{len(at)} ranges with axis {axis} in tinygrad's kernel")
  return at[0]


def to_tinygrad(k, name, axis, arg):
  """Our opt as tinygrad's Opt on the scheduler's axes now: the range's position in Scheduler.rngs (for UNROLL
  its index in unrollable_dims, for GROUP and GROUPTOP in axes_of(REDUCE)); SWAP's arg the other range's."""
  op = getattr(OptOps, name, None)
  if op is None or op is OptOps.TC: raise KernelOptError(f"no opt {name} in tinygrad's OptOps" if op is None else "TC takes a tuple, not in the notation")
  if name in NO_AXIS: return Opt(op)
  if axis is None or arg is None: raise KernelOptError(f"{name} needs an axis and an amount")
  at = find_range(k, axis)
  if op is OptOps.UNROLL: at = index_in(k.unrollable_dims, at, "not an unrollable REDUCE range of more than one trip")
  if op in (OptOps.GROUP, OptOps.GROUPTOP): at = index_in(k.axes_of(AxisType.REDUCE), at, "not a REDUCE range")
  if op is OptOps.SWAP: arg = find_range(k, arg)
  if op is OptOps.PADTO: check_padto(k, k.rngs[at])
  return Opt(op, at, arg)


def index_in(axes, at, why):
  if at not in axes: raise KernelOptError(why)
  return axes.index(at)


def check_padto(k, rng):
  """PADTO makes each INDEX of the range that is not stored to a WHERE(valid, INDEX, Invalid); a LOAD on such
  an INDEX (a LOAD of ours the index form, --load, did not take: it gates, orders or indexes something) is
  then a LOAD of a WHERE, which tinygrad's memory coalescing rejects (`memory coalescing should be on INDEX`):
  never a form its front end makes, so such a PADTO is skipped, not a finding."""
  for u in k.ast.backward_slice:
    if u.op is Ops.LOAD and u.src[0].op is Ops.INDEX and len(u.src[0].src) > 1 and rng in u.src[0].src[1].get_idx().backward_slice_with_self:
      raise KernelOptError("an explicit LOAD of an INDEX on this range (PADTO would leave a LOAD of a WHERE, which tinygrad's "
                           "front end never builds)")


def check_thread(k, rng):
  """A THREAD tinygrad took on rng, skipped and said where the threaded kernel would be wrong for a reason that
  is not this opt's finding. A BUFFER's PARAM its passes dropped before its optimizer (every load of it folded
  away) where the rest are no longer 0 .. n-1 (tg_uops.build numbers such BUFFERs last: a fallback): tinygrad
  numbers core_id as their count (pm_number_params), a BUFFER's slot, and its linearizer fails; tinygrad's bug
  (README.md, "Threaded kernels"), which would otherwise take every such program's THREAD. A store outside rng
  that would not give the same result when the kernel runs once per core_id (tg_rerun): a form tinygrad's front
  end never makes."""
  slots = sorted(u.arg.slot for u in k.ast.backward_slice if u.op is Ops.PARAM and u.arg.addrspace is not AddrSpace.ALU)
  if len(slots) in slots:
    raise KernelOptError(f"tinygrad dropped a BUFFER's PARAM (slots {slots} remain), so it would number core_id {len(slots)}, "
                         "a BUFFER's slot (pm_number_params counts PARAMs: tinygrad's bug)")
  if rerun_breaks(k.ast, rng): raise KernelOptError(RERUN)


def thread_ok(k, rng):
  """Whether check_thread takes a THREAD on rng (BEAM's candidates are screened by it)."""
  try: check_thread(k, rng)
  except KernelOptError: return False
  return True


def our_notation(k, opt, axes):
  """A tinygrad Opt (scheduler axes) in the opts line's notation: the range's axis number when it is one of
  the program's RANGEs (axes), else `new` (a range tinygrad's optimizer made)."""
  def ours(i): return k.rngs[i].arg[0] if k.rngs[i].arg[0] in axes else "new"
  if opt.axis is None or opt.op is OptOps.TC: return opt.op.name
  arg = ours(opt.arg) if opt.op is OptOps.SWAP else opt.arg
  return format_opt(opt.op.name, ours(k.real_axis(opt.op, opt.axis)), arg)


def opt_feature(k, opt):
  """`opt:NAME:AXISTYPE`, the AxisType of the range the opt acts on before it (`opt:NAME` without one)."""
  if opt.axis is None or opt.op is OptOps.TC: return f"opt:{opt.op.name}"
  return f"opt:{opt.op.name}:{k.rngs[k.real_axis(opt.op, opt.axis)].arg[-1].name}"

# tg_record_opts.py: what tg_record.py writes about a kernel's optimizer beside its nodes: each RANGE's kind
# (from tinygrad's AxisType) and the `opts` line (docs/format.md) for a kernel whose KernelInfo lists
# opts_to_apply (tinygrad's tests pass explicit optimizations that way). The opts line is tg_opts.py's
# translation run backwards: tg_opts names our RANGE by its axis number and finds tinygrad's Scheduler axis
# when the step applies; here each Opt is replayed on a Scheduler of the sink tinygrad's apply_opts gets (after
# its range splitting, symbolic and range merging, which the adapter's lowering runs on our program too), as
# apply_opts does, and the range it acts on at that moment is named by its axis number (tinygrad keeps it as
# arg[0] through merges, splits by an opt and pads), the number the lifted RANGE prints. A kernel without
# opts_to_apply got its opts from tinygrad's heuristic (or BEAM): no line, the target's heuristic decides again.
from tinygrad.codegen.opt import KernelOptError, OptOps
from tinygrad.uop.ops import AxisType, Ops

from tg_opts import scheduler
from uopfuzz_plugin import format_opt

# Axis types whose iterations tinygrad runs in any order (split, vectorised, threaded, launched): kind=global
# when the kernel's stores agree (independent below). Before the optimizer a kernel has WEAK ones; the others
# appear in kernels built by hand.
INDEPENDENT = {AxisType.WEAK, AxisType.GLOBAL, AxisType.LOCAL, AxisType.THREAD, AxisType.WARP, AxisType.UPCAST}
# Axis types of a reduction: kind=reduce on the ranges of a REDUCE (lifted as an accumulator loop)
REDUCING = {AxisType.REDUCE, AxisType.GROUP_REDUCE, AxisType.UNROLL}


def range_kinds(ast):
  """{RANGE: kind} for the kernel's ranges ("loop" for the rest). A REDUCE's range of a reducing type is
  `reduce`: the lift makes the REDUCE an accumulator loop over exactly it. A range of an INDEPENDENT type is
  `global` only when every STORE inside it writes an index that depends on it: an iteration that writes the
  element another one writes is not independent (the reference rejects such a file), and the lift's own
  accumulators are written first in each iteration, scratch the semantics allows."""
  nodes = list(ast.toposort())
  reduced = {r for u in nodes if u.op is Ops.REDUCE for r in u.src[1:]}
  scopes = store_scopes(nodes)
  kinds = {}
  for r in (u for u in nodes if u.op is Ops.RANGE):
    if r.arg[-1] in REDUCING and r in reduced: kinds[r] = "reduce"
    elif r.arg[-1] in INDEPENDENT and r not in reduced and all(r in index_slice(s) for s, scope in scopes.items() if r in scope):
      kinds[r] = "global"
    else: kinds[r] = "loop"
  return kinds


def store_scopes(nodes):
  """{STORE: the ranges it runs inside}: those its value or index use, and those of each END closing it."""
  scopes = {s: set(s.ranges) for s in nodes if s.op is Ops.STORE}
  for end in (u for u in nodes if u.op is Ops.END):
    for s in end.src[0].toposort():
      if s in scopes: scopes[s].update(end.src[1:])
  return scopes


def index_slice(store):
  """What a STORE's element depends on: its INDEX's index (and gate) operands."""
  at = store.src[0]
  if at.op is not Ops.INDEX: return {}
  return {u: None for s in at.src[1:] for u in s.backward_slice_with_self}


class Cut(Exception):
  """A step of opts_to_apply the opts line cannot write (the reason, counted in record.json)."""


def tinygrad_notation(opts):
  """tinygrad's own opts (its Scheduler axes), for the file's `meta tinygrad_opts`: NAME:AXIS:ARG each."""
  return " ".join(format_opt(o.op.name, o.axis, None if isinstance(o.arg, tuple) else o.arg) for o in opts) or "(none)"


def recorded_opts(sink, renderer, axes):
  """(steps, why) for the sink tinygrad's apply_opts gets. steps: the `opts` line's steps, the longest prefix
  of opts_to_apply that tinygrad applies and the notation can write (None when the kernel lists no
  opts_to_apply: no line); why: None when that is all of them, else why the rest was cut. axes: the axis
  number of each lifted RANGE (a number two RANGEs share names neither). A prefix, not the steps around a
  cut one: each step acts on the kernel the earlier ones made, so a later one alone is another optimization."""
  listed = sink.arg.opts_to_apply if sink.arg is not None else None
  if listed is None: return None, None
  k = scheduler(sink, renderer)  # as tinygrad's apply_opts starts it
  # the numbers of the kernel's own ranges: one the optimizer makes is numbered above them, but may meet the
  # number of a one-trip RANGE (the Scheduler leaves those out), which the step does not act on
  writable = [a for a in axes if a in {r.arg[0] for r in k.rngs}]
  steps = []
  for opt in listed:
    try: step = our_step(k, opt, writable)  # named before it applies: it changes the ranges
    except (Cut, KernelOptError) as e: step = e
    # a step tinygrad refuses is said so, whatever its axis: its test expects the error, no kernel follows
    try: k.apply_opt(opt)
    except KernelOptError: return steps, f"opts: tinygrad refused {opt.op.name} (its test expects the error)"
    if isinstance(step, Exception): return steps, str(step) if isinstance(step, Cut) else f"opts: {opt.op.name} on no axis of ours"
    steps.append(step)
  return steps, None


def our_step(k, opt, axes):
  """One tinygrad Opt as (NAME, axis, arg) on our axis numbers, or Cut; KernelOptError for an axis the
  kernel has not (tinygrad refuses it too)."""
  if opt.op is OptOps.TC: raise Cut("opts: TC (its arg is a tuple, not an amount)")
  if opt.axis is None: return (opt.op.name, None, None)
  arg = ours(k, opt.arg, axes) if opt.op is OptOps.SWAP else opt.arg
  return (opt.op.name, ours(k, k.real_axis(opt.op, opt.axis), axes), arg)


def ours(k, at, axes):
  """The axis number of the Scheduler's range `at` when it names exactly one lifted RANGE, else Cut."""
  if not 0 <= at < len(k.rngs): raise KernelOptError(f"no axis {at}")
  number = k.rngs[at].arg[0]
  if axes.count(number) > 1: raise Cut("opts: a step on an axis number two RANGEs share")
  if number not in axes: raise Cut("opts: a step on a range an earlier step made")
  # tinygrad's range splitting (pm_split_ranges) numbers both parts as the range: none is ours alone
  if sum(r.arg[0] == number for r in k.rngs) > 1: raise Cut("opts: a step on a part of a range tinygrad split")
  return number

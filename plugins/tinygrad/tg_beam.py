# tg_beam.py: tinygrad's BEAM search (codegen/opt/search.py) as the optimizer of a program without an `opts`
# line, adapter option --beam N (README.md, "BEAM"). tinygrad's beam_search picks each round's best kernels by
# timing them on the device, so its choice differs from run to run and a finding found with it could not be
# replayed. Here it runs unchanged but for its clock: every candidate is rendered and compiled as tinygrad
# does, and its "time" is a cost model, the uops one run of the kernel executes (each uop of the linearized
# program once per iteration of the loops around it, vector uops once, invocations beyond the machine's
# threads in rounds), so the search is deterministic: the same program and options give the same sequence,
# which the reply names (opts_applied) and a finding's reproducer replays with the same --beam. No candidate
# runs: a kernel's data-dependent loop or index cannot crash the adapter, and BEAM needs no device time.
# The rules that fire while candidates compile are not the program's (no candidate's result is checked), so
# the reply's `used` is that of the chosen kernel's lowering alone; the lines of search.py are BEAM's own.
import contextlib
import hashlib
import math

import tinygrad.codegen.opt.search as tg_search
from tinygrad.codegen.opt import OptOps
from tinygrad.uop.ops import Ops, sym_infer

WIDTH = 0  # the adapter's --beam N: BEAM's width for programs without an opts line; 0: tinygrad's heuristic
SHARE = 100  # the adapter's --beam-share P: the percent of those kernels BEAM optimizes (the rest: the heuristic)


def chooses(ast):
  """Whether BEAM optimizes this kernel: a width is set, the kernel falls in the share by a hash of its
  stores (their UOp keys, not the kernel's name, which a batch numbers: the same program gets the same choice
  in any process, batch and order, so a finding replays), and its loops are searchable: no RANGE ends at a
  value loaded at run time: tinygrad's front end never makes one, and search.py's estimate of such a kernel's
  op count (sym_infer) raised NameError: name 'UOp' is not defined on one a campaign made, a false finding."""
  if not WIDTH or SHARE <= 0: return False
  if any(u.op is Ops.RANGE and any(x.op in (Ops.INDEX, Ops.LOAD) for x in u.src[0].toposort()) for u in ast.toposort()): return False
  stores = hashlib.sha256(b"".join(s.key for s in ast.src)).digest()
  return SHARE >= 100 or int.from_bytes(stores[:8], "little") % 100 < SHARE


SECONDS_PER_UOP = 1e-7  # the model's unit: one executed uop counts more than search.py's min_progress (1e-8 s)


def trips(rng, var_vals):
  """A RANGE's trip count: its bound's value (a variable's at var_vals, as BEAM times symbolic kernels)."""
  bound = rng.src[0]
  if bound.op is Ops.CONST: return max(int(bound.arg), 0)
  try: return max(int(sym_infer(bound, var_vals)), 0)
  except Exception: return max(int(bound.vmax), 0)


def executed_uops(prg, var_vals, threads):
  """The cost model: the uops one run of the PROGRAM executes. Each uop of its linear list counts once per
  iteration of the RANGEs open around it (an END closes one); the kernel's invocations (global x local size)
  run `threads` at a time."""
  count, loops = 0, [1]
  for u in prg.src[1].src:
    count += loops[-1]
    if u.op is Ops.RANGE: loops.append(loops[-1] * trips(u, var_vals))
    elif u.op is Ops.END and len(loops) > 1: loops.pop()
  info = prg.arg
  invocations = math.prod(sym_infer(s, var_vals) for s in (*info.global_size, *(info.local_size or (1,))))
  return count * math.ceil(max(invocations, 1) / threads)


def modelled(threads):
  """search.py's _time_program in the model: the same cost `cnt` times, in seconds."""
  def time_program(prg, var_vals, rawbufs, early_stop=None, allow_test_size=True, max_global_size=65536, clear_l2=False,
                   cnt=3, name="test", dev_timeout=False):
    return [executed_uops(prg, var_vals, threads) * SECONDS_PER_UOP] * cnt
  return time_program


def screened(thread_ok):
  """search.py's get_kernel_actions without the THREAD candidates thread_ok(scheduler, range) refuses (the
  adapter's check of a THREAD step: a kernel that could not run once per core_id is no finding of BEAM's)."""
  actions = tg_search.get_kernel_actions
  def get_kernel_actions(s, include_0=True, max_up=None):
    acted = actions(s, include_0, max_up)
    return {i: s2 for i, s2 in acted.items() if i == 0 or s2.applied_opts[-1].op is not OptOps.THREAD or
            thread_ok(s, s.rngs[s.real_axis(OptOps.THREAD, s2.applied_opts[-1].axis)])}
  return get_kernel_actions


@contextlib.contextmanager
def deterministic(threads, thread_ok):
  """search.py's clock replaced by the model, its worker pool (other processes would not see this) and its
  disk cache (an earlier run's choice) off, its THREAD candidates screened, and the rules its candidates fire
  kept out of the reply's `used`."""
  import tg_switches  # (at the call: tg_switches imports tg_uops, which imports this module through tg_opts)
  names = ("_time_program", "get_worker_pool", "diskcache_get", "diskcache_put", "get_kernel_actions")
  saved = {name: getattr(tg_search, name) for name in names}
  tg_search._time_program, tg_search.get_worker_pool = modelled(threads), lambda: None
  tg_search.get_kernel_actions = screened(thread_ok)
  tg_search.diskcache_get, tg_search.diskcache_put = (lambda *a: None), (lambda *a: None)
  used = set(tg_switches.USED)
  try: yield
  finally:
    for name, value in saved.items(): setattr(tg_search, name, value)
    tg_switches.USED.clear()
    tg_switches.USED.update(used)

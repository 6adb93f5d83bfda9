# tg_opts_reach.py: whether users reach a finding's optimization sequence without choosing opts (issue 36's
# reachability, for the `opts` line): does tinygrad's heuristic pick it for the kernel, and does BEAM's action
# space hold each of its steps (codegen/opt/search.py `actions`: what BEAM=N may choose, by timing, one step
# at a time; PADTO only with BEAM_PADTO=1, NOLOCALS only with NOLOCALS=1). Said after the Tensor form's
# verdict in the reach reply (tg_tensor.reach), so a triaged file's `meta reachable` says it.
import copy

from tinygrad.codegen.opt import Opt, OptOps

import tg_opts
from uopfuzz_plugin import format_opt


def beam_actions(padto):
  """BEAM's actions as search.py builds them, with or without BEAM_PADTO (read at its import: rebuilt here
  from its list, the PADTO rows added as search.py adds them, amount 32 on axes 0..6)."""
  from tinygrad.codegen.opt import search
  listed = [a for a in search.actions if a.op is not OptOps.PADTO]
  return listed + [Opt(OptOps.PADTO, axis, 32) for axis in range(7)] * padto


def lowered_report(program, backend, opts):
  """The optimizer's report of one lowering of the program with `opts` (None: the heuristic), or None when
  the lowering fails before the optimizer ran."""
  variant = copy.copy(program)
  variant.opts = opts
  tg_opts.LAST = None
  try: backend.lower_program(variant, "reach")
  except Exception:  # the lowering may fail after the optimizer (the finding itself): its report stands
    pass
  return tg_opts.LAST


def heuristic_text(program, backend):
  r = lowered_report(program, backend, None)
  if r is None: return "tinygrad's heuristic: the kernel does not lower"
  picked = list(r.applied)
  if picked == [format_opt(*o) for o in program.opts]: return f"tinygrad's heuristic picks this sequence ({', '.join(picked)})"
  return f"tinygrad's heuristic picks {' '.join(picked) or 'no opt'} for the kernel, not this sequence"


def beam_text(program, backend):
  r = lowered_report(program, backend, program.opts)
  if r is None or r.tinygrad is None: return "BEAM: the kernel does not lower"
  plain, padto = beam_actions(False), beam_actions(True)
  steps = list(zip(r.applied, r.tinygrad))
  missing = [ours for ours, opt in steps if opt not in plain]
  if not steps: return "BEAM: no step of the sequence applies"
  if not missing: return "BEAM's actions hold each step (BEAM=N may pick it)"
  if all(opt in padto for ours, opt in steps):
    return f"BEAM's actions hold {', '.join(missing)} only with BEAM_PADTO=1"
  return f"BEAM's actions lack {', '.join(missing)} (search.py's amounts and axes)"


def opts_reach(program, backend):
  """'; tinygrad's heuristic ...; BEAM ...' for a program with a non-empty opts line, else ''."""
  if not program.opts: return ""
  return f"; {heuristic_text(program, backend)}; {beam_text(program, backend)}"

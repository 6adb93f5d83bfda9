// The optimization sequence of a program (docs/format.md, the `opts` line): steps drawn as tinygrad's
// optimizer would take them, each on a RANGE of the kind its action works on and with an amount that
// divides the trip count, so most apply; one that does not is skipped by the target and said, never a
// finding. Drawn last, from the program's own RNG: guidance mutates a sequence like any other choice.
#include <algorithm>

#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

struct Axis {
  int64_t axis, trips;  // trips: the constant trip count, or 0 when computed
  RangeKind kind;
};

// The RANGE kinds an action works on (tinygrad: UPCAST, LOCAL, THREAD, SWAP on output axes, UNROLL and
// the GROUPs on reduction axes, PADTO on any).
bool acts_on(OptAction a, RangeKind k) {
  switch (a) {
    case OptAction::UNROLL:
    case OptAction::GROUP:
    case OptAction::GROUPTOP: return k == RangeKind::Reduce;
    case OptAction::PADTO: return true;
    default: return k == RangeKind::Global;
  }
}

// The largest amount tinygrad takes for the action (postrange.py: upcast 16, unroll 32; threads: a core count).
int64_t most(OptAction a) { return a == OptAction::UNROLL ? 32 : a == OptAction::THREAD ? 8 : 16; }

}  // namespace

void Gen::draw_opts() {
  if (!rng.chance(pol.p_opts)) return;
  std::vector<Axis> axes;
  for (const UOp* u : linearize(prog))
    if (u->op == Op::RANGE)
      axes.push_back({u->value.i, u->src[0]->op == Op::CONST ? u->src[0]->value.i : 0, u->range_kind()});
  if (axes.empty()) return;
  OptSequence seq;
  const int64_t n = rng.range(1, std::max(1, pol.max_opts));
  for (int64_t i = 0; i < n; ++i) {
    const auto action = static_cast<OptAction>(std::max(0, rng.weighted(pol.opt_action_weight)));
    const std::string name = enum_names(OptAction{})[static_cast<size_t>(action)];
    if (action == OptAction::NOLOCALS) {
      seq.push_back({name});
      continue;
    }
    std::vector<Axis> fit;
    for (const Axis& a : axes)
      if (acts_on(action, a.kind) && a.trips > 1) fit.push_back(a);
    if (fit.empty()) continue;
    const Axis a = rng.pick(fit);
    if (action == OptAction::SWAP) {
      const Axis& b = rng.pick(fit);
      if (b.axis != a.axis) seq.push_back({name, a.axis, b.axis});
      continue;
    }
    std::vector<int64_t> amounts;
    if (action == OptAction::PADTO) {
      for (int64_t m : {2, 3, 4, 8, 16, 32})  // tinygrad refuses a pad that more than quadruples the work
        if ((a.trips + m - 1) / m * m < 4 * a.trips && a.trips % m != 0) amounts.push_back(m);
    } else {
      for (int64_t d = 2; d <= std::min(a.trips, most(action)); ++d)
        if (a.trips % d == 0) amounts.push_back(d);
    }
    if (amounts.empty()) continue;
    seq.push_back({name, a.axis, rng.pick(amounts)});
  }
  if (!seq.empty()) prog.opts = std::move(seq);  // none drawn: the target's own optimizer, not an empty line
}

}  // namespace uf::gen

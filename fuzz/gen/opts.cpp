// The optimization sequence of a program (docs/format.md, the `opts` line): steps drawn as tinygrad's
// optimizer would take them, each on a RANGE of the kind its action works on and with an amount that
// divides the trip count, so most apply; one that does not is skipped by the target and said, never a
// finding. Drawn last, from the program's own RNG: guidance mutates a sequence like any other choice.
#include <algorithm>
#include <set>

#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

struct Axis {
  int64_t axis, trips;  // trips: the constant trip count, or 0 when computed
  RangeKind kind;
  bool threadable;      // closed by an END the SINK takes directly (tinygrad threads only such a loop)
};

// The RANGEs an action works on (tinygrad: UPCAST, LOCAL, SWAP on output axes, THREAD on an output axis
// an END the SINK takes closes (postrange.py's _globalizable_rngs: not one a later read waits on through
// an AFTER), UNROLL and the GROUPs on reduction axes, PADTO on any).
bool acts_on(OptAction a, const Axis& x) {
  switch (a) {
    case OptAction::UNROLL:
    case OptAction::GROUP:
    case OptAction::GROUPTOP: return x.kind == RangeKind::Reduce;
    case OptAction::PADTO: return true;
    case OptAction::THREAD: return x.kind == RangeKind::Global && x.threadable;
    default: return x.kind == RangeKind::Global;
  }
}

// The largest amount tinygrad takes for the action (postrange.py: upcast 16, unroll 32; threads: a core count).
int64_t most(OptAction a) { return a == OptAction::UNROLL ? 32 : a == OptAction::THREAD ? 8 : 16; }

// The amounts tinygrad takes for the action on a RANGE of `trips` constant trips: a divisor up to its most
// (PADTO: a multiple it pads to, which it refuses when that more than quadruples the work).
std::vector<int64_t> amounts_for(OptAction action, int64_t trips) {
  std::vector<int64_t> amounts;
  if (action == OptAction::PADTO) {
    for (int64_t m : {2, 3, 4, 8, 16, 32})
      if ((trips + m - 1) / m * m < 4 * trips && trips % m != 0) amounts.push_back(m);
  } else {
    for (int64_t d = 2; d <= std::min(trips, most(action)); ++d)
      if (trips % d == 0) amounts.push_back(d);
  }
  return amounts;
}

// The RANGEs an action can take a step on (each with at least one amount; SWAP needs two).
std::vector<Axis> fitting(OptAction action, const std::vector<Axis>& axes) {
  std::vector<Axis> fit;
  if (action == OptAction::NOLOCALS) return fit;
  for (const Axis& a : axes)
    if (acts_on(action, a) && a.trips > 1 && (action == OptAction::SWAP || !amounts_for(action, a.trips).empty()))
      fit.push_back(a);
  if (action == OptAction::SWAP && fit.size() < 2) fit.clear();
  return fit;
}

}  // namespace

}  // namespace uf::gen

namespace uf {

// Each step's action is drawn among those that fit some RANGE of the program, so a program with loops gets
// a sequence whenever one can be written for it; NOLOCALS, which needs no RANGE, only beside those.
void draw_opts(Program& prog, const GenPolicy& pol, Rng& rng) {
  using namespace gen;
  if (!rng.chance(pol.p_opts)) return;
  std::set<const UOp*> top;  // the RANGEs the SINK's own ENDs close
  if (prog.sink)
    for (const UOp* e : prog.sink->src)
      if (e->op == Op::END) top.insert(e->src.begin() + 1, e->src.end());
  std::vector<Axis> axes;
  for (const UOp* u : linearize(prog))
    if (u->op == Op::RANGE)
      axes.push_back({u->value.i, u->src[0]->op == Op::CONST ? u->src[0]->value.i : 0, u->range_kind(), top.count(u) > 0});
  if (axes.empty()) return;
  Weights<OptAction> weights = pol.opt_action_weight;
  std::array<std::vector<Axis>, count_of<OptAction>()> fit;
  for (size_t i = 0; i < weights.size(); ++i) {
    fit[i] = fitting(static_cast<OptAction>(i), axes);
    if (fit[i].empty() && static_cast<OptAction>(i) != OptAction::NOLOCALS) weights[i] = 0;
  }
  if (std::all_of(fit.begin(), fit.end(), [](const auto& f) { return f.empty(); })) return;
  OptSequence seq;
  const int64_t n = rng.range(1, std::max(1, pol.max_opts));
  for (int64_t i = 0; i < n; ++i) {
    const int drawn = rng.weighted(weights);
    if (drawn < 0) break;  // no action fits
    const auto action = static_cast<OptAction>(drawn);
    const std::string name = enum_names(OptAction{})[static_cast<size_t>(action)];
    if (action == OptAction::NOLOCALS) {
      seq.push_back({name});
      continue;
    }
    const Axis a = rng.pick(fit[static_cast<size_t>(drawn)]);
    if (action == OptAction::SWAP) {
      const Axis& b = rng.pick(fit[static_cast<size_t>(drawn)]);
      if (b.axis != a.axis) seq.push_back({name, a.axis, b.axis});
      continue;
    }
    seq.push_back({name, a.axis, rng.pick(amounts_for(action, a.trips))});
  }
  if (!seq.empty()) prog.opts = std::move(seq);  // none drawn: the target's own optimizer, not an empty line
}

}  // namespace uf

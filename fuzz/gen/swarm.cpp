// Swarm testing: each program keeps a random subset of the policy's ops, dtypes, step kinds and
// features. A program without ADD or without f32 is not a worse test; it is a different one, and rare
// ops get more of the program to themselves.
#include <algorithm>
#include <functional>
#include <ranges>

#include "core/error.h"
#include "core/uop.h"
#include "fuzz/gen/policy_table.h"

namespace uf {

namespace {

// Zero each positive weight with probability 1 - keep, but never all of them: if every one went,
// restore one at random (from those that were positive).
template <size_t N>
void thin(std::array<double, N>& w, double keep, Rng& rng) {
  const std::array<double, N> before = w;
  for (double& x : w)
    if (x > 0 && !rng.chance(keep)) x = 0;
  for (double x : w)
    if (x > 0) return;
  const int i = rng.weighted(before);
  if (i >= 0) w[i] = before[i];
}

double feature(double p, double keep, Rng& rng) { return rng.chance(keep) ? p : 0; }

bool some_alu_op_usable(const GenPolicy& p) {
  for (Op op : kAluOps)
    for (DType d : kValueDTypes)
      if (p.op_weight[static_cast<size_t>(op)] > 0 && p.dtype_weight[static_cast<size_t>(d)] > 0 && policy_accepts(p, op, d))
        return true;
  return false;
}

template <class T>
concept WeightTable = std::is_same_v < std::ranges::range_value_t<T>,
double > ;

// Applies one rule to the knob `m` of `p`.
template <class T>
void apply(const SwarmRule& r, T GenPolicy::*m, GenPolicy& p, const GenPolicy& base, Rng& rng) {
  T& x = p.*m;
  const double keep = base.*r.keep;
  if constexpr (std::is_same_v<T, double>) {
    x = feature(x, keep, rng);
  } else if constexpr (WeightTable<T>) {
    if (r.kind == SwarmRule::Drop) {
      for (int e : r.at)
        if (e >= 0) x[e] = rng.chance(keep) ? (base.*m)[e] : 0;
      return;
    }
    const T before = x;
    thin(x, keep, rng);
    for (int e : r.at)
      if (e >= 0) x[e] = before[e];
    // E.g. only float ops with only int dtypes: give back the base's ops until one fits.
    for (int tries = 0; r.fit_ops && tries < 64 && !some_alu_op_usable(p); ++tries) {
      const int o = rng.weighted(base.op_weight);
      if (o >= 0) p.op_weight[o] = base.op_weight[o];
    }
  } else {
    throw InternalError("policy.def: a swarm rule on a knob that is neither a probability nor weights");
  }
}

}  // namespace

GenPolicy swarm(const GenPolicy& base, Rng& rng) {
  GenPolicy p = base;
  if (!rng.chance(base.p_swarm)) return p;
  // The rules of policy.def's swarm column, in their draw order.
  struct Bound {
    SwarmRule rule;
    std::function<void()> run;
  };
  std::vector<Bound> rules;
  for_each_knob([&](const Knob& k, auto m) {
    for (int i = 0; i < k.swarm.count; ++i) {
      const SwarmRule r = k.swarm.rules[i];
      rules.push_back({r, [r, m, &p, &base, &rng] { apply(r, m, p, base, rng); }});
    }
  });
  std::stable_sort(rules.begin(), rules.end(), [](const Bound& a, const Bound& b) { return a.rule.order < b.rule.order; });
  for (const Bound& b : rules) b.run();
  return p;
}

}  // namespace uf

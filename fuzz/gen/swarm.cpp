// Swarm testing: each program keeps a random subset of the policy's ops, dtypes, step kinds and
// features. A program without ADD or without f32 is not a worse test; it is a different one, and rare
// ops get more of the program to themselves.
#include "core/uop.h"
#include "fuzz/gen/policy.h"

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

double feature(double p, double keep, Rng& rng) { return rng.chance(keep) ? p : 0.0; }

bool some_alu_op_usable(const GenPolicy& p) {
  for (Op op : kAluOps)
    for (DType d : kValueDTypes)
      if (p.op_weight[static_cast<size_t>(op)] > 0 && p.dtype_weight[static_cast<size_t>(d)] > 0 && op_accepts(op, d))
        return true;
  return false;
}

}  // namespace

GenPolicy swarm(const GenPolicy& base, Rng& rng) {
  GenPolicy p = base;
  if (!rng.chance(base.p_swarm)) return p;
  thin(p.op_weight, base.p_keep_op, rng);
  thin(p.dtype_weight, base.p_keep_dtype, rng);
  // E.g. only float ops with only int dtypes: give back the base's ops until one fits.
  for (int tries = 0; tries < 64 && !some_alu_op_usable(p); ++tries) {
    const int o = rng.weighted(base.op_weight);
    if (o >= 0) p.op_weight[o] = base.op_weight[o];
  }
  // The ALU step always stays: it is what the memory steps feed on.
  const double alu = p.step_weight[static_cast<size_t>(Step::Alu)];
  thin(p.step_weight, base.p_keep_step, rng);
  p.step_weight[static_cast<size_t>(Step::Alu)] = alu;
  // Loops have their own keep probability: most programs should have one.
  const double loop = base.step_weight[static_cast<size_t>(Step::Loop)];
  p.step_weight[static_cast<size_t>(Step::Loop)] = rng.chance(base.p_keep_loop) ? loop : 0.0;

  const double k = base.p_keep_feature;
  thin(p.leaf_weight, k, rng);
  thin(p.clamp_weight, k, rng);
  thin(p.shift_weight, k, rng);
  thin(p.numerator_weight, k, rng);
  thin(p.divisor_weight, k, rng);
  thin(p.guard_weight, k, rng);
  thin(p.acc_update_weight, k, rng);
  auto drop = [&](auto& weights, ValueKind v) {
    weights[static_cast<size_t>(v)] = feature(weights[static_cast<size_t>(v)], k, rng);
  };
  drop(p.const_value_weight, ValueKind::Edge);
  drop(p.data_value_weight, ValueKind::Edge);
  drop(p.data_value_weight, ValueKind::Bits);
  p.p_dynamic_index = feature(p.p_dynamic_index, k, rng);
  p.p_nonneg_numerator = feature(p.p_nonneg_numerator, k, rng);
  p.p_recent = feature(p.p_recent, k, rng);
  p.p_after_on_index = feature(p.p_after_on_index, k, rng);
  p.p_redundant_after = feature(p.p_redundant_after, k, rng);
  p.p_keep_all_deps = feature(p.p_keep_all_deps, k, rng);
  p.p_war_store = feature(p.p_war_store, k, rng);
  p.p_scratch_overwrite = feature(p.p_scratch_overwrite, k, rng);
  p.p_dead_code = feature(p.p_dead_code, k, rng);
  return p;
}

}  // namespace uf

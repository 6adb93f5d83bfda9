#include "fuzz/campaign/size_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace uf {

SizeSchedule::SizeSchedule(const GenPolicy& base, bool enabled, uint64_t seed)
    : enabled_(enabled && base.adapt_size), discount_(base.size_discount), explore_(base.p_size_explore), rng_(seed) {
  if (!enabled_) {
    arms_.push_back(Arm{base.min_steps, base.max_steps});
    policies_.push_back(base);
    return;
  }
  for (const double percent : base.size_arms_percent) {
    GenPolicy p = base;
    p.max_steps = std::max(1, static_cast<int>(std::lround(base.max_steps * percent / 100)));
    p.min_steps = std::clamp(p.max_steps / 4, 1, base.min_steps);
    if (std::any_of(arms_.begin(), arms_.end(), [&p](const Arm& a) { return a.max_steps == p.max_steps; })) continue;
    arms_.push_back(Arm{p.min_steps, p.max_steps});
    policies_.push_back(std::move(p));
  }
}

const GenPolicy& SizeSchedule::policy(int arm) const { return policies_.at(static_cast<size_t>(arm)); }

std::string SizeSchedule::range(int arm) const {
  const Arm& a = arms_.at(static_cast<size_t>(arm));
  return std::to_string(a.min_steps) + ".." + std::to_string(a.max_steps);
}

double SizeSchedule::check_seconds(int arm) const {
  // Least squares of t = a*n + b*N over the batches.
  const double nodes = arms_.at(static_cast<size_t>(arm)).nodes;
  const double det = nn_ * NN_ - nN_ * nN_;
  if (det > 1e-9 * nn_ * NN_) {
    const double a = (nt_ * NN_ - Nt_ * nN_) / det, b = (Nt_ * nn_ - nt_ * nN_) / det;
    if (a >= 0 && b >= 0) return a + b * nodes;
  }
  // Batches too few or too alike to tell the terms apart, or one fitted negative: t = b*N alone.
  return NN_ > 0 ? Nt_ / NN_ * nodes : 0;
}

double SizeSchedule::rate(int arm, double p) const {
  const double per_node = reduction_nodes_ > 0 ? reduction_seconds_ / reduction_nodes_ : 0;
  const double cost = check_seconds(arm) + p * per_node * arms_.at(static_cast<size_t>(arm)).nodes;
  return cost > 0 ? p / cost : p;
}

double SizeSchedule::rate(int arm) const {
  const Arm& a = arms_.at(static_cast<size_t>(arm));
  return rate(arm, (a.wins + 1) / (a.tries + 2));
}

// Thompson sampling: each arm's p drawn from its Beta posterior (a uniform prior), the best rate wins.
int SizeSchedule::pick() {
  if (!enabled_) return 0;
  const int n = static_cast<int>(arms_.size());
  if (next_cold_ < n) return next_cold_++;  // every arm once before any is judged
  if (rng_.chance(explore_)) return static_cast<int>(rng_.below(static_cast<uint64_t>(n)));
  int best = 0;
  double best_rate = -1;
  for (int k = 0; k < n; ++k) {
    const Arm& a = arms_[static_cast<size_t>(k)];
    const double x = gamma(a.wins + 1), y = gamma(a.tries - a.wins + 1);
    if (const double r = rate(k, x + y > 0 ? x / (x + y) : 0.5); r > best_rate) best = k, best_rate = r;
  }
  return best;
}

// A Gamma(shape, 1) variate (Marsaglia and Tsang; shape < 1 through shape + 1).
double SizeSchedule::gamma(double shape) {
  if (shape < 1) return gamma(shape + 1) * std::pow(std::max(rng_.unit(), 1e-300), 1 / shape);
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double u1 = std::max(rng_.unit(), 1e-300), u2 = rng_.unit();
    const double x = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);  // Box-Muller
    const double v = std::pow(1 + c * x, 3);
    if (v <= 0) continue;
    if (std::log(std::max(rng_.unit(), 1e-300)) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

void SizeSchedule::checked(int arm, size_t nodes, bool new_bucket) {
  if (!enabled_) return;
  for (Arm& a : arms_) a.tries *= discount_, a.wins *= discount_;
  Arm& a = arms_.at(static_cast<size_t>(arm));
  a.nodes += (static_cast<double>(nodes) - a.nodes) / static_cast<double>(++a.programs);
  a.tries += 1;
  if (new_bucket) a.wins += 1, ++a.new_buckets;
}

void SizeSchedule::batch(size_t programs, size_t nodes, double seconds) {
  const double n = static_cast<double>(programs), N = static_cast<double>(nodes);
  nn_ += n * n, nN_ += n * N, NN_ += N * N, nt_ += n * seconds, Nt_ += N * seconds;
}

void SizeSchedule::reduced(size_t nodes, double seconds) {
  reduction_nodes_ += static_cast<double>(nodes);
  reduction_seconds_ += seconds;
}

std::map<std::string, SizeCounts> SizeSchedule::counts() const {
  std::map<std::string, SizeCounts> out;
  for (int k = 0; k < static_cast<int>(arms_.size()); ++k)
    out[range(k)] = SizeCounts{arms_[static_cast<size_t>(k)].programs, arms_[static_cast<size_t>(k)].new_buckets};
  return out;
}

}  // namespace uf

// The generator's one source of randomness: xoshiro256** seeded through splitmix64.
//
// Everything here is plain integer arithmetic, so a seed gives the same stream on every compiler and
// standard library (std::uniform_*_distribution does not promise that, which would break replay).
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace uf {

// One splitmix64 step: a strong 64-bit mixer, also used to derive per-program seeds.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& w : s_) w = splitmix64(seed);
  }
  // A choice sequence (Zest): the first draws are `replay`'s, then the seed's own stream; every draw
  // goes to `record` too when given. Every draw below derives from next(), so any sequence of 64-bit
  // values is a valid sequence of choices.
  Rng(uint64_t seed, std::span<const uint64_t> replay, std::vector<uint64_t>* record) : Rng(seed) {
    replay_ = replay;
    record_ = record;
  }

  uint64_t next() {
    const uint64_t r = pos_ < replay_.size() ? replay_[pos_++] : step();
    if (record_) record_->push_back(r);
    return r;
  }

 private:
  uint64_t step() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 public:
  // Uniform in [0, n) by rejection (no modulo bias); n = 0 gives 0.
  uint64_t below(uint64_t n) {
    if (n <= 1) return 0;
    const uint64_t limit = ~uint64_t{0} - (~uint64_t{0} % n);
    uint64_t x;
    do x = next();
    while (x >= limit);
    return x % n;
  }
  // Uniform in [lo, hi], both inclusive.
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1)); }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  bool chance(double p) { return p > 0 && unit() < p; }

  // Index drawn with probability proportional to weights[i]; -1 when every weight is zero.
  int weighted(std::span<const double> weights) {
    double total = 0;
    for (double w : weights) total += w > 0 ? w : 0;
    if (total <= 0) return -1;
    double x = unit() * total;
    int last = -1;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (weights[i] <= 0) continue;
      last = static_cast<int>(i);
      if (x < weights[i]) return last;
      x -= weights[i];
    }
    return last;  // rounding left x just past the end
  }

  template <class C>
  const auto& pick(const C& items) {
    return items[below(std::size(items))];
  }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  std::span<const uint64_t> replay_;
  size_t pos_ = 0;
  std::vector<uint64_t>* record_ = nullptr;
};

}  // namespace uf

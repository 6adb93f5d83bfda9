// Program size fitted to the target (the policy's `adapt_size`): which step range the next program of
// a --time campaign is drawn from.
//
// On a slow target most of a campaign is reductions (tinygrad's x86 backend: a program checked in about a
// second, a new bucket reduced and its culprit searched in one to two minutes), and both costs grow with
// the program; small programs find the common bugs sooner, large ones the rarer bugs that need more of a
// program. So the range is a bandit over the policy's `size_arms_percent` (max_steps scaled to each),
// judged by what the campaign is judged by: new buckets reduced per second. An arm's rate is
//
//     p / (c + p * r)
//
// p its recent share of programs that found a bucket new to the corpus (discounted by `size_discount`
// per program, Laplace's estimate), c the measured seconds to check one of its programs, r the measured
// seconds to reduce (and triage) a finding of its programs' size. c comes from a least-squares fit of
// every batch's seconds to `a * programs + b * nodes` (a batch mixes sizes, so both are seen); r from
// the seconds of every reduction this worker ran per node of the program it started from. The next arm
// is the best by a rate with p drawn from its posterior (Thompson sampling), or with probability
// `p_size_explore` any arm.
//
// Only --time campaigns without --count adapt: a --count run's programs must not depend on timing, and
// `--guide none` is the blind stream exactly.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "fuzz/campaign/protocol.h"
#include "fuzz/gen/policy.h"
#include "fuzz/gen/rng.h"

namespace uf {

class SizeSchedule {
 public:
  SizeSchedule(const GenPolicy& base, bool enabled, uint64_t seed);

  bool enabled() const { return enabled_; }
  int pick();                               // the arm of the next program (0 when not enabled)
  const GenPolicy& policy(int arm) const;   // the base policy with that arm's step range
  std::string range(int arm) const;         // "MIN..MAX" steps

  // What was measured: one program of `arm` checked (its nodes; whether it found a bucket new to the
  // corpus); one batch's compile-and-run seconds; one reduction's seconds (with its blame and culprit).
  void checked(int arm, size_t nodes, bool new_bucket);
  void batch(size_t programs, size_t nodes, double seconds);
  void reduced(size_t nodes, double seconds);

  struct Arm {
    int min_steps = 0, max_steps = 0;
    int64_t programs = 0, new_buckets = 0;  // all of this worker's, undiscounted
    double tries = 0, wins = 0;             // discounted
    double nodes = 0;                       // the mean nodes of its programs
  };
  const std::vector<Arm>& arms() const { return arms_; }
  std::map<std::string, SizeCounts> counts() const;  // by range(arm): what a SizeReport carries
  double rate(int arm) const;          // new buckets reduced per second, by the estimates so far
  double check_seconds(int arm) const;  // c: seconds to check one of its programs

 private:
  double rate(int arm, double p) const;  // with p for the arm's share of programs that find a new bucket
  double gamma(double shape);

  bool enabled_;
  double discount_, explore_;
  Rng rng_;
  std::vector<Arm> arms_;
  std::vector<GenPolicy> policies_;
  int next_cold_ = 0;  // arms are first tried in turn
  // The batch cost fit: sums over batches of n*n, n*N, N*N, n*t, N*t (n programs, N nodes, t seconds).
  double nn_ = 0, nN_ = 0, NN_ = 0, nt_ = 0, Nt_ = 0;
  double reduction_seconds_ = 0, reduction_nodes_ = 0;
};

}  // namespace uf

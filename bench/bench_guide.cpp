// What target coverage and guidance cost a campaign's worker per program, beside what a program costs
// anyway: generating it blind (`guide/blind`, the `--guide none` pick), guided (`guide/coverage`: the
// choice sequence recorded, a seed picked and mutated for part of them, the features learnt), and
// counting a render's features (`guide/target_features`, tinygrad's typical 60 rules a render). A
// tinygrad render costs 50 to 500 ms (bench/RESULTS.md), so the ratio that matters is these microseconds
// to it.
#include <benchmark/benchmark.h>

#include "bench/workloads.h"
#include "fuzz/campaign/guide.h"
#include "fuzz/campaign/target_coverage.h"

namespace uf::bench {

namespace {

using benchmark::Counter;

// A render's features: 60 of 300 rules, varying with the program.
std::vector<std::string> features_of(uint64_t k) {
  std::vector<std::string> out;
  for (uint64_t i = 0; i < 60; ++i) out.push_back("uop/symbolic.py:" + std::to_string((k * 7 + i * 5) % 300));
  return out;
}

void pick(benchmark::State& state, GuideMode mode) {
  Guide::Options o;
  o.mode = mode;  // no seed directory: the cost of files is a seed's, rare
  Guide g(o);
  uint64_t k = 0;
  for (auto _ : state) {
    Guide::Pick p = g.next(GenPolicy{});
    benchmark::DoNotOptimize(g.learn(p, features_of(k++ / 4)));  // a new feature set every fourth program
  }
  state.counters["programs"] = Counter(static_cast<double>(k), Counter::kIsRate);
  state.counters["derived"] = static_cast<double>(g.derived());
}
void BM_guide_blind(benchmark::State& state) { pick(state, GuideMode::none); }
void BM_guide_coverage(benchmark::State& state) { pick(state, GuideMode::coverage); }

void BM_target_features(benchmark::State& state) {
  TargetCoverage c;
  std::vector<std::vector<std::string>> sets;
  for (uint64_t k = 0; k < 64; ++k) sets.push_back(features_of(k));
  uint64_t k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(c.add(sets[k++ % sets.size()], 1.0, "seed 1"));
  state.counters["programs"] = Counter(static_cast<double>(k), Counter::kIsRate);
}

}  // namespace

void register_guide() {
  using benchmark::RegisterBenchmark;
  RegisterBenchmark("guide/blind", BM_guide_blind)->Unit(benchmark::kMicrosecond);
  RegisterBenchmark("guide/coverage", BM_guide_coverage)->Unit(benchmark::kMicrosecond);
  RegisterBenchmark("guide/target_features", BM_target_features)->Unit(benchmark::kMicrosecond);
}

}  // namespace uf::bench

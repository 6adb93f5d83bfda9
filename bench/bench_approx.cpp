// What judging approximate ops costs a campaign's worker per program (issue 52: at most 5 % of programs/s):
// the same generated programs checked in process (interpret, then compare with a run that stored the
// reference's own values) for a target that approximates nothing (`approx/exact`) and for one that says it
// approximates all six ops (`approx/budget`: each approximated op kept as a stored leaf, the interpreter's
// record of those stores, every such result judged against MPFR's correctly rounded value). The compiled
// run, which a real campaign also pays (a tinygrad render alone: 50 to 500 ms), is left out: the ratio of
// the two is an upper bound of the share.
#include <benchmark/benchmark.h>

#include "bench/workloads.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/oracle.h"
#include "interp/interp.h"

namespace uf::bench {

namespace {

using benchmark::Counter;

const std::vector<Op> kAllApproximated = {Op::SIN, Op::LOG2, Op::EXP2, Op::POW, Op::SQRT, Op::RECIP};

void check(benchmark::State& state, const std::vector<Op>& approx) {
  const std::vector<Program> programs = generated(settings().smoke ? 8 : 512, 1);
  int64_t checked = 0, judged = 0;
  for (auto _ : state)
    for (const Program& original : programs) {
      Program p = original;
      if (!approx.empty() && !keep_approximated_as_leaves(p, approx)) continue;
      const RefResult ref = interpret(p);
      if (ref.undefined) continue;
      KernelOutcome out;
      out.buffers = ref.buffers;
      const Observation o = compare(p, ref, out, approx);
      benchmark::DoNotOptimize(o.verdict);
      judged += static_cast<int64_t>(o.approx_ulps.size());
      ++checked;
    }
  state.counters["programs"] = Counter(static_cast<double>(checked), Counter::kIsRate);
  state.counters["judged/program"] = checked ? static_cast<double>(judged) / static_cast<double>(checked) : 0;
}
void BM_approx_exact(benchmark::State& state) { check(state, {}); }
void BM_approx_budget(benchmark::State& state) { check(state, kAllApproximated); }

}  // namespace

BENCHMARK(BM_approx_exact)->Name("approx/exact")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_approx_budget)->Name("approx/budget")->Unit(benchmark::kMillisecond);

}  // namespace uf::bench

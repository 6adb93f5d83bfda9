// Benchmarks that run the compiler: a full fuzz iteration at several batch sizes, the same iteration
// split into its phases, and reducing a known failure. All wall time (UseRealTime): the compiler and
// the sandboxed kernels run in child processes, which this thread's CPU time does not see.
//
// Cache: every benchmark run starts with a fresh, private UOPFUZZ_CACHE_DIR (fresh_cache_dir), AND
// every iteration generates new seeds, so no compile is ever served from the cache; each reduce
// iteration gets its own empty cache too (its candidates would repeat across iterations otherwise).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>

#include "bench/workloads.h"
#include "codegen/plugin_server.h"
#include "codegen/runtime/compiler.h"
#include "codegen/runtime/native.h"
#include "codegen/render/render.h"
#include "codegen/runtime/sandbox.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/oracle.h"
#include "fuzz/oracle/reduce.h"
#include "fuzz/oracle/shrink.h"

namespace uf::bench {

namespace {

using benchmark::Counter;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

// CPU seconds (user + system) of every finished child so far: the compiler's own CPU time, which the
// machine's load does not inflate the way it inflates wall time.
double children_cpu() {
  rusage r{};
  ::getrusage(RUSAGE_CHILDREN, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

// The built-in renderer's translation unit for `ps`: the prelude once, then one function each.
std::string batch_source(const std::vector<const Program*>& ps) {
  std::string tu = render_prelude();
  for (size_t i = 0; i < ps.size(); ++i) tu += "\n" + render_function(*ps[i], "kernel" + std::to_string(i));
  return tu;
}

// Seeds never repeat within the process, so batches never share a source with an earlier one.
uint64_t next_seeds(size_t n) {
  static uint64_t next = 1000000;
  const uint64_t first = next;
  next += n;
  return first;
}

// generate + interpret + render + compile + run + compare for N programs: check, exactly as a
// campaign worker does one batch (signatures on).
// Arg 2 (when given and 1): straight-line programs only (`--without loop`), beside the default policy,
// where most programs have a loop.
void BM_fuzz_iteration(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  GenPolicy policy;
  if (state.range(1) == 1) without(policy, "loop");
  fresh_cache_dir();
  const CompiledPathConfig cfg;  // gcc, default flags, built-in renderer
  int64_t programs = 0, valid = 0, failures = 0;
  for (auto _ : state) {
    const uint64_t first = next_seeds(n);
    std::vector<Program> ps;
    ps.reserve(n);
    for (size_t i = 0; i < n; ++i) ps.push_back(generate(program_seed(1, 0, first + i), policy));
    std::vector<const Program*> ptrs;
    for (const Program& p : ps) ptrs.push_back(&p);
    const std::vector<Finding> r = check(ptrs, cfg);
    for (size_t i = 0; i < n; ++i) {
      if (!r[i].defined()) continue;
      ++valid;
      failures += r[i].observation.verdict != Verdict::ok;
    }
    programs += static_cast<int64_t>(n);
  }
  state.counters["programs"] = Counter(static_cast<double>(programs), Counter::kIsRate);
  state.counters["valid"] = Counter(static_cast<double>(valid), Counter::kIsRate);
  state.counters["failures"] = Counter(static_cast<double>(failures));  // the good renderer: expect 0
}

// The same batch with each phase timed on its own (what check does inside, via the public
// codegen pieces). Counters are milliseconds per program, averaged over iterations; `compile_share`
// is the compiler's fraction of the batch's wall time.
void BM_batch_phases(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  fresh_cache_dir();
  double t_gen = 0, t_interp = 0, t_render = 0, t_compile = 0, t_run = 0, cpu_compile = 0;
  int64_t programs = 0, nodes = 0;
  for (auto _ : state) {
    const uint64_t first = next_seeds(n);
    auto t0 = clock_type::now();
    std::vector<Program> ps;
    for (size_t i = 0; i < n; ++i) ps.push_back(generate(program_seed(1, 0, first + i)));
    t_gen += since(t0);

    t0 = clock_type::now();
    std::vector<const Program*> defined;
    for (const Program& p : ps)
      if (!interpret(p).undefined) defined.push_back(&p);
    t_interp += since(t0);

    t0 = clock_type::now();
    std::string tu = render_prelude();
    for (size_t i = 0; i < defined.size(); ++i) {
      tu += "\n" + render_function(*defined[i], "kernel" + std::to_string(i));
      nodes += static_cast<int64_t>(live_nodes(*defined[i]));
    }
    t_render += since(t0);

    t0 = clock_type::now();
    const double cpu0 = children_cpu();
    const CompileResult c = compile_shared({tu});
    cpu_compile += children_cpu() - cpu0;
    t_compile += since(t0);
    if (!c.ok || c.cached) {
      state.SkipWithError(c.ok ? "unexpected cache hit" : "batch did not compile");
      break;
    }

    t0 = clock_type::now();
    std::vector<KernelCall> calls;
    for (size_t i = 0; i < defined.size(); ++i) calls.push_back({"kernel" + std::to_string(i), program_buffers(*defined[i])});
    const auto results = run_sandboxed(c.so_path, calls, 10);
    for (size_t i = 0; i < defined.size(); ++i) benchmark::DoNotOptimize(from_native(calls[i].buffers.at(0)));
    t_run += since(t0);
    programs += static_cast<int64_t>(n);
  }
  const double per = programs > 0 ? 1e3 / static_cast<double>(programs) : 0;
  const double total = t_gen + t_interp + t_render + t_compile + t_run;
  state.counters["programs"] = Counter(static_cast<double>(programs), Counter::kIsRate);
  state.counters["gen_ms"] = t_gen * per;
  state.counters["interp_ms"] = t_interp * per;
  state.counters["render_ms"] = t_render * per;
  state.counters["compile_ms"] = t_compile * per;
  state.counters["compile_cpu_ms"] = cpu_compile * per;
  state.counters["run_ms"] = t_run * per;
  state.counters["compile_share"] = total > 0 ? t_compile / total : 0;
  state.counters["nodes_per_prog"] = programs > 0 ? static_cast<double>(nodes) / static_cast<double>(programs) : 0;
}

// Batch size alone: the SAME programs (a fixed set of seeds) compiled in batches of N, every
// iteration into an empty cache. Wall and compiler CPU per program, so batch sizes compare fairly
// (fuzz_iteration draws new programs for every N, and program sizes vary a lot).
void BM_compile_sweep(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<Program> ps = generated(settings().smoke ? 4 : 128, 5000000);
  double wall = 0, cpu = 0;
  int64_t programs = 0, calls = 0;
  for (auto _ : state) {
    fresh_cache_dir();
    for (size_t at = 0; at < ps.size(); at += n) {
      std::vector<const Program*> batch;
      for (size_t i = at; i < std::min(ps.size(), at + n); ++i) batch.push_back(&ps[i]);
      const std::string tu = batch_source(batch);
      const auto t0 = clock_type::now();
      const double cpu0 = children_cpu();
      const CompileResult c = compile_shared({tu});
      cpu += children_cpu() - cpu0;
      wall += since(t0);
      if (!c.ok || c.cached) state.SkipWithError(c.ok ? "unexpected cache hit" : "batch did not compile");
      ++calls;
    }
    programs += static_cast<int64_t>(ps.size());
  }
  const double per = programs > 0 ? 1e3 / static_cast<double>(programs) : 0;
  state.counters["programs"] = Counter(static_cast<double>(programs), Counter::kIsRate);
  state.counters["compile_ms"] = wall * per;
  state.counters["compile_cpu_ms"] = cpu * per;
  state.counters["calls"] = static_cast<double>(calls);
}

// Reduce a fuzz-found failure (the first generated program that mismatches under the broken
// renderer plug-in, tests/fuzz/campaign/broken_renderer.sh) with the default ReduceOptions.
void BM_reduce(benchmark::State& state) {
  const Failing& f = failing_program();
  const CompiledPathConfig cfg = broken_config();
  ReduceOptions ro;
  if (settings().smoke) {  // a few small batches: the reducer's clock is only read between batches
    ro.time_limit_s = 1;
    ro.batch = 8;
  }
  double seconds = 0;
  int64_t failures = 0, steps = 0, candidates = 0, calls = 0;
  size_t end_nodes = 0;
  for (auto _ : state) {
    fresh_cache_dir();
    const auto t0 = clock_type::now();
    const ReduceResult r = reduce(f.program, f.signature, cfg, ro);
    seconds += since(t0);
    ++failures;
    steps += r.steps;
    candidates += r.candidates;
    calls += r.compiler_calls;
    end_nodes = program_cost(r.program).nodes;
  }
  const double it = failures > 0 ? static_cast<double>(failures) : 1;
  state.counters["s_per_failure"] = seconds / it;
  state.counters["failures"] = Counter(static_cast<double>(failures), Counter::kIsRate);
  state.counters["start_nodes"] = static_cast<double>(program_cost(f.program).nodes);
  state.counters["end_nodes"] = static_cast<double>(end_nodes);
  state.counters["steps"] = static_cast<double>(steps) / it;
  state.counters["candidates"] = static_cast<double>(candidates) / it;
  state.counters["batches"] = static_cast<double>(calls) / it;
  state.SetLabel(f.signature);
}

// The built-in renderer against a pass-through plug-in (tests/codegen/plugins/server_faults.py: the C of
// `uopfuzz render`), spoken to in server mode and one process per program, side by side: programs/s of
// check on batches of 32 new programs, as a campaign worker runs them. Arg: 0 built-in, 1 server, 2 program.
void BM_renderer_protocol(benchmark::State& state) {
  const size_t n = settings().smoke ? 2 : 32;
  CompiledPathConfig cfg;
  if (state.range(0) > 0) {
    ::setenv("UOPFUZZ", settings().uopfuzz.c_str(), 1);  // the plug-in calls `$UOPFUZZ render`
    cfg.renderer_cmd = settings().source_dir + "/tests/codegen/plugins/server_faults.py";
    cfg.renderer_protocol = state.range(0) == 1 ? RendererProtocol::server : RendererProtocol::program;
  }
  fresh_cache_dir();
  int64_t programs = 0, render_errors = 0;
  for (auto _ : state) {
    const uint64_t first = next_seeds(n);
    std::vector<Program> ps;
    for (size_t i = 0; i < n; ++i) ps.push_back(generate(program_seed(1, 0, first + i)));
    std::vector<const Program*> ptrs;
    for (const Program& p : ps) ptrs.push_back(&p);
    for (const Finding& f : check(ptrs, cfg)) render_errors += f.defined() && f.observation.verdict == Verdict::render_error;
    programs += static_cast<int64_t>(n);
  }
  stop_plugin_servers();
  state.counters["programs"] = Counter(static_cast<double>(programs), Counter::kIsRate);
  state.counters["render_errors"] = Counter(static_cast<double>(render_errors));  // a pass-through: expect 0
}

}  // namespace

void register_compiled() {
  using benchmark::RegisterBenchmark;
  const bool smoke = settings().smoke;
  const std::vector<int64_t> batches = smoke ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{1, 8, 32, 128, 384};
  for (int64_t n : batches) {
    auto* b = RegisterBenchmark("fuzz_iteration", BM_fuzz_iteration)->Args({n, 0})->UseRealTime()->Unit(benchmark::kMillisecond);
    if (!smoke) b->MinTime(n < 32 ? 2.0 : 4.0);
  }
  // Loops against straight-line programs, side by side, at the campaign's batch sizes.
  for (int64_t n : smoke ? std::vector<int64_t>{2} : std::vector<int64_t>{32, 128}) {
    auto* b = RegisterBenchmark("fuzz_iteration/straight_line", BM_fuzz_iteration)
                  ->Args({n, 1})
                  ->UseRealTime()
                  ->Unit(benchmark::kMillisecond);
    if (!smoke) b->MinTime(4.0);
  }
  for (int64_t n : batches) {
    auto* b = RegisterBenchmark("batch_phases", BM_batch_phases)->Arg(n)->UseRealTime()->Unit(benchmark::kMillisecond);
    if (!smoke) b->MinTime(n < 32 ? 2.0 : 4.0);
  }
  const std::vector<int64_t> sweep = smoke ? std::vector<int64_t>{2} : std::vector<int64_t>{1, 8, 32, 128};
  for (int64_t n : sweep)
    RegisterBenchmark("compile_sweep", BM_compile_sweep)->Arg(n)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
  RegisterBenchmark("reduce", BM_reduce)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
  const struct {
    const char* name;
    int64_t arg;
  } modes[] = {{"renderer_protocol/builtin", 0}, {"renderer_protocol/server", 1}, {"renderer_protocol/program", 2}};
  for (const auto& mode : modes) {
    auto* b = RegisterBenchmark(mode.name, BM_renderer_protocol)->Arg(mode.arg)->UseRealTime();
    b->Unit(benchmark::kMillisecond);
    if (!smoke) b->MinTime(4.0);
  }
}

}  // namespace uf::bench

// Benchmarks of the in-process front end: parse, interpret, render, generate, and `uopfuzz interp` on
// a 100,000-node file (in process and as a command). These are CPU-bound in this thread, so rates are
// per CPU second (Google Benchmark's default); the command-line one is wall time (UseRealTime).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "bench/workloads.h"
#include "codegen/render/render.h"
#include "core/loops.h"
#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "interp/interp.h"

namespace uf::bench {

namespace {

using benchmark::Counter;

// Sizes: the real ones, or tiny ones for the CTest smoke run.
size_t big() { return settings().smoke ? 2000 : 100000; }
size_t set_size() { return settings().smoke ? 4 : 256; }

// The straight-line program of `nodes` nodes, written as a file once per size (the 100k-node file of
// the `uopfuzz interp` target).
const std::string& straight_line_file(size_t nodes) {
  static std::map<size_t, std::string> files;
  auto [it, fresh] = files.try_emplace(nodes);
  if (fresh) {
    it->second = settings().work_dir + "/straight_line_" + std::to_string(nodes) + ".uop";
    std::ofstream(it->second) << print_program(straight_line(nodes));
  }
  return it->second;
}

void parse_texts(benchmark::State& state, const std::vector<std::string>& texts) {
  int64_t bytes = 0;
  for (auto _ : state)
    for (const std::string& t : texts) {
      Program p = parse_program(t);
      benchmark::DoNotOptimize(p.sink);
      bytes += static_cast<int64_t>(t.size());
    }
  state.counters["bytes"] = Counter(static_cast<double>(bytes), Counter::kIsRate);
}

void BM_parse_generated(benchmark::State& state) {
  std::vector<std::string> texts;
  for (const Program& p : generated(set_size(), 1)) texts.push_back(print_program(p));
  parse_texts(state, texts);
}

void BM_parse_straight_line(benchmark::State& state) {
  parse_texts(state, {print_program(straight_line(static_cast<size_t>(state.range(0))))});
}

// The interpreter target: the order is computed once (parse and linearize excluded).
void BM_interpret_straight_line(benchmark::State& state) {
  const Program p = straight_line(static_cast<size_t>(state.range(0)));
  const auto order = linearize(p);
  int64_t nodes = 0;
  for (auto _ : state) {
    RefResult r = interpret(p, order);
    if (r.undefined) state.SkipWithError("straight-line program is UNDEFINED");
    benchmark::DoNotOptimize(r.buffers);
    nodes += static_cast<int64_t>(order.size());
  }
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
}

// The same kind of body inside a loop of 64 iterations: node runs per second, to set beside the
// straight-line rate (the loop adds a RANGE, an END and the index arithmetic of each load to the body).
void BM_interpret_loop_body(benchmark::State& state) {
  constexpr int64_t kTrips = 64;
  const Program p = mixed_kernel(static_cast<size_t>(state.range(0)), kTrips);
  verify(p);
  const auto order = linearize(p);
  const Loops loops = analyze_loops(p, order);
  const size_t at =
      static_cast<size_t>(std::find(loops.schedule.begin(), loops.schedule.end(), loops.ranges.at(0)) - loops.schedule.begin());
  const int64_t runs = static_cast<int64_t>(order.size()) + (kTrips - 1) * static_cast<int64_t>(loops.body_end[at] - at - 1);
  int64_t nodes = 0;
  for (auto _ : state) {
    RefResult r = interpret(p, order);
    if (r.undefined) state.SkipWithError("loop kernel is UNDEFINED");
    benchmark::DoNotOptimize(r.buffers);
    nodes += runs;
  }
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
}

// As the fuzz loop calls it: interpret(p), linearize included, on generated programs.
void BM_interpret_generated(benchmark::State& state) {
  const std::vector<Program> ps = generated(set_size(), 1);
  const size_t per_set = live_nodes(ps);
  int64_t nodes = 0, programs = 0;
  for (auto _ : state) {
    for (const Program& p : ps) benchmark::DoNotOptimize(interpret(p).buffers);
    nodes += static_cast<int64_t>(per_set);
    programs += static_cast<int64_t>(ps.size());
  }
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
  state.counters["programs"] = Counter(static_cast<double>(programs), Counter::kIsRate);
}

void BM_render_generated(benchmark::State& state) {
  const std::vector<Program> ps = generated(set_size(), 1);
  const size_t per_set = live_nodes(ps);
  int64_t nodes = 0, bytes = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < ps.size(); ++i)
      bytes += static_cast<int64_t>(render_function(ps[i], "kernel" + std::to_string(i)).size());
    nodes += static_cast<int64_t>(per_set);
  }
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
  state.counters["C_bytes"] = Counter(static_cast<double>(bytes), Counter::kIsRate);
}

void BM_render_straight_line(benchmark::State& state) {
  const Program p = straight_line(static_cast<size_t>(state.range(0)));
  const size_t n = live_nodes(p);
  int64_t nodes = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(render_function(p, "kernel").size());
    nodes += static_cast<int64_t>(n);
  }
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
}

void BM_generate(benchmark::State& state) {
  uint64_t seed = 1;
  int64_t programs = 0, nodes = 0;
  for (auto _ : state) {
    Program p = generate(seed++);
    nodes += static_cast<int64_t>(p.graph->size());
    ++programs;
  }
  state.counters["programs"] = Counter(static_cast<double>(programs), Counter::kIsRate);
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
}

// `uopfuzz interp FILE` without the process: read + parse + verify + interpret (what load_program and
// run_interp do), the 100k-node straight-line file.
void BM_interp_file_in_process(benchmark::State& state) {
  const std::string& file = straight_line_file(big());
  int64_t nodes = 0;
  for (auto _ : state) {
    Program p = read_program(file);
    verify(p);
    RefResult r = interpret(p);
    benchmark::DoNotOptimize(r.buffers);
    nodes += static_cast<int64_t>(p.graph->size());
  }
  state.counters["nodes"] = Counter(static_cast<double>(nodes), Counter::kIsRate);
}

// The same as a command, process start and output included: the "well under 100 ms" target.
void BM_interp_file_cli(benchmark::State& state) {
  const std::string& file = straight_line_file(big());
  for (auto _ : state)
    if (spawn_quiet({settings().uopfuzz, "interp", file}) != 0) state.SkipWithError("uopfuzz interp failed");
}

}  // namespace

void register_front() {
  using benchmark::RegisterBenchmark;
  const bool smoke = settings().smoke;
  const std::vector<int64_t> sizes = smoke ? std::vector<int64_t>{1000} : std::vector<int64_t>{1000, 10000, 100000};
  RegisterBenchmark("parse/generated", BM_parse_generated)->Unit(benchmark::kMillisecond);
  RegisterBenchmark("parse/straight_line", BM_parse_straight_line)
      ->Arg(static_cast<int64_t>(big()))
      ->Unit(benchmark::kMillisecond);
  for (int64_t n : sizes)
    RegisterBenchmark("interpret/straight_line", BM_interpret_straight_line)->Arg(n)->Unit(benchmark::kMicrosecond);
  for (int64_t n : sizes)
    if (n <= 10000) RegisterBenchmark("interpret/loop_body", BM_interpret_loop_body)->Arg(n)->Unit(benchmark::kMicrosecond);
  RegisterBenchmark("interpret/generated", BM_interpret_generated)->Unit(benchmark::kMillisecond);
  RegisterBenchmark("render/generated", BM_render_generated)->Unit(benchmark::kMillisecond);
  RegisterBenchmark("render/straight_line", BM_render_straight_line)->Arg(smoke ? 1000 : 10000)->Unit(benchmark::kMillisecond);
  RegisterBenchmark("generate", BM_generate)->Unit(benchmark::kMicrosecond);
  RegisterBenchmark("interp_file/in_process", BM_interp_file_in_process)
      ->Arg(static_cast<int64_t>(big()))
      ->Unit(benchmark::kMillisecond);
  RegisterBenchmark("interp_file/cli", BM_interp_file_cli)
      ->Arg(static_cast<int64_t>(big()))
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace uf::bench

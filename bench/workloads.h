// Inputs for the benchmarks: built once, outside the timed loops.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/compiled_path.h"
#include "core/program.h"

namespace uf::bench {

// Settings shared by every benchmark, from the command line (bench_main.cpp).
struct Settings {
  bool smoke = false;      // tiny sizes: CTest checks that every benchmark runs, never how fast
  std::string uopfuzz;     // the uopfuzz binary (spawned by the CLI and reduce benchmarks)
  std::string source_dir;  // the repository (for tests/fuzz/campaign/broken_renderer.sh)
  std::string work_dir;    // a fresh temporary directory, removed at exit
  std::string cache_root;  // work_dir/cache: private compile caches live below it
};
Settings& settings();

// A straight-line program of about `nodes` nodes: loads of two input BUFFERs (i32, f32), then a long
// dependent mix of i32 and f32 ALU ops (ADD SUB MUL MAX XOR AND OR, CMPLT+WHERE, CAST i32->f32), the
// last value of each lane stored. No branches, no memory in the body, never UNDEFINED: the case the
// interpreter target (>= 50M nodes/s) is about.
Program straight_line(size_t nodes, uint64_t seed = 1);
// The same body inside one loop of `trips` iterations (trips < 0: no loop, the straight-line program):
// iteration k loads row k of the inputs (index k*8 + j) and stores out[k]. Its body is about `nodes`
// nodes, the interpreter runs it `trips` times: the loop-body rate beside the straight-line one.
Program mixed_kernel(size_t nodes, int64_t trips, uint64_t seed = 1);

// `count` generated programs starting at `first_seed` (the campaign's own generator and policy).
std::vector<Program> generated(size_t count, uint64_t first_seed);

// Nodes the interpreter runs for `p` (its linear order), and the total over a set.
size_t live_nodes(const Program& p);
size_t live_nodes(const std::vector<Program>& ps);

// Points UOPFUZZ_CACHE_DIR at a new, empty directory below settings().cache_root, so the next compiles
// cannot hit a cache entry made earlier. Returns the directory.
std::string fresh_cache_dir();

// The compiled-path configuration of the reduce benchmark: the built-in renderer with integer MUL
// rendered as ADD (tests/fuzz/campaign/broken_renderer.sh as a --renderer-cmd plug-in).
CompiledPathConfig broken_config();

// A generated program that mismatches under broken_config(), with its signature; searched once (a few
// batches of seeds) and cached for the process. Throws if none is found.
struct Failing {
  Program program;
  std::string signature;
};
const Failing& failing_program();

// Wall time of `argv` run as a child with stdout/stderr to /dev/null; returns the exit code.
int spawn_quiet(const std::vector<std::string>& argv);

}  // namespace uf::bench

// uopfuzz_bench: the Google Benchmark executable (issue 5).
//
//   uopfuzz_bench [--smoke] [--uopfuzz=PATH] [--benchmark_* flags]
//   uopfuzz_bench --emit-straight-line=N:FILE     write the N-node straight-line program and exit
//
// --smoke runs every benchmark at tiny sizes (CTest uses it with --benchmark_min_time to check they
// work, never how fast). The benchmarks that spawn the tool use --uopfuzz (default: the uopfuzz built
// beside this executable). Everything the benchmarks write, compile caches included, lives in one
// private temporary directory removed at exit.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "codegen/runtime/files.h"
#include "core/text.h"

#include "bench/workloads.h"

namespace uf::bench {
void register_front();
void register_compiled();
void register_guide();
}  // namespace uf::bench

int main(int argc, char** argv) {
  using uf::bench::settings;
  uf::bench::Settings& s = settings();
  s.uopfuzz = UOPFUZZ_BINARY;
  s.source_dir = UOPFUZZ_SOURCE_DIR;
  // Our own flags first; everything else goes to Google Benchmark.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0)
      s.smoke = true;
    else if (std::strncmp(argv[i], "--uopfuzz=", 10) == 0)
      s.uopfuzz = argv[i] + 10;
    else if (std::strncmp(argv[i], "--emit-straight-line=", 21) == 0) {  // for tools/bench and profiling
      const std::string arg = argv[i] + 21;
      const size_t colon = arg.find(':');
      std::ofstream out(arg.substr(colon + 1));
      out << uf::print_program(uf::bench::straight_line(std::stoul(arg.substr(0, colon))));
      return out ? 0 : 2;
    } else
      argv[kept++] = argv[i];
  }
  argc = kept;

  // Removed with everything in it on every return path below, early ones included.
  const std::optional<uf::TempDir> work_dir =
      uf::TempDir::create((std::filesystem::temp_directory_path() / "uopfuzz-bench.XXXXXX").string());
  if (!work_dir) {
    std::cerr << "uopfuzz_bench: cannot create a temporary directory\n";
    return 2;
  }
  s.work_dir = work_dir->path();
  s.cache_root = s.work_dir + "/cache";
  uf::bench::fresh_cache_dir();  // never the user's cache, even before a benchmark picks its own

  uf::bench::register_front();
  uf::bench::register_compiled();
  uf::bench::register_guide();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  int status = 0;
  try {
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::cerr << "uopfuzz_bench: " << e.what() << "\n";
    status = 1;
  }
  benchmark::Shutdown();
  return status;
}

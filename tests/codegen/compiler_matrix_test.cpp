// The compiler matrix (label `compilers`): the golden ALU vectors through every compiler uopfuzz is
// tested with (README, "Tested compilers"), each at -O0 and at its highest level with the plain flags a
// user types: `-O3 -march=native`, no -ffp-contract. The rendered C has to pin its own floating-point
// semantics (contraction off) and degrade to plain C where a compiler lacks an extension (tcc).
// gcc and clang (the default compilers) run at other flags in golden_alu_test.cpp.
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "codegen/runtime/process.h"
#include "tests/codegen/golden_run.h"
#include "tests/support/golden.h"

namespace uf::testing {
namespace {

struct Config {
  const char* cc;
  const char* cflags;
  bool constants;  // also with constant operands (what the compiler folds itself)
};

// tcc has one optimisation level (it ignores -O). Constants fold at the highest levels only.
constexpr Config kMatrix[] = {
    {"gcc-11", "-O0", false},   {"gcc-11", "-O3 -march=native", true}, {"gcc-12", "-O3 -march=native", true},
    {"clang-13", "-O0", false}, {"clang-13", "-O3 -march=native", true}, {"clang-14", "-O3 -march=native", true},
    {"clang-15", "-O0", false}, {"clang-15", "-O3 -march=native", true}, {"clang-16", "-O0", false},
    {"clang-16", "-O3 -march=native", true}, {"tcc", "-O2", true},
};

struct Case {
  Config config;
  const char* file;
  bool loaded;
};

// The default suite runs each compiler's highest level with loaded operands (the plain-flags claim);
// -DUOPFUZZ_COMPILER_MATRIX=full (the nightly workflow) adds -O0 and constant operands: 36 runs.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Config& c : kMatrix) {
    if (!UOPFUZZ_FULL_MATRIX && !c.constants) continue;
    for (const char* file : kAluGoldenFiles) {
      out.push_back({c, file, true});
      if (UOPFUZZ_FULL_MATRIX && c.constants) out.push_back({c, file, false});
    }
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.config.cc << " " << c.config.cflags << ", " << c.file << (c.loaded ? ", operands loaded" : ", operands constant");
}

class CompilerMatrix : public ::testing::TestWithParam<Case> {};

TEST_P(CompilerMatrix, GoldenAluVectorsExact) {
  const Case& c = GetParam();
  if (find_executable(c.config.cc).empty())
    GTEST_SKIP() << "SKIPPED, not passed: compiler '" << c.config.cc << "' is not installed (tools/setup installs it)";
  run_golden(c.file, c.config.cc, c.config.cflags, c.loaded);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = std::string(info.param.config.cc) + "_" + info.param.config.cflags + "_" + info.param.file +
                  (info.param.loaded ? "_loaded" : "_constants");
  std::string out;
  for (char ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    if (ch != '_' || out.empty() || out.back() != '_') out += ch;
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Golden, CompilerMatrix, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace uf::testing

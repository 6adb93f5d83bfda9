// The compiler matrix (label `compilers`): the golden ALU vectors through every compiler uopfuzz is
// tested with (README, "Tested compilers"), each at -O0 and at its highest level with the plain flags a
// user types: `-O3 -march=native`, no -ffp-contract. The rendered C has to pin its own floating-point
// semantics (contraction off) and degrade to plain C where a compiler lacks an extension (tcc).
// gcc and clang (the default compilers) run at other flags in golden_alu_test.cpp.
// --f16 native too: compilers with _Float16 (gcc-12, clang-15, clang-16) compute f16 in it, the others
// must fall back to the soft helpers and still pass.
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "codegen/runtime/compiler.h"
#include "codegen/runtime/process.h"
#include "tests/support/golden_run.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"

namespace uf::testing {
namespace {

struct Config {
  const char* cc;
  const char* cflags;
  bool constants;  // also with constant operands (what the compiler folds itself)
  bool float16;    // the compiler has _Float16 (on x86-64): --f16 native is native there
};

// tcc has one optimisation level (it ignores -O). Constants fold at the highest levels only.
constexpr Config kMatrix[] = {
    {"gcc-11", "-O0", false, false},   {"gcc-11", "-O3 -march=native", true, false},
    {"gcc-12", "-O0", false, true},    {"gcc-12", "-O3 -march=native", true, true},
    {"clang-13", "-O0", false, false}, {"clang-13", "-O3 -march=native", true, false},
    {"clang-14", "-O0", false, false}, {"clang-14", "-O3 -march=native", true, false},
    {"clang-15", "-O0", false, true},  {"clang-15", "-O3 -march=native", true, true},
    {"clang-16", "-O0", false, true},  {"clang-16", "-O3 -march=native", true, true},
    {"tcc", "-O2", true, false},
};

struct Case {
  Config config;
  const char* file;
  bool loaded;
  bool native;  // --f16 native
};

// The default suite runs each compiler's highest level with loaded operands (the plain-flags claim),
// and --f16 native with loaded operands: native runs only the f16 cases (about a tenth; the rest renders
// as in soft mode), 1 to 2 s per run. -DUOPFUZZ_COMPILER_MATRIX=full (the nightly workflow) adds -O0,
// constant operands, and native for every configuration.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Config& c : kMatrix) {
    for (const bool native : {false, true}) {
      // Native by default: where _Float16 exists at both levels, and two fallbacks (clang-14 defines
      // __FLT16_MAX__ without the type, tcc too).
      const bool fallback = std::string(c.cc) == "tcc" || (std::string(c.cc) == "clang-14" && c.constants);
      if (!UOPFUZZ_FULL_MATRIX && !(native ? c.float16 || fallback : c.constants)) continue;
      for (const char* file : kAluGoldenFiles) {
        // The extended vectors through the oldest and newest of each family (gcc-11, gcc-12, clang-13,
        // clang-16, tcc) by default; clang-14 and clang-15 run them in the full matrix.
        const bool middle_clang = std::string(c.cc) == "clang-14" || std::string(c.cc) == "clang-15";
        if (!UOPFUZZ_FULL_MATRIX && middle_clang && std::string(file).find("ext") != std::string::npos) continue;
        out.push_back({c, file, true, native});
        if (UOPFUZZ_FULL_MATRIX && c.constants) out.push_back({c, file, false, native});
      }
    }
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.config.cc << " " << c.config.cflags << (c.native ? " --f16 native" : "") << ", " << c.file
      << (c.loaded ? ", operands loaded" : ", operands constant");
}

class CompilerMatrix : public ::testing::TestWithParam<Case> {};

TEST_P(CompilerMatrix, GoldenAluVectorsExact) {
  const Case& c = GetParam();
  if (find_executable(c.config.cc).empty())
    GTEST_SKIP() << "SKIPPED, not passed: compiler '" << c.config.cc << "' is not installed (tools/setup installs it)";
  RenderOptions render;
  render.f16_native = c.native;
  run_golden(c.file, c.config.cc, c.config.cflags, c.loaded, render);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = std::string(info.param.config.cc) + "_" + info.param.config.cflags + "_" + info.param.file +
                  (info.param.loaded ? "_loaded" : "_constants") + (info.param.native ? "_f16native" : "");
  std::string out;
  for (char ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    if (ch != '_' || out.empty() || out.back() != '_') out += ch;
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Golden, CompilerMatrix, ::testing::ValuesIn(cases()), case_name);

// The prelude's feature test picks _Float16 exactly where the compiler has it: native mode must not
// fall back silently on gcc-12/clang-15/clang-16 (the golden runs above would pass either way), and
// must fall back where the type is missing (clang-14 and tcc predefine __FLT16_MAX__ without it).
TEST(CompilerMatrixF16, NativeExactlyWhereFloat16Exists) {
  RenderOptions native;
  native.f16_native = true;
  for (const Config& c : kMatrix) {
    if (find_executable(c.cc).empty()) continue;
    TempCache cache;
    const std::string probe = render_prelude(native) + (c.float16 ? "#ifndef UF_F16_NATIVE\n#error fell back\n#endif\n"
                                                                  : "#ifdef UF_F16_NATIVE\n#error native\n#endif\n");
    const CompileResult r = compile_shared({probe}, {c.cc, c.cflags});
    EXPECT_TRUE(r.ok) << c.cc << " " << c.cflags << (c.float16 ? ": expected _Float16" : ": expected the fallback") << "\n"
                      << r.message.substr(0, 2000);
  }
}

}  // namespace
}  // namespace uf::testing

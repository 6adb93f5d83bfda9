// The whole of golden/alu.txt (tinygrad's exec_alu, case by case) through the compiled path:
// render -> one compiler call per batch -> sandboxed run, with the operands both as constants (so the
// C compiler folds them) and as values loaded from buffers (so the generated code computes them),
// under gcc at the default flags and clang -O2, and loaded under gcc -O0 (constants fold at the highest
// levels only; the extended vectors at -O0 and every compiler's -O0 are in the full compiler matrix,
// compiler_matrix_test.cpp). Results must equal the golden ones by
// docs/semantics.md's rule (ints exactly, floats bit for bit with all NaNs equal, -0.0 != 0.0). UNDEFINED
// lines are compiled and run too (their programs must still come back ok) but not compared.
#include <gtest/gtest.h>

#include "codegen/runtime/compiler.h"
#include "tests/support/golden_run.h"

namespace uf::testing {
namespace {

TEST(CodegenGoldenAlu, GccDefaultFlagsConstants) { run_golden("alu.txt", "gcc", kDefaultCFlags, false); }
TEST(CodegenGoldenAlu, GccDefaultFlagsLoaded) { run_golden("alu.txt", "gcc", kDefaultCFlags, true); }
TEST(CodegenGoldenAlu, GccO0Loaded) { run_golden("alu.txt", "gcc", "-O0", true); }
// No -ffp-contract=off for clang: the prelude's `#pragma STDC FP_CONTRACT OFF` must keep it from fusing
// a*b+c even with FMA available (-march=native).
TEST(CodegenGoldenAlu, ClangO2Constants) { run_golden("alu.txt", "clang", "-O2 -march=native", false); }
TEST(CodegenGoldenAlu, ClangO2Loaded) { run_golden("alu.txt", "clang", "-O2 -march=native", true); }

// bf16, the fp8s and POW: the narrow formats' helpers and uf_pow, through the same compilers.
TEST(CodegenGoldenAluExt, GccDefaultFlagsConstants) { run_golden("alu-ext.txt", "gcc", kDefaultCFlags, false); }
TEST(CodegenGoldenAluExt, GccDefaultFlagsLoaded) { run_golden("alu-ext.txt", "gcc", kDefaultCFlags, true); }
TEST(CodegenGoldenAluExt, ClangO2Constants) { run_golden("alu-ext.txt", "clang", "-O2 -march=native", false); }
TEST(CodegenGoldenAluExt, ClangO2Loaded) { run_golden("alu-ext.txt", "clang", "-O2 -march=native", true); }

}  // namespace
}  // namespace uf::testing

// A C compiler's optimization remarks as target features (codegen/runtime/remarks.h): the two compilers'
// line forms parsed and normalised, other diagnostics skipped; a compile asked for remarks has them, from
// the compiler and again from the cache; the built-in path gives each kernel the remarks on its lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "codegen/compiled_path.h"
#include "codegen/runtime/remarks.h"
#include "core/text.h"
#include "tests/support/files.h"

namespace uf::testing {
namespace {

std::string listed(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

TEST(Remarks, BothCompilersLinesAreParsedAndNormalised) {
  const std::string gcc =
      "/tmp/x/k0.c:3:21: optimized:  Inlining g/1 into h/2.\n"
      "/tmp/x/k2.c:1:67: optimized: loop vectorized using 64 byte vectors\n"
      "/tmp/x/k0.c:4:1: warning: unused variable 'y' [-Wunused-variable]\n";
  const std::vector<Remark> g = parse_remarks(gcc);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].file, 0);
  EXPECT_EQ(g[0].line, 3);
  EXPECT_EQ(g[0].feature, "gcc optimized: Inlining g/N into h/N");
  EXPECT_EQ(g[1].file, 2);
  EXPECT_EQ(g[1].feature, "gcc optimized: loop vectorized using N byte vectors");
  const std::string clang =
      "k1.c:3:21: remark: 'g' inlined into 'h' with (cost=-15030, threshold=375) at callsite h:0:21; [-Rpass=inline]\n"
      "k1.c:1:54: remark: vectorized loop (vectorization width: 16, interleaved count: 4) [-Rpass=loop-vectorize]\n"
      "k1.c:9:2: note: in expansion of macro\n";
  const std::vector<Remark> c = parse_remarks(clang);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].feature, "clang inline: 'X' inlined into 'X' with (cost=N, threshold=N) at callsite h:N:N");
  EXPECT_EQ(c[1].file, 1);
  EXPECT_EQ(c[1].line, 1);
  EXPECT_EQ(c[1].feature, "clang loop-vectorize: vectorized loop (vectorization width: N, interleaved count: N)");
  EXPECT_EQ(remarks_path("/c/abc.so"), "/c/abc.remarks");
}

// A loop gcc vectorises at -O3: its remark comes with the compile, and with the cache hit after it.
TEST(Remarks, ACompileAskedForRemarksHasThemCachedToo) {
  TempCache cache;
  static std::mt19937_64 rng(std::random_device{}());
  const std::string src = "/* nonce " + std::to_string(rng()) +
                          " */\nvoid twice(float* restrict a, const float* restrict b) {\n"
                          "  for (int i = 0; i < 1024; i++) a[i] = b[i] * 2.0f;\n}\n";
  CompileOptions o;
  o.remarks = true;
  const CompileResult first = compile_shared({src}, o);
  ASSERT_TRUE(first.ok) << first.message;
  EXPECT_FALSE(first.cached);
  const std::vector<Remark> r = parse_remarks(first.remarks);
  ASSERT_FALSE(r.empty()) << first.remarks;
  EXPECT_EQ(r[0].line, 3);
  const CompileResult again = compile_shared({src}, o);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.remarks, first.remarks);
  o.remarks = false;  // without: another cache entry, no remarks
  const CompileResult plain = compile_shared({src}, o);
  EXPECT_FALSE(plain.cached);
  EXPECT_EQ(plain.remarks, "");
}

// Two kernels in one translation unit: each gets the remarks on its own lines, a loop kernel a
// vectorisation the straight-line one has not.
TEST(Remarks, TheBuiltInPathGivesEachKernelItsRemarks) {
  TempCache cache;
  const Program loop = parse_program(
      "uops 2\n%0 = BUFFER f32[256] slot=0\n%1 = CONST i32 256\n%2 = RANGE i32 0 %1\n%3 = INDEX f32 %0 %2\n"
      "%4 = LOAD f32 %3\n%5 = ADD f32 %4 %4\n%6 = STORE void %3 %5\n%7 = END void %6 %2\n%8 = SINK void %7\n",
      "loop.uop");
  const Program flat = parse_program(
      "uops 1\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = LOAD i32 %2\n"
      "%4 = STORE void %2 %3\n%5 = SINK void %4\n",
      "flat.uop");
  CompiledPathConfig cfg;
  cfg.remarks = true;
  const std::vector<KernelOutcome> out = run_compiled({&loop, &flat}, cfg);
  ASSERT_EQ(out[0].status, KernelStatus::ok) << out[0].message;
  const auto vectorized = [](const std::vector<std::string>& f) {
    return std::any_of(f.begin(), f.end(), [](const std::string& s) { return s.find("vectorized") != std::string::npos; });
  };
  EXPECT_TRUE(vectorized(out[0].features)) << listed(out[0].features);
  EXPECT_FALSE(vectorized(out[1].features)) << listed(out[1].features);
  cfg.remarks = false;
  EXPECT_TRUE(run_compiled({&loop}, cfg)[0].features.empty());
}

}  // namespace
}  // namespace uf::testing

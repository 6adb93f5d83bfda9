// Approximate ops in the oracle (fuzz/oracle/approx_verdict.h) through test targets that say, in their
// handshake's `approximate`, which ops they approximate: libm's exp2 in place of pow(2, x) is within EXP2's
// budget (and a mismatch when the target says nothing); a SIN 2^-20 off is over SIN's and is signed by its op,
// dtype and error decade, with the correctly rounded value in the message; an approximated value that an
// exact op then uses is compared exactly there, its probe signing the exact op; a wrong special value whose
// operand the target computed wrong is signed by that exact op.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

std::string plugin(const std::string& name) { return " --renderer-cmd \"" + source_path("tests/fuzz/campaign/plugins/" + name) + "\""; }

// exp2(0.8711685325760676): exec_alu's 2 ** x is 1.8291438432255187, libm's exp2 (and the correctly rounded
// value) ...185. sin(3.3) stored straight, or doubled first (`twice`).
std::string program(bool twice) {
  std::string text =
      "uops 1\n%0 = BUFFER f64[2] slot=0\n%1 = CONST i32 0\n%2 = INDEX f64 %0 %1\n%3 = LOAD f64 %2\n%4 = EXP2 f64 %3\n"
      "%5 = STORE void %2 %4\n%6 = CONST i32 1\n%7 = INDEX f64 %0 %6\n%8 = LOAD f64 %7\n%9 = SIN f64 %8\n";
  text += twice ? "%10 = ADD f64 %9 %9\n%11 = STORE void %7 %10\n%12 = SINK void %5 %11\n" : "%10 = STORE void %7 %9\n%11 = SINK void %5 %10\n";
  return text + "data 0 = 0.8711685325760676 3.3\n";
}

class ApproxVerdict : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-approx-verdict"};
  fs::path dir = tmp.path();
  std::string write(const std::string& text) const {
    const std::string path = (dir / "p.uop").string();
    std::ofstream(path) << text;
    return path;
  }
  Ran run(const std::string& args) const { return run_uopfuzz_isolated(args, dir / "cache"); }
};

TEST_F(ApproxVerdict, LibmExp2IsWithinItsBudgetWhenTheTargetSaysSo) {
  const std::string p = write(program(false));
  const Ran said = run("run " + p + plugin("libm_exp2.py"));
  EXPECT_EQ(said.code, 0) << said.out;
  const Ran silent = run("run " + p + plugin("libm_exp2.py --exact"));
  EXPECT_NE(silent.out.find("verdict: mismatch (mismatch EXP2 f64)"), std::string::npos) << silent.out;
}

TEST_F(ApproxVerdict, ASinOverItsBudgetIsSignedByItsErrorsDecade) {
  const Ran r = run("run " + write(program(false)) + plugin("sin_ulps_off.py"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("verdict: mismatch (mismatch SIN f64 ulp 1e+08)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("correctly rounded -0.15774569414324821, ulp 6.8e+08 over the budget ulp 1.5"), std::string::npos) << r.out;
}

TEST_F(ApproxVerdict, AnApproximatedValueThatAnExactOpUsesIsComparedExactlyThere) {
  const Ran r = run("run " + write(program(true)) + plugin("sin_ulps_off.py"));
  EXPECT_NE(r.out.find("verdict: mismatch (mismatch ADD f64)"), std::string::npos) << r.out;
}

// sin(-x) at x = +0.0 through a target whose NEG is `0 - x`: the SIN result is a wrong special value (+0.0
// for -0.0), but its operand diverged first, so the probe signs the NEG.
TEST_F(ApproxVerdict, AWrongOperandIsSignedByTheExactOpThatComputedIt) {
  const std::string p = write(
      "uops 1\n%0 = CONST i32 0\n%1 = BUFFER f32[1] slot=0\n%2 = INDEX f32 %1 %0\n%3 = BUFFER f32[1] slot=1\n"
      "%4 = INDEX f32 %3 %0\n%5 = LOAD f32 %4\n%6 = NEG f32 %5\n%7 = SIN f32 %6\n%8 = STORE void %2 %7\n%9 = SINK void %8\n"
      "data 0 = 5.0\ndata 1 = 0.0\n");
  const Ran r = run("run " + p + plugin("exact_says_approximate.py --neg-zero-minus"));
  EXPECT_NE(r.out.find("verdict: mismatch (mismatch NEG f32)"), std::string::npos) << r.out;
}

// Campaigns: the budget oracle on an exact target (uopfuzz's own renderer saying it approximates all six)
// finds nothing; on the SIN 2^-20 off it finds SIN buckets, and only those, in programs that keep SIN as a
// stored leaf; both summaries give the histogram of ULP errors.
// The six ops drawn 16 times as often as by default (about one program in three keeps one as a stored leaf).
TEST_F(ApproxVerdict, ACampaignFindsNothingOnAnExactTargetAndTheSinOffOnTheOther) {
  const std::string policy = (dir / "policy.json").string();
  std::ofstream(policy) << R"({"op_weight": {"SIN": 8.0, "LOG2": 8.0, "EXP2": 8.0, "POW": 8.0, "SQRT": 8.0, "RECIP": 8.0}})";
  const std::string common = "fuzz --count 150 --jobs 1 -q --no-reduce --policy " + policy + " --corpus ";
  const Ran exact = run(common + (dir / "exact").string() + plugin("exact_says_approximate.py"));
  EXPECT_EQ(exact.code, 0) << exact.out;
  const fs::path corpus = dir / "sin";
  const Ran off = run(common + corpus.string() + plugin("sin_ulps_off.py"));
  ASSERT_EQ(off.code, 1) << off.out;
  int found = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    if (e.path().extension() != ".uop") continue;
    const Program p = read_program(e.path().string());
    ASSERT_NE(p.meta_value("signature"), nullptr);
    EXPECT_TRUE(p.meta_value("signature")->starts_with("mismatch SIN f")) << read_text(e.path());
    ++found;
  }
  EXPECT_GE(found, 1) << off.out;
  // the summary's histogram: every judged result, by op, dtype and ULP bin (exact: all correctly rounded
  // or within an ulp or two; the SIN 2^-20 off: f64 results far beyond)
  EXPECT_NE(exact.out.find("uopfuzz: approximate "), std::string::npos) << exact.out;
  EXPECT_EQ(exact.out.find(">256"), std::string::npos) << exact.out;
  EXPECT_NE(off.out.find("uopfuzz: approximate SIN f64:"), std::string::npos) << off.out;
  EXPECT_NE(off.out.find(">256"), std::string::npos) << off.out;
}

}  // namespace
}  // namespace uf::testing

// Backends agree (fuzz/oracle/agreement.h, `uopfuzz agree`): the runs that approximate an op and computed
// the exact part right are compared bit for bit on each approximated result, grouped by result (NaNs alike,
// zeros by sign); a run that does not approximate the op, or whose exact part is wrong, is left out. The
// single-op reproducer computes the op on its operands. End to end through a test target with three
// backends (tests/fuzz/campaign/plugins/libm_exp2.py): a generated campaign finds and saves the one whose
// results are a step off, and a saved file is re-checked alone.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/text.h"
#include "fuzz/oracle/agreement.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// out[0] = SIN(in[0]), out[1] = EXP2(in[1]): both stored straight.
const Program& two_ops() {
  static const Program p = parse_program(
      "uops 1\n%0 = BUFFER f32[2] slot=0\n%1 = BUFFER f32[2] slot=1\n%2 = CONST i32 0\n%3 = INDEX f32 %0 %2\n%4 = LOAD f32 %3\n"
      "%5 = SIN f32 %4\n%6 = INDEX f32 %1 %2\n%7 = STORE void %6 %5\n%8 = CONST i32 1\n%9 = INDEX f32 %0 %8\n%10 = LOAD f32 %9\n"
      "%11 = EXP2 f32 %10\n%12 = INDEX f32 %1 %8\n%13 = STORE void %12 %11\n%14 = SINK void %7 %13\n"
      "data 0 = 3.3 0.5\ndata 1 = 0.0 0.0\n",
      "t.uop");
  return p;
}

VersionRun run_of(const std::string& name, std::vector<Op> approx, float sin, float exp2) {
  VersionRun r{name, std::move(approx), {}, {}};
  r.outcome.buffers[0] = {Scalar::of_float(3.3f), Scalar::of_float(0.5)};
  r.outcome.buffers[1] = {Scalar::of_float(sin), Scalar::of_float(exp2)};
  r.observation = compare(two_ops(), interpret(two_ops()), r.outcome, r.approx);
  return r;
}

TEST(Agreement, RunsAreGroupedByResult) {
  const RefResult ref = interpret(two_ops());
  ASSERT_EQ(ref.approx_stores.size(), 2u);
  const float s = std::sin(3.3f), e = std::exp2(0.5f), s_up = std::nextafter(s, 1.0f);
  const std::vector<Op> both{Op::SIN, Op::EXP2};
  const Agreement a = compare_versions(ref, {run_of("a", both, s, e), run_of("b", both, s_up, e), run_of("c", both, s, e)});
  EXPECT_EQ(a.compared.at("SIN f32"), 1);
  EXPECT_EQ(a.compared.at("EXP2 f32"), 1);
  ASSERT_EQ(a.disagreements.size(), 1u);
  EXPECT_EQ(a.disagreements[0].signature(), "disagree SIN f32 a=c b");
  EXPECT_NE(a.disagreements[0].message().find("SIN f32(3.2999999523162842) at p1[0]: a and c "), std::string::npos)
      << a.disagreements[0].message();
}

TEST(Agreement, NansAreOneResultAndZerosDifferBySign) {
  const RefResult ref = interpret(two_ops());
  const std::vector<Op> both{Op::SIN, Op::EXP2};
  EXPECT_TRUE(compare_versions(ref, {run_of("a", both, NAN, 1.0f), run_of("b", both, -NAN, 1.0f)}).disagreements.empty());
  const Agreement zeros = compare_versions(ref, {run_of("a", both, 0.0f, 1.0f), run_of("b", both, -0.0f, 1.0f)});
  ASSERT_EQ(zeros.disagreements.size(), 1u);
  EXPECT_EQ(zeros.disagreements[0].signature(), "disagree SIN f32 a b");
}

// A run that computes SIN exactly (it does not say it approximates it) runs another computation: not
// compared on SIN. One whose exact part is wrong (here: the input buffer clobbered) is compared on nothing.
TEST(Agreement, OnlyRunsThatApproximateTheOpAndGotTheRestRightAreCompared) {
  const RefResult ref = interpret(two_ops());
  const float s = static_cast<float>(ref.buffers.at(1)[0].f), e = std::exp2(0.5f);  // b's SIN is exec_alu's
  const Agreement a =
      compare_versions(ref, {run_of("a", {Op::SIN, Op::EXP2}, std::nextafter(s, 1.0f), e), run_of("b", {Op::EXP2}, s, e)});
  EXPECT_TRUE(a.disagreements.empty());
  EXPECT_EQ(a.compared.count("SIN f32"), 0u);
  EXPECT_EQ(a.compared.at("EXP2 f32"), 1);
  VersionRun wrong = run_of("w", {Op::SIN, Op::EXP2}, std::nextafter(s, 1.0f), e);
  wrong.outcome.buffers[0][0] = Scalar::of_float(7.0);
  wrong.observation = compare(two_ops(), ref, wrong.outcome, wrong.approx);
  EXPECT_FALSE(exact_part_right(wrong));
  EXPECT_TRUE(compare_versions(ref, {run_of("a", {Op::SIN, Op::EXP2}, s, e), wrong}).disagreements.empty());
}

TEST(Agreement, TheSingleOpProgramComputesTheOpOnItsOperands) {
  const Program pow = parse_program(
      "uops 1\n%0 = BUFFER f64[1] slot=0\n%1 = CONST f64 1.5\n%2 = CONST f64 -2.5\n%3 = POW f64 %1 %2\n%4 = CONST i32 0\n"
      "%5 = INDEX f64 %0 %4\n%6 = STORE void %5 %3\n%7 = SINK void %6\n",
      "t.uop");
  const RefResult ref = interpret(pow);
  ASSERT_EQ(ref.approx_stores.size(), 1u);
  const Program one = single_op_program(Disagreement{ref.approx_stores[0], 0, {}});
  EXPECT_NO_THROW(verify(one));
  const RefResult got = interpret(one);
  EXPECT_EQ(got.buffers.at(1)[0].f, std::pow(1.5, -2.5));
  ASSERT_EQ(got.approx_stores.size(), 1u);
  EXPECT_EQ(got.approx_stores[0].node->op, Op::POW);
}

class Agree : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-agree"};
  fs::path dir = tmp.path();
  Ran run(const std::string& args) const {
    return run_uopfuzz_isolated(
        "agree " + args + " --renderer-cmd \"" + source_path("tests/fuzz/campaign/plugins/libm_exp2.py") + "\"", dir / "cache");
  }
};

// exp2, pow and pow one step up: a campaign saves the step, as a single EXP2 f64, and finds no other.
TEST_F(Agree, ACampaignSavesTheBackendAStepOffAsOneOp) {
  const fs::path corpus = dir / "corpus";
  const Ran r = run("--count 40 --corpus " + corpus.string());
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("disagreements 1\n"), std::string::npos) << r.out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(corpus)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << r.out;
  const Program p = read_program(files[0].string());
  EXPECT_EQ(*p.meta_value("signature"), "disagree EXP2 f64 exp2=pow up") << read_text(files[0]);
  EXPECT_EQ(p.graph->size(), 9u) << read_text(files[0]);
  const Ran again = run(files[0].string());
  EXPECT_EQ(again.code, 1) << again.out;
  EXPECT_NE(again.out.find("disagree EXP2 f64 exp2=pow up: 1 results"), std::string::npos) << again.out;
}

// Where libm's exp2 and pow(2, x) round apart; on the two of them alone. A target without backends is exit 2.
TEST_F(Agree, AFileIsRecheckedOnTheBackendsNamed) {
  const std::string file = (dir / "p.uop").string();
  std::ofstream(file) << "uops 1\n%0 = BUFFER f64[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX f64 %0 %1\n%3 = LOAD f64 %2\n"
                         "%4 = EXP2 f64 %3\n%5 = STORE void %2 %4\n%6 = SINK void %5\ndata 0 = 0.8711685325760676\n";
  const Ran r = run(file + " --backends exp2,pow");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("disagree EXP2 f64 exp2 pow"), std::string::npos) << r.out;
  const Ran one = run(file + " --backends pow");
  EXPECT_EQ(one.code, 2) << one.out;
  EXPECT_NE(one.out.find("agree: needs two or more backends"), std::string::npos) << one.out;
}

}  // namespace
}  // namespace uf::testing

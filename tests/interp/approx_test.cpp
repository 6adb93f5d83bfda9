// Approximate ops against MPFR (interp/approx.h): the correctly rounded reference where IEEE 754 fixes the
// answer (SQRT and RECIP are correctly rounded in C too, so the host must agree bit for bit, subnormals and
// overflow included), powers of two, a famous huge argument, C99 Annex F's special values, the ULP
// distance and its floor, and the budget table's rows.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>

#include "core/float_formats.h"
#include "interp/approx.h"

namespace uf::testing {
namespace {

double reference(Op op, DType d, double a, double b = 0) { return judge_approx(op, d, a, b, 0).reference; }
bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }
double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
float f32_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

RC_GTEST_PROP(Approx, SqrtAndRecipAreTheHostsCorrectlyRoundedOnesOnF64, (uint64_t bits)) {
  const double x = from_bits(bits);
  RC_PRE(!std::isnan(x));
  RC_ASSERT(same_bits(reference(Op::RECIP, DType::F64, x), 1.0 / x));
  if (x >= 0 || x == 0) RC_ASSERT(same_bits(reference(Op::SQRT, DType::F64, x), std::sqrt(x)));
}

RC_GTEST_PROP(Approx, SqrtAndRecipAreTheHostsCorrectlyRoundedOnesOnF32, (uint32_t bits)) {
  const float x = f32_from_bits(bits);
  RC_PRE(!std::isnan(x));
  RC_ASSERT(same_bits(reference(Op::RECIP, DType::F32, x), static_cast<double>(1.0f / x)));
  if (x >= 0 || x == 0) RC_ASSERT(same_bits(reference(Op::SQRT, DType::F32, x), static_cast<double>(std::sqrt(x))));
}

TEST(Approx, RecipOverflowsAndGoesSubnormalInTheResultDtype) {
  EXPECT_EQ(reference(Op::RECIP, DType::F64, 0x1p-1074), INFINITY);
  EXPECT_EQ(reference(Op::RECIP, DType::F64, 0x1p1023 * 1.5), 1.0 / (0x1p1023 * 1.5));  // subnormal
  EXPECT_EQ(reference(Op::RECIP, DType::F16, 0x1p-24), INFINITY);
  EXPECT_EQ(reference(Op::RECIP, DType::F16, 0x1p15), 0x1p-15);  // an f16 subnormal
  EXPECT_EQ(reference(Op::RECIP, DType::BF16, 3.0), round_to_float_dtype(DType::BF16, 1.0 / 3.0));
}

TEST(Approx, Exp2OfIntegersIsExactDownToTheSmallestSubnormal) {
  EXPECT_EQ(reference(Op::EXP2, DType::F64, -1074), 0x1p-1074);
  EXPECT_EQ(reference(Op::EXP2, DType::F64, -1075), 0.0);  // exactly half the smallest: ties to even, 0
  EXPECT_EQ(reference(Op::EXP2, DType::F64, 1024), INFINITY);
  EXPECT_EQ(reference(Op::EXP2, DType::F32, -149), 0x1p-149);
  EXPECT_EQ(reference(Op::EXP2, DType::F32, 128), INFINITY);
  EXPECT_EQ(reference(Op::EXP2, DType::F16, -24), 0x1p-24);
  EXPECT_EQ(reference(Op::EXP2, DType::F16, 16), INFINITY);
  EXPECT_EQ(reference(Op::EXP2, DType::F32, 0.5), static_cast<double>(static_cast<float>(M_SQRT2)));
}

// An overflow to inf answered with inf is right (0 ulps), not infinitely far from the finite exact value.
TEST(Approx, AnOverflowAnsweredWithInfIsRight) {
  const ApproxJudgement j = judge_approx(Op::EXP2, DType::F16, 19.140625, 0, INFINITY);
  EXPECT_EQ(j.reference, INFINITY);
  EXPECT_EQ(j.ulps, 0);
  EXPECT_TRUE(j.within);
  EXPECT_FALSE(judge_approx(Op::EXP2, DType::F16, 19.140625, 0, 65504).within);
}

TEST(Approx, Log2OfPowersOfTwoIsExact) {
  EXPECT_EQ(reference(Op::LOG2, DType::F64, 0x1p-1074), -1074.0);
  EXPECT_EQ(reference(Op::LOG2, DType::F16, 0x1p-24), -24.0);
  EXPECT_EQ(reference(Op::LOG2, DType::F32, 1024), 10.0);
}

// sin(1e22) needs the argument reduced with pi to over 120 bits (K.C. Ng, "Argument reduction for huge
// arguments: good to the last bit", 1992): -0.8522008497671888 in binary64.
TEST(Approx, SinOfAHugeArgumentIsReducedExactly) {
  EXPECT_EQ(reference(Op::SIN, DType::F64, 1e22), -0.8522008497671888);
  EXPECT_EQ(reference(Op::SIN, DType::F32, 3.3f), static_cast<double>(static_cast<float>(std::sin(static_cast<double>(3.3f)))));
}

TEST(Approx, SpecialValuesAreExactZerosSignsIncluded) {
  const auto wrong = [](Op op, DType d, double a, double b, double got) { return judge_approx(op, d, a, b, got).special_wrong; };
  EXPECT_TRUE(wrong(Op::SIN, DType::F32, -0.0, 0, 0.0));  // sin(-0) = -0
  EXPECT_FALSE(wrong(Op::SIN, DType::F32, -0.0, 0, -0.0));
  EXPECT_TRUE(wrong(Op::SIN, DType::F32, INFINITY, 0, 0.5));  // sin(inf) = NaN
  EXPECT_FALSE(wrong(Op::SIN, DType::F32, INFINITY, 0, NAN));
  EXPECT_FALSE(wrong(Op::LOG2, DType::F64, -0.0, 0, -INFINITY));
  EXPECT_TRUE(wrong(Op::LOG2, DType::F64, -1, 0, -INFINITY));
  EXPECT_TRUE(wrong(Op::LOG2, DType::F64, 1, 0, -0.0));  // log2(1) = +0
  EXPECT_TRUE(wrong(Op::EXP2, DType::F16, -INFINITY, 0, -0.0));
  EXPECT_TRUE(wrong(Op::SQRT, DType::F32, -0.0, 0, 0.0));  // sqrt(-0) = -0
  // C99 F.9.4.4: pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN; a negative base to a non-integer is NaN
  EXPECT_TRUE(wrong(Op::POW, DType::F32, 1, NAN, NAN));
  EXPECT_FALSE(wrong(Op::POW, DType::F32, NAN, -0.0, 1));
  EXPECT_TRUE(wrong(Op::POW, DType::F32, -8, 1.0 / 3, -2));
  // ... but 0 to a negative power is +inf for -0 too: exec_alu's (Python's) rule, which tinygrad keeps
  EXPECT_FALSE(wrong(Op::POW, DType::F64, -0.0, -1, INFINITY));
  EXPECT_TRUE(wrong(Op::POW, DType::F64, -0.0, -1, -INFINITY));
  EXPECT_TRUE(wrong(Op::EXP2, DType::F32, 3, 0, NAN));  // a number where one is due
}

TEST(Approx, UlpsAreCountedInTheResultDtypeAtTheRowsFloor) {
  const double ref = reference(Op::EXP2, DType::F32, 0.3);
  const double one_up = std::nextafter(static_cast<float>(ref), INFINITY);
  EXPECT_NEAR(judge_approx(Op::EXP2, DType::F32, 0.3, 0, one_up).ulps, 1.0, 0.5);
  // sin(pi as f32) is about -8.74e-8; answering 0 is 0.73 ulp of 1.0 (SIN's floor), but far more in ULPs of
  // the result itself
  const float pi = static_cast<float>(M_PI);
  const ApproxJudgement at_pi = judge_approx(Op::SIN, DType::F32, pi, 0, 0.0);
  EXPECT_NEAR(at_pi.ulps, std::fabs(std::sin(static_cast<double>(pi))) / 0x1p-23, 1e-6);
  EXPECT_TRUE(at_pi.within);
  EXPECT_FALSE(at_pi.special_wrong);
  // 6 ulp of 1.0 off at 3.3 is over SIN's 1.5
  const double got = reference(Op::SIN, DType::F32, 3.3f) + 6 * 0x1p-23;
  const ApproxJudgement off = judge_approx(Op::SIN, DType::F32, 3.3f, 0, got);
  EXPECT_NEAR(off.ulps, 6.0, 0.5);
  EXPECT_FALSE(off.within);
}

TEST(Approx, TheBudgetTableHasARowForEachJudgedOpAndDomain) {
  for (Op op : {Op::SIN, Op::LOG2, Op::EXP2, Op::SQRT, Op::POW, Op::RECIP})
    for (DType d : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
      EXPECT_TRUE(is_judged_approx(op, d));
      EXPECT_NE(std::string(approx_budget(op, d, 1.0).source), "");
    }
  EXPECT_FALSE(is_judged_approx(Op::ADD, DType::F32));
  EXPECT_FALSE(is_judged_approx(Op::SIN, DType::FP8E4M3));
  EXPECT_EQ(approx_budget(Op::SIN, DType::F64, 3).ulps, 1.5);
  EXPECT_EQ(approx_budget(Op::SIN, DType::F64, 1e9).ulps, INFINITY);  // tinygrad's test skips it
  EXPECT_EQ(approx_budget(Op::SIN, DType::F32, 1e9).ulps, 1.5);
  // nothing stated for a finite POW: any finite result passes, special values do not
  EXPECT_TRUE(judge_approx(Op::POW, DType::F32, 3, 3, 26).within);
  EXPECT_FALSE(judge_approx(Op::POW, DType::F32, 1, INFINITY, NAN).within);
  EXPECT_EQ(ulp_text(3.2e6), "ulp 3.2e+06");
}

}  // namespace
}  // namespace uf::testing

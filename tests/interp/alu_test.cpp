// exec_alu corners that the golden file does not pin down, each with the reason it is so.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "interp/alu.h"
#include "interp/alu_ops.h"
#include "tests/support/alu.h"
#include "tests/support/int_model.h"

namespace uf::testing {
namespace {

const auto run = exec_defined;
Scalar f(double v) { return Scalar::of_float(v); }
Scalar u(uint64_t v) { return Scalar::of_uint(v); }
Scalar i(int64_t v) { return Scalar::of_int(v); }

// float(int) rounds to binary64 first, then to f32: 2^60 + 2^36 + 1 becomes 2^60 + 2^36 in binary64, a tie
// that f32 breaks to even (2^60); rounding straight to f32 would give 2^60 + 2^37.
TEST(InterpAlu, IntToF32RoundsTwice) {
  const uint64_t x = (uint64_t{1} << 60) + (uint64_t{1} << 36) + 1;
  EXPECT_EQ(run(Op::CAST, DType::F32, DType::U64, {u(x)}).f, 0x1p60);
  EXPECT_EQ(run(Op::CAST, DType::F32, DType::I64, {i(static_cast<int64_t>(x))}).f, 0x1p60);
  EXPECT_EQ(run(Op::CAST, DType::F32, DType::I64, {i(-static_cast<int64_t>(x))}).f, -0x1p60);
  EXPECT_EQ(run(Op::CAST, DType::F16, DType::I32, {i(70000)}).f, INFINITY);  // beyond 65504: inf
}

// Python's int(x) is exact however large x is; the residue mod 2^N is what remains.
TEST(InterpAlu, HugeFloatsWrapExactly) {
  for (double x : {1e300, -1e300, 1.7976931348623157e308, 0x1p64 + 0x1p12, -0x1p63, 1.9e19, 9.3e18}) {
    for (DType to : {DType::U64, DType::I64, DType::I32, DType::U8}) {
      SCOPED_TRACE(std::to_string(x) + " to " + name(to));
      EXPECT_EQ(run(Op::CAST, to, DType::F64, {f(x)}).u, truncate(to, py_int(x)).u);
    }
  }
}

// a*b rounds to binary64 before +c: 0.1*10 is exactly 1 after rounding, so adding -1 gives 0; a fused
// multiply-add would give the tiny error term 5.55e-17.
TEST(InterpAlu, MulaccIsNotFused) {
  EXPECT_EQ(run(Op::MULACC, DType::F64, DType::F64, {f(0.1), f(10.0), f(-1.0)}).f, 0.0);
  EXPECT_NE(std::fma(0.1, 10.0, -1.0), 0.0);
}

TEST(InterpAlu, FloatSpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::signbit(run(Op::SQRT, DType::F32, DType::F32, {f(-0.0)}).f));
  EXPECT_TRUE(std::isnan(run(Op::SQRT, DType::F64, DType::F64, {f(-1e-300)}).f));
  EXPECT_EQ(run(Op::LOG2, DType::F64, DType::F64, {f(-0.0)}).f, -INFINITY);
  EXPECT_TRUE(std::isnan(run(Op::LOG2, DType::F64, DType::F64, {f(-INFINITY)}).f));
  EXPECT_EQ(run(Op::RECIP, DType::F16, DType::F16, {f(-0.0)}).f, -INFINITY);
  EXPECT_TRUE(std::isnan(run(Op::SIN, DType::F64, DType::F64, {f(-INFINITY)}).f));
  EXPECT_EQ(run(Op::EXP2, DType::F64, DType::F64, {f(1e6)}).f, INFINITY);
  EXPECT_FALSE(std::signbit(run(Op::TRUNC, DType::F64, DType::F64, {f(-0.75)}).f));
  // Python max(a, b): a unless b > a.
  EXPECT_TRUE(std::isnan(run(Op::MAX, DType::F32, DType::F32, {f(nan), f(1.0)}).f));
  EXPECT_EQ(run(Op::MAX, DType::F32, DType::F32, {f(1.0), f(nan)}).f, 1.0);
  EXPECT_TRUE(std::signbit(run(Op::MAX, DType::F64, DType::F64, {f(-0.0), f(0.0)}).f));
  EXPECT_EQ(run(Op::CMPNE, DType::Bool, DType::F64, {f(nan), f(nan)}).u, 1u);
  EXPECT_EQ(run(Op::CMPEQ, DType::Bool, DType::F64, {f(nan), f(nan)}).u, 0u);
  EXPECT_EQ(run(Op::CAST, DType::Bool, DType::F32, {f(nan)}).u, 1u);
  EXPECT_EQ(run(Op::CAST, DType::Bool, DType::F32, {f(-0.0)}).u, 0u);
  // f32 arithmetic is binary64 then one rounding: FLT_MAX + FLT_MAX overflows to inf.
  EXPECT_EQ(run(Op::ADD, DType::F32, DType::F32, {f(3.4028234663852886e38), f(3.4028234663852886e38)}).f, INFINITY);
}

// Bools are the integers 0 and 1, truncated by "nonzero": ADD is or, MUL and, SUB xor, NEG identity.
TEST(InterpAlu, BoolArithmeticFollowsFromIntegers) {
  for (uint64_t a : {0, 1})
    for (uint64_t b : {0, 1}) {
      EXPECT_EQ(run(Op::ADD, DType::Bool, DType::Bool, {u(a), u(b)}).u, a | b);
      EXPECT_EQ(run(Op::MUL, DType::Bool, DType::Bool, {u(a), u(b)}).u, a & b);
      EXPECT_EQ(run(Op::SUB, DType::Bool, DType::Bool, {u(a), u(b)}).u, a ^ b);
      EXPECT_EQ(run(Op::MAX, DType::Bool, DType::Bool, {u(a), u(b)}).u, a | b);
      EXPECT_EQ(run(Op::CMPLT, DType::Bool, DType::Bool, {u(a), u(b)}).u, static_cast<uint64_t>(a < b));
    }
  EXPECT_EQ(run(Op::NEG, DType::Bool, DType::Bool, {u(1)}).u, 1u);
}

TEST(InterpAlu, ShiftsPastTheWidth) {
  EXPECT_EQ(run(Op::SHR, DType::I16, DType::I16, {i(-5), i(16)}).i, -1);
  EXPECT_EQ(run(Op::SHR, DType::I64, DType::I64, {i(-5), i(1000)}).i, -1);
  EXPECT_EQ(run(Op::SHR, DType::U8, DType::U8, {u(255), u(8)}).u, 0u);
  EXPECT_EQ(run(Op::SHL, DType::U64, DType::U64, {u(1), u(~uint64_t{0})}).u, 0u);
  EXPECT_EQ(run(Op::SHL, DType::I8, DType::I8, {i(3), i(7)}).i, -128);
}

TEST(InterpAlu, BitcastReinterpretsTheBytes) {
  EXPECT_EQ(run(Op::BITCAST, DType::U16, DType::F16, {f(-2.0)}).u, 0xc000u);
  EXPECT_EQ(run(Op::BITCAST, DType::F32, DType::I32, {i(0x3f800000)}).f, 1.0);
  EXPECT_EQ(run(Op::BITCAST, DType::I64, DType::F64, {f(-0.0)}).i, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(std::isnan(run(Op::BITCAST, DType::F16, DType::I16, {i(-1)}).f));  // NaN as a result is fine
  EXPECT_FALSE(exec_alu(Op::BITCAST, DType::U64, DType::F64, std::initializer_list<Scalar>{f(NAN)}.begin()).defined());
}

// The interpreter's bit-level binary16 rounding against core's: every half, the doubles next to it, and
// the midpoints between neighbouring halves with their neighbours (where ties to even decides).
TEST(InterpAlu, F16RoundingAgreesWithCoreAroundEveryHalf) {
  auto same = [](double x) {
    const double want = round_to_half(x), got = alu::round_to_f16(x);
    return std::isnan(want) ? std::isnan(got) : std::bit_cast<uint64_t>(want) == std::bit_cast<uint64_t>(got);
  };
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const double v = half_to_double(static_cast<uint16_t>(h));
    const double next = half_to_double(static_cast<uint16_t>(h + 1));
    const double mid = (v + next) / 2;  // exact in binary64
    for (double x : {v, std::nextafter(v, INFINITY), std::nextafter(v, -INFINITY), mid, std::nextafter(mid, INFINITY),
                     std::nextafter(mid, -INFINITY)})
      ASSERT_TRUE(same(x)) << std::hexfloat << x << " (half 0x" << std::hex << h << ")";
  }
}

RC_GTEST_PROP(InterpAlu, F16RoundingAgreesWithCoreOnAnyDouble, (uint64_t bits)) {
  const double x = std::bit_cast<double>(bits);
  const double want = round_to_half(x), got = alu::round_to_f16(x);
  const bool same = std::isnan(want) ? std::isnan(got) : std::bit_cast<uint64_t>(want) == std::bit_cast<uint64_t>(got);
  RC_ASSERT(same);
}

}  // namespace
}  // namespace uf::testing

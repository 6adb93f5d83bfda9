// Value text and half precision: exact round trips, Python-repr spelling, range checks.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>

#include "core/dtype.h"

namespace uf::testing {
namespace {

double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

TEST(ScalarText, PythonReprSpelling) {
  const std::pair<double, const char*> cases[] = {{1.0, "1.0"},
                                                  {0.1, "0.1"},
                                                  {-0.0, "-0.0"},
                                                  {0.0, "0.0"},
                                                  {1e-45, "1e-45"},
                                                  {3.4028234663852886e38, "3.4028234663852886e+38"},
                                                  {5.960464477539063e-08, "5.960464477539063e-08"},
                                                  {1e16, "1e+16"},
                                                  {1.5e16, "1.5e+16"},
                                                  {9999999999999998.0, "9999999999999998.0"},
                                                  {0.0001, "0.0001"},
                                                  {0.00001, "1e-05"},
                                                  {123.0, "123.0"},
                                                  {-2.5, "-2.5"},
                                                  {INFINITY, "inf"},
                                                  {-INFINITY, "-inf"},
                                                  {NAN, "nan"},
                                                  {65504.0, "65504.0"},
                                                  {2.0e-308 / 1e10, "2e-318"}};
  for (auto [v, s] : cases) EXPECT_EQ(format_scalar(DType::F64, Scalar::of_float(v)), s) << s;
  EXPECT_EQ(format_scalar(DType::Bool, Scalar::of_uint(1)), "true");
  EXPECT_EQ(format_scalar(DType::I64, Scalar::of_int(INT64_MIN)), "-9223372036854775808");
  EXPECT_EQ(format_scalar(DType::U64, Scalar::of_uint(UINT64_MAX)), "18446744073709551615");
}

RC_GTEST_PROP(ScalarText, EveryDoubleRoundTrips, (uint64_t bits)) {
  const double v = from_bits(bits);
  const auto r = parse_scalar(DType::F64, format_scalar(DType::F64, Scalar::of_float(v)));
  RC_ASSERT(r.error == nullptr);
  if (std::isnan(v))
    RC_ASSERT(std::isnan(r.value.f));
  else
    RC_ASSERT(r.value.u == bits);
}

RC_GTEST_PROP(ScalarText, EveryIntegerRoundTrips, (int64_t v, uint8_t which)) {
  const DType d = kValueDTypes[1 + which % 8];  // i8..u64
  const Scalar s = normalize(d, Scalar::of_int(v));
  const auto r = parse_scalar(d, format_scalar(d, s));
  RC_ASSERT(r.error == nullptr);
  RC_ASSERT(r.value.u == s.u);
}

TEST(ScalarText, ParseRangesAndForms) {
  EXPECT_STREQ(parse_scalar(DType::I8, "128").error, "integer out of range");
  EXPECT_STREQ(parse_scalar(DType::I8, "-129").error, "integer out of range");
  EXPECT_EQ(parse_scalar(DType::I8, "-128").value.i, -128);
  EXPECT_STREQ(parse_scalar(DType::U8, "-1").error, "integer out of range");
  EXPECT_STREQ(parse_scalar(DType::U64, "18446744073709551616").error, "integer out of range");
  EXPECT_STREQ(parse_scalar(DType::I32, "1.5").error, "bad integer");
  EXPECT_STREQ(parse_scalar(DType::F32, "abc").error, "bad float");
  EXPECT_STREQ(parse_scalar(DType::F32, "").error, "missing value");
  EXPECT_EQ(parse_scalar(DType::F64, "0x1.8p1").value.f, 3.0);
  EXPECT_EQ(parse_scalar(DType::F64, "-0x1p-1074").value.f, -0x1p-1074);
  EXPECT_EQ(parse_scalar(DType::F32, "0.1").value.f, static_cast<double>(0.1f));  // rounded to f32
  EXPECT_EQ(parse_scalar(DType::F32, "1e39").value.f, INFINITY);                  // beyond f32: inf
  EXPECT_EQ(parse_scalar(DType::F16, "65520").value.f, INFINITY);                 // ties to even: overflow
  EXPECT_EQ(parse_scalar(DType::F16, "65519.99").value.f, 65504.0);
  EXPECT_TRUE(std::signbit(parse_scalar(DType::F64, "-0.0").value.f));
  EXPECT_TRUE(std::isnan(parse_scalar(DType::F16, "nan").value.f));
  EXPECT_EQ(parse_scalar(DType::Bool, "false").value.u, 0u);
  EXPECT_STREQ(parse_scalar(DType::Bool, "yes").error, "bad bool (true or false)");
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const double d = half_to_double(static_cast<uint16_t>(h));
    if (std::isnan(d)) continue;  // NaN payloads are not values (docs/semantics.md)
    ASSERT_EQ(double_to_half(d), h) << std::hex << h;
  }
}

#if defined(__FLT16_MAX__) && !defined(__clang__)
// gcc's _Float16 conversion is correctly rounded: an independent oracle for ours.
RC_GTEST_PROP(Half, RoundingMatchesFloat16, (uint64_t bits)) {
  double v = from_bits(bits);
  if (std::isnan(v)) return;
  // Bias the exponent into and around half range so most cases are interesting.
  int e;
  v = std::ldexp(std::frexp(v, &e), static_cast<int>(bits % 50) - 30);
  RC_ASSERT(half_to_double(double_to_half(v)) == static_cast<double>(static_cast<_Float16>(v)));
}
#endif

TEST(Half, Boundaries) {
  EXPECT_EQ(round_to_half(65504.0), 65504.0);
  EXPECT_EQ(round_to_half(65519.0), 65504.0);
  EXPECT_EQ(round_to_half(65520.0), INFINITY);
  EXPECT_EQ(round_to_half(0x1p-25), 0.0);  // halfway to the smallest subnormal: ties to even (0)
  EXPECT_EQ(round_to_half(0x1.0000000000001p-25), 0x1p-24);
  EXPECT_EQ(round_to_half(std::ldexp(2003, -25)), std::ldexp(1002, -24));  // subnormal ties to even (up)
  EXPECT_EQ(round_to_half(std::ldexp(2001, -25)), std::ldexp(1000, -24));  // ... and down
  EXPECT_EQ(round_to_half(std::ldexp(2047, -25)), 0x1p-14);                // rounds up into the normals
  EXPECT_TRUE(std::signbit(round_to_half(-1e-30)));
}

}  // namespace
}  // namespace uf::testing

// Values for constants and buffer data: edge values, small values, raw bit patterns, full-precision
// values of moderate magnitude, fractions, and values beside rounding, division and shift boundaries.
//
// Edge values are where implementations disagree: signed/unsigned range ends, -0.0, infinities, NaN,
// subnormals, the overflow, saturation and underflow boundaries of each float format, integers just past a float's precision
// (2^24+1, 2^53+1), halfway cases of rounding, and float values at the ends of the int ranges (2^31,
// 2^63, 2^64-1). Every value is normalized to its dtype (ints wrap, floats round), the representation
// invariant of core/dtype.h, and NaN is always the one canonical quiet NaN so text round trips exactly.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/float_formats.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

// Integer patterns, wrapped into the dtype by normalize().
constexpr uint64_t kIntEdges[] = {0,
                                  1,
                                  2,
                                  3,
                                  7,
                                  8,
                                  15,
                                  16,
                                  31,
                                  32,
                                  63,
                                  64,
                                  100,
                                  127,
                                  128,
                                  255,
                                  256,
                                  32767,
                                  32768,
                                  65535,
                                  65536,
                                  (1ull << 24) + 1,
                                  (1ull << 31) - 1,
                                  1ull << 31,
                                  (1ull << 32) - 1,
                                  1ull << 32,
                                  (1ull << 53) + 1,
                                  (1ull << 63) - 1,
                                  1ull << 63,
                                  ~0ull,
                                  ~0ull - 1,
                                  0x5555555555555555ull,
                                  0xAAAAAAAAAAAAAAAAull,
                                  0x0123456789ABCDEFull,
                                  static_cast<uint64_t>(-7),
                                  static_cast<uint64_t>(-8),
                                  static_cast<uint64_t>(-100),
                                  static_cast<uint64_t>(-128),
                                  static_cast<uint64_t>(-129),
                                  static_cast<uint64_t>(-32768),
                                  static_cast<uint64_t>(-2147483647) - 1};

// Float edges as binary64, rounded to the dtype by normalize().
constexpr double kFloatEdges[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.49999999999999994, 0.1, -0.1, 1.0 / 3, 3.141592653589793, 255.5,
    127.5, -128.5, 32767.5, 65504.0, 65519.99, 65520.0, 65536.0, 16777216.0, 16777217.0, 9007199254740992.0, 9007199254740994.0,
    4503599627370495.5, 2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483649.0, 4294967295.0, 4294967296.0,
    9223372036854775807.0, -9223372036854775808.0, 18446744073709549568.0, 18446744073709551616.0, 1e10, -1e10, 1e300, -1e300,
    0x1.fffffep127, -0x1.fffffep127, 0x1.ffffffp127, 0x1p128, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1p-14, 0x1p-24,
    0x1p-25, 0x1.8p-25, 0x1p-126, 0x1p-149, 0x1p-150, 0x1.8p-150, 0x1p-1022, 0x1p-1074, -0x1p-1074, 1.0000000596046448,
    1.00048828125, 1.0000001192092896, 0x1.0000000000001p0, 1e-8, -1e-8,
    // bf16: ties of its 8-bit significand, and values just off a tie that f32 rounds onto it (the
    // double rounding band), the overflow threshold
    1.00390625, 1.0039062500000002, 1.01171875, 1.0117187499999998, -1.00390625, 0x1.fep127, 0x1.ffp127,
    // fp8: each format's largest value, its saturation threshold and either side of it, subnormals, the
    // flush-to-zero threshold (half the smallest subnormal) and either side, ties of the 3- and 2-bit
    // significands
    448.0, 464.0, 464.00000000000006, 480.0, 240.0, 247.99999999999997, 248.0, 57344.0, 61439.99999999999, 61440.0, 0x1p-9,
    0x1p-10, 0x1.0000000000001p-10, 0x1p-17, 0x1p-16, 0x1.0000000000001p-17, 0x1p-11, 0x1p-18, 0x1p-6, 0x1p-7, 0x1p-14, 0x1p-15,
    1.0625, 1.1875, 1.125, 1.375, -1.0625, 2.25, 0.3125};

// Where approximations of SIN, LOG2, EXP2 and POW break (docs/semantics.md, "Approximate ops"): the
// switch points of tinygrad's own (codegen/decomp/transcendental.py: xsin's Payne-Hanek switch at 30,
// xlog2's denormal threshold 1e-4 (6.1e-5 for f16), xexp2's bounds of each dtype), values near 1 and 0.75
// (log2's reduction), exp2's overflow and underflow per dtype, huge arguments of sin (Kahan's 1e22, the
// binary64 worst case of range reduction), POW exponents past int32 (its odd/integer test casts to int32).
constexpr double kApproxEdges[] = {
    30.0, 29.999998092651367, 30.000001907348633, 1e-4, 6.1e-5, 6.103515625e-05, 0.75,
    1.3333333333333333, 1.0, 0x1.fffffffffffffp-1, 0x1.ffffffp-1, 0x1.000002p0, 0.9990234375, 2.0, 0.5, 1024.0,
    1023.9999999999999, -1022.0, -1074.0, -1075.0, -2000.0, 128.0, 127.99999237060547, -126.0, -149.0, -150.0,
    -149.5, 16.0, 15.999, 15.9990234375, -14.0, -24.0, -25.0, 23.0, -22.0, 22.5, 1e22, 1e30, 0x1.6ac5b262ca1ffp+849,
    1e5, 8388608.0, 2147483648.0, 2147483649.0, 4294967297.0, 3e9, 0.4999999701976776, 1e-30, 1e-300};
// Sin's range reduction near multiples of pi/2: k * (pi/2) rounded to binary64 (then to the dtype).
constexpr double kHalfPi = 1.5707963267948966;
constexpr double kHalfPiMultiples[] = {1, 2, 3, 4, 5, 7, 8, 13, 19, 100, 355, 1000, 12345, 1e5, 1 << 20, 1 << 24, 1e8};

Scalar canonical(DType d, Scalar v) {
  v = normalize(d, v);
  if (is_float(d) && std::isnan(v.f)) v.f = std::numeric_limits<double>::quiet_NaN();
  return v;
}

}  // namespace

Scalar Gen::edge_value(DType d) {
  if (is_bool(d)) return Scalar::of_uint(rng.below(2));
  if (is_float(d)) {
    // Sometimes a special the table cannot hold: infinities, NaN, this dtype's own extremes.
    if (!rng.chance(pol.p_edge_special)) return canonical(d, Scalar::of_float(rng.pick(kFloatEdges)));
    const double specials[] = {INFINITY, -INFINITY, NAN, float_max(d), -float_max(d)};
    return canonical(d, Scalar::of_float(rng.pick(specials)));
  }
  // This dtype's own range ends, or a pattern wrapped into it.
  if (rng.chance(pol.p_edge_special)) {
    const IntRange r = dtype_range(d);
    const int128 ends[] = {r.lo, r.lo + 1, r.hi, r.hi - 1, 0, 1, r.hi / 2 + 1};
    return canonical(d, Scalar::of_uint(static_cast<uint64_t>(rng.pick(ends))));
  }
  return canonical(d, Scalar::of_uint(rng.pick(kIntEdges)));
}

Scalar Gen::rounding_edge(DType from, DType to) {
  double low = 0;
  for (int tries = 0; tries < 8; ++tries) {  // a finite value of `to` below its largest
    low = std::fabs(float_from_storage_bits(to, rng.next()));
    if (std::isfinite(low) && low < float_limits(to).max_finite) break;
    low = 1.0;
  }
  const uint64_t bits = float_storage_bits(to, low);
  const double high = float_from_storage_bits(to, bits + 1);  // its neighbour above (magnitudes grow with bits)
  double x = (low + high) / 2;                                // exact: both have few significant bits
  // The tie itself (ties-to-even), or one step off it towards the odd neighbour: a binary32 intermediate
  // rounds that back onto the tie and then to the even one, while one rounding goes to the odd one. A
  // step towards the even neighbour would round the same either way, so it is not drawn.
  const int64_t towards_odd = (bits & 1) ? -1 : 1;
  const int64_t nudge = rng.chance(pol.p_exact_tie) ? 0 : towards_odd;
  if (is_int(from))
    x = std::nearbyint(x) + static_cast<double>(nudge);
  else if (from == DType::F64 && nudge != 0)
    x = std::nextafter(x, nudge * INFINITY);
  else if (from == DType::F32 && nudge != 0)
    x = std::nextafter(static_cast<float>(x), static_cast<float>(nudge * INFINITY));
  if (rng.chance(pol.p_negate_value)) x = -x;
  if (is_int(from)) {
    if (!(std::fabs(x) < 0x1p62)) return edge_value(from);
    return canonical(from, Scalar::of_int(static_cast<int64_t>(x)));
  }
  return canonical(from, Scalar::of_float(x));
}

Scalar Gen::precise_value(DType d) {
  if (is_float(d)) {  // a random significand at a moderate exponent, rounded to d
    const double significand = 1.0 + static_cast<double>(rng.next() >> 12) * 0x1p-52;
    const double x = std::ldexp(significand, static_cast<int>(rng.range(-pol.precise_exponent, pol.precise_exponent)));
    return canonical(d, Scalar::of_float(rng.chance(pol.p_negate_value) ? -x : x));
  }
  // Integers: random bits of a random width, so that magnitudes spread over the whole range.
  const int width = static_cast<int>(rng.range(1, bits(d)));
  const uint64_t x = rng.next() & (width >= 64 ? ~0ull : (1ull << width) - 1);
  return canonical(d, Scalar::of_uint(is_signed(d) && rng.chance(pol.p_negate_value) ? 0 - x : x));
}

Scalar Gen::fraction_value(DType d) {
  if (!is_float(d)) return Scalar::of_uint(rng.below(2));  // integers: 0 or 1, the integer parts of fractions
  // In (-1, 1), full precision, sometimes far below 1 in magnitude (subnormals of the narrow formats).
  double x = rng.unit();
  if (rng.chance(pol.p_tiny_fraction)) x = std::ldexp(x, -static_cast<int>(rng.range(1, 24)));
  return canonical(d, Scalar::of_float(rng.chance(pol.p_negate_value) ? -x : x));
}

Scalar Gen::boundary_value(DType d) {
  if (is_float(d)) {
    // A tie of a float format narrower than d (or d's own for the narrowest), or one ulp beside it. The
    // halves (f16, bf16) weigh most: theirs is the double-rounding band that a trip through f32 trips on.
    std::vector<DType> narrower;
    std::vector<double> weight;
    for (DType t : kValueDTypes)
      if (is_float(t) && float_limits(t).significand_bits < float_limits(d).significand_bits) {
        narrower.push_back(t);
        weight.push_back(pol.boundary_format_weight[bytes(t) == 1 ? 0 : bytes(t) == 2 ? 1 : 2]);
      }
    return rounding_edge(d, narrower.empty() ? d : narrower[static_cast<size_t>(rng.weighted(weight))]);
  }
  if (is_bool(d)) return Scalar::of_uint(rng.below(2));
  const int64_t r = rng.range(-1, 1);
  if (rng.chance(pol.p_shift_width_boundary)) return canonical(d, Scalar::of_int(bits(d) + r));  // a shift by the width, one off
  // Next to a multiple of a small divisor: where floor and C division, and their fast paths, part ways.
  constexpr int64_t kDivisors[] = {2, 3, 4, 5, 7, 8, 10, 16, 31, 32, 100, 127, 128, 255, 256};
  const int64_t q = rng.range(-1000, 1000);
  return canonical(d, Scalar::of_int(q * rng.pick(kDivisors) + r));
}

Scalar Gen::approx_value(DType d) {
  if (!is_float(d)) return edge_value(d);  // POW's integer operands
  double x = rng.chance(pol.p_approx_pi_multiple) ? rng.pick(kHalfPiMultiples) * kHalfPi : rng.pick(kApproxEdges);
  x = canonical(d, Scalar::of_float(x)).f;
  if (std::isfinite(x) && rng.chance(pol.p_approx_neighbour)) {  // a step of d beside it, either way
    const uint64_t bits = float_storage_bits(d, x);
    const double beside = float_from_storage_bits(d, rng.below(2) ? bits + 1 : bits - 1);
    if (std::isfinite(beside)) x = beside;
  }
  return canonical(d, Scalar::of_float(rng.chance(pol.p_negate_value) ? -x : x));
}

Scalar Gen::random_value(DType d, const Weights<ValueKind>& w) {
  switch (static_cast<ValueKind>(rng.weighted(w))) {
    case ValueKind::Edge: return edge_value(d);
    case ValueKind::Precise: return precise_value(d);
    case ValueKind::Fraction: return fraction_value(d);
    case ValueKind::Boundary: return boundary_value(d);
    case ValueKind::Approx: return approx_value(d);
    case ValueKind::Small: break;
    case ValueKind::Bits:
    default: {  // also: every weight zero
      if (is_bool(d)) return Scalar::of_uint(rng.below(2));
      const uint64_t b = rng.next();
      return is_float(d) ? canonical(d, Scalar::of_float(float_from_storage_bits(d, b))) : canonical(d, Scalar::of_uint(b));
    }
  }
  if (is_bool(d)) return Scalar::of_uint(rng.below(2));
  // Small: integers near zero (both signs where the dtype has them), floats in quarters.
  const int64_t n = std::max(0, pol.small_int), q = 4 * int64_t{std::max(0, pol.small_float)};
  if (is_float(d)) return canonical(d, Scalar::of_float(static_cast<double>(rng.range(-q, q)) / 4));
  if (is_unsigned(d)) return canonical(d, Scalar::of_uint(static_cast<uint64_t>(rng.range(0, 2 * n))));
  return canonical(d, Scalar::of_int(rng.range(-n, n)));
}

Scalar Gen::finite_value(DType d) {
  const Scalar v = random_value(d, pol.const_value_weight);
  return is_float(d) && !std::isfinite(v.f) ? Scalar::zero() : v;
}

Values Gen::buffer_data(DType d, int64_t len, bool random) {
  Values v(static_cast<size_t>(len), Scalar::zero());
  if (random)
    for (Scalar& x : v) x = random_value(d, pol.data_value_weight);
  return v;
}

}  // namespace uf::gen

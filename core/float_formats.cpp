// Narrow float formats on the bits (float_formats.h says which rules and why).
#include "core/float_formats.h"

#include <bit>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace uf {
namespace {

bool is_fnuz(DType d) { return d == DType::FP8E4M3FNUZ || d == DType::FP8E5M2FNUZ; }

// tinygrad's _fp8_cfg: the format's constants, the thresholds as binary64 bit patterns.
struct Fp8Format {
  int bias, sig_bits;  // sig_bits counts the implicit bit: 4 for e4m3, 3 for e5m2
  uint64_t mant_mask;
  uint64_t min_denorm_half;  // |x| at or below this becomes zero
  uint64_t ovf_threshold;    // |x| above this saturates to max_norm
  uint8_t max_norm;
  uint64_t min_norm;  // |x| at or above this is a normal number
};

const Fp8Format& fp8_format(DType d) {
  static constexpr Fp8Format kE4M3{7, 4, 0x7, 0x3F50000000000000, 0x407D000000000000, 0x7E, 0x3F90000000000000};
  static constexpr Fp8Format kE5M2{15, 3, 0x3, 0x3EE0000000000000, 0x40EE000000000000 - 1, 0x7B, 0x3F10000000000000};
  static constexpr Fp8Format kE4M3Fnuz{8, 4, 0x7, 0x3F40000000000000, 0x406F000000000000 - 1, 0x7F, 0x3F80000000000000};
  static constexpr Fp8Format kE5M2Fnuz{16, 3, 0x3, 0x3ED0000000000000, 0x40EE000000000000 - 1, 0x7F, 0x3F00000000000000};
  switch (d) {
    case DType::FP8E4M3: return kE4M3;
    case DType::FP8E5M2: return kE5M2;
    case DType::FP8E4M3FNUZ: return kE4M3Fnuz;
    case DType::FP8E5M2FNUZ: return kE5M2Fnuz;
    default: UOPFUZZ_CHECK(!"an fp8 dtype"); return kE4M3;
  }
}

// The bits of a non-finite x, which each format treats its own way.
uint8_t fp8_non_finite(DType d, double x) {
  const bool negative = std::signbit(x);
  if (is_fnuz(d)) return 0x80;
  if (d == DType::FP8E4M3) return negative ? 0xFF : 0x7F;
  return static_cast<uint8_t>((negative ? 0x80 : 0) | (std::isinf(x) ? 0x7C : 0x7F));
}

// Rounds the magnitude of a finite, nonzero x (bits xbits) to the format; the sign is added by the caller.
uint64_t fp8_magnitude(const Fp8Format& f, uint64_t xbits) {
  const uint64_t absx = xbits & 0x7FFFFFFFFFFFFFFF;
  const uint64_t half_ulp = uint64_t{1} << (52 - f.sig_bits);
  const int64_t exp = static_cast<int64_t>((xbits >> 52) & 0x7FF) - 1023 + f.bias;
  uint64_t mantissa = (xbits >> (53 - f.sig_bits)) & f.mant_mask;
  if (absx <= f.min_denorm_half) return 0;
  if (absx > f.ovf_threshold) return f.max_norm;
  if (absx >= f.min_norm) {
    uint64_t res = (static_cast<uint64_t>(exp) << (f.sig_bits - 1)) | mantissa;
    const uint64_t round_bits = xbits & ((half_ulp << 1) - 1);
    if (round_bits > half_ulp || (round_bits == half_ulp && (mantissa & 1))) ++res;
    return res;
  }
  const int64_t shift = 1 - exp;  // a subnormal of the format: the implicit bit becomes explicit
  mantissa |= uint64_t{1} << (f.sig_bits - 1);
  uint64_t res = mantissa >> shift;
  const uint64_t half = half_ulp << shift;
  const uint64_t round_bits = (xbits | (uint64_t{1} << 52)) & ((half << 1) - 1);
  if (round_bits > half || (round_bits == half && (res & 1))) ++res;
  return res;
}

}  // namespace

const FloatLimits& float_limits(DType d) {
  static constexpr FloatLimits kF16{11, 65504.0, 0x1p-14, true, true};
  static constexpr FloatLimits kF32{24, 0x1.fffffep127, 0x1p-126, true, true};
  static constexpr FloatLimits kF64{53, 0x1.fffffffffffffp1023, 0x1p-1022, true, true};
  static constexpr FloatLimits kBF16{8, 0x1.fep127, 0x1p-126, true, true};
  static constexpr FloatLimits kE4M3{4, 448.0, 0x1p-6, false, true};
  static constexpr FloatLimits kE5M2{3, 57344.0, 0x1p-14, true, true};
  static constexpr FloatLimits kE4M3Fnuz{4, 240.0, 0x1p-7, false, false};
  static constexpr FloatLimits kE5M2Fnuz{3, 57344.0, 0x1p-15, false, false};
  switch (d) {
    case DType::F16: return kF16;
    case DType::F32: return kF32;
    case DType::F64: return kF64;
    case DType::BF16: return kBF16;
    case DType::FP8E4M3: return kE4M3;
    case DType::FP8E5M2: return kE5M2;
    case DType::FP8E4M3FNUZ: return kE4M3Fnuz;
    case DType::FP8E5M2FNUZ: return kE5M2Fnuz;
    default: UOPFUZZ_CHECK(!"a float dtype"); return kF64;
  }
}

uint16_t bf16_bits(double x) {
  const uint32_t u = std::bit_cast<uint32_t>(static_cast<float>(x));   // the first rounding: to f32
  if (!std::isfinite(x)) return static_cast<uint16_t>(u >> 16);        // ±inf and NaN pass through
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);  // the second: nearest even on the bits
}

double bf16_value(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint8_t fp8_bits(DType d, double x) {
  if (!std::isfinite(x)) return fp8_non_finite(d, x);
  if (is_fnuz(d) && x == 0.0) return 0x00;
  const uint64_t xbits = std::bit_cast<uint64_t>(x);
  const uint64_t res = fp8_magnitude(fp8_format(d), xbits);
  if (is_fnuz(d) && res == 0) return 0x00;  // fnuz has no negative zero
  return static_cast<uint8_t>(res | ((xbits >> 63) << 7));
}

double fp8_value(DType d, uint8_t bits) {
  if (is_fnuz(d) && bits == 0x80) return std::numeric_limits<double>::quiet_NaN();
  if ((bits & 0x7F) == 0) return (bits & 0x80) ? -0.0 : 0.0;
  const Fp8Format& f = fp8_format(d);
  const int mant_bits = f.sig_bits - 1, exp_bits = 8 - f.sig_bits;
  const int exp_max = (1 << exp_bits) - 1, mant_max = (1 << mant_bits) - 1;
  const int exp = (bits >> mant_bits) & exp_max, mantissa = bits & mant_max;
  const bool negative = bits & 0x80;
  if (!is_fnuz(d) && exp == exp_max) {
    if (d == DType::FP8E5M2)
      return std::copysign(mantissa ? std::numeric_limits<double>::quiet_NaN() : INFINITY, negative ? -1.0 : 1.0);
    if (mantissa == mant_max) return std::numeric_limits<double>::quiet_NaN();
  }
  const double fraction = static_cast<double>(mantissa) / (mant_max + 1);
  const double value = exp == 0 ? std::ldexp(fraction, 1 - f.bias) : std::ldexp(1 + fraction, exp - f.bias);
  return negative ? -value : value;
}

double round_to_float_dtype(DType d, double x) {
  switch (d) {
    case DType::F16: return half_to_double(double_to_half(x));
    case DType::F32: return static_cast<float>(x);
    case DType::F64: return x;
    case DType::BF16: return bf16_value(bf16_bits(x));
    default: return fp8_value(d, fp8_bits(d, x));
  }
}

uint64_t float_storage_bits(DType d, double value) {
  switch (d) {
    case DType::F16: return double_to_half(value);
    case DType::F32: return std::bit_cast<uint32_t>(static_cast<float>(value));
    case DType::F64: return std::bit_cast<uint64_t>(value);
    case DType::BF16: return bf16_bits(value);
    default: return fp8_bits(d, value);
  }
}

double float_from_storage_bits(DType d, uint64_t bits) {
  switch (d) {
    case DType::F16: return half_to_double(static_cast<uint16_t>(bits));
    case DType::F32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case DType::F64: return std::bit_cast<double>(bits);
    case DType::BF16: return bf16_value(static_cast<uint16_t>(bits));
    default: return fp8_value(d, static_cast<uint8_t>(bits));
  }
}

}  // namespace uf

// The narrow float formats, exactly as tinygrad's dtype.py defines them: their storage bits, and the
// truncation of a binary64 to each (docs/semantics.md, "Truncation").
//
//   f16          IEEE binary16, one rounding (nearest even), overflow to ±inf;
//   bf16         two roundings: to f32 first (nearest even), then the f32 bits to their top 16 (nearest
//                even on those bits); ±inf and NaN pass through (tinygrad's float_to_bf16);
//   fp8e4m3      OCP E4M3 (bias 7, max 448, no inf): ±inf and NaN give NaN, finite overflow saturates;
//   fp8e5m2      OCP E5M2 (bias 15, max 57344): ±inf stay, NaN stays, finite overflow saturates;
//   fp8e4m3fnuz, fp8e5m2fnuz  bias 8 / 16, no inf, no -0.0, one NaN (0x80): non-finite gives NaN.
// The fp8 rounding (tinygrad's float_to_fp8, after NVIDIA's cuda_fp8.hpp) is nearest even with
// subnormals; magnitudes at or below half the smallest subnormal become zero. Everything is integer
// arithmetic on the bits: no library call whose result could differ between machines.
#pragma once
#include <cstdint>

#include "core/dtype.h"

namespace uf {

// What a float dtype can hold: for generators and analyses that reason about ranges and rounding.
struct FloatLimits {
  int significand_bits;  // the implicit bit included: 11 for f16, 8 for bf16, 4 for e4m3
  double max_finite;     // the largest finite value (what finite overflow saturates to, for the fp8s)
  double min_normal;
  bool has_inf;  // f16, f32, f64, bf16, fp8e5m2: beyond max_finite is ±inf (fp8e5m2: only from ±inf)
  bool has_negative_zero;
};
const FloatLimits& float_limits(DType d);  // d a float dtype

uint16_t bf16_bits(double x);
double bf16_value(uint16_t bits);
uint8_t fp8_bits(DType d, double x);  // d one of the four fp8 dtypes
double fp8_value(DType d, uint8_t bits);

// Truncation of a binary64 to any float dtype (f64: x itself).
double round_to_float_dtype(DType d, double x);

// A float dtype's storage bits (what a buffer holds, what BITCAST reinterprets), and back.
uint64_t float_storage_bits(DType d, double value);
double float_from_storage_bits(DType d, uint64_t bits);

}  // namespace uf

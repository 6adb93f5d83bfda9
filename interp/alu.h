// The reference ALU: one table that says what every ALU op computes (docs/semantics.md, "The one rule").
//
// The rule is tinygrad's exec_alu: compute on the operands' exact values the way Python would
// (unbounded integers, binary64 floats), then truncate to the result dtype:
//   iN/uN  the value mod 2^N (two's complement for iN);
//   f32    binary64 rounded to nearest even, overflow gives ±inf;  f16 likewise to binary16;
//   bf16, fp8s  tinygrad's own rules (core/float_formats.h: bf16 rounds twice, fp8 saturates);
//   bool   nonzero (NaN included) is true.
// Integers are computed modulo 2^64 on the Scalar representation (sign/zero-extended in 64 bits), which is
// exact mod 2^N for every N <= 64; only the ops that Python defines by exact division or shifting (the
// divisions, SHR, MAX and the comparisons) look at the signed/unsigned value. tests/interp proves this
// against an unbounded-integer model. Bools are the integers 0 and 1 under the same rule, which makes
// ADD or, MUL and, SUB xor, NEG the identity, without special cases.
//
// Where Python itself has no result the op is UNDEFINED (a value is still returned, meaningless):
// CAST of NaN/±inf to an integer, SHL/SHR by a negative amount, BITCAST of a NaN, an integer POW by a
// negative exponent, a float POW that overflows binary64.
//
// The table itself is interp/alu_ops.h (internal); exec_alu and the interpreter's loop both run it.
#pragma once
#include <array>
#include <string>

#include "core/dtype.h"
#include "core/ops.h"

namespace uf {

// Why an op has no defined result. Kept as a tag so the hot path never builds strings.
enum class AluUndefined : uint8_t {
  None,
  NegativeShift,   // SHL/SHR by b < 0 (Python raises ValueError)
  NonFiniteToInt,  // CAST of NaN or ±inf to an integer dtype (int() raises)
  BitcastNaN,      // BITCAST of a NaN: its bits are not fixed by the reference
  NegativePower,   // integer POW by b < 0 (Python's result is a float)
  PowOverflow,     // float POW whose binary64 result overflows (Python raises OverflowError)
};

struct AluResult {
  Scalar value;  // normalized for the result dtype (see dtype.h); meaningless when undefined
  AluUndefined undefined = AluUndefined::None;
  bool defined() const { return undefined == AluUndefined::None; }
};

// Evaluates one ALU op (is_alu(op)). `result` is the node's dtype; `operand` is the dtype of the value
// operands (for WHERE the dtype of a and b, operands[0] being the bool condition; for CAST/BITCAST the
// source dtype). Operands must be normalized for their dtypes. Arity is info(op).arity.
AluResult exec_alu(Op op, DType result, DType operand, const Scalar* operands);

// A specific sentence for an undefined result, e.g. "CAST of nan to i32", "SHL by negative amount -1",
// "BITCAST of nan (f32 to i32)". Only call it when exec_alu reported undefined.
std::string undefined_reason(Op op, DType result, DType operand, const Scalar* operands);

// Truncation of an exact integer, given mod 2^64 in `v`, to an integer or bool dtype. Branch-free in the
// signedness, which a random program makes unpredictable: keep the low bits, then sign-extend by
// xor-subtract (sign 0 for unsigned). One table entry per dtype, loaded once.
struct WrapRule {
  uint64_t mask;  // the dtype's bits
  uint64_t sign;  // its sign bit when signed, else 0
};
inline constexpr auto kWrapRules = [] {
  std::array<WrapRule, kNumDTypes> t{};
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    if (!is_int(d)) continue;
    const int n = bits(d);
    t[i] = {n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1, is_signed(d) ? uint64_t{1} << (n - 1) : 0};
  }
  return t;
}();

inline Scalar wrap_int(DType d, uint64_t v) {
  if (d == DType::Bool) return Scalar::of_uint(v != 0);  // the one dtype of kind B: no table load
  const WrapRule w = kWrapRules[static_cast<int>(d)];
  return Scalar::of_uint(((v & w.mask) ^ w.sign) - w.sign);
}

}  // namespace uf

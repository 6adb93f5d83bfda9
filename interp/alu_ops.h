// The body of the ALU table (alu.h states the rules). Internal to interp/.
//
// Each family (integer, float, CAST, BITCAST) is one function, with the op as a template parameter: the
// switch on it folds away, so exec_alu and the interpreter's loop (which dispatches once on op and family)
// run the same code with no second dispatch and no duplicate semantics.
#pragma once
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "core/error.h"
#include "core/float_formats.h"
#include "interp/alu.h"

namespace uf::alu {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline AluResult ok(Scalar v) { return {v, AluUndefined::None}; }
inline AluResult undefined(AluUndefined why) { return {Scalar::zero(), why}; }

// The ops computed by the integer and float families (WHERE, CAST, BITCAST have their own).
constexpr bool is_arith(Op op) { return is_alu(op) && op != Op::WHERE && !is_conversion(op); }

// Rounds a binary64 to the nearest binary16 value, ties to even, as a binary64: core's round_to_half,
// done on the bits without library calls (tests/interp checks the two agree). Overflow gives ±inf.
inline double round_to_f16(double x) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  constexpr uint64_t kOverflow = 0x40effe0000000000;        // 65520.0: halfway to 65536, ties to even (up)
  constexpr uint64_t kSmallestNormal = 0x3f10000000000000;  // 2^-14
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const uint64_t sign = bits & kSign, mag = bits & ~kSign;
  if (mag >= kOverflow) return mag > 0x7ff0000000000000 ? x : std::bit_cast<double>(sign | 0x7ff0000000000000);
  if (mag < kSmallestNormal) {  // subnormal halves are multiples of 2^-24: 2^28 + |x| rounds to one (ulp 2^-24)
    const double r = (std::bit_cast<double>(mag) + 0x1p28) - 0x1p28;
    return std::bit_cast<double>(sign | std::bit_cast<uint64_t>(r));
  }
  constexpr int kDropped = 52 - 10;  // binary16 keeps 10 of binary64's 52 fraction bits
  constexpr uint64_t kLow = (uint64_t{1} << kDropped) - 1;
  const uint64_t rounded = (mag + (kLow >> 1) + ((mag >> kDropped) & 1)) & ~kLow;  // carries into the exponent
  return std::bit_cast<double>(sign | rounded);
}

// Truncation of a binary64 to a float dtype: f32 and f16 one rounding to nearest even, overflow to ±inf;
// bf16 and the fp8s by core's exact rules (core/float_formats.h).
inline double round_to(DType d, double x) {
  if (d == DType::F64) return x;
  if (d == DType::F32) return static_cast<float>(x);
  if (d == DType::F16) return round_to_f16(x);
  return round_to_float_dtype(d, x);
}

inline AluResult of_float(DType result, double x) { return ok(Scalar::of_float(round_to(result, x))); }
inline AluResult of_bool(bool b) { return ok(Scalar::of_uint(b)); }

// Python's int(x) for a finite x, then mod 2^64. |x| >= 2^63 is an integer m * 2^e (m 53 bits, e >= 11),
// so its residue is m << e, or 0 once e >= 64: exact without big integers.
inline uint64_t float_to_int_mod64(double x) {
  const double t = std::trunc(x);
  if (std::fabs(t) < 0x1p63) return static_cast<uint64_t>(static_cast<int64_t>(t));
  int e;
  const double m = std::frexp(std::fabs(t), &e);  // |t| = m * 2^e, m in [0.5, 1)
  const uint64_t mant = static_cast<uint64_t>(std::ldexp(m, 53));
  const int shift = e - 53;
  const uint64_t mag = shift >= 64 ? 0 : mant << shift;
  return t < 0 ? 0 - mag : mag;
}

// Python floor division and modulo on the operands' exact values (b != 0). Only i64 MIN // -1
// overflows int64_t; its exact quotient 2^63 is MIN again mod 2^64, which the b == -1 case yields.
inline uint64_t floordiv(bool sgn, Scalar a, Scalar b) {
  if (!sgn) return a.u / b.u;
  if (b.i == -1) return 0 - a.u;
  int64_t q = a.i / b.i;
  if (a.i % b.i != 0 && ((a.i < 0) != (b.i < 0))) --q;
  return static_cast<uint64_t>(q);
}
inline uint64_t floormod(bool sgn, Scalar a, Scalar b) {
  if (!sgn) return a.u % b.u;
  if (b.i == -1) return 0;
  int64_t r = a.i % b.i;
  if (r != 0 && ((r < 0) != (b.i < 0))) r += b.i;
  return static_cast<uint64_t>(r);
}
// C-style: quotient toward zero, remainder a - q*b (tinygrad's IDIV/MOD on exact values).
inline uint64_t cdiv(bool sgn, Scalar a, Scalar b) {
  if (!sgn) return a.u / b.u;
  if (b.i == -1) return 0 - a.u;
  return static_cast<uint64_t>(a.i / b.i);
}
inline uint64_t cmod(bool sgn, Scalar a, Scalar b) {
  if (!sgn) return a.u % b.u;
  if (b.i == -1) return 0;
  return static_cast<uint64_t>(a.i % b.i);
}

// a^b mod 2^64 by square-and-multiply: the exact power's residue (mod 2^N follows) in at most 64 steps.
inline uint64_t pow_mod64(uint64_t a, uint64_t b) {
  uint64_t r = 1;
  for (; b != 0; b >>= 1, a *= a)
    if (b & 1) r *= a;
  return r;
}

// The interpreter's groups: the TOTAL ops (core/ops.def) whose result is a value of the operand dtype,
// per family. Their results are the functions below (int_total, float_total); the interpreter computes
// a whole group at once and picks one by op, a select where a jump on a random op would mostly mispredict.
constexpr bool is_total_int(Op op) {
  return is_total(op) && is_arith(op) && info(op).result == ResultRule::SAME && info(op).operands != OperandClass::FLOAT;
}
constexpr bool is_total_float(Op op) {
  const OperandClass c = info(op).operands;
  return is_total(op) && is_arith(op) && info(op).result == ResultRule::SAME && c != OperandClass::INT &&
         c != OperandClass::INT_BOOL;
}
inline constexpr auto kTotalIntOps = kOpsWhere<is_total_int>;
inline constexpr auto kTotalFloatOps = kOpsWhere<is_total_float>;
template <size_t N>
constexpr int position(const std::array<Op, N>& group, Op op) {
  for (size_t k = 0; k < N; ++k)
    if (group[k] == op) return static_cast<int>(k);
  return -1;
}

// A total integer op's exact result mod 2^64, before wrapping to the result dtype.
template <Op OP>
inline uint64_t int_total(bool sgn, Scalar a, Scalar b, Scalar c) {
  static_assert(is_total_int(OP));
  switch (OP) {
    case Op::ADD: return a.u + b.u;
    case Op::SUB: return a.u - b.u;
    case Op::MUL: return a.u * b.u;
    case Op::MULACC: return a.u * b.u + c.u;
    case Op::MAX: return (sgn ? a.i < b.i : a.u < b.u) ? b.u : a.u;
    case Op::NEG: return 0 - a.u;
    case Op::AND: return a.u & b.u;
    case Op::OR: return a.u | b.u;
    case Op::XOR: return a.u ^ b.u;
    default: UOPFUZZ_CHECK(!"a total integer op with a case here"); return 0;
  }
}

// A total float op's exact binary64 result, before rounding to the result dtype.
template <Op OP>
inline double float_total(double x, double y, double z) {
  static_assert(is_total_float(OP));
  switch (OP) {
    case Op::ADD: return x + y;
    case Op::SUB: return x - y;
    case Op::MUL: return x * y;
    case Op::MULACC: {
      const double product = x * y;  // rounded on its own: never fused (-ffp-contract=off)
      return product + z;
    }
    case Op::MAX: return y > x ? y : x;  // Python max: a unless b > a
    case Op::NEG: return -x;
    default: UOPFUZZ_CHECK(!"a total float op with a case here"); return 0;
  }
}

// The total op at position k of its group, all of the group computed (k must be a position).
template <size_t... K>
inline uint64_t pick_int_total(int k, bool sgn, Scalar a, Scalar b, Scalar c, std::index_sequence<K...>) {
  const uint64_t all[] = {int_total<kTotalIntOps[K]>(sgn, a, b, c)...};
  return all[k];
}
template <size_t... K>
inline double pick_float_total(int k, double x, double y, double z, std::index_sequence<K...>) {
  const double all[] = {float_total<kTotalFloatOps[K]>(x, y, z)...};
  return all[k];
}

// Integers and bools. Operands are exact values in their 64-bit representation; the result is the exact
// result mod 2^64, wrapped to the result dtype (bool: nonzero).
template <Op OP>
inline AluResult int_op(DType result, DType operand, Scalar a, Scalar b, Scalar c) {
  const bool sgn = is_signed(operand);
  if constexpr (is_total_int(OP)) return ok(wrap_int(result, int_total<OP>(sgn, a, b, c)));
  const bool a_less_b = sgn ? a.i < b.i : a.u < b.u;
  uint64_t r;
  switch (OP) {
    case Op::CMPLT: return of_bool(a_less_b);
    case Op::CMPNE: return of_bool(a.u != b.u);
    case Op::CMPEQ: return of_bool(a.u == b.u);
    case Op::SHL:
      if (sgn && b.i < 0) return undefined(AluUndefined::NegativeShift);
      r = b.u >= 64 ? 0 : a.u << b.u;  // amounts in [width, 64) shift every bit out after wrapping too
      break;
    case Op::SHR:
      if (sgn && b.i < 0) return undefined(AluUndefined::NegativeShift);
      if (sgn)
        r = static_cast<uint64_t>(a.i >> (b.u >= 64 ? 63 : b.u));  // floor(a / 2^b): 0 or -1 at the end
      else
        r = b.u >= 64 ? 0 : a.u >> b.u;
      break;
    case Op::FLOORDIV: r = b.u == 0 ? 0 : floordiv(sgn, a, b); break;
    case Op::FLOORMOD: r = b.u == 0 ? a.u : floormod(sgn, a, b); break;
    case Op::CDIV: r = b.u == 0 ? 0 : cdiv(sgn, a, b); break;
    case Op::CMOD: r = b.u == 0 ? a.u : cmod(sgn, a, b); break;
    case Op::POW:  // Python makes a float of a negative power, which no integer dtype takes
      if (sgn && b.i < 0) return undefined(AluUndefined::NegativePower);
      r = pow_mod64(a.u, b.u);
      break;
    default: UOPFUZZ_CHECK(!"an integer op"); r = 0;
  }
  return ok(wrap_int(result, r));
}

// Floats: binary64 on the exact operand values, then one rounding to the result dtype.
template <Op OP>
inline AluResult float_op(DType result, Scalar a, Scalar b, Scalar c) {
  const double x = a.f, y = b.f;
  if constexpr (is_total_float(OP)) return of_float(result, float_total<OP>(x, y, c.f));
  switch (OP) {
    case Op::CMPLT: return of_bool(x < y);
    case Op::CMPNE: return of_bool(x != y);  // true when either is NaN
    case Op::CMPEQ: return of_bool(x == y);
    case Op::RECIP: return of_float(result, 1.0 / x);
    case Op::SQRT: return of_float(result, x < 0 ? kNaN : std::sqrt(x));  // sqrt(-0.0) is -0.0
    case Op::EXP2: return of_float(result, std::pow(2.0, x));             // Python's 2 ** x
    case Op::LOG2:
      if (x == 0) return of_float(result, -INFINITY);
      return of_float(result, x < 0 || std::isnan(x) ? kNaN : std::log2(x));
    case Op::SIN: return of_float(result, std::isinf(x) ? kNaN : std::sin(x));
    case Op::TRUNC:  // math.trunc gives an int: a zero result is +0.0; inf and nan pass through
      return of_float(result, std::isfinite(x) ? std::trunc(x) + 0.0 : x);
    case Op::POW: {                                            // Python's float power (tinygrad's safe_pow)
      if (x == 0 && y < 0) return of_float(result, INFINITY);  // ZeroDivisionError, which tinygrad makes +inf
      const bool finite = std::isfinite(x) && std::isfinite(y);
      // A negative base to a non-integer power is a complex number in Python (NaN to tinygrad), whose
      // modulus |x|^y can still overflow and raise.
      const bool complex = finite && x < 0 && y != std::trunc(y);
      const double p = std::pow(complex ? -x : x, y);
      if (finite && std::isinf(p)) return undefined(AluUndefined::PowOverflow);
      return of_float(result, complex ? kNaN : p);
    }
    default: UOPFUZZ_CHECK(!"a float op");
  }
  return ok(Scalar::zero());
}

// CAST is dtype.const then truncate: float(x), int(x) or bool(x) of the exact value.
inline AluResult cast(DType to, DType from, Scalar v) {
  if (is_float(from)) {
    if (is_bool(to)) return of_bool(v.f != 0);  // NaN != 0: bool(nan) is True
    if (is_float(to)) return of_float(to, v.f);
    if (!std::isfinite(v.f)) return undefined(AluUndefined::NonFiniteToInt);
    return ok(wrap_int(to, float_to_int_mod64(v.f)));
  }
  if (is_float(to)) {  // float(int) rounds to binary64 first; f32/f16 then round a second time
    const double d = is_signed(from) ? static_cast<double>(v.i) : static_cast<double>(v.u);
    return of_float(to, d);
  }
  return ok(wrap_int(to, v.u));
}

inline uint64_t bits_of(DType d, Scalar v) {
  if (is_float(d)) return float_storage_bits(d, v.f);
  return bits(d) == 64 ? v.u : v.u & ((uint64_t{1} << bits(d)) - 1);
}

inline Scalar from_bits(DType d, uint64_t b) {
  if (is_float(d)) return Scalar::of_float(float_from_storage_bits(d, b));
  return wrap_int(d, b);
}

// Same size, bytes reinterpreted (the narrow floats through their storage bits). A NaN's bits are not fixed by the reference.
inline AluResult bitcast(DType to, DType from, Scalar v) {
  if (is_float(from) && std::isnan(v.f)) return undefined(AluUndefined::BitcastNaN);
  return ok(from_bits(to, bits_of(from, v)));
}

inline AluResult where(Scalar cond, Scalar a, Scalar b) { return ok(cond.u ? a : b); }

// The whole table for one op: its family chosen by the operand dtype.
// Reads only the op's own operands (`o` has arity elements).
template <Op OP>
inline AluResult apply(DType result, DType operand, const Scalar* o) {
  constexpr int arity = info(OP).arity;
  const Scalar a = arity > 0 ? o[0] : Scalar::zero(), b = arity > 1 ? o[1] : a, c = arity > 2 ? o[2] : a;
  if constexpr (OP == Op::WHERE)
    return where(a, b, c);
  else if constexpr (OP == Op::CAST)
    return cast(result, operand, a);
  else if constexpr (OP == Op::BITCAST)
    return bitcast(result, operand, a);
  else if constexpr (is_arith(OP))
    return is_float(operand) ? float_op<OP>(result, a, b, c) : int_op<OP>(result, operand, a, b, c);
  UOPFUZZ_CHECK(!"an ALU op");
  return ok(Scalar::zero());
}

}  // namespace uf::alu

// The reference ALU table. Every case computes what Python computes on exact values, then truncates once.
#include "interp/alu.h"

#include <bit>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace uf {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

AluResult ok(Scalar v) { return {v, AluUndefined::None}; }
AluResult undefined(AluUndefined why) { return {Scalar::zero(), why}; }

// Truncation of a binary64 to a float dtype: one rounding to nearest even, overflow to ±inf.
double round_to(DType d, double x) {
  switch (d) {
    case DType::F64: return x;
    case DType::F32: return static_cast<float>(x);
    case DType::F16: return round_to_half(x);
    default: UOPFUZZ_CHECK(!"float dtype");
  }
  return x;
}

AluResult of_float(DType result, double x) {
  if (is_bool(result)) return ok(Scalar::of_uint(x != 0));  // comparisons; NaN != 0 is true in C too
  return ok(Scalar::of_float(round_to(result, x)));
}

// Python's int(x) for a finite x, then mod 2^64. |x| >= 2^63 is an integer m * 2^e (m 53 bits, e >= 11),
// so its residue is m << e, or 0 once e >= 64: exact without big integers.
uint64_t float_to_int_mod64(double x) {
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
uint64_t floordiv(bool is_signed_, Scalar a, Scalar b) {
  if (!is_signed_) return a.u / b.u;
  if (b.i == -1) return 0 - a.u;
  int64_t q = a.i / b.i;
  if (a.i % b.i != 0 && ((a.i < 0) != (b.i < 0))) --q;
  return static_cast<uint64_t>(q);
}
uint64_t floormod(bool is_signed_, Scalar a, Scalar b) {
  if (!is_signed_) return a.u % b.u;
  if (b.i == -1) return 0;
  int64_t r = a.i % b.i;
  if (r != 0 && ((r < 0) != (b.i < 0))) r += b.i;
  return static_cast<uint64_t>(r);
}
// C-style: quotient toward zero, remainder a - q*b (tinygrad's IDIV/MOD on exact values).
uint64_t cdiv(bool is_signed_, Scalar a, Scalar b) {
  if (!is_signed_) return a.u / b.u;
  if (b.i == -1) return 0 - a.u;
  return static_cast<uint64_t>(a.i / b.i);
}
uint64_t cmod(bool is_signed_, Scalar a, Scalar b) {
  if (!is_signed_) return a.u % b.u;
  if (b.i == -1) return 0;
  return static_cast<uint64_t>(a.i % b.i);
}

// Integers and bools. Operands are exact values in their 64-bit representation; the result is the exact
// result mod 2^64, wrapped to the result dtype (bool: nonzero).
AluResult int_op(Op op, DType result, DType operand, const Scalar* o) {
  const bool sgn = is_signed(operand);
  const Scalar a = o[0], b = o[1];
  auto less = [sgn](Scalar x, Scalar y) { return sgn ? x.i < y.i : x.u < y.u; };
  uint64_t r;
  switch (op) {
    case Op::ADD: r = a.u + b.u; break;
    case Op::SUB: r = a.u - b.u; break;
    case Op::MUL: r = a.u * b.u; break;
    case Op::MULACC: r = a.u * b.u + o[2].u; break;
    case Op::MAX: r = less(a, b) ? b.u : a.u; break;
    case Op::CMPLT: r = less(a, b); break;
    case Op::CMPNE: r = a.u != b.u; break;
    case Op::CMPEQ: r = a.u == b.u; break;
    case Op::NEG: r = 0 - a.u; break;
    case Op::AND: r = a.u & b.u; break;
    case Op::OR: r = a.u | b.u; break;
    case Op::XOR: r = a.u ^ b.u; break;
    case Op::SHL:
      if (sgn && b.i < 0) return undefined(AluUndefined::NegativeShift);
      r = b.u >= 64 ? 0 : a.u << b.u;  // amounts in [width, 64) shift every bit out after wrapping too
      break;
    case Op::SHR:
      if (sgn && b.i < 0) return undefined(AluUndefined::NegativeShift);
      if (sgn) r = static_cast<uint64_t>(a.i >> (b.u >= 64 ? 63 : b.u));  // floor(a / 2^b): 0 or -1 at the end
      else r = b.u >= 64 ? 0 : a.u >> b.u;
      break;
    case Op::FLOORDIV: r = b.u == 0 ? 0 : floordiv(sgn, a, b); break;
    case Op::FLOORMOD: r = b.u == 0 ? a.u : floormod(sgn, a, b); break;
    case Op::CDIV: r = b.u == 0 ? 0 : cdiv(sgn, a, b); break;
    case Op::CMOD: r = b.u == 0 ? a.u : cmod(sgn, a, b); break;
    default: UOPFUZZ_CHECK(!"integer op"); r = 0;
  }
  return ok(wrap_int(result, r));
}

// Floats: binary64 on the exact operand values, then one rounding to the result dtype.
AluResult float_op(Op op, DType result, const Scalar* o) {
  const double x = o[0].f, y = o[1].f;
  switch (op) {
    case Op::ADD: return of_float(result, x + y);
    case Op::SUB: return of_float(result, x - y);
    case Op::MUL: return of_float(result, x * y);
    case Op::MULACC: {
      const double product = x * y;  // rounded on its own: never fused (-ffp-contract=off)
      return of_float(result, product + o[2].f);
    }
    case Op::MAX: return of_float(result, y > x ? y : x);  // Python max: a unless b > a
    case Op::CMPLT: return of_float(result, x < y);
    case Op::CMPNE: return of_float(result, x != y);
    case Op::CMPEQ: return of_float(result, x == y);
    case Op::NEG: return of_float(result, -x);
    case Op::RECIP: return of_float(result, 1.0 / x);
    case Op::SQRT: return of_float(result, x < 0 ? kNaN : std::sqrt(x));  // sqrt(-0.0) is -0.0
    case Op::EXP2: return of_float(result, std::pow(2.0, x));             // Python's 2 ** x
    case Op::LOG2:
      if (x == 0) return of_float(result, -INFINITY);
      return of_float(result, x < 0 || std::isnan(x) ? kNaN : std::log2(x));
    case Op::SIN: return of_float(result, std::isinf(x) ? kNaN : std::sin(x));
    case Op::TRUNC:  // math.trunc gives an int: a zero result is +0.0; inf and nan pass through
      return of_float(result, std::isfinite(x) ? std::trunc(x) + 0.0 : x);
    default: UOPFUZZ_CHECK(!"float op");
  }
  return ok(Scalar::zero());
}

// CAST is dtype.const then truncate: float(x), int(x) or bool(x) of the exact value.
AluResult cast(DType to, DType from, Scalar v) {
  if (is_float(from)) {
    if (is_float(to) || is_bool(to)) return of_float(to, v.f);
    if (!std::isfinite(v.f)) return undefined(AluUndefined::NonFiniteToInt);
    return ok(wrap_int(to, float_to_int_mod64(v.f)));
  }
  if (is_float(to)) {  // float(int) rounds to binary64 first; f32/f16 then round a second time
    const double d = is_signed(from) ? static_cast<double>(v.i) : static_cast<double>(v.u);
    return ok(Scalar::of_float(round_to(to, d)));
  }
  return ok(wrap_int(to, v.u));
}

uint64_t bits_of(DType d, Scalar v) {
  switch (d) {
    case DType::F16: return double_to_half(v.f);
    case DType::F32: return std::bit_cast<uint32_t>(static_cast<float>(v.f));
    case DType::F64: return v.u;
    default: return bits(d) == 64 ? v.u : v.u & ((uint64_t{1} << bits(d)) - 1);
  }
}

Scalar from_bits(DType d, uint64_t b) {
  switch (d) {
    case DType::F16: return Scalar::of_float(half_to_double(static_cast<uint16_t>(b)));
    case DType::F32: return Scalar::of_float(std::bit_cast<float>(static_cast<uint32_t>(b)));
    case DType::F64: return Scalar::of_uint(b);
    default: return wrap_int(d, b);
  }
}

}  // namespace

AluResult exec_alu(Op op, DType result, DType operand, const Scalar* operands) {
  switch (op) {
    case Op::WHERE: return ok(operands[0].u ? operands[1] : operands[2]);
    case Op::CAST: return cast(result, operand, operands[0]);
    case Op::BITCAST:
      if (is_float(operand) && std::isnan(operands[0].f)) return undefined(AluUndefined::BitcastNaN);
      return ok(from_bits(result, bits_of(operand, operands[0])));
    default:
      return is_float(operand) ? float_op(op, result, operands) : int_op(op, result, operand, operands);
  }
}

std::string undefined_reason(Op op, DType result, DType operand, const Scalar* operands) {
  switch (op) {
    case Op::SHL:
    case Op::SHR:
      return std::string(name(op)) + " by negative amount " + format_scalar(operand, operands[1]);
    case Op::CAST:
      return "CAST of " + format_scalar(operand, operands[0]) + " to " + name(result);
    case Op::BITCAST:
      return "BITCAST of " + format_scalar(operand, operands[0]) + " (" + name(operand) + " to " + name(result) + ")";
    default: return std::string(name(op)) + " has no defined result";
  }
}

}  // namespace uf

// THE exact integer model of the tests: Python's unbounded integers (boost cpp_int), written from
// docs/semantics.md and Python's definitions, independent of interp/ and of codegen's prelude. The
// interpreter computes modulo 2^64 on the 64-bit representation; this model computes the exact integer
// and truncates it at the end, as tinygrad does. Agreement between the two is the property tests' claim;
// the renderer's tests check the compiled divisions against it too.
#pragma once
#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "core/dtype.h"
#include "core/ops.h"

namespace uf::testing {

using boost::multiprecision::cpp_int;

inline cpp_int exact(DType d, Scalar s) {
  if (is_signed(d)) return cpp_int(s.i);
  return cpp_int(s.u);  // unsigned and bool (0 or 1)
}

// Python's x % m for m > 0: always in [0, m).
inline cpp_int py_mod_positive(const cpp_int& x, const cpp_int& m) {
  cpp_int r = x % m;  // cpp_int's % truncates like C
  return r < 0 ? r + m : r;
}

// truncate(): the value mod 2^N as the dtype's two's complement; bool is nonzero.
inline Scalar truncate(DType d, const cpp_int& v) {
  if (is_bool(d)) return Scalar::of_uint(v != 0);
  const int n = bits(d);
  const cpp_int m = cpp_int(1) << n;
  cpp_int r = py_mod_positive(v, m);
  if (is_signed(d) && r >= (m >> 1)) r -= m;
  if (is_signed(d)) return Scalar::of_int(r.convert_to<int64_t>());
  return Scalar::of_uint(r.convert_to<uint64_t>());
}

// Python a // b (b != 0), by cases on signs rather than by adjusting C's quotient.
inline cpp_int py_floordiv(const cpp_int& a, const cpp_int& b) {
  if (b < 0) return py_floordiv(-a, -b);
  if (a >= 0) return a / b;
  return -((-a + b - 1) / b);
}

// Python int(x) for a finite double: its exact decimal expansion (glibc prints it exactly) as an integer.
inline cpp_int py_int(double x) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.0f", std::trunc(x));
  const std::string text(buf);
  return cpp_int(text == "-0" ? "0" : text);
}

// The model of one op on integer/bool operands (or CAST from a float). nullopt = UNDEFINED.
inline std::optional<Scalar> python_int_op(Op op, DType result, DType operand, const Scalar* o) {
  if (op == Op::CAST && is_float(operand)) {
    if (is_bool(result)) return Scalar::of_uint(o[0].f != 0 || std::isnan(o[0].f));
    if (!std::isfinite(o[0].f)) return std::nullopt;
    return truncate(result, py_int(o[0].f));
  }
  const cpp_int a = exact(operand, o[0]);
  const cpp_int b = info(op).arity >= 2 ? exact(operand, o[1]) : cpp_int(0);
  const cpp_int c = info(op).arity >= 3 ? exact(operand, o[2]) : cpp_int(0);
  const int n = is_bool(operand) ? 1 : bits(operand);
  const cpp_int m = cpp_int(1) << n;
  switch (op) {
    case Op::ADD: return truncate(result, a + b);
    case Op::SUB: return truncate(result, a - b);
    case Op::MUL: return truncate(result, a * b);
    case Op::MULACC: return truncate(result, a * b + c);
    case Op::MAX: return truncate(result, b > a ? b : a);
    case Op::CMPLT: return truncate(result, cpp_int(a < b));
    case Op::CMPNE: return truncate(result, cpp_int(a != b));
    case Op::CMPEQ: return truncate(result, cpp_int(a == b));
    case Op::NEG: return truncate(result, -a);
    // Bitwise ops commute with reduction mod 2^N, so the model works on the non-negative residues.
    case Op::AND: return truncate(result, py_mod_positive(a, m) & py_mod_positive(b, m));
    case Op::OR: return truncate(result, py_mod_positive(a, m) | py_mod_positive(b, m));
    case Op::XOR: return truncate(result, py_mod_positive(a, m) ^ py_mod_positive(b, m));
    // a * 2^b mod 2^N is 0 for every b >= N, so capping b at 200 (> 64) keeps the exact answer finite.
    case Op::SHL:
      if (b < 0) return std::nullopt;
      return truncate(result, a * (cpp_int(1) << (b > 200 ? 200 : b.convert_to<int>())));
    case Op::SHR:  // floor(a / 2^b); |a| < 2^64, so b > 200 gives the same 0 or -1 as b = 200
      if (b < 0) return std::nullopt;
      return truncate(result, py_floordiv(a, cpp_int(1) << (b > 200 ? 200 : b.convert_to<int>())));
    case Op::FLOORDIV: return truncate(result, b == 0 ? cpp_int(0) : py_floordiv(a, b));
    case Op::FLOORMOD: return truncate(result, b == 0 ? a : a - py_floordiv(a, b) * b);
    case Op::CDIV:  // tinygrad: abs(x)//abs(y) * (1,-1)[x*y<0], 0 for y == 0
      return truncate(result, b == 0 ? cpp_int(0) : (abs(a) / abs(b)) * (a * b < 0 ? -1 : 1));
    case Op::CMOD:  // tinygrad: abs(x)%abs(y) * (1,-1)[x<0], x for y == 0
      return truncate(result, b == 0 ? a : (abs(a) % abs(b)) * (a < 0 ? -1 : 1));
    case Op::CAST: return truncate(result, a);
    default: return std::nullopt;
  }
}

}  // namespace uf::testing

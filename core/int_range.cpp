// The integer range domain (see int_range.h for its soundness contract).
#include "core/int_range.h"

#include <algorithm>
#include <optional>

namespace uf {

namespace {

int128 magnitude(int128 x) { return x < 0 ? -x : x; }

int bit_length(int128 x) {
  int n = 0;
  for (x = magnitude(x); x; x >>= 1) ++n;
  return n;
}

bool is_point(IntRange r) { return r.lo == r.hi; }

// The range between two ends given in either order.
IntRange between(int128 x, int128 y) { return {std::min(x, y), std::max(x, y)}; }

// Python's a // b (b != 0).
int128 floor_quotient(int128 a, int128 b) {
  int128 q = a / b;
  if (a % b != 0 && (a < 0) != (b < 0)) --q;
  return q;
}

int128 truncated_quotient(int128 a, int128 b) { return a / b; }

// The exact range of a*b, or nothing when a product might not fit in 125 bits.
std::optional<IntRange> exact_product(IntRange a, IntRange b) {
  const int na = std::max(bit_length(a.lo), bit_length(a.hi));
  const int nb = std::max(bit_length(b.lo), bit_length(b.hi));
  if (na + nb > 125) return std::nullopt;
  const int128 p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  return IntRange{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

// FLOORDIV and CDIV: both round monotonically, so a constant divisor maps the ends of a to the ends of
// the result; any other divisor gives |a div b| <= |a| (b != 0) or 0 (b = 0).
template <class Quotient>
IntRange quotient(IntRange a, IntRange b, DType d, Quotient q) {
  if (is_point(b) && b.lo == 0) return {0, 0};
  if (is_point(b)) return wrap(between(q(a.lo, b.lo), q(a.hi, b.lo)), d);
  const int128 m = std::max(magnitude(a.lo), magnitude(a.hi));
  return wrap({-m, m}, d);
}

}  // namespace

IntRange dtype_range(DType d) {
  if (is_bool(d)) return {0, 1};
  if (is_unsigned(d)) return {0, (int128{1} << bits(d)) - 1};
  if (is_signed(d)) return {-(int128{1} << (bits(d) - 1)), (int128{1} << (bits(d) - 1)) - 1};
  return {0, 0};
}

int128 int_value(DType d, Scalar v) { return is_signed(d) ? int128{v.i} : int128{v.u}; }

bool contains(IntRange r, int128 v) { return r.lo <= v && v <= r.hi; }
bool contains(IntRange outer, IntRange inner) { return outer.lo <= inner.lo && inner.hi <= outer.hi; }
IntRange hull(IntRange a, IntRange b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
IntRange wrap(IntRange exact, DType d) { return contains(dtype_range(d), exact) ? exact : dtype_range(d); }

IntRange add(IntRange a, IntRange b, DType d) { return wrap({a.lo + b.lo, a.hi + b.hi}, d); }
IntRange sub(IntRange a, IntRange b, DType d) { return wrap({a.lo - b.hi, a.hi - b.lo}, d); }
IntRange neg(IntRange a, DType d) { return wrap({-a.hi, -a.lo}, d); }

IntRange mul(IntRange a, IntRange b, DType d) {
  const auto p = exact_product(a, b);
  return p ? wrap(*p, d) : dtype_range(d);
}

IntRange mulacc(IntRange a, IntRange b, IntRange c, DType d) {
  const auto p = exact_product(a, b);
  return p ? add(*p, c, d) : dtype_range(d);
}

IntRange maximum(IntRange a, IntRange b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }

// A non-negative side x bounds the result to [0, x] (two's complement: its zero bits stay zero).
IntRange bit_and(IntRange a, IntRange b, DType d) {
  if (a.lo >= 0 && b.lo >= 0) return {0, std::min(a.hi, b.hi)};
  if (a.lo >= 0) return {0, a.hi};
  if (b.lo >= 0) return {0, b.hi};
  return dtype_range(d);
}

// Non-negative operands below 2^k give a result below 2^k.
IntRange or_xor(IntRange a, IntRange b, DType d) {
  if (a.lo < 0 || b.lo < 0) return dtype_range(d);
  return wrap({0, (int128{1} << bit_length(std::max(a.hi, b.hi))) - 1}, d);
}

// Only a known amount is followed: past the width the result is 0; up to 60 it is a * 2^amount
// (which stays far inside int128); anything else, a negative amount included, gives the whole dtype.
IntRange shl(IntRange a, IntRange amount, DType d) {
  if (!is_point(amount)) return dtype_range(d);
  if (amount.lo >= bits(d)) return {0, 0};
  if (amount.lo < 0 || amount.lo > 60) return dtype_range(d);
  const int128 scale = int128{1} << amount.lo;
  return wrap({a.lo * scale, a.hi * scale}, d);
}

// floor(a / 2^s) lies between a and 0 (0 or -1 past the width); the C helper returns a itself for a
// negative amount.
IntRange shr(IntRange a) { return {std::min<int128>(a.lo, 0), std::max<int128>(a.hi, 0)}; }

IntRange floordiv(IntRange a, IntRange b, DType d) { return quotient(a, b, d, floor_quotient); }
IntRange cdiv(IntRange a, IntRange b, DType d) { return quotient(a, b, d, truncated_quotient); }

// The result takes b's sign and |r| < |b|; a numerator already in [0, b) (or (b, 0]) is unchanged.
// A divisor that may be 0 gives a itself, so the range then covers a too.
IntRange floormod(IntRange a, IntRange b, DType d) {
  if (b.lo > 0) return a.lo >= 0 && a.hi < b.lo ? a : wrap({0, b.hi - 1}, d);
  if (b.hi < 0) return a.hi <= 0 && a.lo > b.hi ? a : wrap({b.lo + 1, 0}, d);
  const int128 mb = std::max(magnitude(b.lo), magnitude(b.hi));
  return wrap({std::min(a.lo, 1 - mb), std::max(a.hi, mb - 1)}, d);
}

// The result takes a's sign and |r| <= |a|; for a known divisor b != 0 also |r| < |b|. b = 0 gives a.
IntRange cmod(IntRange a, IntRange b, DType d) {
  if (is_point(b) && b.lo == 0) return a;
  IntRange r{std::min<int128>(a.lo, 0), std::max<int128>(a.hi, 0)};
  if (is_point(b)) {
    const int128 c = magnitude(b.lo);
    r = {std::max(r.lo, 1 - c), std::min(r.hi, c - 1)};
  }
  return wrap(r, d);
}

IntRange transfer(Op op, DType d, std::span<const IntRange> src) {
  switch (op) {
    case Op::ADD: return add(src[0], src[1], d);
    case Op::SUB: return sub(src[0], src[1], d);
    case Op::MUL: return mul(src[0], src[1], d);
    case Op::MULACC: return mulacc(src[0], src[1], src[2], d);
    case Op::MAX: return maximum(src[0], src[1]);
    case Op::NEG: return neg(src[0], d);
    case Op::AND: return bit_and(src[0], src[1], d);
    case Op::OR:
    case Op::XOR: return or_xor(src[0], src[1], d);
    case Op::SHL: return shl(src[0], src[1], d);
    case Op::SHR: return shr(src[0]);
    case Op::FLOORDIV: return floordiv(src[0], src[1], d);
    case Op::CDIV: return cdiv(src[0], src[1], d);
    case Op::FLOORMOD: return floormod(src[0], src[1], d);
    case Op::CMOD: return cmod(src[0], src[1], d);
    case Op::WHERE: return hull(src[1], src[2]);
    case Op::CAST:
    case Op::BITCAST: return is_bool(d) ? dtype_range(d) : wrap(src[0], d);
    case Op::CMPLT:
    case Op::CMPNE:
    case Op::CMPEQ: return dtype_range(DType::Bool);
    case Op::RANGE: return {0, src[0].hi > 0 ? src[0].hi - 1 : 0};
    default: return dtype_range(d);
  }
}

}  // namespace uf

// Interval analysis over the linear order (see bounds.h for the rules and why they must cover UNDEFINED).
#include "codegen/render/bounds.h"

#include <algorithm>

namespace uf {

namespace {

constexpr int128 kSafe = int128{1} << 62;  // operands within +-2^62 keep products inside int128

bool has_range(DType d) { return is_int(d) || is_bool(d); }

int128 const_value(const UOp* u) {
  if (is_bool(u->dtype) || is_unsigned(u->dtype)) return static_cast<int128>(u->value.u);
  return u->value.i;
}

bool fits(Interval v, DType d) {
  const Interval r = dtype_range(d);
  return v.lo >= r.lo && v.hi <= r.hi;
}

Interval keep_if_fits(Interval v, DType d) { return fits(v, d) ? v : dtype_range(d); }

bool small(Interval v) { return v.lo >= -kSafe && v.hi <= kSafe; }

Interval mul(Interval a, Interval b) {
  const int128 c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

// Python-style floor division of exact integers (d > 0).
int128 floor_div(int128 n, int128 d) {
  int128 q = n / d;
  if (q * d != n && n < 0) --q;
  return q;
}

int128 covering_mask(int128 hi) {  // the smallest 2^k - 1 >= hi (hi >= 0)
  int128 m = 0;
  while (m < hi) m = m * 2 + 1;
  return m;
}

const UOp* positive_const_divisor(const UOp* u) {
  const UOp* b = u->src[1];
  if (b->op != Op::CONST) return nullptr;
  if (is_signed(b->dtype) ? b->value.i <= 0 : b->value.u == 0) return nullptr;
  return b;
}

Interval node_range(const UOp* u, const std::vector<Interval>& r) {
  const DType d = u->dtype;
  const Interval full = dtype_range(d);
  auto at = [&](size_t i) { return r[u->src[i]->id]; };
  switch (u->op) {
    case Op::CONST: return {const_value(u), const_value(u)};
    case Op::CMPLT: case Op::CMPNE: case Op::CMPEQ: return {0, 1};
    case Op::CAST:
      if (is_bool(d)) return {0, 1};
      return has_range(u->src[0]->dtype) ? keep_if_fits(at(0), d) : full;
    case Op::ADD: case Op::SUB: case Op::MUL: case Op::MULACC: case Op::NEG: {
      if (is_bool(d)) return {0, 1};
      for (size_t i = 0; i < u->src.size(); ++i)
        if (!small(at(i))) return full;
      Interval v{};
      if (u->op == Op::ADD) v = {at(0).lo + at(1).lo, at(0).hi + at(1).hi};
      if (u->op == Op::SUB) v = {at(0).lo - at(1).hi, at(0).hi - at(1).lo};
      if (u->op == Op::NEG) v = {-at(0).hi, -at(0).lo};
      if (u->op == Op::MUL || u->op == Op::MULACC) v = mul(at(0), at(1));
      if (u->op == Op::MULACC) v = {v.lo + at(2).lo, v.hi + at(2).hi};
      return keep_if_fits(v, d);
    }
    case Op::MAX: return {std::max(at(0).lo, at(1).lo), std::max(at(0).hi, at(1).hi)};
    case Op::WHERE: return {std::min(at(1).lo, at(2).lo), std::max(at(1).hi, at(2).hi)};
    case Op::AND: {
      if (is_bool(d)) return {0, 1};
      const Interval a = at(0), b = at(1);
      if (a.lo >= 0 && b.lo >= 0) return {0, std::min(a.hi, b.hi)};
      if (a.lo >= 0) return {0, a.hi};
      if (b.lo >= 0) return {0, b.hi};
      return full;
    }
    case Op::OR: case Op::XOR: {
      if (is_bool(d)) return {0, 1};
      const Interval a = at(0), b = at(1);
      if (a.lo >= 0 && b.lo >= 0) return keep_if_fits({0, covering_mask(std::max(a.hi, b.hi))}, d);
      return full;
    }
    case Op::SHR: return at(0).lo >= 0 ? Interval{0, at(0).hi} : full;
    case Op::FLOORDIV: case Op::CDIV: {
      const UOp* c = positive_const_divisor(u);
      if (!c) return full;
      const int128 k = const_value(c);
      const Interval a = at(0);
      if (u->op == Op::FLOORDIV) return {floor_div(a.lo, k), floor_div(a.hi, k)};
      return {a.lo / k, a.hi / k};  // truncation is monotone too
    }
    case Op::FLOORMOD: {
      const UOp* c = positive_const_divisor(u);
      if (!c) return full;
      const int128 k = const_value(c);
      return at(0).lo >= 0 ? Interval{0, std::min(k - 1, at(0).hi)} : Interval{0, k - 1};
    }
    case Op::CMOD: {
      const UOp* c = positive_const_divisor(u);
      if (!c) return full;
      const int128 k = const_value(c);
      return at(0).lo >= 0 ? Interval{0, std::min(k - 1, at(0).hi)} : Interval{-(k - 1), k - 1};
    }
    default: return full;
  }
}

}  // namespace

Interval dtype_range(DType d) {
  if (is_bool(d)) return {0, 1};
  if (is_unsigned(d)) return {0, (int128{1} << bits(d)) - 1};
  if (is_signed(d)) return {-(int128{1} << (bits(d) - 1)), (int128{1} << (bits(d) - 1)) - 1};
  return {0, 0};
}

std::vector<Interval> int_bounds(const std::vector<const UOp*>& order, size_t graph_size) {
  std::vector<Interval> r(graph_size, Interval{0, 0});
  for (const UOp* u : order)
    if (!u->is_memory() && has_range(u->dtype)) r[u->id] = node_range(u, r);
  return r;
}

bool division_fast_path(const UOp* u, const std::vector<Interval>& bounds) {
  const UOp* b = u->src.size() == 2 ? u->src[1] : nullptr;
  if (!b || b->op != Op::CONST || !is_int(b->dtype)) return false;
  switch (u->op) {
    case Op::FLOORDIV: case Op::FLOORMOD:
      return positive_const_divisor(u) && bounds[u->src[0]->id].lo >= 0;
    case Op::CDIV: case Op::CMOD:
      return is_signed(b->dtype) ? b->value.i != 0 && b->value.i != -1 : b->value.u != 0;
    default: return false;
  }
}

}  // namespace uf

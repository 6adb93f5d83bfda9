// Range analysis over the linear order (see bounds.h for the rules and why they must cover UNDEFINED).
#include "codegen/render/bounds.h"

namespace uf {

namespace {

bool has_range(DType d) { return is_int(d) || is_bool(d); }

// The arithmetic rules only trust operands within +-2^62 (see bounds.h).
bool small(IntRange v) { return contains(IntRange{-(int128{1} << 62), int128{1} << 62}, v); }

const UOp* positive_const_divisor(const UOp* u) {
  const UOp* b = u->src[1];
  if (b->op != Op::CONST) return nullptr;
  if (is_signed(b->dtype) ? b->value.i <= 0 : b->value.u == 0) return nullptr;
  return b;
}

IntRange arithmetic_range(const UOp* u, const std::vector<IntRange>& r) {
  const DType d = u->dtype;
  if (is_bool(d)) return {0, 1};
  IntRange a[3];
  for (size_t i = 0; i < u->src.size(); ++i) {
    a[i] = r[u->src[i]->id];
    if (!small(a[i])) return dtype_range(d);
  }
  switch (u->op) {
    case Op::ADD: return add(a[0], a[1], d);
    case Op::SUB: return sub(a[0], a[1], d);
    case Op::NEG: return neg(a[0], d);
    case Op::MUL: return mul(a[0], a[1], d);
    default: return mulacc(a[0], a[1], a[2], d);
  }
}

IntRange division_range(const UOp* u, const std::vector<IntRange>& r) {
  const DType d = u->dtype;
  if (!positive_const_divisor(u)) return dtype_range(d);
  const IntRange a = r[u->src[0]->id], divisor = r[u->src[1]->id];
  const IntRange numerator = a.lo >= 0 ? IntRange{0, a.hi} : dtype_range(d);  // for a modulo (bounds.h)
  switch (u->op) {
    case Op::FLOORDIV: return floordiv(a, divisor, d);
    case Op::CDIV: return cdiv(a, divisor, d);
    case Op::FLOORMOD: return floormod(numerator, divisor, d);
    default: return cmod(numerator, divisor, d);
  }
}

IntRange node_range(const UOp* u, const std::vector<IntRange>& r) {
  const DType d = u->dtype;
  auto at = [&](size_t i) { return r[u->src[i]->id]; };
  switch (u->op) {
    case Op::CONST: return {int_value(d, u->value), int_value(d, u->value)};
    case Op::RANGE: {  // 0 .. end-1; a loop whose end is at most 0 never runs, so [0, 0] covers it
      const IntRange end = at(0);
      return {0, end.hi > 0 ? end.hi - 1 : 0};
    }
    case Op::CMPLT: case Op::CMPNE: case Op::CMPEQ: return {0, 1};
    case Op::CAST:
      if (is_bool(d)) return {0, 1};
      return has_range(u->src[0]->dtype) ? wrap(at(0), d) : dtype_range(d);
    case Op::ADD: case Op::SUB: case Op::MUL: case Op::MULACC: case Op::NEG: return arithmetic_range(u, r);
    case Op::MAX: return maximum(at(0), at(1));
    case Op::WHERE: return hull(at(1), at(2));
    case Op::AND: return is_bool(d) ? IntRange{0, 1} : bit_and(at(0), at(1), d);
    case Op::OR: case Op::XOR: return is_bool(d) ? IntRange{0, 1} : or_xor(at(0), at(1), d);
    case Op::SHR: return at(0).lo >= 0 ? shr(at(0)) : dtype_range(d);
    case Op::FLOORDIV: case Op::CDIV: case Op::FLOORMOD: case Op::CMOD: return division_range(u, r);
    default: return dtype_range(d);
  }
}

}  // namespace

std::vector<IntRange> int_bounds(const std::vector<const UOp*>& order, size_t graph_size) {
  std::vector<IntRange> r(graph_size);
  for (const UOp* u : order)
    if (!u->is_memory() && has_range(u->dtype)) r[u->id] = node_range(u, r);
  return r;
}

bool division_fast_path(const UOp* u, const std::vector<IntRange>& bounds) {
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

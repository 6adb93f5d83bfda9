// Range analysis over the linear order (see int_bounds.h for the rules and why they must cover UNDEFINED).
#include "core/int_bounds.h"

#include <optional>

namespace uf {

namespace {

bool has_range(DType d) { return is_int(d) || is_bool(d); }

// The arithmetic rules only trust operands within +-2^62 (see int_bounds.h).
bool small(IntRange v) { return contains(IntRange{-(int128{1} << 62), int128{1} << 62}, v); }

const UOp* positive_const_divisor(const UOp* u) {
  const UOp* b = u->src[1];
  if (b->op != Op::CONST) return nullptr;
  if (is_signed(b->dtype) ? b->value.i <= 0 : b->value.u == 0) return nullptr;
  return b;
}

// The shared transfer on u's sources' ranges (`widened`: a modulo's numerator as int_bounds.h says).
IntRange transfer_of(const UOp* u, const std::vector<IntRange>& r, std::optional<IntRange> widened = std::nullopt) {
  IntRange src[3];
  for (size_t i = 0; i < u->src.size(); ++i) src[i] = r[u->src[i]->id];
  if (widened) src[0] = *widened;
  return transfer(u->op, u->dtype, std::span<const IntRange>(src, u->src.size()));
}

// The arithmetic rules only trust operands within +-2^62; bool arithmetic prints as | ^ & (int_bounds.h).
IntRange arithmetic_range(const UOp* u, const std::vector<IntRange>& r) {
  const DType d = u->dtype;
  if (is_bool(d)) return {0, 1};
  for (const UOp* s : u->src)
    if (!small(r[s->id])) return dtype_range(d);
  return transfer_of(u, r);
}

// Only a positive constant divisor is followed; a modulo's numerator counts as [0, hi] or the whole dtype.
IntRange division_range(const UOp* u, const std::vector<IntRange>& r) {
  const DType d = u->dtype;
  if (!positive_const_divisor(u)) return dtype_range(d);
  if (u->op == Op::FLOORDIV || u->op == Op::CDIV) return transfer_of(u, r);
  const IntRange a = r[u->src[0]->id];
  return transfer_of(u, r, a.lo >= 0 ? IntRange{0, a.hi} : dtype_range(d));
}

IntRange node_range(const UOp* u, const std::vector<IntRange>& r) {
  const DType d = u->dtype;
  switch (u->op) {
    case Op::CONST: return {int_value(d, u->value), int_value(d, u->value)};
    case Op::CAST:
      if (is_bool(d) || has_range(u->src[0]->dtype)) return transfer_of(u, r);
      return dtype_range(d);
    case Op::ADD:
    case Op::SUB:
    case Op::MUL:
    case Op::MULACC:
    case Op::NEG: return arithmetic_range(u, r);
    case Op::AND:
    case Op::OR:
    case Op::XOR: return is_bool(d) ? IntRange{0, 1} : transfer_of(u, r);
    case Op::SHR: return r[u->src[0]->id].lo >= 0 ? transfer_of(u, r) : dtype_range(d);
    case Op::FLOORDIV:
    case Op::CDIV:
    case Op::FLOORMOD:
    case Op::CMOD: return division_range(u, r);
    case Op::RANGE:
    case Op::CMPLT:
    case Op::CMPNE:
    case Op::CMPEQ:
    case Op::MAX:
    case Op::WHERE: return transfer_of(u, r);
    default: return dtype_range(d);  // SHL and BITCAST on purpose (int_bounds.h); LOAD and the rest: anything
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
    case Op::FLOORDIV:
    case Op::FLOORMOD: return positive_const_divisor(u) && bounds[u->src[0]->id].lo >= 0;
    case Op::CDIV:
    case Op::CMOD: return is_signed(b->dtype) ? b->value.i != 0 && b->value.i != -1 : b->value.u != 0;
    default: return false;
  }
}

}  // namespace uf

// Integer operand shapes: shift amounts, non-negative numerators, divisors, and in-bounds indices.
//
// These are the places a renderer specialises (a non-negative numerator and a positive constant divisor
// allow plain C `/` and `%`; a shift amount below the width allows a plain `<<`) and the places where
// the reference is UNDEFINED (a negative shift amount, an index out of bounds). The shapes are varied
// on purpose; the Facts prove each one safe, and ensure() checks the proof.
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

// Candidates that fit dtype d, from a list of wanted values.
std::vector<int64_t> fitting(DType d, std::initializer_list<int128> want) {
  std::vector<int64_t> out;
  for (int128 v : want)
    if (contains(dtype_range(d), v)) out.push_back(static_cast<int64_t>(v));
  return out;
}

Scalar int_scalar(DType d, int64_t v) { return normalize(d, Scalar::of_int(v)); }

}  // namespace

const UOp* Gen::shift_amount(DType d) {
  const int w = bits(d);
  const auto form = static_cast<ShiftAmount>(rng.weighted(pol.shift_weight));
  if (form == ShiftAmount::ConstInRange) return constant(d, int_scalar(d, rng.range(0, w - 1)));
  if (form == ShiftAmount::ConstWide) return constant(d, int_scalar(d, rng.range(w, 2 * w + 1)));  // 0 or -1
  const UOp* b = operand(d);
  const UOp* r = b;
  switch (form) {
    case ShiftAmount::FloorMod: {
      const auto m = fitting(d, {w, w + 1, 2 * w, 3, 5});
      r = make(Op::FLOORMOD, {b, constant(d, int_scalar(d, rng.pick(m)))});
      break;
    }
    case ShiftAmount::MaxZero: r = make(Op::MAX, {b, constant(d, Scalar::zero())}); break;
    case ShiftAmount::AndMask: break;
    default:  // Operand: use it as it is when it cannot be negative
      if (facts(b).ints.lo >= 0 || rng.chance(pol.p_unguarded)) return b;
  }
  if (form == ShiftAmount::AndMask || form == ShiftAmount::Operand) {
    const auto m = fitting(d, {w - 1, 2 * w - 1, 7, 3, 1, 127});
    r = make(Op::AND, {b, constant(d, int_scalar(d, rng.pick(m)))});
  }
  ensure(facts(r).ints.lo >= 0, "shift amount is non-negative");
  return r;
}

const UOp* Gen::nonneg_numerator(DType d) {
  const auto form = static_cast<Numerator>(rng.weighted(pol.numerator_weight));
  const UOp* r = nullptr;
  switch (form) {
    case Numerator::CastU8: {
      const UOp* v = operand(DType::U8);
      r = d == DType::U8 ? v : make(Op::CAST, {v}, d);
      break;
    }
    case Numerator::CastBool: r = make(Op::CAST, {operand(DType::Bool)}, d); break;
    case Numerator::MaxZero: r = make(Op::MAX, {operand(d), constant(d, Scalar::zero())}); break;
    default: break;
  }
  if (!r || facts(r).ints.lo < 0) {  // AndMask, or a CAST u8 -> i8 that wrapped
    const auto m = fitting(d, {0x7f, 0xff, 0x7fff, 0xffff, 0x7fffffff, dtype_range(d).hi, 0xf, 1});
    const UOp* v = r ? r : operand(d);
    if (!banned(Op::AND))
      r = make(Op::AND, {v, constant(d, int_scalar(d, rng.pick(m)))});
    else if (!banned(Op::MAX))  // --without and: the wrapped cast is clamped instead
      r = make(Op::MAX, {v, constant(d, Scalar::zero())});
    else
      r = constant(d, int_scalar(d, rng.pick(m)));
  }
  ensure(facts(r).ints.lo >= 0, "numerator is non-negative");
  return r;
}

const UOp* Gen::divisor(DType d) {
  switch (static_cast<Divisor>(rng.weighted(pol.divisor_weight))) {
    case Divisor::ConstPositive: {
      const auto c = fitting(
          d, {1, 2, 3, 4, 5, 7, 8, 10, 16, 17, 31, 32, 64, 100, 127, 255, 256, 1000, 65535, 0x7fffffff, dtype_range(d).hi});
      return constant(d, int_scalar(d, rng.pick(c)));
    }
    case Divisor::ConstNegative: {
      auto c = fitting(d, {-1, -2, -3, -4, -7, -8, -16, -100, dtype_range(d).lo, dtype_range(d).lo + 1});
      if (c.empty()) c = fitting(d, {1, 2, 3, 10});  // unsigned: no negatives
      return constant(d, int_scalar(d, rng.pick(c)));
    }
    case Divisor::ConstEdge: return constant(d, edge_value(d));
    default: return operand(d);
  }
}

const UOp* Gen::index_for(const Memory& m, bool dynamic) {
  const int64_t len = m.mem->len;
  if (!m.all_written()) {  // an ALLOC partly written: name one written element
    std::vector<int64_t> ok;
    for (int64_t e = 0; e < len; ++e)
      if (m.written[e]) ok.push_back(e);
    ensure(!ok.empty(), "a readable ALLOC has a written element");
    return i32(rng.pick(ok));
  }
  if (!dynamic) return i32(static_cast<int64_t>(rng.below(static_cast<uint64_t>(len))));
  // A computed index from an existing integer or bool value (often a load: a gather).
  const UOp* src = nullptr;
  for (int tries = 0; tries < 4 && !src; ++tries) {
    const UOp* v = values_.empty() ? nullptr : rng.pick(values_);
    if (v && !is_float(v->dtype)) src = v;
  }
  if (!src) return i32(static_cast<int64_t>(rng.below(static_cast<uint64_t>(len))));
  const UOp* x = src->dtype == DType::I32 ? src : make(Op::CAST, {src}, DType::I32);
  return clamp_index(x, len);
}

const UOp* Gen::clamp_index(const UOp* x, int64_t len) {
  const IntRange in_bounds{0, len - 1};
  if (contains(in_bounds, facts(x).ints)) return x;
  const UOp* r = nullptr;
  switch (static_cast<IndexClamp>(rng.weighted(pol.clamp_weight))) {
    case IndexClamp::AndMask: {
      int64_t p = 1;
      while (p * 2 <= len) p *= 2;
      r = make(Op::AND, {x, i32(p - 1)});
      break;
    }
    case IndexClamp::CModOfMax: r = make(Op::CMOD, {make(Op::MAX, {x, i32(0)}), i32(len)}); break;
    case IndexClamp::WhereInRange: {
      const UOp* lt = make(Op::CMPLT, {x, i32(len)});
      const UOp* ge = make(Op::CMPLT, {i32(-1), x});
      const UOp* k = i32(static_cast<int64_t>(rng.below(static_cast<uint64_t>(len))));
      r = make(Op::WHERE, {make(Op::AND, {lt, ge}), x, k});
      facts(r) = Facts{.ints = in_bounds};  // x when 0 <= x < len, else k
      break;
    }
    default: r = make(Op::FLOORMOD, {x, i32(len)}); break;
  }
  ensure(contains(in_bounds, facts(r).ints), "clamped index is in bounds");
  return r;
}

}  // namespace uf::gen

// Integer and bool idioms for tinygrad's symbolic rules that generated programs almost never spell
// (docs/design.md, "Exact integer idioms"): a bool or'd with its own negation, two selects on one
// condition added, and a 64-bit word packed from two 32-bit halves and unpacked again (threefry's). These
// rewrites hold on every value, so a target that computes them differently is wrong, never a spec gap.
#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

// One form of dtype d (the comments name the rule of each); null when the target lacks what it needs.
const UOp* Gen::exact_int_idiom(DType d) {
  if (is_float(d)) return nullptr;
  if (is_bool(d)) {  // x | !x -> true  (symbolic.py:231)
    if (!usable(Op::OR, d) || banned(Op::CMPNE)) return nullptr;
    const UOp* x = operand(d);
    return make(Op::OR, {x, logical_not(x)});
  }
  auto as_d = [&](const UOp* v) { return v->dtype == d ? v : cast_to(v, d); };
  const bool packs = target_has(DType::U64) && target_has(DType::U32) && !banned(Op::CAST) &&
                     usable(Op::SHL, DType::U64) && usable(Op::SHR, DType::U64) && usable(Op::OR, DType::U64);
  const int form = static_cast<int>(rng.range(0, packs ? 2 : 0));
  if (form == 0) {  // (y + c?t:f) + c?tt:ff -> y + c?(t+tt):(f+ff), t and tt constants  (symbolic.py:253)
    if (!usable(Op::ADD, d) || !usable(Op::WHERE, d)) return nullptr;
    const UOp* c = operand(DType::Bool);
    const UOp* y = operand(d);
    const UOp* t = constant(d, random_value(d, pol.const_value_weight));
    const UOp* sel = make(Op::WHERE, {c, t, operand(d)});
    const UOp* sum = make(Op::ADD, {y, sel});
    const UOp* tt = constant(d, random_value(d, pol.const_value_weight));
    return make(Op::ADD, {sum, make(Op::WHERE, {c, tt, operand(d)})});
  }
  const UOp* shift = constant(DType::U64, Scalar::of_uint(32));
  const UOp* low = cast_to(operand(DType::U32), DType::U64);
  if (form == 1) {  // ((x << 32) | u64(y)) as u32 -> y  (symbolic.py:180)
    const UOp* high = make(Op::SHL, {operand(DType::U64), shift});
    return as_d(cast_to(make(Op::OR, {high, low}), DType::U32));
  }
  // ((u64(x) << 32) | u64(y)) >> 32 -> u64(x)  (symbolic.py:182)
  const UOp* high = make(Op::SHL, {cast_to(operand(DType::U32), DType::U64), shift});
  return as_d(make(Op::SHR, {make(Op::OR, {high, low}), shift}));
}

}  // namespace uf::gen

// The loop idioms of tinygrad's front end that its rewrite rules are written for (docs/design.md, "Loop
// kernels"): an arange or cumsum body, a gather's one-hot select, and masks on the flat index, as its pads.
#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

// A reduction's body as tinygrad's front end writes an arange or a cumsum, a loop-invariant x masked by the
// innermost range r: r < U ? x : 0, r < L ? 0 : x, !(r < L) & r < U ? x : 0, or c & r < U ? x : 0 for a
// loop-invariant bool c (the forms tinygrad's reduce collapse folds); a bound is a constant in 0..trips, or
// an outer range plus 0..2 (a cumsum's); r may be strided, r * k (p_index_affine).
const UOp* Gen::arange_term(const LoopPlan& plan, const LoopNest& nest) {
  const UOp* r = nest.ranges.back();
  auto below = [&] {
    const UOp* bound = plan.s > 0 && rng.chance(pol.p_arange_outer)
                           ? make(Op::ADD, {nest.ranges[plan.s - 1], i32(rng.range(0, 2))})
                           : i32(rng.range(0, plan.widths.back()));
    return make(Op::CMPLT, {affine_index(r, Op::MUL), bound});
  };
  const UOp* x = operand(plan.d);
  const UOp* zero = constant(plan.d, Scalar::zero());
  switch (rng.range(0, 3)) {
    case 0: return make(Op::WHERE, {below(), x, zero});
    case 1: return make(Op::WHERE, {below(), zero, x});
    case 2: return make(Op::WHERE, {make(Op::AND, {logical_not(below()), below()}), x, zero});
    default: return make(Op::WHERE, {make(Op::AND, {operand(DType::Bool), below()}), x, zero});
  }
}

// r, or with p_index_affine r + k or r * k (k in 1..3, by op): a shifted gather's or a strided arange's index.
const UOp* Gen::affine_index(const UOp* r, Op op) {
  return rng.chance(pol.p_index_affine) ? make(op, {r, i32(rng.range(1, 3))}) : r;
}

// v where a drawn x is r, else 0: x != r ? 0 : v, or v * (x == r) cast for an integer v (p_one_hot_mul); r
// may be shifted, r + k (p_index_affine).
const UOp* Gen::one_hot(const UOp* v, const UOp* r) {
  const UOp* x = operand(DType::I32);
  if (is_int(v->dtype) && usable(Op::MUL, v->dtype) && !banned(Op::CMPEQ) && rng.chance(pol.p_one_hot_mul))
    return make(Op::MUL, {v, make(Op::CAST, {make(Op::CMPEQ, {x, r})}, v->dtype)});
  return make(Op::WHERE, {make(Op::CMPNE, {x, affine_index(r, Op::ADD)}), constant(v->dtype, Scalar::zero()), v});
}

// v masked by the flat index, as tinygrad's front end pads: WHERE(j < M, v, 0) for an M in 1..P, or
// WHERE(k-1 < j, 0, v); with p_mask_twice masked again by a second bound, as a pad of a pad.
const UOp* Gen::masked(const UOp* v, const UOp* j, int64_t P, int64_t k) {
  const UOp* once = mask_once(v, j, P, k);
  return rng.chance(pol.p_mask_twice) ? mask_once(once, j, P, rng.range(1, std::max(pol.max_loop_offset, 1))) : once;
}

const UOp* Gen::mask_once(const UOp* v, const UOp* j, int64_t P, int64_t k) {
  const UOp* zero = constant(v->dtype, Scalar::zero());
  if (!rng.chance(pol.p_mask_below)) return make(Op::WHERE, {make(Op::CMPLT, {i32(k - 1), j}), zero, v});
  const UOp* below = make(Op::CMPLT, {j, i32(rng.range(1, std::max<int64_t>(P, 1)))});
  return make(Op::WHERE, {below, v, zero});
}

}  // namespace uf::gen

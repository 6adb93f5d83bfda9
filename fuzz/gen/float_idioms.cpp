// Float idioms that tinygrad's symbolic rewrites by algebra that is not IEEE's (x / x -> 1, 1/(x*x) ->
// (1/x)*(1/x), x/(1+x) -> 1 - 1/(1+x), ...), built on values for which that algebra is exact (docs/design.md,
// "Exact float idioms"): powers of two 1..8, integers 0..127 and 2^k - 1, each made at run time from an
// i32 (so no constant folding gets there first). A rule that fires on them must give the bits it gave
// before; a target that computes them differently is wrong, never a spec gap.
#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

constexpr Op kIntOps[] = {Op::AND, Op::SHL, Op::SUB};  // what the exact values are built with

}  // namespace

// One of the nine forms (the comments name the rule of each), on f32 or f64 (a narrower float would round the products); null when the target
// lacks what it needs.
const UOp* Gen::exact_float_idiom(DType d) {
  if (d != DType::F32 && d != DType::F64) return nullptr;
  if (!target_has(DType::I32) || banned(Op::CAST) || !usable(Op::RECIP, d) || !usable(Op::ADD, d)) return nullptr;
  for (Op op : kIntOps)
    if (!usable(op, DType::I32)) return nullptr;
  const UOp* v = operand(DType::I32);
  // Every node is made in its own statement: the order of ids must not depend on the compiler.
  auto power_of_two = [&](int64_t mask) {  // 1 << (v & mask) as d: a power of two in 1..mask+1
    const UOp* amount = make(Op::AND, {v, i32(mask)});
    return cast_to(make(Op::SHL, {i32(1), amount}), d);
  };
  auto small_int = [&] { return cast_to(make(Op::AND, {v, i32(127)}), d); };  // an integer 0..127
  auto mul = [&](const UOp* x, const UOp* y) { return make(Op::MUL, {x, y}); };
  auto recip = [&](const UOp* x) { return make(Op::RECIP, {x}); };
  // m = 2^k - 1 and 1/(1 + m), a power of two
  auto m_and_one_over = [&] {
    const UOp* pk = make(Op::SHL, {i32(1), make(Op::AND, {v, i32(3)})});
    const UOp* m = cast_to(make(Op::SUB, {pk, i32(1)}), d);
    const UOp* one_plus = make(Op::ADD, {m, constant(d, Scalar::of_float(1))});
    return std::pair{m, recip(one_plus)};
  };
  static constexpr double kPowerOfTwoConstants[] = {0.5, 2, 4};
  const int form = static_cast<int>(rng.range(0, 8));
  if (form >= 6) {
    const auto [m, one_over] = m_and_one_over();
    if (form == 6) return mul(m, one_over);  // x*(1/(1+x)) -> 1 - 1/(1+x)  (symbolic.py:464)
    const UOp* a = small_int();
    const UOp* inner = form == 7 ? mul(one_over, a) : make(Op::ADD, {one_over, a});
    return mul(m, inner);  // x*(d*y) -> y*(1-d) (:465), x*(d+y) -> (1-d) + x*y (:466)
  }
  const UOp* p = power_of_two(3);
  switch (form) {
    case 0: return mul(p, recip(p));  // x/x -> 1  (:160)
    case 1: {                         // (x*x2)/x2 -> x  (:161)
      const UOp* ap = mul(small_int(), p);
      return mul(ap, recip(p));
    }
    case 2: {  // (x/x2)/x3 -> x/(x2*x3), x2 and x3 distinct nodes (:240)
      const UOp* a = small_int();
      const UOp* a_over_p = mul(a, recip(p));
      return mul(a_over_p, recip(power_of_two(1)));
    }
    case 3: return recip(mul(p, p));  // 1/(x*x) -> (1/x)*(1/x)  (:461)
    case 4: {                         // 1/(x*x*x)  (:462)
      const UOp* pp = mul(p, p);
      return recip(mul(pp, p));
    }
    default: {  // 1/(x*c) -> (1/c)*(1/x)  (:463)
      const UOp* c = constant(d, Scalar::of_float(rng.pick(kPowerOfTwoConstants)));
      return recip(mul(p, c));
    }
  }
}

}  // namespace uf::gen

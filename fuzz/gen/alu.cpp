// ALU nodes and their operands: which op and dtype, where operands come from, and the guards that keep
// float-to-int casts and BITCASTs defined.
#include <algorithm>
#include <cmath>

#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

DType Gen::pick_dtype(const std::function<bool(DType)>& ok) {
  std::array<double, kNumDTypes> w{};
  for (DType d : kValueDTypes)
    if (ok(d)) w[static_cast<size_t>(d)] = pol.dtype_weight[static_cast<size_t>(d)];
  int k = rng.weighted(w);
  if (k < 0) {  // the swarm left no dtype this caller can use: fall back to the target's, all alike
    for (DType d : kValueDTypes) w[static_cast<size_t>(d)] = ok(d) && target_has(d);
    k = rng.weighted(w);
  }
  if (k < 0) {  // nor has the target one: the caller's need comes first (a shape's own dtypes, docs/format.md)
    for (DType d : kValueDTypes) w[static_cast<size_t>(d)] = ok(d);
    k = rng.weighted(w);
  }
  ensure(k >= 0, "some dtype satisfies the caller");
  return static_cast<DType>(k);
}

const UOp* Gen::reuse(DType d) {
  const auto& p = pool_[static_cast<size_t>(d)];
  if (rng.chance(pol.p_recent)) {
    const size_t window = std::min(p.size(), static_cast<size_t>(std::max(1, pol.recent_window)));
    return p[p.size() - 1 - rng.below(window)];
  }
  if (rng.chance(pol.p_unused)) {
    std::vector<const UOp*> fresh;
    for (const UOp* v : p)
      if (uses_[v->id] == 0) fresh.push_back(v);
    if (!fresh.empty()) return rng.pick(fresh);
  }
  return rng.pick(p);
}

const UOp* Gen::operand(DType d) {
  Weights<Leaf> w = pol.leaf_weight;
  auto ww = [&w](Leaf l) -> double& { return w[static_cast<size_t>(l)]; };
  if (pool_[static_cast<size_t>(d)].empty()) ww(Leaf::Reuse) = 0;
  Memory* m = pick_memory(d, MemPick::Readable);
  if (!m || no_loads_ > 0) ww(Leaf::Load) = 0;
  if (values_.empty()) ww(Leaf::Cast) = 0;
  switch (static_cast<Leaf>(rng.weighted(w))) {
    case Leaf::Reuse: return reuse(d);
    case Leaf::Load: return load(*m, index_for(*m, rng.chance(pol.p_dynamic_index)));
    case Leaf::Cast: {
      const UOp* src = rng.pick(values_);
      return src->dtype == d ? src : cast_to(src, d);
    }
    default: return constant(d, random_value(d, pol.const_value_weight));
  }
}

const UOp* Gen::cast_to(const UOp* v, DType to) {
  if (is_float(v->dtype) && is_int(to) && !finite(facts(v)) && !rng.chance(pol.p_unguarded)) v = finite_guard(v);
  return make(Op::CAST, {v}, to);
}

const UOp* Gen::bitcast_to(const UOp* v, DType to) {
  if (is_float(v->dtype) && facts(v).nan && !rng.chance(pol.p_unguarded)) v = not_nan_guard(v);
  return make(Op::BITCAST, {v}, to);
}

// x if -C < x < C, else a constant: finite whatever x is (NaN fails both comparisons).
const UOp* Gen::finite_guard(const UOp* x) {
  const DType d = x->dtype;
  const auto form = static_cast<FloatGuard>(rng.weighted(pol.guard_weight));
  const UOp* k = constant(d, finite_value(d));
  if (form == FloatGuard::Constant) return k;
  // Bounds at the edges of the int ranges make the cast itself interesting.
  const double bounds[] = {float_max(d), 0x1p31, 0x1p32, 0x1p63, 0x1p64, 1e9, 65504.0, 0x1p24};
  double c = normalize(d, Scalar::of_float(rng.pick(bounds))).f;
  if (!std::isfinite(c)) c = float_max(d);
  const UOp* below = make(Op::CMPLT, {x, constant(d, Scalar::of_float(c))});
  const UOp* above = make(Op::CMPLT, {constant(d, Scalar::of_float(-c)), x});
  const Op both = form == FloatGuard::WhereMul ? Op::MUL : Op::AND;  // bool MUL is AND
  const UOp* cond = rng.chance(pol.p_swap_operands) ? make(both, {below, above}) : make(both, {above, below});
  const UOp* g = make(Op::WHERE, {cond, x, k});
  Facts f;
  f.flo = -c;
  f.fhi = c;
  facts(g) = join(d, f, facts(k));
  return g;
}

// x unless it is NaN (x != x), then a constant.
const UOp* Gen::not_nan_guard(const UOp* x) {
  const DType d = x->dtype;
  const auto form = static_cast<FloatGuard>(rng.weighted(pol.guard_weight));
  const UOp* k = constant(d, finite_value(d));
  if (form == FloatGuard::Constant) return k;
  const UOp* g = form == FloatGuard::WhereMul ? make(Op::WHERE, {make(Op::CMPEQ, {x, x}), x, k})
                                              : make(Op::WHERE, {make(Op::CMPNE, {x, x}), k, x});
  Facts f = facts(x);
  f.nan = false;
  facts(g) = join(d, f, facts(k));
  return g;
}

// A binary op that needs no guard, of dtype d (folds values together).
const UOp* Gen::combine(DType d, const UOp* a, const UOp* b) {
  static constexpr Op kOps[] = {Op::ADD, Op::SUB,      Op::MUL,      Op::MAX,  Op::AND, Op::OR,
                                Op::XOR, Op::FLOORDIV, Op::FLOORMOD, Op::CDIV, Op::CMOD};
  std::array<double, std::size(kOps)> w{};
  for (size_t i = 0; i < std::size(kOps); ++i)
    if (accepts(kOps[i], d)) w[i] = pol.op_weight[static_cast<size_t>(kOps[i])];
  int k = rng.weighted(w);
  for (size_t i = 0; k < 0 && i < std::size(kOps); ++i)  // none drawn: the first the target has
    if (usable(kOps[i], d)) k = static_cast<int>(i);
  return make(k < 0 ? Op::ADD : kOps[k], {a, b});
}

const UOp* Gen::alu_step() {
  const int k = rng.weighted(alu_weight_);
  if (k < 0) return nullptr;
  const Op op = static_cast<Op>(k);
  const DType d = pick_dtype([this, op](DType t) { return accepts(op, t); });
  if (op == Op::MUL && is_float(d) && rng.chance(pol.p_exact_float_idiom))
    if (const UOp* idiom = exact_float_idiom(d)) return idiom;
  if ((op == Op::OR || op == Op::ADD) && !is_float(d) && rng.chance(pol.p_exact_int_idiom))
    if (const UOp* idiom = exact_int_idiom(d)) return idiom;
  return op == Op::WHERE ? where_node(d, operand(d)) : alu_node(op, d, nullptr);
}

// A long dependent chain: each op takes the previous result as its first operand (any dtype it
// reaches, through casts and comparisons too). Deep expressions stress register allocation,
// expression inlining and recursion in every consumer.
void Gen::chain_step() {
  const UOp* v = operand(pick_dtype([](DType) { return true; }));
  const int64_t n = rng.range(pol.min_chain_len, std::max(pol.min_chain_len, pol.max_chain_len));
  for (int64_t i = 0; i < n && v; ++i) v = alu_on(v);
}

const UOp* Gen::alu_on(const UOp* v) {
  std::array<double, kNumOps> w{};
  for (int o = 0; o < kNumOps; ++o)
    if (is_alu(static_cast<Op>(o)) && accepts(static_cast<Op>(o), v->dtype)) w[o] = pol.op_weight[o];
  const int k = rng.weighted(w);
  if (k < 0) return nullptr;
  return static_cast<Op>(k) == Op::WHERE ? where_node(v->dtype, v) : alu_node(static_cast<Op>(k), v->dtype, v);
}

// A scalar step's WHERE on values of dtype d, its true value `t`, in one of the shapes of
// where_shape_weight (each where its ops fit d and are not banned; else a plain select).
const UOp* Gen::where_node(DType d, const UOp* t) {
  const auto shape = static_cast<WhereShape>(rng.weighted(pol.where_shape_weight));
  if (shape == WhereShape::ZeroSplit && usable(Op::ADD, d)) {
    const UOp* c = operand(DType::Bool);
    const UOp* zero = constant(d, Scalar::zero());
    return make(Op::ADD, {make(Op::WHERE, {c, t, zero}), make(Op::WHERE, {c, zero, operand(d)})});
  }
  if (shape == WhereShape::MaxOfConst && usable(Op::CMPLT, d)) {
    const UOp* a = constant(d, random_value(d, pol.const_value_weight));
    if (rng.chance(pol.p_max_const_first)) return make(Op::WHERE, {make(Op::CMPLT, {a, t}), t, a});
    return make(Op::WHERE, {make(Op::CMPLT, {t, a}), a, t});
  }
  return alu_node(Op::WHERE, d, t);
}

// tinygrad's algebra matches an op on an op, (x % y) % y, (x // c1) // c2, -(x + c), 1/(x * c), which a
// drawn operand seldom is: now and then a drawn first operand is made one (nullptr: draw it as usual).
const UOp* Gen::idiom_operand(Op op, DType d) {
  if (nesting_) return nullptr;
  if (is_binary_alu(op) && info(op).result == ResultRule::SAME && rng.chance(pol.p_nest_op)) {
    nesting_ = true;
    const UOp* inner = alu_node(op, d, nullptr);
    nesting_ = false;
    return inner;
  }
  if (is_unary_alu(op) && !is_conversion(op) && rng.chance(pol.p_unary_of_affine)) {
    const Op by = rng.chance(pol.p_affine_mul) ? Op::MUL : Op::ADD;
    if (!usable(by, d)) return nullptr;
    const UOp* x = operand(d);
    return make(by, {x, rng.chance(pol.p_affine_const) ? constant(d, random_value(d, pol.const_value_weight)) : operand(d)});
  }
  return nullptr;
}

// (x & -2^k) >> k or (x & -2^k) // 2^k, k in 1..4: the low bits cleared before a shift or a division drops
// them anyway, as tinygrad's bit-level front end writes it (its symbolic folds the mask away).
const UOp* Gen::cleared_low_bits(Op op, const UOp* x, DType d) {
  const int64_t k = rng.range(1, 4);
  const UOp* masked = make(Op::AND, {x, constant(d, normalize(d, Scalar::of_int(-(int64_t{1} << k))))});
  return make(op, {masked, constant(d, normalize(d, Scalar::of_int(op == Op::SHR ? k : int64_t{1} << k)))});
}

// x != true: a logical not as tinygrad's front end writes it (UOp.logical_not).
const UOp* Gen::logical_not(const UOp* x) { return make(Op::CMPNE, {x, constant(DType::Bool, Scalar::of_uint(1))}); }

// A node of `op` on operand dtype d; its first operand is `first` when given, else drawn.
const UOp* Gen::alu_node(Op op, DType d, const UOp* first) {
  const UOp* shared = nullptr;  // a nested node's second operand, when the outer one takes it too
  if (!first && !is_conversion(op) && op != Op::WHERE && (first = idiom_operand(op, d)) && first->op == op &&
      rng.chance(pol.p_nest_shared))
    shared = first->src[1];
  auto lead = [&] { return first ? first : operand(d); };
  auto second = [&](auto draw) { return shared ? shared : draw(); };
  switch (op) {
    case Op::CAST:
    case Op::BITCAST: {
      auto target = [op, d](DType t) { return op == Op::CAST || bitcast_legal(d, t); };
      DType to = pick_dtype(target);
      if (to == d && !rng.chance(pol.p_identity_cast)) to = pick_dtype(target);
      // A conversion to a narrow float is where rounding bugs live: feed it a value on one of the target's
      // rounding boundaries (a tie, or the double-rounding band around one) often, not only what the
      // program computed.
      const bool edge =
          !first && op == Op::CAST && is_float(to) && bytes(to) <= 2 && !is_bool(d) && rng.chance(pol.p_narrow_cast_edge);
      // Wider sources are the ones with a double-rounding band: binary64 and 64-bit integers, mostly.
      const DType wide[] = {DType::F64, DType::F64, DType::I64, d};
      const DType drawn = edge ? rng.pick(wide) : d;
      const DType from = target_has(drawn) ? drawn : d;  // a target without f64 gets the edge in d
      const UOp* a = edge ? constant(from, rounding_edge(from, to)) : lead();
      return op == Op::CAST ? cast_to(a, to) : bitcast_to(a, to);
    }
    case Op::WHERE: {  // a plain select (a scalar step draws its shape: where_node)
      const UOp* c = operand(DType::Bool);
      const UOp* a = lead();
      return make(op, {c, a, operand(d)});
    }
    case Op::SHL:
    case Op::SHR: {
      if (op == Op::SHR && is_signed(d) && !banned(Op::AND) && rng.chance(pol.p_clear_low_bits)) return cleared_low_bits(op, lead(), d);
      const UOp* a = lead();
      return make(op, {a, second([&] { return shift_amount(d); })});
    }
    case Op::POW: {  // integer exponents must not be negative; float ones small, so the power rarely overflows
      const UOp* a = lead();
      if (!is_float(d)) return make(op, {a, second([&] { return shift_amount(d); })});
      static constexpr double kExponents[] = {-3, -2, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, 4, 0.25, -0.25};
      const UOp* b = second([&] {
        return rng.chance(pol.p_pow_operand_exponent) ? operand(d)
                                                      : constant(d, normalize(d, Scalar::of_float(rng.pick(kExponents))));
      });
      return make(op, {a, b});
    }
    case Op::FLOORDIV:
    case Op::FLOORMOD:
    case Op::CDIV:
    case Op::CMOD: {
      if (op == Op::FLOORDIV && is_signed(d) && !banned(Op::AND) && rng.chance(pol.p_clear_low_bits))
        return cleared_low_bits(op, lead(), d);
      const UOp* a = !first && rng.chance(pol.p_nonneg_numerator) ? nonneg_numerator(d) : lead();
      return make(op, {a, second([&] { return divisor(d); })});
    }
    default: break;
  }
  const int arity = info(op).arity;
  if (!first && is_bool(d) && (op == Op::AND || op == Op::OR) && !banned(Op::CMPNE) && pol.p_not_operand > 0) {
    auto side = [&] { return rng.chance(pol.p_not_operand) ? logical_not(operand(d)) : operand(d); };
    const UOp* a = side();
    return make(op, {a, side()});
  }
  const UOp* a = lead();
  if (arity == 1) return make(op, {a});
  const UOp* b = second([&] { return operand(d); });
  if (arity == 2) return make(op, {a, b});
  return make(op, {a, b, operand(d)});
}

}  // namespace uf::gen

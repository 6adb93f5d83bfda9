// Vectors: a Vector step builds one lane-wise ALU op on DTYPExN operands, the way a vectorising
// compiler (tinygrad's devectorizer, in reverse) would: each lane is first shaped as a scalar op of the
// same kind would be (alu_node: shift amounts, divisors, NaN guards, per lane), then its operands are
// put together by STACK. Operands of total ops (no UNDEFINED for any value) may instead be a vector
// LOAD, an earlier vector or a broadcast CONST. Lanes come back out as scalars through GEP, and the
// whole vector may be stored by a vector STORE.
#include <algorithm>

#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

const UOp* Gen::vector_operand(DType d, int lanes, std::span<const UOp* const> scalars, bool free) {
  if (free && rng.chance(pol.p_vector_load)) {
    // A readable memory of d holding `lanes` written elements from some constant index on.
    std::vector<std::pair<Memory*, int64_t>> ok;
    for (Memory& m : mems_) {
      if (m.mem->dtype != d || m.mem->len < lanes) continue;
      for (int64_t i = 0; i + lanes <= m.mem->len; ++i)
        if (std::all_of(m.written.begin() + i, m.written.begin() + i + lanes, [](uint8_t w) { return w != 0; }))
          ok.emplace_back(&m, i);
    }
    if (!ok.empty()) {
      const auto [m, i] = rng.pick(ok);
      return access(*m, i32(i), nullptr, lanes);
    }
  }
  if (free && rng.chance(pol.p_vector_reuse)) {
    std::vector<const UOp*> same;
    for (const UOp* v : vectors_)
      if (v->dtype == d && v->lanes == lanes) same.push_back(v);
    if (!same.empty()) return rng.pick(same);
  }
  if (free && rng.chance(pol.p_vector_broadcast)) return note(g.constant(d, random_value(d, pol.const_value_weight), lanes));
  return make(Op::STACK, scalars);
}

void Gen::vector_step() {
  const int k = rng.weighted(alu_weight_);
  if (k < 0) return;
  const Op op = static_cast<Op>(k);
  const DType d = pick_dtype([this, op](DType t) { return accepts(op, t); });
  static constexpr int kLanes[] = {2, 2, 2, 4, 4, 4, 4, 8, 8, 3, 16, 5};
  int lanes = rng.pick(kLanes);
  lanes = std::clamp(lanes, 2, std::clamp(pol.max_lanes, 2, kMaxLanes));

  const UOp* vec = nullptr;
  if (op == Op::CAST || op == Op::BITCAST) {
    auto target = [op, d](DType t) { return op == Op::CAST || bitcast_legal(d, t); };
    DType to = pick_dtype(target);
    if (to == d && !rng.chance(pol.p_identity_cast)) to = pick_dtype(target);
    std::vector<const UOp*> column;
    for (int l = 0; l < lanes; ++l) {
      const UOp* a = operand(d);
      if (op == Op::CAST && is_float(d) && is_int(to) && !finite(facts(a)) && !rng.chance(pol.p_unguarded)) a = finite_guard(a);
      if (op == Op::BITCAST && is_float(d) && facts(a).nan && !rng.chance(pol.p_unguarded)) a = not_nan_guard(a);
      column.push_back(a);
    }
    vec = make(op, {vector_operand(d, lanes, column, false)}, to);
  } else {
    // Each lane as its own scalar op first (left in the graph: a scalar twin of the lane), then by columns.
    const int arity = info(op).arity;
    std::vector<std::vector<const UOp*>> columns(static_cast<size_t>(arity));
    for (int l = 0; l < lanes; ++l) {
      const UOp* u = alu_node(op, d, nullptr);
      ensure(u->op == op && static_cast<int>(u->src.size()) == arity, "alu_node builds the op asked for");
      for (int j = 0; j < arity; ++j) columns[j].push_back(u->src[j]);
    }
    std::vector<const UOp*> ops;
    for (int j = 0; j < arity; ++j) ops.push_back(vector_operand(columns[j][0]->dtype, lanes, columns[j], is_total(op)));
    vec = make(op, ops);
  }

  bool used = false;
  for (int l = 0; l < lanes; ++l)
    if (rng.chance(pol.p_gep_lane)) {
      note(g.gep(vec, l));
      used = true;
    }
  if (!used || rng.chance(pol.p_vector_store)) {
    std::vector<Memory*> outs;
    for (Memory& m : mems_)
      if (m.output && m.mem->dtype == vec->dtype && m.mem->len >= lanes) outs.push_back(&m);
    if (!outs.empty()) {
      Memory& m = *rng.pick(outs);
      store(m, i32(rng.range(0, m.mem->len - lanes)), vec);
    } else if (!used) {
      note(g.gep(vec, static_cast<int>(rng.below(static_cast<uint64_t>(lanes)))));
    }
  }
}

}  // namespace uf::gen

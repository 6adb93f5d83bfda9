// The slice pass (fuzz/oracle/passes.def), the first round of a mismatch's reduction: the diverging node
// `d` alone (a constant by itself; an op with its operands as constants, then loaded from input buffers),
// stored into a fresh one-element output buffer; for a vector lane, a vector whose lane k alone holds the
// reference value. When the bug lives in `d`'s own rule, one of these reproduces it in a handful of
// nodes, in one step.
#include <vector>

#include "fuzz/oracle/passes.h"

namespace uf {

namespace {

// The slices of lane k of an N-lane vector of dtype t whose reference value there is v: lane k holds v and
// every other lane a different value, from a STACK of constants, then from a vector LOAD of an input buffer
// (a lane-order bug shows in either), and GEP k is stored. For a diverging GEP, and for a diverging vector
// node's lane.
std::vector<Program> lane_slices(const Program& p, DType t, int n, int k, Scalar v) {
  std::vector<Program> out;
  Graph& g = *p.graph;
  const Scalar other = normalize(t, v.u == 0 ? (is_float(t) ? Scalar::of_float(1.0) : Scalar::of_uint(1)) : Scalar::zero());
  const UOp* zero = g.constant(DType::I32, Scalar::zero());
  for (const bool loaded : {false, true}) {
    Program q;
    q.graph = p.graph;
    q.meta = p.meta;
    const UOp* out_buf = g.memory(Op::BUFFER, t, 1, 0);
    q.buffers.push_back(out_buf);
    const UOp* vec;
    if (!loaded) {
      std::vector<const UOp*> lanes;
      for (int j = 0; j < n; ++j) lanes.push_back(g.constant(t, j == k ? v : other));
      vec = g.make(Op::STACK, std::span<const UOp* const>(lanes));
    } else {
      const UOp* in = g.memory(Op::BUFFER, t, n, 1);
      q.buffers.push_back(in);
      Values data;
      for (int j = 0; j < n; ++j) data.push_back(j == k ? normalize(t, v) : other);
      q.data[1] = std::move(data);
      vec = g.make(Op::LOAD, {g.make(Op::INDEX, {in, zero})}, t, n);
    }
    q.sink = g.make(Op::SINK, {g.make(Op::STORE, {g.make(Op::INDEX, {out_buf, zero}), g.gep(vec, k)})});
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<Program> slice_candidates(const Program& p, const UOp* d, const std::unordered_map<const UOp*, Scalar>& values) {
  std::vector<Program> out;
  if (d && d->op == Op::GEP)
    if (const auto it = values.find(d); it != values.end())
      return lane_slices(p, d->dtype, d->src[0]->lanes, static_cast<int>(d->value.i), it->second);
  if (!d || d->is_vector() || (!is_alu(d->op) && d->op != Op::CONST)) return out;
  Graph& g = *p.graph;
  const UOp* zero = g.constant(DType::I32, Scalar::zero());
  if (d->op == Op::CONST) {  // a constant rendered wrong: stored alone
    Program q;
    q.graph = p.graph;
    q.meta = p.meta;
    const UOp* out_buf = g.memory(Op::BUFFER, d->dtype, 1, 0);
    q.buffers.push_back(out_buf);
    q.sink = g.make(Op::SINK, {g.make(Op::STORE, {g.make(Op::INDEX, {out_buf, zero}), d})});
    out.push_back(std::move(q));
    return out;
  }
  for (const bool loaded : {false, true}) {
    Program q;
    q.graph = p.graph;
    q.meta = p.meta;
    const UOp* out_buf = g.memory(Op::BUFFER, d->dtype, 1, 0);
    q.buffers.push_back(out_buf);
    std::vector<const UOp*> src;
    bool ok = true;
    for (const UOp* s : d->src) {
      Scalar v = s->value;
      if (s->op != Op::CONST) {
        const auto it = values.find(s);
        if (it == values.end()) {
          ok = false;
          break;
        }
        v = it->second;
      }
      if (!loaded || s->op == Op::CONST) {
        src.push_back(g.constant(s->dtype, v));
        continue;
      }
      const int64_t slot = static_cast<int64_t>(q.buffers.size());
      const UOp* in = g.memory(Op::BUFFER, s->dtype, 1, slot);
      q.buffers.push_back(in);
      q.data[slot] = {normalize(s->dtype, v)};
      src.push_back(g.make(Op::LOAD, {g.make(Op::INDEX, {in, zero})}));
    }
    if (!ok) break;
    const UOp* value = g.make(d->op, std::span<const UOp* const>(src), d->dtype);
    q.sink = g.make(Op::SINK, {g.make(Op::STORE, {g.make(Op::INDEX, {out_buf, zero}), value})});
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace

void slice_steps(const PassInput& in) {
  const Divergence* d = in.divergence ? in.divergence() : nullptr;
  if (!d) return;
  // Operands inside loops have no top-level reference value: the probes recorded them where d diverged.
  auto values = in.values;
  values.insert(d->loop_operands.begin(), d->loop_operands.end());
  for (Program& q : d->lane >= 0 ? lane_slices(in.p, d->node->dtype, d->node->lanes, d->lane, d->lane_value)
                                 : slice_candidates(in.p, d->node, values))
    in.add(std::move(q));
}

}  // namespace uf

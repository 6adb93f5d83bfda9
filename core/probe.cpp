// The probe program (probe.h).
#include "core/probe.h"

#include <map>

#include "core/loops.h"

namespace uf {

Probe instrument(const Program& p, ProbeScope scope) {
  Probe probe{p, {}};
  Program& q = probe.program;
  Graph& g = *q.graph;
  const auto order = linearize(p);
  // A value computed inside a loop has one value per iteration and may not be used after the loop, so
  // only top-level values are probed.
  const Loops loops = analyze_loops(p, order);  // without loops: no ranges, nothing is in a loop
  auto in_loop = [&](const UOp* u) { return loops.any() && loops.innermost[u->id] >= 0; };
  int64_t next_slot = p.buffers.empty() ? 0 : p.buffers.back()->slot + 1;
  std::map<DType, std::vector<const UOp*>> by_dtype;
  std::vector<const UOp*> values;
  auto probed = [&](const UOp* u) {
    if (u->op == Op::CONST) return scope == ProbeScope::every_value;
    return !u->is_memory();
  };
  for (const UOp* u : order)
    if (probed(u) && !is_void(u->dtype) && !u->is_vector() &&  // vectors: by GEPs
        !in_loop(u)) {
      by_dtype[u->dtype].push_back(u);
      values.push_back(u);
    }
  std::map<DType, std::pair<const UOp*, int64_t>> probe_buffer;  // dtype -> (BUFFER, next index)
  for (const auto& [d, list] : by_dtype) {
    const UOp* b = g.memory(Op::BUFFER, d, static_cast<int64_t>(list.size()), next_slot++);
    probe_buffer[d] = {b, 0};
    q.buffers.push_back(b);
    q.data[b->slot] = Values(list.size(), Scalar::zero());
  }
  std::vector<const UOp*> effects(p.sink->src.begin(), p.sink->src.end());
  for (const UOp* u : values) {
    auto& [b, idx] = probe_buffer[u->dtype];
    const UOp* at = g.make(Op::INDEX, {b, g.constant(DType::I32, Scalar::of_int(idx))});
    effects.push_back(g.make(Op::STORE, {at, u}));
    probe.where.push_back({u, {b->slot, idx}});
    ++idx;
  }
  q.sink = g.make(Op::SINK, std::span<const UOp* const>(effects));
  q.expect.clear();
  q.got.clear();
  return probe;
}

}  // namespace uf

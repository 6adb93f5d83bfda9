// The interpreter's vector nodes, lane by lane (docs/semantics.md, vectors).
#include "interp/alu.h"
#include "interp/machine.h"

namespace uf::interp_machine {

// Vectors, lane by lane (docs/semantics.md): a vector node's value is the offset of its lanes in
// vec_lanes_. Off the scalar path on purpose: readable, and a scalar program never comes here.
// Returns the reason when the node is UNDEFINED.
std::optional<std::string> Machine::vector_node(const UOp* u) {
  const size_t n = u->lanes;
  // In a loop a node runs once per iteration: from the second on it reuses its lanes, so memory does not
  // grow with the trip count.
  const bool again = ran_[u->id] != 0;
  const size_t out = again ? values_[u->id].u : vec_lanes_.size();
  if (!again) vec_lanes_.resize(out + n);
  values_[u->id] = Scalar::of_uint(out);
  switch (u->op) {
    case Op::CONST:
      for (size_t k = 0; k < n; ++k) vec_lanes_[out + k] = u->value;
      return std::nullopt;
    case Op::STACK:
      for (size_t k = 0; k < n; ++k) vec_lanes_[out + k] = values_[u->src[k]->id];
      return std::nullopt;
    case Op::LOAD: {
      const size_t cell = values_[u->src[0]->id].u;
      const Memory& m = memory_of(u->src[0]);
      if (cell + n > m.first + static_cast<size_t>(m.len))
        return "LOAD of " + std::to_string(n) + " lanes at element " + std::to_string(cell - m.first) + " out of bounds for " +
               memory_text(m.node);
      if (!independent_.empty())
        if (auto why = note_access(cell, static_cast<int>(n), false)) return why;
      for (size_t k = 0; k < n; ++k) {
        if (!written_[cell + k])
          return "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " + std::to_string(cell + k - m.first) +
                 " before any STORE";
        vec_lanes_[out + k] = cells_[cell + k];
      }
      return std::nullopt;
    }
    default: break;
  }
  UOPFUZZ_CHECK(is_alu(u->op));
  const DType operand = u->op == Op::WHERE ? u->src[1]->dtype : u->src[0]->dtype;
  for (size_t k = 0; k < n; ++k) {
    Scalar ops[3] = {};
    for (size_t j = 0; j < u->src.size(); ++j) ops[j] = vec_lanes_[values_[u->src[j]->id].u + k];
    const AluResult r = exec_alu(u->op, u->dtype, operand, ops);
    if (!r.defined()) return undefined_reason(u->op, u->dtype, operand, ops) + " (lane " + std::to_string(k) + ")";
    vec_lanes_[out + k] = r.value;
  }
  return std::nullopt;
}

std::optional<std::string> Machine::vector_store(const UOp* u) {
  const size_t cell = values_[u->src[0]->id].u, n = u->src[1]->lanes, from = values_[u->src[1]->id].u;
  const Memory& m = memory_of(u->src[0]);
  if (cell + n > m.first + static_cast<size_t>(m.len))
    return "STORE of " + std::to_string(n) + " lanes at element " + std::to_string(cell - m.first) + " out of bounds for " +
           memory_text(m.node);
  if (!independent_.empty())
    if (auto why = note_access(cell, static_cast<int>(n), true)) return why;
  for (size_t k = 0; k < n; ++k) {
    cells_[cell + k] = vec_lanes_[from + k];
    written_[cell + k] = 1;
    if (records_approx_) note_origin(cell + k, nullptr);  // a lane of a vector: never an approximated op's own
  }
  return std::nullopt;
}

}  // namespace uf::interp_machine

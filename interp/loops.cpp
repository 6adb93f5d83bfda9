// The interpreter's loops and gated accesses (docs/semantics.md, "Loops").
#include <algorithm>

#include "interp/machine.h"

namespace uf::interp_machine {

// One loop: the body order_[at + 1, body_end) once per iteration, in increasing order. A loop that runs
// no iteration still counts its body as run (nothing outside the loop reads its values).
std::optional<Undefined> Machine::run_loop(size_t at) {
  const UOp* r = order_[at];
  const size_t body = at + 1, end = loops_.body_end[at];
  const Scalar n = values_[r->src[0]->id];
  const int64_t trips = is_signed(r->dtype) ? n.i : static_cast<int64_t>(std::min<uint64_t>(n.u, INT64_MAX));
  ran_[r->id] = 1;
  if (trips <= 0) {
    for (size_t i = body; i < end; ++i) {
      if (order_[i]->op == Op::BUFFER || order_[i]->op == Op::ALLOC) add_memory(order_[i]);
      ran_[order_[i]->id] = 1;
    }
    return std::nullopt;
  }
  uint64_t steps = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(trips), std::max<uint64_t>(end - body, 1), &steps) ||
      steps > loop_steps_left_) {
    over_budget_ = true;
    check_rest(at);
    return Undefined{r, "a loop of " + std::to_string(trips) + " iterations, over the caller's budget"};
  }
  loop_steps_left_ -= steps;
  iterations_.push_back({r, 0});
  const bool independent = r->range_kind() == RangeKind::Global;
  if (independent) independent_.push_back({r, 0, {}});
  for (int64_t k = 0; k < trips; ++k) {
    values_[r->id] = Scalar::of_int(k);  // k >= 0: the same bits for an unsigned RANGE
    iterations_.back().second = k;
    if (independent) independent_.back().iteration = k;
    if (auto why = execute(body, end)) {
      if (!iteration_noted_ && !broken_loop_) {  // the innermost loop sees every enclosing iteration
        iteration_noted_ = true;
        std::string where;
        for (const auto& [range, i] : iterations_)
          where += (where.empty() ? "" : ", ") + p_.node_name(range, &order_) + " = " + std::to_string(i);
        why->reason += " (in iteration " + where + ")";
      }
      return why;
    }
  }
  iterations_.pop_back();
  if (independent) independent_.pop_back();
  return std::nullopt;
}

// An access with a true gate through an address out of bounds (kNoCell) at order_[i].
Undefined Machine::out_of_bounds(size_t i) {
  const UOp* u = order_[i];
  const UOp* index = u->src[0]->index_node();
  const UOp* mem = memory_of(u->src[0]).node;  // copied: check_rest adds later memories, moving memories_
  check_rest(i);
  return Undefined{u, "INDEX " + std::to_string(values_[index->src[1]->id].i) + " out of bounds for " + memory_text(mem)};
}

// INDEX nodes (and AFTERs of them) whose only users are gated accesses, as their address: their index is
// checked by the access, when its gate is true (docs/semantics.md, gated memory).
void Machine::mark_gated_only_addresses() {
  std::vector<uint8_t> other_use(p_.graph->size(), 0);
  bool any_gated = false;
  for (size_t i = order_.size(); i-- > 0;) {
    const UOp* u = order_[i];
    any_gated |= u->is_gated();
    for (size_t k = 0; k < u->src.size(); ++k) {
      const UOp* s = u->src[k];
      if (!s->is_memory() || s->rank != 0) continue;
      const bool passes = k == 0 && (u->is_gated() || (u->op == Op::AFTER && !other_use[u->id]));
      if (!passes) other_use[s->id] = 1;
    }
  }
  if (!any_gated) return;
  gated_only_.assign(p_.graph->size(), 0);
  for (const UOp* u : order_)
    if (u->op == Op::INDEX && !other_use[u->id]) gated_only_[u->id] = 1;
}

}  // namespace uf::interp_machine

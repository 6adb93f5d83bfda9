// The check of kind=global loops (docs/semantics.md, "Loop kinds"): their iterations must be independent,
// which the text alone cannot show in general (an index may be loaded), so the reference checks it on the
// accesses it runs. Per running global loop and cell: a read of what another iteration wrote carries a
// value (flow); a write of what another iteration read before writing it (anti), or of a BUFFER element
// another iteration wrote (output), makes the result depend on the order. An ALLOC element written first
// in each iteration that uses it is that iteration's own scratch (tinygrad's register accumulators).
#include <algorithm>

#include "interp/machine.h"

namespace uf {
namespace interp_machine {

const Memory* Machine::memory_at(size_t cell) const {
  for (const Memory& m : memories_)
    if (cell >= m.first && cell < m.first + static_cast<size_t>(m.len)) return &m;
  return nullptr;
}

std::string Machine::cell_text(size_t cell) const {
  const Memory* m = memory_at(cell);
  return m ? "element " + std::to_string(cell - m->first) + " of " + memory_text(m->node) : "cell " + std::to_string(cell);
}

std::optional<std::string> Machine::note_in(IndependentLoop& loop, size_t cell, bool write) {
  IndependentLoop::Use& use = loop.cells[cell];
  const int64_t k = loop.iteration;
  auto broken = [&](const char* verb, const std::string& other) {
    return "RANGE " + p_.node_name(loop.range, &order_) + " is kind=global, but iteration " + std::to_string(k) + " " + verb + " " +
           cell_text(cell) + ", which " + other + ": its iterations are not independent (use kind=loop)";
  };
  if (!write) {
    if (use.writer >= 0 && use.writer != k) return broken("reads", "iteration " + std::to_string(use.writer) + " wrote");
    if (use.writer != k) {
      use.exposed_by_several |= use.exposed_reader >= 0 && use.exposed_reader != k;
      if (use.exposed_reader < 0) use.exposed_reader = k;
    }
    return std::nullopt;
  }
  if (use.exposed_reader >= 0 && use.exposed_reader != k)
    return broken("writes", "iteration " + std::to_string(use.exposed_reader) + " read");
  if (use.exposed_by_several) return broken("writes", "another iteration read");
  const Memory* m = memory_at(cell);
  if (use.writer >= 0 && use.writer != k && m && m->node->op == Op::BUFFER)
    return broken("writes", "iteration " + std::to_string(use.writer) + " wrote");
  use.writer = k;
  return std::nullopt;
}

std::optional<std::string> Machine::note_access(size_t cell, int lanes, bool write) {
  for (IndependentLoop& loop : independent_)
    for (int l = 0; l < lanes; ++l)
      if (auto why = note_in(loop, cell + static_cast<size_t>(l), write)) {
        broken_loop_ = loop.range;
        return why;
      }
  return std::nullopt;
}

}  // namespace interp_machine

void check_loop_kinds(const Program& p, const RefResult* ref) {
  RefResult own;
  if (!ref) {
    const std::vector<const UOp*> order = linearize(p);
    const bool any = std::any_of(order.begin(), order.end(),
                                 [](const UOp* u) { return u->op == Op::RANGE && u->range_kind() == RangeKind::Global; });
    if (!any) return;
    own = interpret(p, order);
    ref = &own;
  }
  if (!ref->undefined || !ref->undefined->bad_program) return;
  const auto it = p.origin.find(ref->undefined->node);
  throw UserError(ref->undefined->reason, it == p.origin.end() ? 0 : it->second.line);
}

}  // namespace uf

// The reducer's passes on what a program asks of its target's optimizer (docs/format.md, the `opts` line;
// docs/semantics.md, "Loop kinds"): shorter optimization sequences, smaller amounts, plainer loop kinds.
#include <algorithm>

#include "core/rewrite.h"
#include "fuzz/oracle/passes.h"

namespace uf {

// Every step dropped, then each one alone; each amount above 2 lowered to 2 and to its half.
void opts_steps(const PassInput& in) {
  if (!in.p.opts || in.p.opts->empty()) return;
  const OptSequence& s = *in.p.opts;
  auto offer = [&](OptSequence shorter) {
    Program q = in.p;
    q.opts = std::move(shorter);
    in.add(std::move(q));
  };
  if (s.size() > 1) offer({});
  for (size_t i = 0; i < s.size(); ++i) {
    OptSequence without = s;
    without.erase(without.begin() + static_cast<ptrdiff_t>(i));
    offer(std::move(without));
  }
  auto lowered = [&](size_t i, int64_t amount) {
    OptSequence smaller = s;
    smaller[i].arg = amount;
    offer(std::move(smaller));
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].arg > 2) lowered(i, 2);
    if (s[i].arg / 2 > 2) lowered(i, s[i].arg / 2);
  }
}

// A kind=global or kind=reduce RANGE becomes a plain loop (kind=loop), each on its own.
void range_kind_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  for (const UOp* u : in.order)
    if (u->op == Op::RANGE && u->range_kind() != RangeKind::Loop)
      offer_substitution(in, {{u, g.range(u->src[0], u->value.i, u->dtype, RangeKind::Loop)}});
}

void prune_opts(Program& p, const std::vector<const UOp*>& order) {
  if (!p.opts) return;
  std::erase_if(*p.opts, [&](const OptStep& o) {
    return o.axis >= 0 &&
           std::none_of(order.begin(), order.end(), [&](const UOp* u) { return u->op == Op::RANGE && u->value.i == o.axis; });
  });
}

}  // namespace uf

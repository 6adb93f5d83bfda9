// Approximated ops as stored leaves (generator.h, keep_approximated_as_leaves): the budget judges an
// approximate op's result where a STORE puts it straight into a BUFFER (fuzz/oracle/approx_verdict.h);
// anywhere else the target's approximation would flow into exact ops and be compared bit for bit there.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/program.h"
#include "core/rewrite.h"
#include "fuzz/gen/generator.h"
#include "interp/approx.h"

namespace uf {

namespace {

// The exact op an approximated one becomes where its result is not a stored leaf: NEG (unary) or MUL (POW),
// same dtype, same operands, total on every float.
const UOp* exact_in_place_of(Graph& g, const UOp* u) {
  return u->src.size() == 1 ? g.make(Op::NEG, {u->src[0]}) : g.make(Op::MUL, {u->src[0], u->src[1]});
}

// One round: the approximated nodes some node other than a BUFFER STORE no AFTER waits for uses, made exact. A replacement's
// own sources are not rewritten (substitute), so a chain of them takes a round per link.
// The STOREs some AFTER waits for (through ENDs and whatever else its ordering sources reach): what they
// wrote is read again, by an access ordered after them.
std::unordered_set<const UOp*> waited_for(const std::vector<const UOp*>& order) {
  std::unordered_set<const UOp*> seen, stores;
  std::vector<const UOp*> todo;
  for (const UOp* u : order)
    if (u->op == Op::AFTER) todo.insert(todo.end(), u->src.begin() + 1, u->src.end());
  while (!todo.empty()) {
    const UOp* u = todo.back();
    todo.pop_back();
    if (!seen.insert(u).second) continue;
    if (u->op == Op::STORE) stores.insert(u);
    todo.insert(todo.end(), u->src.begin(), u->src.end());
  }
  return stores;
}

bool one_round(Program& p, const std::vector<Op>& approx) {
  // approximate op on floats -> judged (is_approximated: a scalar of a dtype the budget covers) and every
  // use a STORE of it into a BUFFER; an fp8 or vector one is never judged, so never kept
  std::unordered_map<const UOp*, bool> leaf;
  const std::vector<const UOp*> order = linearize(p);
  const std::unordered_set<const UOp*> read_again = waited_for(order);
  for (const UOp* u : order)
    for (size_t k = 0; k < u->src.size(); ++k) {
      const UOp* s = u->src[k];
      if (!is_float(s->dtype) || std::find(approx.begin(), approx.end(), s->op) == approx.end()) continue;
      const bool stored = is_approximated(s, approx) && u->op == Op::STORE && k == 1 && u->src[0]->base()->op == Op::BUFFER &&
                          !read_again.count(u);
      const auto [it, fresh] = leaf.emplace(s, stored);
      if (!fresh) it->second = it->second && stored;
    }
  std::unordered_map<const UOp*, const UOp*> replace;
  for (const auto& [u, stored] : leaf)
    if (!stored) replace[u] = exact_in_place_of(*p.graph, u);
  if (!replace.empty()) p = substitute(p, replace);
  return !replace.empty();
}

}  // namespace

bool keep_approximated_as_leaves(Program& p, const std::vector<Op>& approx) {
  if (approx.empty()) return true;
  bool changed = false;
  while (one_round(p, approx)) changed = true;
  if (!changed) return true;
  try {
    verify(p);  // an index computed from a replaced value has another range: two stores may now collide
    return true;
  } catch (const UserError&) {
    return false;
  }
}

}  // namespace uf

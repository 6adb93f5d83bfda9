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

// A program keeps at most this many BUFFERs with the outputs added (a kernel takes 1024 at most, and a big
// program may approximate thousands of values).
constexpr size_t kMostBuffers = 32;

// Whether u's value is computed once per call: nothing under it is a RANGE (conservative: a load after a
// loop, through its END, counts as inside).
bool outside_loops(const UOp* u) {
  std::unordered_set<const UOp*> seen;
  std::vector<const UOp*> todo{u};
  while (!todo.empty()) {
    const UOp* x = todo.back();
    todo.pop_back();
    if (x->op == Op::RANGE) return false;
    if (seen.insert(x).second) todo.insert(todo.end(), x->src.begin(), x->src.end());
  }
  return true;
}

// Each value stored into a fresh one-element BUFFER (slots after the program's), the SINK taking the
// STOREs: the approximated values that had other uses keep being tested, as leaves of their own.
void store_each(Program& p, const std::vector<const UOp*>& values) {
  Graph& g = *p.graph;
  int64_t slot = p.buffers.empty() ? 0 : p.buffers.back()->slot + 1;
  std::vector<const UOp*> effects(p.sink->src.begin(), p.sink->src.end());
  const UOp* zero = g.constant(DType::I32, Scalar::zero());
  for (const UOp* v : values) {
    const int64_t one[] = {1};
    const UOp* out = g.memory(Op::BUFFER, v->dtype, one, slot++);
    effects.push_back(g.make(Op::STORE, {g.make(Op::INDEX, {out, zero}), v}));
  }
  p.sink = g.make(Op::SINK, std::span<const UOp* const>(effects));
  p.collect_buffers();
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
  std::vector<const UOp*> observed;  // judged ones outside every loop: stored to an output of their own too
  for (const UOp* u : order) {
    const auto it = leaf.find(u);
    if (it == leaf.end() || it->second) continue;
    replace[u] = exact_in_place_of(*p.graph, u);
    if (is_approximated(u, approx) && observed.size() + p.buffers.size() < kMostBuffers && outside_loops(u)) observed.push_back(u);
  }
  if (replace.empty()) return false;
  p = substitute(p, replace);
  if (!observed.empty()) store_each(p, observed);
  return true;
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

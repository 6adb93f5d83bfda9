// Properties of core over random well-typed programs: round trips, interning, linear order.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/text.h"
#include "tests/support/random_programs.h"

namespace uf::testing {
namespace {

Program arbitrary_program() {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const int size = *rc::gen::inRange(1, 60);
  return random_program(seed, size);
}

RC_GTEST_PROP(CoreProperties, PrintParseRoundTrip, ()) {
  Program p = arbitrary_program();
  verify(p);
  const std::string once = print_program(p);
  Program q = parse_program(once);
  verify(q);
  RC_ASSERT(print_program(q) == once);  // fmt is idempotent, and nothing is lost
  RC_ASSERT(linearize(q).size() == linearize(p).size());
}

RC_GTEST_PROP(CoreProperties, LinearOrderRespectsEveryEdge, ()) {
  Program p = arbitrary_program();
  const auto order = linearize(p);
  std::vector<int64_t> pos(p.graph->size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    RC_ASSERT(pos[order[i]->id] == -1);  // each node once
    pos[order[i]->id] = static_cast<int64_t>(i);
  }
  for (const UOp* u : order)
    for (const UOp* s : u->src) RC_ASSERT(pos[s->id] >= 0 && pos[s->id] < pos[u->id]);
  RC_ASSERT(order.back() == p.sink);
  for (size_t i = 1; i < order.size(); ++i) RC_ASSERT(order[i - 1]->id < order[i]->id);  // creation order
  RC_ASSERT(linearize(p) == order);                                                      // deterministic
}

RC_GTEST_PROP(CoreProperties, BuildingTwiceGivesTheSameNode, ()) {
  Program p = arbitrary_program();
  Graph& g = *p.graph;
  const size_t before = g.size();
  for (const UOp* u : linearize(p)) {
    const UOp* again = u->op == Op::CONST                            ? g.constant(u->dtype, u->value)
                       : (u->op == Op::BUFFER || u->op == Op::ALLOC) ? g.memory(u->op, u->dtype, u->len, u->slot)
                                                                     : g.make(u->op, u->src, u->dtype);
    RC_ASSERT(again == u);
  }
  RC_ASSERT(g.size() == before);
}

RC_GTEST_PROP(CoreProperties, ParsingIntoStructurallyEqualGraphs, ()) {
  // Two parses of one text give graphs with the same shape: the same canonical text, node for node.
  Program p = arbitrary_program();
  const std::string text = print_program(p);
  Program a = parse_program(text);
  Program b = parse_program(text);
  const auto oa = linearize(a), ob = linearize(b);
  RC_ASSERT(oa.size() == ob.size());
  for (size_t i = 0; i < oa.size(); ++i)
    RC_ASSERT(oa[i]->op == ob[i]->op && oa[i]->dtype == ob[i]->dtype && oa[i]->id == ob[i]->id);
}

}  // namespace
}  // namespace uf::testing

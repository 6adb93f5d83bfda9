// The 200 golden programs: parse, verify, interpret; every expect line must match exactly, and the
// two UNDEFINED programs must be UNDEFINED at the node their `meta reference` names. Then the same
// programs under random topological orders (RapidCheck) must give the same result.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

#include "core/text.h"
#include "interp/interp.h"
#include "tests/support/golden.h"

namespace uf::testing {
namespace {

// Empty when `got` holds exactly the expected values of every slot `want` lists.
std::string compare_buffers(const Program& p, const std::map<int64_t, Values>& want, const std::map<int64_t, Values>& got) {
  for (const auto& [slot, values] : want) {
    const UOp* b = p.buffer(slot);
    auto it = got.find(slot);
    if (!b || it == got.end()) return "slot " + std::to_string(slot) + " missing";
    if (it->second.size() != values.size()) return "slot " + std::to_string(slot) + " has the wrong length";
    for (size_t i = 0; i < values.size(); ++i)
      if (!same_value(b->dtype, it->second[i], values[i]))
        return "slot " + std::to_string(slot) + " element " + std::to_string(i) + ": got " +
               format_scalar(b->dtype, it->second[i]) + ", want " + format_scalar(b->dtype, values[i]);
  }
  return "";
}

TEST(InterpGoldenPrograms, AllTwoHundredMatchTheirExpectLines) {
  const auto& all = golden_programs();
  ASSERT_EQ(all.size(), 200u);
  int undefined = 0;
  for (const GoldenProgram& g : all) {
    SCOPED_TRACE(g.file);
    const Program& p = g.program;
    ASSERT_NO_THROW(verify(p));
    const RefResult r = interpret(p);
    if (g.undefined_at) {
      ++undefined;
      EXPECT_TRUE(p.expect.empty());
      ASSERT_TRUE(r.undefined.has_value()) << "want UNDEFINED at %" << *g.undefined_at;
      EXPECT_EQ(p.origin.at(r.undefined->node).id, *g.undefined_at) << r.undefined->reason;
      EXPECT_FALSE(r.undefined->reason.empty());
      continue;
    }
    ASSERT_FALSE(r.undefined.has_value()) << r.undefined->reason << " at " << p.node_name(r.undefined->node);
    // Every BUFFER has an expect line and the interpreter reports exactly those BUFFERs.
    EXPECT_EQ(p.expect.size(), p.buffers.size());
    EXPECT_EQ(r.buffers.size(), p.buffers.size());
    const std::string diff = compare_buffers(p, p.expect, r.buffers);
    EXPECT_EQ(diff, "");
  }
  EXPECT_EQ(undefined, 2);
}

// A random topological order of the nodes linearize(p) runs: Kahn's algorithm, the ready node picked
// by RapidCheck (so failures shrink toward a canonical order). The SINK stays last, as verify wants.
std::vector<const UOp*> random_order(const Program& p) {
  const std::vector<const UOp*> nodes = linearize(p);
  std::vector<int> pending(p.graph->size(), 0);  // sources not yet placed, counted per edge
  std::vector<std::vector<const UOp*>> users(p.graph->size());
  std::vector<const UOp*> ready;
  for (const UOp* u : nodes) {
    pending[u->id] = static_cast<int>(u->src.size());
    for (const UOp* s : u->src) users[s->id].push_back(u);
    if (u->src.empty()) ready.push_back(u);
  }
  const auto picks = *rc::gen::container<std::vector<size_t>>(nodes.size(), rc::gen::arbitrary<size_t>());
  std::vector<const UOp*> order;
  while (!ready.empty()) {
    size_t k = picks[order.size()] % ready.size();
    if (ready[k] == p.sink && ready.size() > 1) k = (k + 1) % ready.size();
    const UOp* u = ready[k];
    ready.erase(ready.begin() + static_cast<ptrdiff_t>(k));
    order.push_back(u);
    for (const UOp* user : users[u->id])
      if (--pending[user->id] == 0) ready.push_back(user);
  }
  RC_ASSERT(order.size() == nodes.size());
  return order;
}

RC_GTEST_PROP(InterpOrder, AnyTopologicalOrderGivesTheSameResult, ()) {
  // The two UNDEFINED programs are drawn a tenth of the time, so both kinds are always exercised.
  const auto& all = golden_programs();
  std::vector<size_t> undefined_ones;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].undefined_at) undefined_ones.push_back(i);
  const bool pick_undefined = *rc::gen::weightedElement<bool>({{1, true}, {9, false}});
  const auto& g = all[pick_undefined ? *rc::gen::elementOf(undefined_ones) : *rc::gen::inRange<size_t>(0, all.size())];
  RC_TAG(g.undefined_at.has_value() ? "undefined" : "defined");
  const Program& p = g.program;
  const std::vector<const UOp*> order = random_order(p);
  verify(p, order);  // a valid order for the verifier too
  const RefResult linear = interpret(p);
  const RefResult shuffled = interpret(p, order);
  RC_ASSERT(linear.undefined.has_value() == shuffled.undefined.has_value());
  if (linear.undefined) return;
  RC_ASSERT(shuffled.buffers.size() == linear.buffers.size());
  RC_ASSERT(compare_buffers(p, linear.buffers, shuffled.buffers) == "");
}

}  // namespace
}  // namespace uf::testing

// The reference on loops: the hand-written loop programs give their expect lines, and an index out of
// bounds in iteration k is UNDEFINED naming the node, the iteration and the index.
#include <gtest/gtest.h>

#include "core/probe.h"
#include "core/text.h"
#include "interp/interp.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

// loop_sum.uop adds i to an accumulator for i < 17: the probe of the in-loop ADD holds every partial sum,
// one element per iteration, and the RANGE's probe every iteration number, with the one element past the
// last iteration still holding its "no iteration" fill (-1).
TEST(LoopInterp, ProbesRecordEveryIteration) {
  const Program p = read_program(example_path("loop_sum.uop"));
  const Probe probe = instrument(p, ProbeScope::every_value);
  const RefResult ref = interpret(probe.program);
  ASSERT_FALSE(ref.undefined);
  bool saw_add = false, saw_range = false;
  for (const ProbePoint& at : probe.points) {
    if (at.loops.empty()) continue;
    ASSERT_EQ(at.count, 18) << at.node->id;
    const Values& v = ref.buffers.at(at.slot);
    if (at.node->op == Op::ADD) {
      saw_add = true;
      for (int64_t i = 0; i < 17; ++i) EXPECT_EQ(v[static_cast<size_t>(i)].i, i * (i + 1) / 2);
    }
    if (at.node->op == Op::RANGE) {
      saw_range = true;
      for (int64_t i = 0; i < 17; ++i) EXPECT_EQ(v[static_cast<size_t>(i)].i, i);
      EXPECT_EQ(v[17].i, -1);
    }
    // Iterations run in order: a later element is a later time.
    EXPECT_LT(probe_time(at, at.index), probe_time(at, at.index + 1));
  }
  EXPECT_TRUE(saw_add);
  EXPECT_TRUE(saw_range);
}

TEST(LoopInterp, UndefinedIndexNamesTheIteration) {
  // out[3 - 2*i] for i < 4: in bounds for i = 0, 1, then -1 at i = 2.
  const Program p = parse_program(
      "uops 2\n%0 = BUFFER i32[4] slot=0\n%1 = CONST i32 4\n%2 = RANGE i32 0 %1\n%3 = CONST i32 3\n%4 = CONST i32 2\n"
      "%5 = MUL i32 %2 %4\n%6 = SUB i32 %3 %5\n%7 = INDEX i32 %0 %6\n%8 = STORE void %7 %2\n%9 = END void %8 %2\n"
      "%10 = SINK void %9\n");
  verify(p);
  const RefResult r = interpret(p);
  ASSERT_TRUE(r.undefined);
  EXPECT_EQ(p.node_name(r.undefined->node), "%7");
  EXPECT_EQ(r.undefined->reason, "INDEX -1 out of bounds for BUFFER i32[4] slot=0 (in iteration %2 = 2)");
}

TEST(LoopInterp, GatedLoadTrueGateOutOfBounds) {
  const Program p = parse_program(
      "uops 2\n%0 = BUFFER i32[2] slot=0\n%1 = CONST i32 3\n%2 = RANGE i32 0 %1\n%3 = INDEX i32 %0 %2\n"
      "%4 = CONST bool true\n%5 = CONST i32 0\n%6 = LOAD i32 %3 %5 %4\n%7 = INDEX i32 %0 %5\n%8 = STORE void %7 %6\n"
      "%9 = END void %8 %2\n%10 = SINK void %9\n");
  const RefResult r = interpret(p);
  ASSERT_TRUE(r.undefined);
  EXPECT_EQ(r.undefined->reason, "INDEX 2 out of bounds for BUFFER i32[2] slot=0 (in iteration %2 = 2)");
}

TEST(LoopInterp, LoopStepBudgetStopsALongLoopWithoutAVerdict) {
  // Two nested loops of 2^20 and 3 iterations around one STORE: millions of node runs, far over 1000.
  const std::string text =
      "uops 2\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 1048576\n%2 = RANGE i32 0 %1\n%3 = CONST i32 3\n"
      "%4 = RANGE i32 1 %3\n%5 = CONST i32 0\n%6 = INDEX i32 %0 %5\n%7 = ADD i32 %2 %4\n%8 = STORE void %6 %7\n"
      "%9 = END void %8 %4 %2\n%10 = SINK void %9\n";
  const Program p = parse_program(text);
  verify(p);
  const RefResult stopped = interpret(p, Limits{1000});
  EXPECT_TRUE(stopped.over_budget);
  ASSERT_TRUE(stopped.undefined);
  EXPECT_EQ(p.node_name(stopped.undefined->node), "%2");
  // Spent each time a loop starts: the smallest budget that runs the nest grows with the outer trip count
  // exactly in proportion (each outer iteration charges its body and starts the inner loop once more).
  const auto with_outer_trips = [&](int n) {
    return parse_program(std::string(text).replace(text.find("1048576"), 7, std::to_string(n)));
  };
  const auto smallest_budget = [](const Program& q) {
    uint64_t budget = 0;
    while (interpret(q, Limits{budget}).over_budget) ++budget;
    return budget;
  };
  const Program small = with_outer_trips(2);
  const uint64_t two = smallest_budget(small);
  EXPECT_GT(two, 2u * 3u);  // at least the inner loop's 3 iterations, twice
  EXPECT_EQ(smallest_budget(with_outer_trips(4)), 2 * two);
  EXPECT_TRUE(interpret(small, Limits{two - 1}).undefined);
  const RefResult unbounded = interpret(small);
  EXPECT_FALSE(unbounded.over_budget);
  EXPECT_FALSE(unbounded.undefined);
}

}  // namespace
}  // namespace uf::testing

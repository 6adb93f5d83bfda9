// The reducer on loop programs (shrink steps 7-10): every loop step is strictly smaller, each kind of
// step is offered, and a bug that needs one iteration reduces to a program with at most one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/loops.h"
#include "core/text.h"
#include "fuzz/oracle/reduce.h"
#include "fuzz/oracle/shrink.h"
#include "interp/interp.h"
#include "tests/support/paths.h"
#include "tests/support/reduce.h"

namespace uf::testing {
namespace {

struct Counts {
  int ranges = 0, gates = 0, allocs = 0, ends = 0;
  int64_t max_trips = 0;  // the largest CONST trip count (-1: a computed one)
};

Counts counts(const Program& p) {
  Counts c;
  for (const UOp* u : linearize(p)) {
    c.ranges += u->op == Op::RANGE;
    c.gates += u->is_gated();
    c.allocs += u->op == Op::ALLOC;
    c.ends += u->op == Op::END;
    if (u->op == Op::RANGE) c.max_trips = u->src[0]->op == Op::CONST ? std::max(c.max_trips, u->src[0]->value.i) : -1;
  }
  return c;
}

TEST(LoopShrink, StepsAreStrictlySmallerAndEveryKindIsOffered) {
  for (const char* name : {"loop_sum.uop", "loop_reductions.uop", "loop_nest_divmod.uop", "loop_gated_load.uop",
                           "loop_gated_store.uop", "loop_trip_counts.uop", "loop_shift.uop"}) {
    const Program p = read_program(example_path(name));
    const ProgramCost cost = program_cost(p);
    const Counts before = counts(p);
    bool fewer_ranges = false, shorter = false, fewer_gates = false, fewer_ends = false;
    int valid = 0;
    for (const Program& q : shrink_candidates(p, {})) {
      EXPECT_LT(program_cost(q), cost) << name << "\n" << print_program(q);
      if (!verifies(q)) continue;
      ++valid;
      const Counts after = counts(q);
      fewer_ranges |= after.ranges < before.ranges;
      fewer_ends |= after.ends < before.ends;
      shorter |= after.ranges == before.ranges && program_cost(q).iterations < cost.iterations;
      fewer_gates |= after.gates < before.gates;
    }
    EXPECT_GT(valid, 0) << name;
    EXPECT_TRUE(fewer_ranges) << name << ": no candidate removes a loop";
    EXPECT_TRUE(fewer_ends) << name << ": no candidate drops an END";
    EXPECT_TRUE(before.max_trips <= 1 || shorter) << name << ": no candidate lowers a trip count";
    EXPECT_TRUE(before.gates == 0 || fewer_gates) << name << ": no candidate drops a gate";
  }
}

TEST(LoopShrink, OneIterationAsAConstantAndNestLevelsMerge) {
  // out[j] = (j // 3)*10 + j % 3 for j = 4*r0 + r1, r0 < 3, r1 < 4.
  const Program p = read_program(example_path("loop_nest_divmod.uop"));
  bool merged = false, as_constant = false;
  for (const Program& q : shrink_candidates(p, {})) {
    if (!verifies(q) || counts(q).ranges != 1) continue;
    EXPECT_EQ(counts(q).ends, 1) << print_program(q);  // the END of the removed loop is gone
    const RefResult ref = interpret(q);
    if (ref.undefined) continue;
    const Values& out = ref.buffers.at(0);
    // The inner loop as CONST 0 writes j = 4*r0 (0, 4, 8); merged into the outer one, j = 5*r0 (0, 5, 10).
    as_constant |= out.at(4).i == 11 && out.at(5).i == 0 && out.at(8).i == 22;
    merged |= out.at(5).i == 12 && out.at(4).i == 0 && out.at(10).i == 31;
  }
  EXPECT_TRUE(as_constant);
  EXPECT_TRUE(merged);
}

TEST(LoopShrink, AccumulatorReadsItsInitValue) {
  const Program p = read_program(example_path("loop_sum.uop"));
  bool dropped = false;
  for (const Program& q : shrink_candidates(p, {}))
    if (verifies(q) && counts(q).allocs == 0) {
      dropped = true;
      // out[0] = 0, the init value, read straight: no loop left either.
      EXPECT_EQ(counts(q).ranges, 0) << print_program(q);
    }
  EXPECT_TRUE(dropped);
}

TEST(LoopShrink, ACopyOutOfALoopBecomesTheLoopsOwnStore) {
  const Program p = parse_program(R"(uops 2
%0 = BUFFER i32[1] slot=0
%1 = CONST i32 0
%2 = ALLOC i32[1] slot=0
%3 = INDEX i32 %2 %1
%4 = INDEX i32 %0 %1
%5 = CONST i32 3
%6 = RANGE i32 0 %5
%7 = BUFFER i32[3] slot=1
%8 = INDEX i32 %7 %6
%9 = LOAD i32 %8
%10 = STORE void %3 %9
%11 = END void %10 %6
%12 = AFTER i32 %2 %11
%13 = INDEX i32 %12 %1
%14 = LOAD i32 %13
%15 = STORE void %4 %14
%16 = SINK void %15
data 1 = 1 2 3
)");
  bool copied = false;
  for (const Program& q : shrink_candidates(p, {}))
    if (verifies(q) && counts(q).allocs == 0 && counts(q).ranges == 1) {
      copied = true;
      const RefResult ref = interpret(q);
      ASSERT_FALSE(ref.undefined);
      EXPECT_EQ(ref.buffers.at(0).at(0).i, 3) << print_program(q);  // the last iteration's value, as before
    }
  EXPECT_TRUE(copied);
}

// A bug that shows in any single iteration (integer MUL rendered as ADD, in a reduction's body) reduces
// to a program whose loops, if any are left, run at most once.
TEST(LoopReduce, ABugOfOneIterationKeepsAtMostOne) {
  const CompiledPathConfig cfg = broken_renderer_config();
  const Program p = parse_program(R"(uops 2
%0 = BUFFER i32[1] slot=0
%1 = BUFFER i32[6] slot=1
%2 = CONST i32 6
%3 = CONST i32 0
%4 = CONST i32 3
%5 = ALLOC i32[1] slot=0
%6 = INDEX i32 %5 %3
%7 = STORE void %6 %3
%8 = RANGE i32 0 %2
%9 = AFTER i32 %5 %7 %8
%10 = INDEX i32 %9 %3
%11 = LOAD i32 %10
%12 = INDEX i32 %1 %8
%13 = LOAD i32 %12
%14 = MUL i32 %13 %4
%15 = ADD i32 %11 %14
%16 = STORE void %10 %15
%17 = END void %16 %8
%18 = AFTER i32 %5 %17
%19 = INDEX i32 %18 %3
%20 = LOAD i32 %19
%21 = INDEX i32 %0 %3
%22 = STORE void %21 %20
%23 = SINK void %22
data 1 = 1 2 3 4 5 6
)");
  const std::string sig = check({&p}, cfg).at(0).observation.signature;
  ASSERT_EQ(sig.rfind("mismatch", 0), 0u) << sig;
  const ReduceResult r = reduce_and_check(p, sig, cfg);
  const Counts c = counts(r.program);
  EXPECT_LE(c.max_trips, 1) << print_program(r.program);
  EXPECT_GE(c.max_trips, 0) << print_program(r.program);
  // The accumulator stays: the bucket is the first top-level node that diverges (in-loop values are not
  // probed), here the LOAD of the accumulator after the loop, and copying the loop's value out directly
  // would move it to the STORE.
  EXPECT_LE(program_cost(r.program).nodes, 13u) << print_program(r.program);
  std::printf("loop reduce: %zu -> %zu nodes, %d steps, %.1f s\n", program_cost(p).nodes, program_cost(r.program).nodes, r.steps,
              r.seconds);
}

}  // namespace
}  // namespace uf::testing

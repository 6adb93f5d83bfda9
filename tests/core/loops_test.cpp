// Loops, accumulators and gated memory in core (uops 2): reading and printing, and the verifier's loop
// rules with their exact `FILE:LINE: message`.
#include <gtest/gtest.h>

#include "core/loops.h"
#include "core/probe.h"
#include "core/text.h"
#include "tests/support/paths.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

std::string error_of(const std::string& text) { return parse_and_verify_error(text, "l.uop"); }

TEST(Loops, ExamplesRoundTripAndNest) {
  for (const char* name : {"loop_sum.uop", "loop_nest_divmod.uop", "loop_gated_load.uop", "loop_gated_store.uop"}) {
    const Program p = read_program(example_path(name));
    verify(p);
    const std::string printed = print_program(p);
    EXPECT_EQ(printed.substr(0, 7), "uops 2\n") << name;
    EXPECT_EQ(print_program(parse_program(printed)), printed) << name;
  }
  const Program nest = read_program(example_path("loop_nest_divmod.uop"));
  const Loops loops = analyze_loops(nest, linearize(nest));
  ASSERT_EQ(loops.ranges.size(), 2u);
  EXPECT_EQ(loops.parent[1], 0);  // r1 inside r0: the first RANGE in the order is outer
  EXPECT_EQ(loops.schedule.size(), linearize(nest).size());
}

// The probe program of a program with loops is still a valid program: values inside loops are probed
// once per iteration (each into a buffer of its own, so no two stores need ordering), RANGEs included.
TEST(Loops, ProbesOfLoopProgramsVerify) {
  for (const char* name : {"loop_sum.uop", "loop_nest_divmod.uop", "loop_gated_load.uop", "loop_gated_store.uop"}) {
    const Program p = read_program(example_path(name));
    const Probe probe = instrument(p, ProbeScope::every_value);
    EXPECT_NO_THROW(verify(probe.program)) << name;
    int ranges = 0;
    for (const ProbePoint& at : probe.points) ranges += at.node->op == Op::RANGE;
    EXPECT_GE(ranges, 1) << name;
    const Probe observed = instrument(p, ProbeScope::computed);  // observed kernels: outside loops only
    EXPECT_NO_THROW(verify(observed.program)) << name;
    for (const ProbePoint& at : observed.points) EXPECT_TRUE(at.loops.empty()) << name;
  }
}

const char* const kHead = "uops 2\n%0 = BUFFER i32[4] slot=0\n%1 = CONST i32 4\n%2 = RANGE i32 0 %1\n";

TEST(Loops, ValueUsedOutsideItsLoop) {
  EXPECT_EQ(error_of(std::string(kHead) + "%3 = INDEX i32 %0 %2\n%4 = STORE void %3 %2\n%5 = END void %4 %2\n"
                                          "%6 = AFTER i32 %0 %5\n%7 = INDEX i32 %6 %2\n%8 = LOAD i32 %7\n%9 = SINK void %8\n"),
            "l.uop:9: %7 uses %2, a value of the loop of RANGE %2, after that loop is closed (only memory carries "
            "values out of a loop)");
  EXPECT_EQ(error_of(std::string(kHead) + "%3 = INDEX i32 %0 %2\n%4 = STORE void %3 %2\n%5 = SINK void %4\n"),
            "l.uop:7: SINK %5 runs inside the loop of RANGE %2: close it with END");
}

TEST(Loops, EndClosesARange) {
  EXPECT_EQ(
      error_of(std::string(kHead) + "%3 = INDEX i32 %0 %2\n%4 = STORE void %3 %2\n%5 = END void %4 %1\n%6 = SINK void %5\n"),
      "l.uop:7: END closes source 1, a CONST, not a RANGE");
  EXPECT_EQ(
      error_of(std::string(kHead) + "%3 = CONST i32 2\n%4 = RANGE i32 1 %3\n%5 = ADD i32 %2 %4\n%6 = INDEX i32 %0 %5\n"
                                    "%7 = STORE void %6 %5\n%8 = END void %7 %2\n%9 = END void %8 %4\n%10 = SINK void %9\n"),
      "l.uop:10: END %8 closes RANGE %2 but not RANGE %4 inside it");
}

TEST(Loops, RangeEndOfTheSameDtype) {
  EXPECT_EQ(error_of("uops 2\n%0 = CONST i64 4\n%1 = RANGE i32 0 %0\n%2 = SINK void\n"),
            "l.uop:3: RANGE i32: its end is i64 (the same dtype)");
}

TEST(Loops, NeedVersion2) {
  EXPECT_EQ(error_of("uops 1\n%0 = CONST i32 4\n%1 = RANGE i32 0 %0\n"),
            "l.uop:3: RANGE in a version 1 file (loops need 'uops 2')");
  EXPECT_EQ(error_of("uops 1\n%0 = BUFFER i32[4] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = CONST bool true\n"
                     "%4 = LOAD i32 %2 %1 %3\n"),
            "l.uop:6: gated LOAD in a version 1 file (gated memory needs 'uops 2')");
}

TEST(Loops, AccessesInOneIterationNeedAPath) {
  // a[i] read and a[i+1] written in one iteration, not ordered: two iterations would see either order.
  EXPECT_EQ(error_of(std::string(kHead) +
                     "%3 = INDEX i32 %0 %2\n%4 = LOAD i32 %3\n%5 = CONST i32 1\n%6 = ADD i32 %2 %5\n"
                     "%7 = INDEX i32 %0 %6\n%8 = STORE void %7 %5\n%9 = BUFFER i32[4] slot=1\n%10 = INDEX i32 %9 %2\n"
                     "%11 = STORE void %10 %4\n%12 = END void %8 %2\n%13 = END void %11 %2\n%14 = SINK void %12 %13\n"),
            "l.uop:10: LOAD %4 and STORE %8 may touch the same element of BUFFER slot 0 with no path between them "
            "(order them with AFTER)");
}

}  // namespace
}  // namespace uf::testing

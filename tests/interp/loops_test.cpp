// The reference on loops: the hand-written loop programs give their expect lines, and an index out of
// bounds in iteration k is UNDEFINED naming the node, the iteration and the index.
#include <gtest/gtest.h>

#include "core/text.h"
#include "interp/interp.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

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

}  // namespace
}  // namespace uf::testing

// The verifier: ordering rule, constant bounds, data lines, slots.
#include <gtest/gtest.h>

#include "core/text.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

std::string error_of(const std::string& text) { return parse_and_verify_error(text, "t.uop"); }

const char* kHeader =
    "uops 1\n"
    "%0 = BUFFER f32[2] slot=0\n"
    "%1 = ALLOC f32[2] slot=0\n"
    "%2 = CONST i32 0\n"
    "%3 = INDEX f32 %1 %2\n"
    "%4 = CONST f32 1.0\n"
    "%5 = STORE void %3 %4\n";

TEST(Verify, ReadOfAWriteNeedsAPath) {
  // The load reads tmp[0] without AFTER: the two accesses are unordered.
  const std::string bad = std::string(kHeader) +
                          "%6 = LOAD f32 %3\n"
                          "%7 = INDEX f32 %0 %2\n"
                          "%8 = STORE void %7 %6\n"
                          "%9 = SINK void %5 %8\n";
  EXPECT_EQ(error_of(bad),
            "t.uop:8: STORE %5 and LOAD %6 may touch the same element of ALLOC slot 0 with no path between "
            "them (order them with AFTER)");
  const std::string good = std::string(kHeader) +
                           "%6 = AFTER f32 %1 %5\n"
                           "%7 = INDEX f32 %6 %2\n"
                           "%8 = LOAD f32 %7\n"
                           "%9 = INDEX f32 %0 %2\n"
                           "%10 = STORE void %9 %8\n"
                           "%11 = SINK void %10\n";
  EXPECT_EQ(error_of(good), "");
}

TEST(Verify, DifferentConstantIndicesDoNotConflict) {
  const std::string text = std::string(kHeader) +
                           "%6 = CONST i32 1\n"
                           "%7 = INDEX f32 %1 %6\n"
                           "%8 = STORE void %7 %4\n"
                           "%9 = SINK void %5 %8\n";
  EXPECT_EQ(error_of(text), "");
  // Two stores to the same constant index, unordered: an error.
  const std::string same = std::string(kHeader) +
                           "%6 = CONST f32 2.0\n"
                           "%7 = STORE void %3 %6\n"
                           "%8 = SINK void %5 %7\n";
  EXPECT_NE(error_of(same).find("STORE %5 and STORE %7 may touch the same element"), std::string::npos);
}

TEST(Verify, LoadedIndexMayAliasAnything) {
  const std::string text =
      "uops 1\n"
      "%0 = BUFFER i32[2] slot=0\n"
      "%1 = CONST i32 0\n"
      "%2 = INDEX i32 %0 %1\n"
      "%3 = LOAD i32 %2\n"
      "%4 = INDEX i32 %0 %3\n"  // data0[data0[0]]
      "%5 = CONST i32 1\n"
      "%6 = INDEX i32 %0 %5\n"
      "%7 = STORE void %6 %1\n"  // data0[1] = 0, unordered with the load at data0[data0[0]]
      "%8 = LOAD i32 %4\n"
      "%9 = STORE void %2 %8\n"
      "%10 = SINK void %7 %9\n";
  EXPECT_NE(error_of(text).find("STORE %7 and LOAD %8"), std::string::npos) << error_of(text);
}

TEST(Verify, ConstantIndexBounds) {
  const std::string text =
      "uops 1\n"
      "%0 = BUFFER f32[4] slot=0\n"
      "%1 = CONST i32 7\n"
      "%2 = INDEX f32 %0 %1\n"
      "%3 = LOAD f32 %2\n"
      "%4 = STORE void %2 %3\n"
      "%5 = SINK void %4\n";
  EXPECT_EQ(error_of(text), "t.uop:4: INDEX %2: constant index 7 out of bounds for BUFFER f32[4]");
}

TEST(Verify, DeadCodeIsNotChecked) {
  // The out-of-bounds INDEX is dead: nothing reachable from the SINK uses it.
  const std::string text =
      "uops 1\n"
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = CONST i32 9\n"
      "%2 = INDEX f32 %0 %1\n"
      "%3 = LOAD f32 %2\n"
      "%4 = CONST i32 0\n"
      "%5 = INDEX f32 %0 %4\n"
      "%6 = CONST f32 1.0\n"
      "%7 = STORE void %5 %6\n"
      "%8 = SINK void %7\n";
  EXPECT_EQ(error_of(text), "");
}

TEST(Verify, SlotsAndDataLines) {
  const char* two =
      "uops 1\n"
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = BUFFER i32[1] slot=0\n"
      "%2 = SINK void\n";
  EXPECT_EQ(error_of(two), "t.uop:3: two different BUFFERs use slot 0 (%0, %1)");
  const char* data =
      "uops 1\n"
      "%0 = BUFFER f32[2] slot=0\n"
      "%1 = SINK void\n"
      "data 0 = 1.0\n";
  EXPECT_EQ(error_of(data), "t.uop:4: data 0: 1 values for f32[2]");
  const char* noslot =
      "uops 1\n"
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = SINK void\n"
      "expect 3 = 1.0\n";
  EXPECT_EQ(error_of(noslot), "t.uop:4: expect 3: no BUFFER with slot 3");
}

}  // namespace
}  // namespace uf::testing

// Loop kinds (docs/semantics.md, "Loop kinds") and the opts line: the text keeps them, the reference runs
// every kind as a loop, and a kind=global loop whose iterations are not independent is a bad program,
// located at its RANGE (interp/independence.cpp).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <vector>

#include "core/text.h"
#include "interp/interp.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

// Every buffer's values as bits (Scalar has no ==: NaNs compare by their bits here).
std::map<int64_t, std::vector<uint64_t>> bits(const std::map<int64_t, Values>& buffers) {
  std::map<int64_t, std::vector<uint64_t>> out;
  for (const auto& [slot, vals] : buffers)
    for (const Scalar v : vals) out[slot].push_back(v.u);
  return out;
}

std::string text_of(const std::string& file) {
  const Program p = read_program(example_path(file));
  return print_program(p);
}

TEST(LoopKinds, KindsAndOptsRoundTripAndLeaveTheResult) {
  const Program p = read_program(example_path("loop_global_reduce_nest.uop"));
  const std::string text = print_program(p);
  EXPECT_NE(text.find("opts UPCAST:0:3 UNROLL:1:2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("RANGE i32 0 %2 kind=global\n"), std::string::npos) << text;
  EXPECT_NE(text.find("kind=reduce\n"), std::string::npos) << text;
  EXPECT_EQ(print_program(parse_program(text)), text);
  const RefResult r = interpret(p);
  ASSERT_FALSE(r.undefined) << r.undefined->reason;
  EXPECT_EQ(bits(r.buffers).at(1), bits(p.expect).at(1));
  EXPECT_NO_THROW(check_loop_kinds(p));
  // The same loops as kind=loop compute the same: a kind changes no result.
  const std::string plain = std::regex_replace(text, std::regex(" kind=[a-z]+"), "");
  EXPECT_EQ(bits(interpret(parse_program(plain)).buffers), bits(r.buffers));
}

// Bodies that break independence (an output and an anti-dependence), and the message each gets.
TEST(LoopKinds, AGlobalLoopThatIsNotIndependentIsABadProgramAtItsRange) {
  const std::string head =
      "uops 2\n%0 = BUFFER i32[4] slot=0\n%1 = CONST i32 4\n%2 = CONST i32 0\n%3 = RANGE i32 0 %1 kind=global\n";
  const std::pair<std::string, std::string> cases[] = {
      // every iteration writes out[0]: the result is the last iteration's
      {"%4 = INDEX i32 %0 %2\n%5 = STORE void %4 %3\n%6 = END void %5 %3\n%7 = SINK void %6\n",
       "RANGE %3 is kind=global, but iteration 1 writes element 0 of BUFFER i32[4] slot=0, which iteration 0 wrote"},
      // a[i] = a[(i+1) % 4]: iteration 1 overwrites what iteration 0 read (anti-dependence)
      {"%4 = CONST i32 1\n%5 = ADD i32 %3 %4\n%6 = FLOORMOD i32 %5 %1\n%7 = INDEX i32 %0 %6\n%8 = LOAD i32 %7\n"
       "%9 = INDEX i32 %0 %3\n%10 = STORE void %9 %8\n%11 = END void %10 %3\n%12 = SINK void %11\n",
       "RANGE %3 is kind=global, but iteration 1 writes element 1 of BUFFER i32[4] slot=0, which iteration 0 read"},
  };
  for (const auto& [body, message] : cases) {
    const Program p = parse_program(head + body, "g.uop");
    try {
      check_loop_kinds(p);
      ADD_FAILURE() << "no error for\n" << body;
    } catch (const UserError& e) {
      EXPECT_EQ(e.line, 5);
      EXPECT_NE(std::string(e.what()).find("its iterations are not independent (use kind=loop)"), std::string::npos) << e.what();
      if (!message.empty()) {
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      }
    }
    // As a plain loop the same program is fine.
    EXPECT_NO_THROW(check_loop_kinds(parse_program(std::regex_replace(head + body, std::regex(" kind=global"), ""))));
  }
}

// An accumulator carried from one iteration to the next (loop_sum.uop's, called global) is a flow
// dependence; the same ALLOC written first in each iteration (the nest above) is private scratch.
TEST(LoopKinds, AnAccumulatorCarriedAcrossIterationsIsNotIndependent) {
  const std::string text = std::regex_replace(text_of("loop_sum.uop"), std::regex("(RANGE i32 0 %[0-9]+)"), "$1 kind=global");
  const Program p = parse_program(text, "s.uop");
  const RefResult r = interpret(p);
  ASSERT_TRUE(r.undefined);
  EXPECT_TRUE(r.undefined->bad_program);
  EXPECT_NE(r.undefined->reason.find("reads element 0 of ALLOC i32[1] slot=0, which iteration 0 wrote"), std::string::npos)
      << r.undefined->reason;
  EXPECT_THROW(check_loop_kinds(p), UserError);
}

TEST(LoopKinds, OptsMustNameOneRange) {
  const std::string text = text_of("loop_global_reduce_nest.uop");
  for (const auto& [opts, message] : {std::pair{"opts UPCAST:7:3", "opts: UPCAST:7:3 names axis 7, which no RANGE of the program has"},
                                      {"opts UPCAST:0:3 UPCAST:0", ""}}) {
    const std::string changed = std::regex_replace(text, std::regex("opts [^\n]*"), opts);
    if (std::string(message).empty()) {
      EXPECT_NO_THROW(verify(parse_program(changed)));
      continue;
    }
    try {
      verify(parse_program(changed, "o.uop"));
      ADD_FAILURE() << opts;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), message);
      EXPECT_EQ(e.line, 3);
    }
  }
}

}  // namespace
}  // namespace uf::testing

// Vector dtypes (uops 2): reading and printing, the type rules, the verifier's vector rules.
#include <gtest/gtest.h>

#include "core/text.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

std::string error_of(const std::string& text) { return parse_and_verify_error(text, "v.uop"); }

const char* const kCanonical =
    "uops 2\n"
    "%0 = BUFFER f32[8] slot=0\n"
    "%1 = CONST i32 0\n"
    "%2 = INDEX f32 %0 %1\n"
    "%3 = LOAD f32x4 %2\n"
    "%4 = CONST f32x4 1.5\n"
    "%5 = ADD f32x4 %3 %4\n"
    "%6 = CMPLT boolx4 %3 %5\n"
    "%7 = WHERE f32x4 %6 %5 %3\n"
    "%8 = GEP f32 3 %7\n"
    "%9 = GEP f32 0 %7\n"
    "%10 = STACK f32x2 %8 %9\n"
    "%11 = CAST i32x2 %10\n"
    "%12 = BITCAST f32x2 %11\n"
    "%13 = CONST i32 4\n"
    "%14 = INDEX f32 %0 %13\n"
    "%15 = STORE void %14 %7\n"
    "%16 = CONST i32 2\n"
    "%17 = INDEX f32 %0 %16\n"
    "%18 = AFTER f32 %17 %15\n"
    "%19 = STORE void %18 %12\n"
    "%20 = SINK void %19\n";

TEST(Vector, CanonicalRoundTrip) {
  const Program p = parse_program(kCanonical);
  verify(p);
  EXPECT_EQ(print_program(p), kCanonical);
  EXPECT_EQ(print_program(parse_program(print_program(p))), kCanonical);
}

TEST(Vector, VectorizeIsReadAsStack) {
  std::string text = kCanonical;
  text.replace(text.find("STACK"), 5, "VECTORIZE");
  EXPECT_EQ(print_program(parse_program(text)), kCanonical);
}

TEST(Vector, LanesAreInterned) {
  Graph g;
  const UOp* a = g.constant(DType::F32, Scalar::of_float(1.0));
  const UOp* b = g.constant(DType::F32, Scalar::of_float(1.0), 4);
  const UOp* c = g.constant(DType::F32, Scalar::of_float(1.0), 4);
  EXPECT_NE(a, b);
  EXPECT_EQ(b, c);
  EXPECT_EQ(b->lanes, 4);
  EXPECT_EQ(g.gep(b, 1), g.gep(c, 1));
  EXPECT_NE(g.gep(b, 1), g.gep(b, 2));
}

TEST(Vector, ScalarProgramsStayVersionOne) {
  const std::string v1 =
      "uops 1\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = STORE void %2 %1\n%4 = SINK void %3\n";
  EXPECT_EQ(print_program(parse_program(v1)), v1);
  std::string v2 = v1;
  v2[5] = '2';
  EXPECT_EQ(print_program(parse_program(v2)), v1);  // the header follows the content
}

TEST(Vector, Errors) {
  const std::string head = "uops 2\n%0 = BUFFER f32[8] slot=0\n%1 = CONST i32 0\n%2 = INDEX f32 %0 %1\n";
  const std::string sink = "%9 = SINK void\n";
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"uops 1\n%0 = CONST f32x4 1.0\n", "v.uop:2: vector f32x4 in a version 1 file (vectors need 'uops 2')"},
      {head + "%3 = LOAD f32x17 %2\n", "v.uop:5: vector dtype 'f32x17': lanes must be 2 to 16"},
      {head + "%3 = LOAD f32x1 %2\n", "v.uop:5: vector dtype 'f32x1': lanes must be 2 to 16"},
      {head + "%3 = LOAD voidx2 %2\n", "v.uop:5: vector dtype 'voidx2': no vector of void"},
      {"uops 2\n%0 = BUFFER f32x4[2] slot=0\n", "v.uop:2: unknown dtype 'f32x4'"},
      {head + "%3 = LOAD f32x4 %2\n%4 = LOAD f32x2 %2\n%5 = ADD f32x4 %3 %4\n", "v.uop:7: ADD: lane mismatch f32x4 vs f32x2"},
      {head + "%3 = LOAD f32x4 %2\n%4 = ADD f32x4 %3 %1\n", "v.uop:6: ADD: dtype mismatch f32 vs i32 (use CAST)"},
      {head + "%3 = LOAD f32x4 %2\n%4 = ADD f32 %3 %3\n", "v.uop:6: ADD: result is f32x4, not f32"},
      {head + "%3 = LOAD f32x4 %2\n%4 = CMPLT bool %3 %3\n", "v.uop:6: CMPLT: result is boolx4, not bool"},
      {head + "%3 = LOAD f32x4 %2\n%4 = CAST i32x2 %3\n", "v.uop:6: CAST: result is i32x4, not i32x2"},
      {head + "%3 = LOAD f32x4 %2\n%4 = GEP f32 4 %3\n", "v.uop:6: GEP lane 4 out of range for f32x4"},
      {head + "%3 = GEP f32 0 %1\n", "v.uop:5: GEP needs a vector, got i32"},
      {head + "%3 = LOAD f32x4 %2\n%4 = GEP f32x2 0 %3\n", "v.uop:6: GEP: result is a scalar, not f32x2"},
      {head + "%3 = STACK i32x2 %1 %2\n", "v.uop:5: STACK needs values, not memory (LOAD it first)"},
      {head + "%3 = STACK i32x2 %1\n", "v.uop:5: STACK takes 2 to 16 scalars, got 1"},
      {head + "%3 = LOAD f32x2 %2\n%4 = STACK f32x2 %3 %3\n", "v.uop:6: STACK of a vector (f32x2): its sources are scalars"},
      {head + "%3 = LOAD f32x2 %2\n%4 = WHERE f32x2 %1 %3 %3\n", "v.uop:6: WHERE condition must be bool, got i32"},
      {"uops 2\n%0 = BUFFER f32[2] slot=0\n%1 = CONST i32 0\n%2 = INDEX f32 %0 %1\n%3 = LOAD f32x4 %2\n",
       "v.uop:5: LOAD of 4 lanes from BUFFER f32[2]: the memory is shorter than the vector"},
      {head + "%3 = CONST i32x4 1\n%4 = INDEX f32 %0 %3\n", "v.uop:6: INDEX indices are i32 scalars"},
      {"uops 2\n%0 = BUFFER f32[8] slot=0\n%1 = CONST i32 6\n%2 = INDEX f32 %0 %1\n%3 = LOAD f32x4 %2\n"
       "%4 = STORE void %2 %3\n%5 = SINK void %4\n",
       "v.uop:5: LOAD %3: 4 lanes at constant index 6 out of bounds for BUFFER f32[8]"},
      // Element ranges [0,4) and [2,6) overlap: the STOREs need a path.
      {"uops 2\n%0 = BUFFER f32[8] slot=0\n%1 = CONST f32x4 1.0\n%2 = CONST i32 0\n%3 = INDEX f32 %0 %2\n"
       "%4 = STORE void %3 %1\n%5 = CONST i32 2\n%6 = INDEX f32 %0 %5\n%7 = STORE void %6 %1\n%8 = SINK void %4 %7\n",
       "v.uop:9: STORE %4 and STORE %7 may touch the same element of BUFFER slot 0 with no path between them "
       "(order them with AFTER)"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(error_of(c.text + (c.text.find("SINK") == std::string::npos ? sink : "")), c.message) << c.text;
}

TEST(Vector, DisjointConstantRangesNeedNoOrder) {
  EXPECT_EQ(error_of("uops 2\n%0 = BUFFER f32[8] slot=0\n%1 = CONST f32x4 1.0\n%2 = CONST i32 0\n%3 = INDEX f32 %0 %2\n"
                     "%4 = STORE void %3 %1\n%5 = CONST i32 4\n%6 = INDEX f32 %0 %5\n%7 = STORE void %6 %1\n"
                     "%8 = SINK void %4 %7\n"),
            "");
}

}  // namespace
}  // namespace uf::testing

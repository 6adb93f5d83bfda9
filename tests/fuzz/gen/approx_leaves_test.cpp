// keep_approximated_as_leaves (fuzz/gen/generator.h): an approximated op stays only where a STORE puts its
// value straight into a BUFFER; one that any other node uses, that is stored into an ALLOC, that is a
// vector, or whose dtype the budget does not cover (fp8) becomes NEG (POW: MUL), chains of them too, and one
// computed outside loops is stored to an output BUFFER of its own as well; ops the
// target does not approximate stay; and on generated programs every approximated op left is a stored leaf,
// the few that no longer verify (an index computed from such an op) said so.
#include <gtest/gtest.h>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "interp/approx.h"

namespace uf::testing {
namespace {

const std::vector<Op> kTinygrad = {Op::EXP2, Op::LOG2, Op::SIN, Op::POW};

size_t count(const Program& p, Op op) {
  size_t n = 0;
  for (const UOp* u : linearize(p)) n += u->op == op;
  return n;
}

// sin(x) stored, and sin(x) * 2 stored: the second SIN is used by a MUL.
const char* kTwoSins = R"(uops 1
%0 = BUFFER f32[2] slot=0
%1 = CONST i32 0
%2 = INDEX f32 %0 %1
%3 = LOAD f32 %2
%4 = SIN f32 %3
%5 = STORE void %2 %4
%6 = CONST i32 1
%7 = INDEX f32 %0 %6
%8 = LOAD f32 %7
%9 = SIN f32 %8
%10 = CONST f32 2.0
%11 = MUL f32 %9 %10
%12 = STORE void %7 %11
%13 = LOG2 f32 %8
%14 = SINK void %5 %12
)";

// The used one becomes NEG where it is used, and is stored to an output of its own (slot 1) as a leaf.
TEST(ApproxLeaves, OnlyAStoredLeafStaysApproximate) {
  Program p = parse_program(kTwoSins);
  EXPECT_TRUE(keep_approximated_as_leaves(p, kTinygrad));
  EXPECT_EQ(count(p, Op::SIN), 2u);
  EXPECT_EQ(count(p, Op::NEG), 1u);
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[1]->slot, 1);
  EXPECT_EQ(p.buffers[1]->dtype, DType::F32);
  verify(p);
  Program q = parse_program(kTwoSins);
  keep_approximated_as_leaves(q, {Op::EXP2});  // SIN not approximated: both stay
  EXPECT_EQ(count(q, Op::SIN), 2u);
  keep_approximated_as_leaves(q, {});
  EXPECT_EQ(count(q, Op::SIN), 2u);
}

TEST(ApproxLeaves, AnFp8OneIsNeverKept) {
  std::string text = kTwoSins;
  for (size_t at; (at = text.find("f32")) != std::string::npos;) text.replace(at, 3, "fp8e4m3");
  Program p = parse_program(text);
  keep_approximated_as_leaves(p, kTinygrad);
  EXPECT_EQ(count(p, Op::SIN), 0u);
}

TEST(ApproxLeaves, GeneratedProgramsKeepOnlyStoredLeaves) {
  GenPolicy pol;
  size_t kept = 0;
  size_t refused = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program p = generate(seed, pol);
    if (!keep_approximated_as_leaves(p, kTinygrad)) {
      ++refused;
      continue;
    }
    verify(p);
    for (const UOp* u : linearize(p))
      for (size_t k = 0; k < u->src.size(); ++k) {
        if (!is_approximated(u->src[k], kTinygrad)) continue;
        ++kept;
        EXPECT_TRUE(u->op == Op::STORE && k == 1 && u->src[0]->base()->op == Op::BUFFER) << "seed " << seed << "\n" << print_program(p);
      }
  }
  EXPECT_GT(kept, 10u);      // the generator does store them straight
  EXPECT_LT(refused, 15u);  // and rarely computes an index from them
}

}  // namespace
}  // namespace uf::testing

// A policy fitted to a target's kernels (fuzz/gen/policy_fit.h): what is counted in one kernel of
// tinygrad's shape, and how the counts move the policy's tables.
#include <gtest/gtest.h>

#include <numeric>

#include "core/text.h"
#include "fuzz/gen/policy_fit.h"

namespace uf::testing {
namespace {

// tinygrad's kernel of a concatenation along an axis: out[i, j] = j // 4 != 0 ? a[i, j % 4] : b[i, j % 4]
// over RANGEs of 3 and 8 (as plugins/tinygrad/tg_record.py records it).
constexpr const char* kConcat = R"(uops 2
%0 = CONST i32 3
%1 = RANGE i32 0 %0
%2 = CONST i32 8
%3 = RANGE i32 1 %2
%4 = BUFFER i32[24] slot=0
%5 = MUL i32 %1 %2
%6 = ADD i32 %5 %3
%7 = INDEX i32 %4 %6
%8 = CONST i32 4
%9 = FLOORDIV i32 %3 %8
%10 = CONST i32 0
%11 = CMPNE bool %9 %10
%12 = BUFFER i32[12] slot=1
%13 = MUL i32 %1 %8
%14 = FLOORMOD i32 %3 %8
%15 = ADD i32 %13 %14
%16 = INDEX i32 %12 %15
%17 = LOAD i32 %16
%18 = BUFFER i32[12] slot=2
%19 = INDEX i32 %18 %15
%20 = LOAD i32 %19
%21 = WHERE i32 %11 %17 %20
%22 = STORE void %7 %21
%23 = END void %22 %1 %3
%24 = SINK void %23
)";

size_t at(Op op) { return static_cast<size_t>(op); }
size_t at(LoopRead r) { return static_cast<size_t>(r); }

TEST(PolicyFit, CountsTheShapesOfAKernel) {
  const KernelShapes s = measure_shapes({parse_program(kConcat)});
  EXPECT_EQ(s.kernels, 1);
  EXPECT_EQ(s.ops[at(Op::MUL)], 2);
  EXPECT_EQ(s.ops[at(Op::ADD)], 2);
  EXPECT_EQ(s.ops[at(Op::FLOORDIV)], 1);
  EXPECT_EQ(s.ops[at(Op::FLOORMOD)], 1);
  EXPECT_EQ(s.ops[at(Op::CMPNE)], 1);
  EXPECT_EQ(s.ops[at(Op::WHERE)], 1);
  EXPECT_EQ(std::accumulate(s.ops.begin(), s.ops.end(), 0.0), 8);
  EXPECT_EQ(s.dtypes[static_cast<size_t>(DType::I32)], 8) << "the comparison's and the WHERE's operands are i32";
  EXPECT_EQ(s.depths[1], 1) << "two RANGEs";
  EXPECT_EQ(s.trips[2], 1) << "3 iterations: kTripCounts[2]";
  EXPECT_EQ(s.trips[11], 1) << "8 iterations: kTripCounts[11] = 8, not the nearby 7";
  EXPECT_EQ(s.reads[at(LoopRead::Mod)], 2) << "both loads index i * 4 + j % 4";
  EXPECT_EQ(std::accumulate(s.reads.begin(), s.reads.end(), 0.0), 2);
  EXPECT_EQ(s.binary, 6) << "two MULs, two ADDs, the FLOORDIV and the FLOORMOD (not the comparison)";
  EXPECT_EQ(s.nested, 0) << "no op on its own op: an ADD of a MUL is not nested";
  EXPECT_EQ(s.unary, 0);
}

// The shares of nested ops and of unary ops on a sum: (x % 5) % 5 and -(x + 3), one each.
TEST(PolicyFit, CountsNestedOpsAndUnaryOpsOnASum) {
  const KernelShapes s = measure_shapes({parse_program(R"(uops 1
%0 = BUFFER i32[1] slot=0
%1 = CONST i32 0
%2 = INDEX i32 %0 %1
%3 = LOAD i32 %2
%4 = CONST i32 5
%5 = FLOORMOD i32 %3 %4
%6 = FLOORMOD i32 %5 %4
%7 = CONST i32 3
%8 = ADD i32 %3 %7
%9 = NEG i32 %8
%10 = ADD i32 %6 %9
%11 = STORE void %2 %10
%12 = SINK void %11
)")});
  EXPECT_EQ(s.binary, 4);
  EXPECT_EQ(s.nested, 1) << "the outer FLOORMOD";
  EXPECT_EQ(s.unary, 1);
  EXPECT_EQ(s.unary_of_affine, 1);
  GenPolicy base;
  const GenPolicy half = fit_policy(base, s, 0.5);
  EXPECT_NEAR(half.p_nest_op, (base.p_nest_op + 0.25) / 2, 1e-12);
  EXPECT_NEAR(half.p_unary_of_affine, (base.p_unary_of_affine + 1.0) / 2, 1e-12);
}

// The loop and logic idioms: a one-hot select in a loop, a mask of a mask (two masks: one counted twice),
// and a bool AND of a logical not and a comparison.
TEST(PolicyFit, CountsOneHotSelectsMasksOfMasksAndLogicalNots) {
  const KernelShapes s = measure_shapes({parse_program(R"(uops 2
%0 = BUFFER i32[8] slot=0
%1 = BUFFER bool[1] slot=1
%2 = CONST i32 8
%3 = CONST i32 0
%4 = CONST i32 3
%5 = CONST bool true
%6 = INDEX bool %1 %3
%7 = LOAD bool %6
%8 = CMPNE bool %7 %5
%9 = RANGE i32 0 %2
%10 = CMPNE bool %4 %9
%11 = CMPLT bool %9 %4
%12 = AND bool %8 %11
%13 = WHERE i32 %10 %3 %9
%14 = WHERE i32 %12 %13 %3
%15 = INDEX i32 %0 %9
%16 = STORE void %15 %14
%17 = END void %16 %9
%18 = SINK void %17
)")});
  EXPECT_EQ(s.loop_kernels, 1);
  EXPECT_EQ(s.one_hot, 1);
  EXPECT_EQ(s.masks, 2) << "both WHEREs have a zero branch";
  EXPECT_EQ(s.masks_twice, 1) << "the outer one: on an AND, of a WHERE";
  EXPECT_EQ(s.logic_operands, 2);
  EXPECT_EQ(s.nots, 1);
  const GenPolicy half = fit_policy(GenPolicy{}, s, 0.5);
  EXPECT_NEAR(half.p_one_hot, 0.5, 1e-12);
  EXPECT_NEAR(half.p_mask_twice, 0.25, 1e-12);
  EXPECT_NEAR(half.p_not_operand, 0.25, 1e-12);
}

TEST(PolicyFit, BlendsEachTableTowardTheKernels) {
  const KernelShapes s = measure_shapes({parse_program(kConcat)});
  GenPolicy base;
  base.op_weight[at(Op::SIN)] = 0;  // as --without would
  const GenPolicy none = fit_policy(base, s, 0), all = fit_policy(base, s, 1), half = fit_policy(base, s, 0.5);
  EXPECT_EQ(none.op_weight, base.op_weight);
  EXPECT_EQ(none.loop_read_weight, base.loop_read_weight);
  const auto total = [](const auto& t) { return std::accumulate(t.begin(), t.end(), 0.0); };
  // weight 1: the kernels' proportions, at the base table's total
  EXPECT_NEAR(total(all.op_weight), total(base.op_weight), 1e-9);
  EXPECT_NEAR(all.op_weight[at(Op::MUL)] / all.op_weight[at(Op::CMPNE)], 2.0, 1e-9);
  EXPECT_EQ(all.op_weight[at(Op::XOR)], 0) << "not in the kernels";
  EXPECT_NEAR(all.loop_read_weight[at(LoopRead::Mod)], total(base.loop_read_weight), 1e-9);
  // weight 0.5: halfway; what the base zeroes stays zero whatever the weight
  EXPECT_NEAR(half.op_weight[at(Op::MUL)], (base.op_weight[at(Op::MUL)] + all.op_weight[at(Op::MUL)]) / 2, 1e-9);
  EXPECT_GT(half.op_weight[at(Op::XOR)], 0);
  EXPECT_EQ(half.op_weight[at(Op::SIN)], 0);
  // a table with nothing measured (no kernel has a loop) keeps the base's
  const KernelShapes flat = measure_shapes({parse_program("uops 1\n%0 = BUFFER f32[1] slot=0\n%1 = CONST i32 0\n"
                                                          "%2 = INDEX f32 %0 %1\n%3 = CONST f32 1.0\n%4 = STORE void %2 %3\n"
                                                          "%5 = SINK void %4\n")});
  EXPECT_EQ(fit_policy(base, flat, 1).loop_depth_weight, base.loop_depth_weight);
}

}  // namespace
}  // namespace uf::testing

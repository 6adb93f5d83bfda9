// A policy fitted to a target's own kernels (`uopfuzz policy --fit DIR`): the generator's shape tables
// moved toward what the kernels are made of, so that even blind generation builds programs more like
// the target's (issue 35: tinygrad's kernels as plugins/tinygrad/tg_record.py records them: index
// arithmetic over several RANGEs with FLOORDIV and FLOORMOD, masked loads, comparisons and WHEREs).
//
// What is counted (measure_shapes), one policy table each:
//   op_weight          ALU nodes, by op
//   dtype_weight       ALU nodes, by operand dtype (a CAST's or comparison's source, a WHERE's value)
//   loop_depth_weight  kernels with loops, by their RANGEs (1, 2, 3 or more)
//   trip_weight        RANGEs with a constant end, at the nearest trip count class (kTripCounts, log scale)
//   loop_read_weight   LOADs whose index depends on a RANGE: gated -> PadAfter and PadBefore (half each),
//                      an index with FLOORDIV -> Div, with FLOORMOD -> Mod, `x + CONST` -> Offset, else Flat
//   p_nest_op          binary ALU nodes of their operands' dtype: the share with an operand of the same op
//   p_unary_of_affine  unary ALU nodes (no conversion): the share whose operand is an ADD or a MUL
//   p_not_operand      operands of bool ANDs and ORs: the share that are logical nots (x != true)
//   p_one_hot          kernels with loops: the share with a WHERE in a loop on a CMPNE or CMPEQ
//   p_mask_twice       masks (WHEREs with a zero branch): the share on an AND or of another WHERE
// fit_policy blends each table: (1 - weight) * base + weight * measured, the measured counts scaled to
// the base table's total, so nothing the kernels lack is dropped and an entry the base zeroes (a
// --without op) stays zero, but for trip counts (the powers of two are 0 by default, for the fit to weigh);
// each share the same way.
#pragma once
#include <cstdint>
#include <vector>

#include "core/program.h"
#include "fuzz/gen/policy.h"

namespace uf {

struct KernelShapes {
  PerOp<double> ops{};
  PerDType<double> dtypes{};
  DepthWeights depths{};
  TripWeights trips{};
  Weights<LoopRead> reads{};
  double binary = 0, nested = 0;          // p_nest_op: of the binary nodes, those nested
  double unary = 0, unary_of_affine = 0;  // p_unary_of_affine
  double logic_operands = 0, nots = 0;    // p_not_operand
  double loop_kernels = 0, one_hot = 0;   // p_one_hot: kernels
  double masks = 0, masks_twice = 0;      // p_mask_twice
  int64_t kernels = 0;
};

KernelShapes measure_shapes(const std::vector<Program>& kernels);
GenPolicy fit_policy(const GenPolicy& base, const KernelShapes& shapes, double weight);

}  // namespace uf

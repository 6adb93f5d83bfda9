// Shrink steps: the candidate programs one step smaller than a given one, most promising first.
//
//  1. drop stores from the SINK (keep a single store, then drop one at a time);
//  2. replace a node by one of its operands of the same dtype (AFTER by its memory; an AFTER loses a dependency);
//  3. replace a value by a CONST holding its reference value (inside a loop, where it has none: by a
//     RANGE of its loops of its dtype, CONST 0 or CONST 1);
//  4. simplify constants and `data` values toward 0, 1 and short values;
//  5. remove BUFFERs nothing uses; shorten BUFFERs and ALLOCs to the elements constant indices reach;
//  6. vectors: scalarize a vector op whose lanes are only taken out by GEP (GEP(op(v, w), k) becomes
//     op(GEP(v, k), GEP(w, k)), with GEP of a STACK or CONST folded), and narrow every vector of N lanes
//     to fewer lanes (N-1, N/2, or 1: plain scalars);
// loops (fuzz/oracle/shrink_loops.h), tried right after steps 1 and 5's unused BUFFERs (7, 8) and after 2 (9, 10):
//  7. remove a loop: its RANGE becomes CONST 0 (one iteration) or, in a nest, its parent RANGE (one level
//     less); ENDs and AFTERs drop it, an END closing nothing becomes its effect;
//  8. lower a trip count: a CONST end to 1, 2, n/2, n-1; a computed end to CONST 1 or its reference value;
//  9. drop an accumulator: loads of an ALLOC element read its top-level init value (all, or those in loops);
//     a load through AFTER(…, STORE) of the same element reads the stored value, the STORE kept in the SINK;
//     a copy of a loop's last store out of it (STORE(a, LOAD(AFTER(m, END(STORE(m, v)))))) stores v to a in the loop;
// 10. drop gates: a gated LOAD becomes ungated or its alt; a gated STORE loses its gate.
// Candidates are well typed (built through the factory) but may break the ordering rule or be UNDEFINED:
// the reducer verifies and interprets each before compiling anything.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/program.h"

namespace uf {

// Lexicographic size: (non-CONST live nodes, total buffer length, extra vector lanes, loop trip counts, gated
// accesses, value complexity). Every candidate that shrink_candidates returns is strictly smaller than its parent.
struct ProgramCost {
  size_t nodes = 0;
  int64_t elements = 0;
  int64_t lanes = 0;       // sum of lanes - 1 over the live vector nodes
  int64_t iterations = 0;  // sum of the RANGEs' trip counts (a computed end counts as 2^40)
  int64_t gates = 0;       // gated LOADs and STOREs
  int64_t complexity = 0;
  auto operator<=>(const ProgramCost&) const = default;
};
ProgramCost program_cost(const Program& p);

// Slices (fuzz/oracle/slice.cpp): the diverging node `d` alone, its operands as constants (then loaded
// from input buffers; a CONST by itself), stored into a fresh one-element output buffer. When the bug
// lives in `d`'s own rule, one of these reproduces it in a handful of nodes, in one step.
std::vector<Program> slice_candidates(const Program& p, const UOp* d, const std::unordered_map<const UOp*, Scalar>& values);
// The slices of lane k of an N-lane vector of dtype t whose reference value there is v: lane k holds v and
// every other lane a different value, from a STACK of constants, then from a vector LOAD of an input buffer
// (a lane-order bug shows in either), and GEP k is stored. For a diverging GEP, and for a diverging vector
// node's lane.
std::vector<Program> lane_slices(const Program& p, DType t, int n, int k, Scalar v);

// `values` holds the reference value of every live value node (from interpreting the probe program).
std::vector<Program> shrink_candidates(const Program& p, const std::unordered_map<const UOp*, Scalar>& values);

}  // namespace uf

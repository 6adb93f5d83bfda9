// Shrinking: the reducer's passes (the registry fuzz/oracle/passes.def, one row per pass; straight-line
// ones in shrink.cpp, loop ones in shrink_loops.cpp, slices in slice.cpp) offer candidate programs one
// step smaller than a given one, and program_cost orders programs by size: every candidate kept is
// strictly cheaper than its parent, so reduction terminates.
// Candidates are well typed (built through the factory) but may break the ordering rule or be UNDEFINED:
// the reducer verifies and interprets each before compiling anything.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/program.h"

namespace uf {

// Lexicographic size: (non-CONST live nodes, total buffer length, extra vector lanes, loop trip counts, gated
// accesses, value complexity).
struct ProgramCost {
  size_t nodes = 0;
  int64_t elements = 0;
  int64_t lanes = 0;       // sum of lanes - 1 over the live vector nodes
  int64_t iterations = 0;  // sum of the RANGEs' trip counts (a computed end counts as 2^40)
  int64_t gates = 0;       // gated LOADs and STOREs
  int64_t opts = 0;        // over the opts steps: 1 + the amount each
  int64_t kinds = 0;       // RANGEs of a kind other than loop
  int64_t complexity = 0;
  auto operator<=>(const ProgramCost&) const = default;
};
ProgramCost program_cost(const Program& p);

// The candidates of every pass, in registry order (fuzz/oracle/passes.h's pass_candidates, without a
// divergence: no slices). `values` holds the reference value of every live value node (from interpreting
// the probe program).
std::vector<Program> shrink_candidates(const Program& p, const std::unordered_map<const UOp*, Scalar>& values);

}  // namespace uf

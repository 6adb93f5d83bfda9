// The loop shrink steps (steps 7-10 of fuzz/oracle/shrink.h), apart from the straight-line ones. Each
// function offers candidates through `add`, which keeps only those strictly smaller than the program.
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "core/program.h"

namespace uf {

struct LoopShrink {
  const Program& p;
  const std::vector<const UOp*>& order;                   // linearize(p)
  const std::unordered_map<const UOp*, Scalar>& values;  // reference values of top-level value nodes
  std::function<void(Program&&)> add;
};

// A RANGE's trip count for program_cost: its CONST end (at least 0), or kRuntimeTrips for a computed end.
constexpr int64_t kRuntimeTrips = int64_t{1} << 40;
int64_t trip_count(const UOp* range);

// Step 7: a loop removed: its RANGE becomes CONST 0 (one iteration, the first), or, in a nest, the
// enclosing RANGE of the same dtype (the loop level merged into its parent). ENDs drop it; an END left
// closing nothing becomes its effect; AFTERs drop it as a dependency.
void loop_removal_steps(const LoopShrink& s);
// Step 8: a trip count lowered: a CONST end to 1, 2, n/2 or n-1; a computed end to CONST 1 or to its
// reference value.
void trip_count_steps(const LoopShrink& s);
// Step 9: an accumulator dropped: the loads of an ALLOC element read its top-level init value instead
// (every load, or only those inside loops: the reduction becomes "the last iteration's value").
void accumulator_steps(const LoopShrink& s);
// Step 9 too: a LOAD through AFTER(…, STORE) of the same element reads the stored value, and the STORE,
// which the AFTER kept alive, stays as an effect of the SINK (closed by an END over its loops). Turns an
// accumulator read back after its update into the update's value, keeping the update.
void forward_keeping_steps(const LoopShrink& s);
// Step 9 too: a copy out of a loop, STORE(a, LOAD(INDEX(AFTER(m, END(STORE(m[i], v), ranges)), i))), becomes
// the loop storing v to `a` itself, END(STORE(a, v), ranges): the accumulator between them disappears.
void copy_out_steps(const LoopShrink& s);
// Step 3 for values inside loops (which have no single reference value): a value becomes a RANGE of its
// loops of the same dtype (innermost first), CONST 0 or CONST 1.
void loop_value_steps(const LoopShrink& s);
// Step 10: gates: a gated LOAD becomes ungated or its alt; a gated STORE loses its gate.
void gate_steps(const LoopShrink& s);

}  // namespace uf

// What the loop shrink passes (shrink_loops.cpp; their rows in fuzz/oracle/passes.def) share with
// program_cost: a loop's trip count.
#pragma once
#include <cstdint>

#include "core/program.h"

namespace uf {

// A RANGE's trip count for program_cost: its CONST end (at least 0), or kRuntimeTrips for a computed end.
constexpr int64_t kRuntimeTrips = int64_t{1} << 40;
int64_t trip_count(const UOp* range);

}  // namespace uf

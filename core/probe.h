// Probes: a program that also stores every value it computes, so that a wrong value counts even when
// later operations hide it. The oracle signs a mismatch by the value that diverges first in execution
// order; the generator observes a share of its kernels this way (policy.h, p_observe_intermediates).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/analysis.h"
#include "core/int_range.h"
#include "core/program.h"

namespace uf {

// Which values get a probe.
//  - every_value (signatures): every value a renderer can get wrong, so that one root cause is one
//    bucket: constants (`mismatch CONST f64`), loads, and values inside loops, once per iteration. A
//    loop's RANGE is probed too, into a buffer pre-filled with a value no iteration has, so a loop that
//    runs too few or too many times diverges at its RANGE (`mismatch RANGE i32`) before anything else.
//  - computed (observed kernels, which are saved as reproducers): the values computed outside loops. A
//    constant's store would only test the literal, which already reaches every op that reads it; a loop
//    value's store would make the kernel's buffers as large as its iteration space.
enum class ProbeScope : uint8_t { computed, every_value };

// One enclosing loop of a probed value: where its RANGE is in the schedule, and how its iteration number
// maps to the probe's elements (stride 0: not part of the index, so each iteration overwrites the last).
struct ProbeLoop {
  int64_t position = 0;
  int64_t stride = 0;
  int64_t extent = 0;  // iterations the element layout has room for (the loop's trip count, plus one)
};

// Where node's values go: elements [index, index + count) of BUFFER `slot`. Outside loops count is 1.
struct ProbePoint {
  const UOp* node = nullptr;
  int64_t slot = 0, index = 0, count = 1;
  int64_t position = 0;          // node's position in the schedule
  std::vector<ProbeLoop> loops;  // the loops node runs in, outermost first
  int lane = -1;                 // a vector node: the lane stored here
};

// `p` plus one STORE per probed scalar value (every_value: a vector's lanes through GEPs of it; computed:
// vectors only through the program's own GEPs) into probe BUFFERs placed after
// p's slots: outside loops one buffer per dtype with constant indices, inside loops one buffer per value
// indexed by its iterations (no two stores share it, so the ordering rule holds). Expect and got lines
// are dropped.
struct Probe {
  Program program;
  std::vector<ProbePoint> points;  // in schedule order
};
// `bounds` (by node id, e.g. int_bounds) bounds the trip counts of loops whose end is computed; without
// it only loops with a constant end index the probes, and the others keep their last iteration.
// `dtypes` (by dtype, when given): only values of the dtypes it marks get a probe (a target without u8
// takes no u8 probe BUFFER, though a u8 cast may feed a value).
Probe instrument(const Program& p, ProbeScope scope, std::span<const IntRange> bounds = {}, std::span<const bool> dtypes = {});
// The same on p's facts already computed (a = analyze(p)), trip counts bounded by a.bounds.
Probe instrument(const Program& p, const Analysis& a, ProbeScope scope);

// When element `element` (of [point.index, point.index + count)) was written, as a key that orders
// writes by execution: [RANGE position, iteration, ...] per enclosing loop, then the node's position.
// An iteration the layout does not record (stride 0) counts as the last.
std::vector<int64_t> probe_time(const ProbePoint& point, int64_t element);

}  // namespace uf

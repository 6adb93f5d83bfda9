// Probes: a program that also stores every value it computes, so that a wrong value counts even when
// later operations hide it. The oracle signs a mismatch by the first probed value that differs; the
// generator observes a share of its kernels this way (policy.h, p_observe_intermediates).
#pragma once
#include <utility>
#include <vector>

#include "core/program.h"

namespace uf {

// Which values get a probe. Signatures probe every value a renderer can get wrong, constants included,
// so that one wrong constant is one bucket (`mismatch CONST f64`), not one per op that reads it. An
// observed kernel stores what it computes and loads: a constant's store would only test the literal,
// which already reaches every op that reads it.
enum class ProbeScope : uint8_t { computed, every_value };

// `p` plus one STORE per live scalar value outside loops (vectors through their GEPs) into probe BUFFERs placed
// after p's slots, one per dtype, with zero data; expect and got lines are dropped.
struct Probe {
  Program program;
  std::vector<std::pair<const UOp*, std::pair<int64_t, int64_t>>> where;  // node of p -> (slot, index)
};
Probe instrument(const Program& p, ProbeScope scope);

}  // namespace uf

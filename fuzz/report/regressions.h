// Regressions of a target between two of its versions (`uopfuzz report --baseline B.json RUN...`): each
// RUN is compared with the baseline runs of the same configuration (target name, renderer command,
// compiler, flags, f16 mode); a bucket the RUN saw and none of them did, when the RUN's target version
// differs from theirs, is a regression of that target over the version range BASELINE..RUN, e.g. a bucket
// of tinygrad's `master` that its pinned commit does not show is a "tinygrad regression a9069c177a9d..0f3c".
#pragma once
#include <string>
#include <vector>

#include "fuzz/report/run.h"

namespace uf::report {

struct Comparison {
  size_t run = 0;                        // a non-baseline run
  std::vector<size_t> baselines;         // the baseline runs of its configuration (none: nothing to compare)
  std::string target, from, to;          // target name; baseline version(s), `,`-joined; the run's version
  std::vector<std::string> regressions;  // signatures the run saw and no baseline did (when versions_differ)
  std::vector<std::string> not_seen;     // signatures a baseline saw and the run did not
  bool versions_differ = false;          // the run's version is none of its baselines'
  std::string range() const { return from + ".." + to; }
  // "tinygrad regression a9069c177a9d..0f3c", or "regression ..." for a run without a target name.
  std::string label() const;
};

// One comparison per non-baseline run, in run order; empty when no run is a baseline.
std::vector<Comparison> compare_runs(const std::vector<Run>& runs);

// Sets each bucket's `regression` from the comparisons (several runs: their labels, `; `-joined).
void mark_regressions(const std::vector<Comparison>& cmps, std::vector<Bucket>& buckets);

// The page's Regressions section (empty without baselines).
std::string regressions_section(const std::vector<Run>& runs, const std::vector<Comparison>& cmps,
                                const std::vector<Bucket>& buckets);

}  // namespace uf::report

// The reducer: greedy shrink-and-restart (RapidCheck-style), keeping the failure's signature.
//
// Each round runs the chosen passes (fuzz/oracle/passes.def), the one whose step the last round took first,
// then the others in registry order, each listing candidate programs one step smaller than the current one;
// checks the candidates in that order, in batches (one compiler call per batch), and restarts from the
// first candidate that still fails with the same signature. It
// stops when no candidate of a round keeps the signature. Every accepted step strictly lowers
// program_cost(), so reduction always terminates.
#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz/oracle/oracle.h"

namespace uf {

struct ReduceOptions {
  size_t batch = 48;  // candidates per compiler call
  // With a plug-in server slower than slow_render_s a render: a round's first batch, doubling up to `batch`.
  size_t slow_first_batch = 4;
  double slow_render_s = 0.05;
  double time_limit_s = 300;                    // stop early (keeping the best so far) after this long
  std::function<void(const std::string&)> log;  // progress, one line per accepted step
  std::vector<std::string> passes;              // the passes to run, by name (fuzz/oracle/passes.def); empty: every pass
};

// What one pass did over a reduction. A batch mixes passes: its check time is split among them by how
// many candidates each had in it.
struct PassStats {
  std::string name;
  int tried = 0;       // its candidates checked (sent to the compiled path)
  int accepted = 0;    // of those, the steps taken
  double seconds = 0;  // generating its candidates, plus its share of checking them
};

struct ReduceResult {
  Program program;          // the smallest failing program found
  Observation observation;  // its failure (expect/got filled)
  int steps = 0;            // accepted steps
  int compiler_calls = 0;   // batches checked
  int candidates = 0;       // candidate programs checked
  double seconds = 0;
  std::vector<PassStats> passes;  // the passes run, in registry order
  bool complete = false;          // ended by a whole round in which no candidate kept the failure, not by the
                                  // time limit: `meta reduced = yes` (else the program is only as small as the
                                  // time allowed)
};

// The reference value of every live top-level value node of `p` (empty when `p` is UNDEFINED): what
// shrink_candidates replaces a value by.
std::unordered_map<const UOp*, Scalar> reference_values(const Program& p);

// `p` must fail with `signature` under `cfg`. Returns it unchanged (steps == 0) if nothing smaller fails
// the same way.
ReduceResult reduce(const Program& p, const std::string& signature, const CompiledPathConfig& cfg,
                    const ReduceOptions& options = {});

}  // namespace uf

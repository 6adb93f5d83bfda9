// Backends agree (docs/semantics.md, "Approximate ops: backends agree"): targets that say they approximate
// an op (their handshake's `approximate`) and run one decomposition of it, as tinygrad's CPU backends run
// codegen/decomp/transcendental.py, should store bit-identical results for one kernel on one data set. The
// budget judges each target alone; this compares them with each other. A target whose exact values are
// wrong on a data set is left out of that comparison: its approximated operands may be wrong too.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "codegen/compiled_path.h"
#include "core/program.h"
#include "fuzz/oracle/oracle.h"
#include "interp/interp.h"

namespace uf {

// One target's run of a program on one data set.
struct VersionRun {
  std::string name;         // the backend's name (the handshake's `backends`)
  std::vector<Op> approx;   // its handshake's `approximate`
  KernelOutcome outcome;    // its run
  Observation observation;  // compare(p, ref, outcome, approx)
};

// Whether a run's exact values are right: the kernel ran and every element that is not an approximated
// result agrees with the reference (verdict ok, or a failure the budget alone signed).
bool exact_part_right(const VersionRun& r);

// One approximated result on which the runs differ.
struct Disagreement {
  ApproxStore at;        // where it was stored, the node and its operands
  double reference = 0;  // the exact result correctly rounded to the node's dtype
  struct Result {
    double got = 0;
    double ulps = 0;  // from the correctly rounded result
    bool special_wrong = false;
    std::vector<std::string> names;  // the runs that gave it
  };
  std::vector<Result> results;  // distinct results (NaNs alike, zeros by sign), in the order of the runs
  // `disagree SIN f32 clang=x86 llvm`: the op, the dtype, and the runs grouped by result.
  std::string signature() const;
  // The operands, each result with its error, and the correctly rounded value.
  std::string message() const;
};

// The runs compared on each approximated result of `ref`: those whose handshake approximates its op and
// whose exact part is right. `compared` counts, by "OP DTYPE", the results two or more of them stored.
struct Agreement {
  std::map<std::string, int64_t> compared;
  std::vector<Disagreement> disagreements;
};
Agreement compare_versions(const RefResult& ref, const std::vector<VersionRun>& runs);

// The disagreement's op alone, its operands loaded from a BUFFER (so no target folds them), its result
// stored into another: what a reproducer of a disagreement is, when the runs still disagree on it.
Program single_op_program(const Disagreement& d);

}  // namespace uf

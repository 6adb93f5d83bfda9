// What a campaign worker reports to its parent: one struct per kind of report, each sent as one JSON
// line, {"kind": "batch", ...its fields}. A field is added to its struct and to the field list beside it
// (which gives its JSON); a counter of CheckCounts is one row of counters.def, which gives its field, its
// JSON, its sum and its summary key.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "codegen/runtime/compiler.h"
#include "fuzz/campaign/coverage.h"
#include "fuzz/campaign/target_coverage.h"
#include "fuzz/oracle/oracle.h"
#include "fuzz/oracle/reduce.h"

namespace uf {

// How the programs of some batches fared: a worker counts each batch, the parent adds them up. One field
// per row of counters.def.
struct CheckCounts {
#define COUNTER(name, summary_key, doc) int64_t name = 0;
#include "fuzz/campaign/counters.def"

  void count(const Finding& f, bool observed);  // one program more
  CheckCounts& operator+=(const CheckCounts& o);
  int64_t failures() const;  // the programs of every FAILURE row
  // Each counter under its summary key, into the summary `j`.
  void add_to_summary(nlohmann::json& j) const;
};
// A batch report's `counts`: each counter under its name.
void to_json(nlohmann::json& j, const CheckCounts& c);
void from_json(const nlohmann::json& j, CheckCounts& c);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Coverage, programs, op_dtype, cast, bitcast, op_dtype_vector, loop_feature,
                                   programs_with_loops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompilerStats, calls, seconds)

// A batch checked. Sent before its failures are reduced, so a worker stopped during a long reduction
// has still counted its batch.
struct BatchReport {
  static constexpr const char* kind = "batch";
  CheckCounts counts;
  std::map<std::string, int64_t> hits;  // the batch's failing programs by signature
  // render and compile errors by signature, then by the `--without` their message points at (hint.h)
  std::map<std::string, std::map<std::string, int64_t>> avoid;
  // the results of approximated ops judged by their budget, by `OP DTYPE`, then by ULP bin (interp/approx.h)
  std::map<std::string, std::map<std::string, int64_t>> approx_ulps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BatchReport, counts, hits, avoid, approx_ulps)

// A failure bucket, the first time this worker sees it.
struct BucketReport {
  static constexpr const char* kind = "bucket";
  std::string signature;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BucketReport, signature)

// A reproducer saved to the corpus, with its verdict_name.
struct SavedReport {
  static constexpr const char* kind = "saved";
  std::string path, verdict;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SavedReport, path, verdict)

// A reduction ended (its reproducer, saved as found, replaced if it got smaller): its totals and what
// each of the reducer's passes did.
struct ReducedReport {
  static constexpr const char* kind = "reduced";
  std::string path, signature;
  int steps = 0, candidates = 0, compiler_calls = 0;
  double seconds = 0;
  bool complete = false;
  std::vector<PassStats> passes;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PassStats, name, tried, accepted, seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReducedReport, path, signature, steps, candidates, compiler_calls, seconds, complete, passes)

// A new bucket's culprit (fuzz/oracle/culprit.h), found after its reduction: its `meta culprit`.
struct CulpritReport {
  static constexpr const char* kind = "culprit";
  std::string signature, culprit;
  int checks = 0;
  double seconds = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CulpritReport, signature, culprit, checks, seconds)

// A new bucket checked against the known findings (known.h) before its reduction: `known` the file that
// explains it ("" when none does: it is new), and the renders that took.
struct KnownReport {
  static constexpr const char* kind = "known";
  std::string signature, known, culprit;
  int checks = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KnownReport, signature, known, culprit, checks)

// Cumulative: each replaces the worker's previous one.
struct CoverageReport {
  static constexpr const char* kind = "coverage";
  Coverage coverage;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CoverageReport, coverage)

// Cumulative: the target features this worker's programs reached (target_coverage.h), the programs it
// derived from seeds and the seeds it kept (guide.h).
struct TargetCoverageReport {
  static constexpr const char* kind = "target_coverage";
  TargetCoverage coverage;
  int64_t derived = 0, seeds = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TargetCoverageReport, coverage, derived, seeds)

// Cumulative: the programs of each step range of a size-adapting campaign (size_schedule.h), by range
// (`MIN..MAX`), and of them those that found a bucket new to the corpus.
struct SizeCounts {
  int64_t programs = 0, new_buckets = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SizeCounts, programs, new_buckets)
struct SizeReport {
  static constexpr const char* kind = "size";
  std::map<std::string, SizeCounts> sizes;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SizeReport, sizes)

// Cumulative: the compiler processes this worker has run and their wall time.
struct CompilerReport {
  static constexpr const char* kind = "compiler";
  CompilerStats stats;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompilerReport, stats)

// The worker failed and stops (the corpus cannot be written, ...).
struct ErrorReport {
  static constexpr const char* kind = "error";
  std::string message;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ErrorReport, message)

using Report = std::variant<BatchReport, BucketReport, SavedReport, ReducedReport, CulpritReport, KnownReport, CoverageReport,
                            TargetCoverageReport, SizeReport, CompilerReport, ErrorReport>;

// One line, without its '\n'.
std::string encode(const Report& r);
// nullopt when the line is not a report.
std::optional<Report> decode(std::string_view line);

// Writes encode(r) and a '\n' to the parent's pipe; gives up quietly when the parent is gone (nobody to
// report to).
void send_report(int fd, const Report& r);

}  // namespace uf

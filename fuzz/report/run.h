// What a campaign report is made of: RUNs (one `fuzz --json` summary with its event log) and the
// buckets they found, with each bucket's reproducer when one can be found on disk.
//
// A RUN's event log is read from beside its summary (events.h: `X.json` -> `X.events.jsonl`); a run
// without one still reports, without time series. A bucket's reproducer is looked for, in order: in
// each `--corpus` directory given to the report (e.g. the merged corpus of a nightly), among the files
// the run saved, then in the corpus directory the run used, always by the bucket's corpus file name.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace uf::report {

struct Sample {
  double t = 0;  // seconds since the run started
  int64_t programs = 0, runs = 0, failures = 0, buckets = 0;
  int64_t target_fired = 0;  // reachable target features fired so far (target_coverage.h)
  int64_t target_features = 0;  // every target feature fired so far (a compiler's remarks have no reachable set)
};

struct Run {
  std::string path;   // the JSON summary
  std::string label;  // its file name without `.json`
  nlohmann::json summary;
  nlohmann::json start = nlohmann::json::object();  // the event log's start line
  bool has_events = false;
  bool baseline = false;  // given as `--baseline`: the version other runs are compared with (regressions.h)
  std::vector<Sample> samples;
  std::map<std::string, double> first_seen;     // signature -> t of its `bucket` event
  std::map<std::string, std::string> saved;     // signature -> path of its `saved` event
  std::vector<std::string> signatures() const;  // the summary's, sorted
  std::string started() const;                  // UTC start time, or "" without an event log
};

// UserError `FILE: message` (FILE:LINE for an event line) for a missing or malformed summary or log.
Run load_run(const std::string& json_path);

// Runs of several shards share file names (every nightly shard writes run-gcc_default.json): labels
// that repeat get their directory's name in front, `nightly-gcc-shard1/run-gcc_default`.
void disambiguate_labels(std::vector<Run>& runs);

// One bucket over all the runs of a report.
struct Bucket {
  std::string signature, klass, id;  // id: the corpus file name without `.uop` (an HTML anchor)
  std::vector<bool> in_run;          // seen by run i
  size_t first_run = 0;              // the first run that saw it
  std::string first_seen;            // UTC time (or the run's label without an event log)
  std::optional<int64_t> count;      // failing programs summed over the runs (bucket_hits), else meta count
  std::string repro_path;            // empty: not found
  std::string blame;                 // `meta blame`, or empty
  std::string culprit;               // `meta culprit`, else a run summary's `culprits`, or empty
  std::string group;                 // its root cause (fuzz/oracle/culprit.h group_key)
  std::string reachable;             // `meta reachable` ("tensor (...)", "kernel (...)": uopfuzz triage), or empty
  std::optional<size_t> nodes;       // reduced size: program_cost nodes
  std::string reduced;               // `meta reduced`
  std::string regression;            // "tinygrad regression P..M" (regressions.h), or empty
};

std::vector<Bucket> collect_buckets(const std::vector<Run>& runs, const std::vector<std::string>& corpus_dirs);

// "2026-11-30T21:13:05Z" + seconds, in the same form; "" for a malformed time.
std::string utc_plus(const std::string& utc, double seconds);

}  // namespace uf::report

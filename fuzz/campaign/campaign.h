// A fuzzing campaign: J worker processes generate programs, check them in batches (one compiler call
// per batch), reduce every new failure and save it to the corpus; the parent aggregates their reports,
// prints a progress line about once a second, and writes the summary.
//
// Reproducibility: worker w checks programs program_seed(seed, w, 0), program_seed(seed, w, 1), ...;
// batch sizes adapt to the compiler's speed but never change which programs a worker runs. --count N
// splits N programs over the workers; --time stops starting new batches after that many seconds.
// SIGINT/SIGTERM stop the workers between batches; the summary is still written.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/campaign/coverage.h"
#include "fuzz/campaign/guide.h"
#include "fuzz/campaign/known.h"
#include "fuzz/campaign/target_coverage.h"
#include "fuzz/campaign/protocol.h"
#include "fuzz/oracle/oracle.h"
#include "fuzz/oracle/triage.h"
#include "fuzz/gen/policy.h"

namespace uf {

inline constexpr int kDefaultInputs = 16, kMaxInputs = 1024;

struct CampaignOptions {
  uint64_t seed = 1;
  double time_s = 0;  // 0: no time limit
  int64_t count = 0;  // 0: no count limit (one of the two must be set)
  int jobs = 1;
  // Data sets each compiled kernel runs on: its program's own and inputs-1 fresh ones (gen's input_data).
  // Compiling costs ~100 times a run, so more runs per program come nearly free; the default is the
  // largest K measured to keep programs/s within 10 % of K = 1 (bench/RESULTS.md).
  int inputs = kDefaultInputs;
  std::string corpus_dir = "corpus";
  std::string json_path;    // summary file; empty: none
  std::string events_path;  // event log (events.h); empty: none
  CompiledPathConfig cfg;
  GenPolicy policy;
  // How the policy was given (`meta without`, `meta policy` on each reproducer, as `gen` writes them):
  // the seed alone regenerates a finding's program only under the same policy.
  std::string without_names, policy_file;
  // Where the programs' optimization sequences come from (`fuzz --opts`, docs/format.md): "random" (drawn,
  // for a target whose handshake lists opts), "heuristic" (none: the target's own optimizer), "none" (an
  // empty opts line: no optimization at all).
  std::string opts_mode = "random";
  // Coverage guidance (guide.h): seeds kept in seeds_dir ("" : CORPUS/seeds), --target-rules.
  GuideMode guide = GuideMode::coverage;
  std::string seeds_dir;
  std::vector<TargetRule> target_rules;
  // Directories of program seeds read and never written (the target's suggested seeds, guide.h).
  std::vector<std::string> read_seed_dirs;
  // The known findings (`--known DIR`, known.h): a new bucket they explain is counted, not reduced.
  std::string known_dir;
  std::vector<KnownFinding> known;  // load_known(known_dir)
  // What the campaign took from the target's handshake (the summary's `suggested`): {"policy", "seeds", "known"}.
  nlohmann::json suggested = nlohmann::json::object();
  bool reduce = true;
  double reduce_time_s = 120;
  // While it generates, a worker turns to the queued findings (reduction, known check, culprit) only while
  // the time it spent on them is at most this share of its time so far; the rest is reduced once
  // generation ends (generation_end keeps time for it). On a bug-dense target (tinygrad: 20 buckets in
  // the first 30 s) draining the queue first stopped generation for 7 of 10 minutes and coverage with it
  // (bench/RESULTS.md). 1: the queue first, whatever it costs.
  double reduce_share = 0.5;
  // A `render-error timeout` is checked and reduced with this render timeout (at most cfg's): a render
  // that slow is the same fault, and each candidate that keeps it costs this long, not a whole minute.
  double reduce_render_timeout_s = 10;
  std::vector<MatrixEntry> matrix;  // non-empty: each new bucket is triaged (meta blame) after its reduction
  bool culprit = true;              // each new bucket's culprit searched after its reduction (meta culprit)
  double culprit_time_s = 60;
  bool stop_on_finding = false;  // stop the workers (as on SIGTERM) once the first failure bucket is seen
  bool progress = true;          // the stderr progress line
  // Batches start at first_batch and adapt between min_batch and max_batch towards target_batch_s of
  // compile+run time: a compiler call costs about 70 ms before its first kernel, so small batches waste
  // it (gcc: 51 ms a program at 8 per call, 39 at 32, 36 at 128). Big batches cost little else: Ctrl-C
  // kills the compiler, and a --time run sizes its last batch to the time left (never under min_batch,
  // so even a loaded machine averages min_batch programs per call or more). Kernels compile alike in a
  // batch of 1 or of 128 (the prelude keeps its large helpers out of line), so findings replay alone.
  size_t min_batch = 32, first_batch = 64, max_batch = 128;
  // A plug-in server renders each program on request, often far slower than the compiler call (tinygrad:
  // 0.1 to 1 s a program): its batches start small and grow as they prove quick, so a slow target
  // finishes batches (and shows findings) within seconds, not minutes. A server whose mean render
  // proves faster than fast_render_s gets the built-in sizes from then on: its batches are compile-bound
  // like the built-in renderer's, and small ones would waste the compiler call's fixed cost.
  size_t server_min_batch = 4, server_first_batch = 8;
  double fast_render_s = 0.02;
  double target_batch_s = 3.0;
};

struct CampaignSummary {
  CheckCounts counts;          // the programs, how they fared, and the batches (one compiler call each when all compile)
  int64_t new_mismatches = 0;  // new mismatch buckets saved (docs/format.md's `mismatches`)
  int64_t compiler_calls = 0;  // every compiler process the workers ran: batches, bisections, reductions
  double compile_seconds = 0;  // wall time inside those calls, summed over workers
  int jobs = 1;
  int inputs = 1;  // --inputs
  std::set<std::string> buckets;
  std::map<std::string, int64_t> bucket_hits;                        // failing programs per signature
  std::map<std::string, std::map<std::string, int64_t>> approx_ulps;  // BatchReport::approx_ulps, summed
  std::map<std::string, std::map<std::string, int64_t>> avoid_hits;  // BatchReport::avoid, summed
  std::vector<std::string> saved;
  std::vector<ReducedReport> reductions;        // as they ended: the event log's `reduced` lines
  std::map<std::string, std::string> culprits;  // signature -> its culprit, for the buckets this run searched
  std::map<std::string, KnownReport> known;     // signature -> the known finding that explains it (known.h)
  int64_t known_checks = 0;                     // renders the known checks took
  std::string known_dir;                        // --known ("" : none)
  int known_findings = 0;                       // the known findings loaded from it
  nlohmann::json suggested = nlohmann::json::object();  // CampaignOptions::suggested
  std::vector<std::string> errors;              // worker failures (corpus unwritable, ...)
  Coverage coverage;
  TargetCoverage target_coverage;  // what of the target the programs reached (target_coverage.h)
  PluginDescription description;   // the plug-in's handshake: what there is to reach
  int64_t derived_programs = 0;    // of counts.programs, derived from a seed (guide.h)
  int64_t seeds = 0;               // seeds kept by this campaign
  std::map<std::string, SizeCounts> sizes;  // by step range, when sizes adapt (size_schedule.h)
  std::string guide = "none";      // --guide
  double seconds = 0;
  bool interrupted = false;
  // When the parent first heard of a failure bucket, and the programs checked by then (the sensitivity
  // measure: tools/sensitivity); nullopt when the campaign found none.
  struct FirstFinding {
    double seconds = 0;
    int64_t programs = 0;
  };
  std::optional<FirstFinding> first_finding;

  // What was tested (target_json) and the merged --without names: the user's and the plug-in's.
  nlohmann::json target = nlohmann::json::object();
  std::vector<std::string> without;
  std::string opts_mode;  // CampaignOptions::opts_mode, "" for a target without opts

  // The buckets by root cause (group_key of each signature and its culprit): what a user counts. Buckets
  // a known finding explains are not among them: known_groups() has them, by the known culprit.
  std::map<std::string, std::vector<std::string>> groups() const;
  std::map<std::string, std::vector<std::string>> known_groups() const;
  nlohmann::json to_json() const;
  std::string to_text() const;

 private:
  std::string known_text() const;
  std::string suggested_text() const;
};

// The renderer as the summary and the event log show it: {name, version, protocol, mode, language}. The
// built-in renderer is {"builtin", "", 0, "builtin", "c"}; a protocol-1 plug-in, which names no target,
// is named by its command.
nlohmann::json target_json(const CompiledPathConfig& cfg);
// o.without_names as a list.
std::vector<std::string> without_list(const CampaignOptions& o);

CampaignSummary run_campaign(const CampaignOptions& options);

class ReductionQueue;
// One worker's loop (runs in its own process); reports go to `report_fd` (protocol.h); findings to reduce
// are shared with the other workers through `queue`.
void run_worker(const CampaignOptions& options, int worker, int report_fd, ReductionQueue& queue);

}  // namespace uf

// Coverage guidance (`fuzz --guide coverage`): where a campaign's next program comes from.
//
// A program whose render reached a target feature (target_coverage.h) that no earlier program of the
// campaign, nor any seed, had reached is kept as a **seed**: its choice sequence (generator.h Choices,
// Zest's parametric generator), the features it reached, and its program, in a `.seed` file of the seed
// directory (beside the corpus, `CORPUS/seeds`), so the next campaign and the nightly start from them
// and the workers of one campaign share them (each loads the others' files before each batch). A `.uop`
// file there is a seed too (a program of any origin: a hand-written kernel, a target's own): it is
// checked once as it is, then mutated as a program (fuzz/gen/mutate.h) instead of through its choices.
// A target may suggest directories of such programs (its own kernels, docs/format.md "Target
// suggestions"): they are read like the seed directory and never written.
//
// Each next program is either fresh (the blind stream: program_seed(seed, worker, i)) or derived from a
// seed by mutating its choices (guide.cpp's table of mutations: points, small values, a block drawn
// afresh, a cut, a splice with another seed), which is valid by construction: every value of every draw
// is a valid choice. Which of the two is a bandit over the recent rate of programs that reached
// something new (discounted, probability matching); which seed, a power schedule (AFL's, FairFuzz's rare
// features): seeds that reach rarely reached features, were derived from less, and whose children found
// new ones weigh more, and with --target-rules, those that reach features near the named ones; and, as
// AFL's schedule weighs execution speed, seeds the target renders faster than its average program weigh
// more (up to 3 times) and slower ones less (down to a tenth): a seed whose lowering takes a minute
// would otherwise spend the campaign's time on children as slow to check and to reduce. Program seeds
// are checked as they are smallest first, for the same reason.
// `--guide none` is the blind stream exactly: the same programs in the same order as before guidance.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/program.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/policy.h"
#include "fuzz/gen/rng.h"

namespace uf {

enum class GuideMode { none, coverage };
std::string guide_name(GuideMode m);                                 // "none", "coverage"
GuideMode guide_from_name(const std::string& name);                  // UserError for another name

// A kept program: its choices, what it reached, and how often deriving from it paid.
struct Seed {
  std::string name;  // its file: `HASH.seed`
  Choices choices;
  std::vector<std::string> features;  // every feature it reached
  std::string program;                // its .uop text (for a person: the seed file is readable)
  bool has_choices = true;            // false: a `.uop` file given as a seed, mutated as a program (mutate.h)
  double seconds = 0;                 // its render when it was checked (0: not known, as for a `.uop` file)
  bool to_check = false;              // a program seed this worker checks as it is before deriving from it
  int64_t picked = 0;                 // programs derived from it
  int64_t paid = 0;                   // of those, programs that reached something new
};

// A `.seed` file's text (JSON: format, generator version, seed, draws in base64, features, program), and back;
// UserError `FILE: message` for a file that is not one.
std::string seed_text(const Seed& s);
Seed read_seed(const std::string& path);
// A `.uop` file as a seed (no choices); UserError `FILE:LINE: message` for one that does not read or verify.
Seed read_program_seed(const std::string& path);

// A feature named in --target-rules: `FILE:LINE`.
struct TargetRule {
  std::string file;
  int line = 0;
};
// "FILE:LINE,FILE:LINE,..." or the path of a summary whose reachable never-fired switches are meant;
// UserError for anything else.
std::vector<TargetRule> parse_target_rules(const std::string& text);

// One worker's guide. Programs are numbered per worker, as the blind stream numbers them.
class Guide {
 public:
  struct Options {
    GuideMode mode = GuideMode::none;
    std::string seeds_dir;  // "" keeps seeds in memory only
    uint64_t campaign_seed = 1;
    int worker = 0;
    int workers = 1;  // a program seed is checked as it is by one worker, by its name's hash
    std::vector<std::string> without;  // the campaign's --without names: program seeds and mutants keep to them
    std::vector<TargetRule> targets;
    std::vector<std::string> read_dirs;  // more seed directories, read and never written (a target's own)
    std::vector<Op> approximate;          // the target's approximated ops: kept as stored leaves in every program
  };
  explicit Guide(Options o);

  // A program to check, and where it came from (for the feedback and the reproducer's meta).
  struct Pick {
    Choices choices;
    std::vector<uint64_t> draws;  // every draw its generation made (guided runs record them)
    Program program;
    int seed = -1;     // the seed it was derived from (index into seeds()), -1 for a fresh one
    std::string from;  // that seed's file name
    bool as_is = false;  // a `.uop` seed checked unchanged, once, to learn what it reaches
    std::string origin() const;  // `seed S`, or `NAME` of the seed it was derived from
  };
  Pick next(const GenPolicy& policy);

  // What one checked program reached (its render's features); keeps it as a seed when something was new.
  // Returns the features new to this guide.
  // `seconds`: its render's (Finding::render_seconds; 0 when the target does not say).
  std::vector<std::string> learn(Pick& pick, const std::vector<std::string>& features, double seconds = 0);
  // Loads the seed files other workers (or earlier campaigns) wrote since the last call.
  void sync();

  const std::vector<Seed>& seeds() const { return seeds_; }
  int64_t derived() const { return derived_; }  // programs derived from a seed and checked (learn)
  int64_t kept() const { return kept_; }  // seeds this guide kept (not those it loaded)

 private:
  Pick derive_program(Pick& p, const Seed& from, const GenPolicy& policy);
  Pick pick(const GenPolicy& policy);  // next() before the target's approximated ops are made leaves
  int pick_seed();
  double seed_weight(const Seed& s) const;
  bool near_target(const std::string& feature) const;
  void keep(const Pick& pick, const std::vector<std::string>& features, double seconds);
  double speed_factor(const Seed& s) const;
  void more_seed_files(const std::string& dir, std::vector<std::string>& fresh) const;  // not yet loaded

  Options o_;
  Rng rng_;
  std::vector<Seed> seeds_;
  std::set<std::string> loaded_;             // seed files read or written
  bool read_dirs_done_ = false;
  std::vector<int> unchecked_;               // `.uop` seeds not yet checked as they are
  std::map<std::string, int64_t> reached_;   // feature -> programs (this worker's, and the seeds')
  int64_t fresh_ = 0, derived_ = 0, kept_ = 0;
  int64_t timed_ = 0;         // programs checked whose render time is known
  double timed_seconds_ = 0;  // their render seconds: the average a seed's speed is judged against
  // The bandit: discounted programs and successes of each arm (fresh, derived).
  double tries_[2] = {0, 0}, wins_[2] = {0, 0};
};

}  // namespace uf

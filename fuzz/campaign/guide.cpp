#include "fuzz/campaign/guide.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "codegen/runtime/base64.h"
#include "codegen/runtime/files.h"
#include "core/error.h"
#include "core/text.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/gen/mutate.h"

namespace uf {

namespace {

constexpr int kSeedFormat = 1;
// The bandit forgets: each program weighs this much less per program drawn after it, so the share of
// derived programs follows where new features were found lately (about the last 100 programs).
constexpr double kDiscount = 0.99;
constexpr double kMinShare = 0.1, kMaxShare = 0.9;  // each arm keeps being tried
// Of the derived arm's turns while program seeds wait to be checked as they are, the share that checks
// one: a directory of a target's 874 kernels must not hold derivation off for a whole campaign.
constexpr double kAsIsShare = 0.5;
constexpr int kTargetNear = 20;                       // --target-rules: a feature within this many lines is near
constexpr double kMinSpeed = 0.1, kMaxSpeed = 3;      // a seed's speed factor, AFL's bounds (perf_score 10..300 %)

using Draws = std::vector<uint64_t>;

// ---- mutations of a choice sequence: one row each (name, weight, function) -----------------------------
Draws point_mutation(const Draws& d, const Draws&, Rng& rng) {
  Draws out = d;
  for (int k = 1 + static_cast<int>(rng.below(4)); k > 0 && !out.empty(); --k) out[rng.below(out.size())] = rng.next();
  return out;
}
// Small values choose the first alternatives (below(n) of 0 is 0, unit() of 0 is 0 so every chance()
// holds): Hypothesis's direction of simpler choices.
Draws small_mutation(const Draws& d, const Draws&, Rng& rng) {
  Draws out = d;
  for (int k = 1 + static_cast<int>(rng.below(4)); k > 0 && !out.empty(); --k) out[rng.below(out.size())] = rng.below(16);
  return out;
}
Draws block_mutation(const Draws& d, const Draws&, Rng& rng) {
  Draws out = d;
  if (out.empty()) return out;
  const size_t len = 2 + rng.below(std::min<size_t>(63, out.size())), at = rng.below(out.size());
  for (size_t i = at; i < std::min(out.size(), at + len); ++i) out[i] = rng.next();
  return out;
}
// The rest from a fresh stream (the caller draws a new tail seed for every derived program).
Draws cut_mutation(const Draws& d, const Draws&, Rng& rng) { return Draws(d.begin(), d.begin() + rng.below(d.size() + 1)); }
// This seed's start, another's rest: structures of two programs joined where their draws line up.
Draws splice_mutation(const Draws& d, const Draws& other, Rng& rng) {
  const size_t at = rng.below(d.size() + 1);
  Draws out(d.begin(), d.begin() + at);
  if (at < other.size()) out.insert(out.end(), other.begin() + at, other.end());
  return out;
}

struct Mutation {
  const char* name;
  double weight;
  Draws (*apply)(const Draws&, const Draws&, Rng&);
};
constexpr Mutation kMutations[] = {
    {"point", 3, point_mutation}, {"small", 2, small_mutation},   {"block", 2, block_mutation},
    {"cut", 1, cut_mutation},     {"splice", 1, splice_mutation},
};

uint64_t draws_hash(const Choices& c) {
  uint64_t state = c.seed, h = splitmix64(state);
  for (uint64_t d : c.draws) {
    state ^= d + h;
    h = splitmix64(state);
  }
  return h;
}

std::string bytes_of(const Draws& d) {
  std::string out(d.size() * 8, '\0');
  for (size_t i = 0; i < d.size(); ++i)
    for (int b = 0; b < 8; ++b) out[i * 8 + b] = static_cast<char>(d[i] >> (8 * b) & 0xff);  // little-endian
  return out;
}

}  // namespace

std::string guide_name(GuideMode m) { return m == GuideMode::none ? "none" : "coverage"; }
GuideMode guide_from_name(const std::string& name) {
  if (name == "none") return GuideMode::none;
  if (name == "coverage") return GuideMode::coverage;
  throw UserError("--guide: '" + name + "' (expected none or coverage)");
}

std::string seed_text(const Seed& s) {
  nlohmann::json j = {{"format", kSeedFormat},        {"generator", kGeneratorVersion},
                      {"kind", s.has_choices ? "choices" : "program"},
                      {"seed", s.choices.seed},       {"draws", base64_encode(bytes_of(s.choices.draws))},
                      {"features", s.features},       {"program", s.program},
                      {"seconds", s.seconds}};
  return j.dump(1) + "\n";
}

Seed read_seed(const std::string& path) {
  auto bad = [&](const std::string& why) { return UserError(path + ": not a seed file: " + why); };
  const std::optional<std::string> text = read_file(path);
  if (!text) throw UserError(path + ": cannot read (" + std::strerror(errno) + ")");
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || j.value("format", 0) != kSeedFormat) throw bad("no {\"format\": 1, ...} object");
  Seed s;
  s.name = std::filesystem::path(path).filename();
  try {
    s.choices.seed = j.at("seed").get<uint64_t>();
    const std::optional<std::string> bytes = base64_decode(j.at("draws").get<std::string>());
    if (!bytes || bytes->size() % 8) throw bad("'draws' is not base64 of 64-bit values");
    for (size_t i = 0; i < bytes->size(); i += 8) {
      uint64_t v = 0;
      for (int b = 0; b < 8; ++b) v |= uint64_t{static_cast<unsigned char>((*bytes)[i + b])} << (8 * b);
      s.choices.draws.push_back(v);
    }
    s.features = j.at("features").get<std::vector<std::string>>();
    s.program = j.value("program", "");
    s.seconds = std::max(0.0, j.value("seconds", 0.0));
    s.has_choices = j.value("kind", "choices") == "choices";
    if (!s.has_choices && s.program.empty()) throw bad("a program seed without its program");
  } catch (const nlohmann::json::exception& e) { throw bad(e.what()); }
  return s;
}

Seed read_program_seed(const std::string& path) {
  Program p = read_program(path);
  verify(p);
  Seed s;
  s.name = std::filesystem::path(path).filename();
  s.program = print_program(p);
  s.has_choices = false;
  return s;
}

std::vector<TargetRule> parse_target_rules(const std::string& text) {
  std::vector<std::string> names;
  if (std::filesystem::is_regular_file(text)) {  // a summary: its reachable switches never fired
    const std::optional<std::string> json = read_file(text);
    const nlohmann::json j = nlohmann::json::parse(json.value_or(""), nullptr, false);
    if (!j.is_object() || !j.contains("target_coverage") || !j["target_coverage"].contains("never_fired"))
      throw UserError(text + ": --target-rules: not a summary with target_coverage.never_fired");
    for (const auto& line : j["target_coverage"]["never_fired"]) names.push_back(line.get<std::string>().substr(0, line.get<std::string>().find(' ')));
  } else {
    for (size_t at = 0; at <= text.size();) {
      const size_t comma = std::min(text.find(',', at), text.size());
      if (comma > at) names.push_back(text.substr(at, comma - at));
      at = comma + 1;
    }
  }
  std::vector<TargetRule> out;
  for (const std::string& n : names) {
    const size_t colon = n.rfind(':');
    char* end = nullptr;
    const long line = colon == std::string::npos ? 0 : std::strtol(n.c_str() + colon + 1, &end, 10);
    if (colon == std::string::npos || colon == 0 || line <= 0 || (*end != '\0' && *end != '#'))
      throw UserError("--target-rules: '" + n + "' is not FILE:LINE");
    out.push_back({n.substr(0, colon), static_cast<int>(line)});
  }
  if (out.empty()) throw UserError("--target-rules: no rule named");
  return out;
}

std::string Guide::Pick::origin() const {
  return from.empty() ? "seed " + std::to_string(choices.seed) : from;
}

Guide::Guide(Options o) : o_(std::move(o)), rng_(o_.campaign_seed ^ (0xA0761D6478BD642Full * (static_cast<uint64_t>(o_.worker) + 1))) {
  sync();
}

void Guide::more_seed_files(const std::string& dir, std::vector<std::string>& fresh) const {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if ((e.path().extension() == ".seed" || e.path().extension() == ".uop") && !loaded_.count(e.path().filename()))
      fresh.push_back(e.path());
}

void Guide::sync() {
  if (o_.mode == GuideMode::none) return;
  std::vector<std::string> fresh;
  for (const std::string& dir : o_.read_dirs)
    if (!read_dirs_done_) more_seed_files(dir, fresh);  // they do not change: read once
  read_dirs_done_ = true;
  if (!o_.seeds_dir.empty()) more_seed_files(o_.seeds_dir, fresh);
  std::sort(fresh.begin(), fresh.end());  // the same order on every machine
  for (const std::string& path : fresh) {
    if (!loaded_.insert(std::filesystem::path(path).filename()).second) continue;  // the same file in two directories
    try {
      const bool program = std::filesystem::path(path).extension() == ".uop";
      Seed s = program ? read_program_seed(path) : read_seed(path);
      if (program && !without_violation(parse_program(s.program), o_.without).empty()) continue;  // not for this target
      for (const std::string& f : s.features) ++reached_[f];
      const std::string name = std::filesystem::path(path).filename();
      if (program && static_cast<int>(fnv1a(name) % static_cast<uint32_t>(std::max(1, o_.workers))) == o_.worker) {
        unchecked_.push_back(static_cast<int>(seeds_.size()));
        s.to_check = true;
      }
      seeds_.push_back(std::move(s));
    } catch (const UserError&) {}  // a file being written, or not ours: not a seed
  }
  std::stable_sort(unchecked_.begin(), unchecked_.end(), [&](int a, int b) {  // smallest first: cheapest to check
    return seeds_[static_cast<size_t>(a)].program.size() < seeds_[static_cast<size_t>(b)].program.size();
  });
}

// Every program keeps the target's approximated ops as stored leaves only; one that no longer verifies
// then (rare: an index computed from such an op) gives way to the next pick.
Guide::Pick Guide::next(const GenPolicy& policy) {
  for (;;) {
    Pick p = pick(policy);
    if (keep_approximated_as_leaves(p.program, o_.approximate)) return p;
  }
}

Guide::Pick Guide::pick(const GenPolicy& policy) {
  Pick p;
  if (o_.mode == GuideMode::none) {
    p.choices = Choices{program_seed(o_.campaign_seed, static_cast<uint64_t>(o_.worker), static_cast<uint64_t>(fresh_++)), {}};
    p.program = generate(p.choices.seed, policy);
    return p;
  }
  const double r_fresh = (wins_[0] + 1) / (tries_[0] + 2), r_derived = (wins_[1] + 1) / (tries_[1] + 2);
  const double share = std::clamp(r_derived / (r_fresh + r_derived), kMinShare, kMaxShare);
  const bool can_derive = seeds_.size() > unchecked_.size();  // some seed is not waiting for its check
  const bool derived_turn = (can_derive || !unchecked_.empty()) && rng_.chance(share);
  // A program seed as it is (what it reaches decides its weight; a seed without an opts line gets a drawn
  // one, as generated programs do, else a target's recorded kernels would only ever meet its heuristic)
  // takes half the derived turns while any waits: the fresh stream goes on beside the seeds, so what blind
  // programs find is found about as early, and derivation from the seeds already known goes on too.
  if (derived_turn && !unchecked_.empty() && (!can_derive || rng_.chance(kAsIsShare))) {
    p.seed = unchecked_.front();
    unchecked_.erase(unchecked_.begin());
    seeds_[static_cast<size_t>(p.seed)].to_check = false;
    p.as_is = true;
    p.from = seeds_[static_cast<size_t>(p.seed)].name;
    p.choices = Choices{rng_.next(), {}};  // its other data sets' stream
    p.program = parse_program(seeds_[static_cast<size_t>(p.seed)].program);
    if (!p.program.opts) draw_opts(p.program, policy, rng_);  // as derive_program's mutants
    p.program.set_meta("derived", p.from);
    return p;
  }
  if (!derived_turn) {
    p.choices = Choices{program_seed(o_.campaign_seed, static_cast<uint64_t>(o_.worker), static_cast<uint64_t>(fresh_++)), {}};
  } else {
    p.seed = pick_seed();
    const Seed& from = seeds_[static_cast<size_t>(p.seed)];
    if (!from.has_choices) return derive_program(p, from, policy);
    const Draws& other = seeds_[rng_.below(seeds_.size())].choices.draws;
    std::vector<double> weights;
    for (const Mutation& m : kMutations) weights.push_back(m.weight);
    p.choices.draws = kMutations[rng_.weighted(weights)].apply(from.choices.draws, other, rng_);
    p.choices.seed = rng_.next();
  }
  p.program = generate(p.choices, policy, &p.draws);
  if (p.seed >= 0) {
    p.from = seeds_[static_cast<size_t>(p.seed)].name;
    p.program.set_meta("derived", p.from);
  }
  return p;
}

// A program mutated from a `.uop` seed (mutate.h); a fresh one when no mutation applies or the mutant has
// what the target lacks (an op mutated into a --without one). A seed recorded without an opts line (a
// tinygrad kernel as its heuristic saw it) gets a drawn sequence as a generated program does
// (policy.p_opts), so the optimizer sees the target's own kernels too.
Guide::Pick Guide::derive_program(Pick& p, const Seed& from, const GenPolicy& policy) {
  p.choices = Choices{rng_.next(), {}};
  p.from = from.name;
  std::optional<Program> q = mutate_program(parse_program(from.program), rng_);
  if (q && !q->opts) draw_opts(*q, policy, rng_);
  if (q && without_violation(*q, o_.without).empty()) {
    p.program = std::move(*q);
    p.program.set_meta("derived", p.from);
    return std::move(p);
  }
  p.seed = -1;
  p.from.clear();
  p.choices = Choices{program_seed(o_.campaign_seed, static_cast<uint64_t>(o_.worker), static_cast<uint64_t>(fresh_++)), {}};
  p.program = generate(p.choices, policy, &p.draws);
  return std::move(p);
}

int Guide::pick_seed() {
  std::vector<double> w;
  for (const Seed& s : seeds_) w.push_back(s.to_check ? 0 : seed_weight(s));
  return rng_.weighted(w);
}

// AFL's power schedule with FairFuzz's rarity: a seed reaching features few programs reach, little
// derived from so far, whose children paid, and (--target-rules) near a named rule, weighs more.
double Guide::seed_weight(const Seed& s) const {
  double rarity = 0;
  int near = 0;
  for (const std::string& f : s.features) {
    const auto it = reached_.find(f);
    rarity += 1.0 / static_cast<double>(std::max<int64_t>(1, it == reached_.end() ? 1 : it->second));
    near += near_target(f);
  }
  return (1 + rarity) * (1 + static_cast<double>(s.paid)) * (1 + 4.0 * near) * speed_factor(s) /
         std::sqrt(1 + static_cast<double>(s.picked));
}

// The average render over this guide's checked programs against the seed's own (1 while either is unknown).
double Guide::speed_factor(const Seed& s) const {
  if (s.seconds <= 0 || timed_ == 0) return 1;
  return std::clamp(timed_seconds_ / static_cast<double>(timed_) / s.seconds, kMinSpeed, kMaxSpeed);
}

bool Guide::near_target(const std::string& feature) const {
  const size_t colon = feature.rfind(':');
  if (colon == std::string::npos || o_.targets.empty()) return false;
  const std::string file = feature.substr(0, colon);
  const int line = std::atoi(feature.c_str() + colon + 1);
  return std::any_of(o_.targets.begin(), o_.targets.end(),
                     [&](const TargetRule& t) { return t.file == file && std::abs(t.line - line) <= kTargetNear; });
}

std::vector<std::string> Guide::learn(Pick& pick, const std::vector<std::string>& features, double seconds) {
  std::vector<std::string> fresh;
  for (const std::string& f : features)
    if (reached_[f]++ == 0) fresh.push_back(f);
  if (o_.mode == GuideMode::none) return fresh;
  if (seconds > 0) ++timed_, timed_seconds_ += seconds;
  if (pick.as_is) {  // a seed already; now it weighs by what it reached, and how fast
    seeds_[static_cast<size_t>(pick.seed)].features = features;
    seeds_[static_cast<size_t>(pick.seed)].seconds = seconds;
    return fresh;  // and says nothing of how deriving pays: the bandit does not count it
  }
  const int arm = pick.seed >= 0 ? 1 : 0;
  for (int a = 0; a < 2; ++a) tries_[a] *= kDiscount, wins_[a] *= kDiscount;
  tries_[arm] += 1;
  wins_[arm] += fresh.empty() ? 0 : 1;
  if (pick.seed >= 0) {
    ++derived_;
    ++seeds_[static_cast<size_t>(pick.seed)].picked;
    seeds_[static_cast<size_t>(pick.seed)].paid += !fresh.empty();
  }
  if (!fresh.empty()) keep(pick, features, seconds);
  return fresh;
}

void Guide::keep(const Pick& pick, const std::vector<std::string>& features, double seconds) {
  Seed s;
  s.program = print_program(pick.program);
  s.has_choices = !pick.draws.empty();  // else mutated from a program seed: a program seed too
  Choices key{pick.choices.seed, pick.draws};
  if (!s.has_choices)
    for (unsigned char c : s.program) key.draws.push_back(c);  // named by its text
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(draws_hash(key)));
  s.name = std::string(hex) + ".seed";
  if (s.has_choices) s.choices = Choices{pick.choices.seed, pick.draws};
  s.features = features;
  s.seconds = seconds;
  ++kept_;
  if (!o_.seeds_dir.empty() && loaded_.insert(s.name).second) {  // made when first needed: a target without features makes none
    std::error_code ec;
    std::filesystem::create_directories(o_.seeds_dir, ec);
    create_file_atomically(o_.seeds_dir + "/" + s.name, seed_text(s));  // a full disk costs a seed, not the campaign
  }
  seeds_.push_back(std::move(s));
}

}  // namespace uf

// Target coverage: what of the target the programs reached. A protocol-2 plug-in's render reply names
// the switches that took effect (`used`; tinygrad: the rewrite rules that fired), the program's target
// features; a campaign counts each feature's programs and remembers the first program that fired it.
// The handshake says what there is to reach: its `switches` (known) and, of them, `reachable` (what a
// generated program can reach at all; tinygrad: the kernel pipeline's rules, not its front end's), which
// is what the coverage is counted over.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/plugin_describe.h"

namespace uf {

struct FeatureHits {
  int64_t programs = 0;        // programs whose render reached it
  double first_seconds = 0;    // when the first of them was checked (campaign time)
  std::string first_program;   // which it was: `seed S` or the seed file it was derived from (guide.h)
};

struct TargetCoverage {
  std::map<std::string, FeatureHits> features;
  int64_t programs = 0;  // programs whose render reported features (rendered, by a target that reports)

  // One program's features; returns those it reached first.
  std::vector<std::string> add(const std::vector<std::string>& used, double seconds, const std::string& program);
  // Counts add up; a feature's first program is the earlier one.
  void merge(const TargetCoverage& other);
};
void to_json(nlohmann::json& j, const FeatureHits& h);
void from_json(const nlohmann::json& j, FeatureHits& h);
void to_json(nlohmann::json& j, const TargetCoverage& c);
void from_json(const nlohmann::json& j, TargetCoverage& c);

// The file part of a feature name `FILE:LINE` (tinygrad's rules; `#2` ranks included in LINE), or "".
std::string feature_file(const std::string& name);

// The kind of a feature that is no switch: `line:FILE` for a line of FILE (`line:FILE:LINE`), else the
// part before the first `:` (`insn`, `opt`, `opts`, `threads`, a compiler's remarks).
std::string feature_kind(const std::string& name);
// How many distinct features of each kind the programs reached (switches not counted).
std::map<std::string, size_t> feature_kinds(const TargetCoverage& c, const PluginDescription& d);

// The summary's `target_coverage`: known, reachable, fired (of the reachable), fired_any (any feature
// at all, reachable or not), per file {reachable, fired}, each feature's counts and first program, and
// the reachable features never fired (`FILE:LINE  source line`), and `kinds` (feature_kinds). Empty object when the target reports
// nothing and the handshake lists no switches.
nlohmann::json target_coverage_json(const TargetCoverage& c, const PluginDescription& d);
// "fired 131 of 295 reachable switches (140 of 487 known)" for the text summary; "" without switches.
std::string target_coverage_text(const TargetCoverage& c, const PluginDescription& d);
// How many of the reachable features the programs fired.
size_t reachable_fired(const TargetCoverage& c, const PluginDescription& d);
// The reachable set of a handshake: `reachable`, or every switch when it gives none.
std::vector<std::string> reachable_features(const PluginDescription& d);

}  // namespace uf

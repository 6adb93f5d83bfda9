// The campaign's summary: its JSON (docs/format.md section 3) and its text, and the target as both show it.
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "fuzz/campaign/campaign.h"
#include "fuzz/campaign/hint.h"
#include "fuzz/oracle/culprit.h"
#include "interp/approx.h"

namespace uf {

namespace {

// Numbers for people: rates and shares to one decimal, durations to the centisecond.
double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

nlohmann::json target_json(const CompiledPathConfig& cfg) {
  if (cfg.renderer_cmd.empty())
    return {{"name", "builtin"}, {"version", ""}, {"protocol", 0}, {"mode", "builtin"}, {"language", "c"}};
  const PluginDescription& d = cfg.renderer_description;
  const bool named = d.protocol >= 2;
  nlohmann::json j = {{"name", named ? d.target.name : cfg.renderer_cmd},
                      {"version", named ? d.target.version : ""},
                      {"protocol", d.protocol},
                      {"mode", protocol_name(cfg.renderer_protocol)},
                      {"language", language_name(d.language)}};
  if (!d.opts.empty()) j["opts"] = d.opts;  // the optimization actions its handshake lists
  return j;
}

std::vector<std::string> without_list(const CampaignOptions& o) {
  std::vector<std::string> names;
  std::istringstream in(o.without_names);
  for (std::string name; std::getline(in, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

nlohmann::json CampaignSummary::to_json() const {
  nlohmann::json j;
  j["target"] = target;
  j["without"] = without;
  j["opts"] = opts_mode;
  counts.add_to_summary(j);  // every counter of counters.def
  j["mismatches"] = new_mismatches;
  j["buckets"] = buckets.size();
  j["signatures"] = buckets;
  j["culprits"] = culprits;
  j["groups"] = groups();
  nlohmann::json known_buckets = nlohmann::json::object();
  for (const auto& [sig, r] : known) known_buckets[sig] = {{"file", r.known}, {"culprit", r.culprit}};
  j["known"] = {{"dir", known_dir}, {"findings", known_findings}, {"checks", known_checks}, {"buckets", known_buckets},
                {"groups", known_groups()}};
  j["suggested"] = suggested;
  j["seconds"] = rounded(seconds, 2);
  j["programs_per_second"] = rounded(seconds > 0 ? counts.programs / seconds : 0.0, 1);
  j["inputs"] = inputs;
  j["runs_per_second"] = rounded(seconds > 0 ? counts.runs / seconds : 0.0, 1);
  j["saved"] = saved;
  j["compiler_calls"] = compiler_calls;
  j["programs_per_compiler_call"] =
      rounded(compiler_calls ? static_cast<double>(counts.valid) / static_cast<double>(compiler_calls) : 0.0, 1);
  j["compile_seconds"] = rounded(compile_seconds, 2);
  j["compiler_busy"] = rounded(seconds > 0 && jobs > 0 ? compile_seconds / (seconds * jobs) : 0.0, 3);
  j["target_coverage"] = target_coverage_json(target_coverage, description);
  j["guide"] = {{"mode", guide}, {"derived_programs", derived_programs}, {"seeds_kept", seeds}, {"sizes", sizes}};
  j["coverage"] = coverage.summary();
  j["coverage_missing"] = coverage.missing();
  j["bucket_hits"] = bucket_hits;
  j["approx_ulps"] = approx_ulps;
  for (const auto& [table, pairs] : {std::pair{"op_dtype", coverage.op_dtype_pairs()}, std::pair{"cast", coverage.cast_pairs()}})
    for (const Coverage::PairCount& p : pairs) j["coverage_counts"][table][p.row][p.column] = p.count;
  j["interrupted"] = interrupted;
  j["first_finding_seconds"] = first_finding ? nlohmann::json(rounded(first_finding->seconds, 2)) : nlohmann::json();
  j["first_finding_programs"] = first_finding ? nlohmann::json(first_finding->programs) : nlohmann::json();
  j["errors"] = errors;
  return j;
}

std::map<std::string, std::vector<std::string>> CampaignSummary::groups() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& b : buckets) {
    if (known.count(b)) continue;
    const auto c = culprits.find(b);
    out[group_key(b, c == culprits.end() ? "" : c->second)].push_back(b);
  }
  return out;
}

std::map<std::string, std::vector<std::string>> CampaignSummary::known_groups() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [sig, r] : known) out[r.culprit].push_back(sig);
  return out;
}

// " (B-K in them, new; K in H known groups: --known DIR, N findings, C checks)", or "" without --known.
std::string CampaignSummary::known_text() const {
  if (known_dir.empty()) return "";
  return " (" + std::to_string(buckets.size() - known.size()) + " in them, new; " + std::to_string(known.size()) + " in " +
         std::to_string(known_groups().size()) + " known groups: --known " + known_dir + ", " + std::to_string(known_findings) +
         " findings, " + std::to_string(known_checks) + " checks)";
}

// "policy P; seeds D, E; known K": what the campaign took from the target's handshake.
std::string CampaignSummary::suggested_text() const {
  std::string out;
  for (const auto& [key, value] : suggested.items()) {
    std::string v = value.is_string() ? value.get<std::string>() : "";
    if (value.is_array())
      for (const auto& e : value) v += (v.empty() ? "" : ", ") + e.get<std::string>();
    out += (out.empty() ? "" : "; ") + key + " " + v;
  }
  return out;
}

std::string CampaignSummary::to_text() const {
  std::ostringstream o;
  o << "uopfuzz: " << counts.programs << " programs in " << fixed(seconds, 1) << " s ("
    << fixed(seconds > 0 ? counts.programs / seconds : 0, 1) << "/s), " << counts.valid << " compared, " << counts.undefined
    << " undefined\n"
    << "uopfuzz: runs: " << counts.runs << " kernel executions compared (" << fixed(seconds > 0 ? counts.runs / seconds : 0, 1)
    << "/s) on up to " << inputs << " data sets a program, " << counts.observed_runs
    << " of them of observed kernels (every intermediate stored); " << counts.undefined_inputs
    << " extra data sets UNDEFINED, skipped\n"
    << "uopfuzz: failures: " << counts.mismatching << " mismatch, " << counts.crashes << " crash, " << counts.timeouts
    << " timeout, " << counts.compile_errors << " compile-error, " << counts.render_errors << " render-error; " << buckets.size()
    << " buckets in " << groups().size() << " groups" << known_text() << ", " << saved.size() << " new reproducers\n"
    << "uopfuzz: coverage: " << coverage.summary() << "\n";
  if (const std::string t = target_coverage_text(target_coverage, description); !t.empty())
    o << "uopfuzz: target coverage: " << t << "; " << derived_programs << " programs derived from seeds, " << seeds
      << " seeds kept (--guide " << guide << ")\n";
  if (!suggested.empty()) o << "uopfuzz: from the target's handshake: " << suggested_text() << "\n";
  if (!sizes.empty()) {
    o << "uopfuzz: sizes:";
    for (const auto& [range, c] : sizes) o << " " << range << " steps " << c.programs << " programs, " << c.new_buckets << " new buckets;";
    o << " (adapt_size)\n";
  }
  if (target.value("protocol", 0) > 0)
    o << "uopfuzz: target: " << target.value("name", "") << " " << target.value("version", "") << " (protocol "
      << target.value("protocol", 0) << ", " << target.value("mode", "") << " mode)" << (without.empty() ? "" : "; without ")
      << std::accumulate(without.begin(), without.end(), std::string(),
                         [](std::string a, const std::string& b) { return a.empty() ? b : a + "," + b; })
      << "\n";
  for (const auto& [op, bins] : approx_ulps) {
    o << "uopfuzz: approximate " << op << ":";
    for (const char* bin : kUlpBins)
      if (const auto it = bins.find(bin); it != bins.end()) o << " " << bin << " " << it->second << ";";
    o << " (ULPs from the correctly rounded result)\n";
  }
  if (compiler_calls > 0)
    o << "uopfuzz: compiler: " << compiler_calls << " calls ("
      << fixed(static_cast<double>(counts.valid) / static_cast<double>(compiler_calls), 1) << " programs each), busy "
      << fixed(100 * compile_seconds / std::max(1e-9, seconds * jobs), 1) << " % of " << jobs << " × wall\n";
  if (const std::string hint = dominant_failure_hint(*this); !hint.empty()) o << "uopfuzz: hint: " << hint << "\n";
  for (const auto& b : buckets) {
    const auto c = culprits.find(b);
    o << "uopfuzz: bucket: " << b << (c == culprits.end() ? "" : "  (culprit: " + c->second + ")") << "\n";
  }
  for (const auto& [key, members] : groups())
    o << "uopfuzz: group: " << key << ": " << members.size() << (members.size() == 1 ? " bucket" : " buckets") << "\n";
  for (const auto& [sig, r] : known) o << "uopfuzz: known: " << sig << ": " << r.known << " (" << r.culprit << ")\n";
  for (const auto& f : saved) o << "uopfuzz: saved " << f << "\n";
  for (const auto& e : errors) o << "uopfuzz: error: " << e << "\n";
  if (interrupted) o << "uopfuzz: interrupted\n";
  return o.str();
}

}  // namespace uf

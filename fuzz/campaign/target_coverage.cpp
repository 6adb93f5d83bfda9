#include "fuzz/campaign/target_coverage.h"

#include <cmath>
#include <set>

namespace uf {

std::vector<std::string> TargetCoverage::add(const std::vector<std::string>& used, double seconds, const std::string& program) {
  std::vector<std::string> fresh;
  if (used.empty()) return fresh;
  ++programs;
  for (const std::string& f : used) {
    FeatureHits& h = features[f];
    if (h.programs++ == 0) {
      h.first_seconds = seconds;
      h.first_program = program;
      fresh.push_back(f);
    }
  }
  return fresh;
}

void TargetCoverage::merge(const TargetCoverage& other) {
  programs += other.programs;
  for (const auto& [name, h] : other.features) {
    auto [it, fresh] = features.try_emplace(name, h);
    if (fresh) continue;
    FeatureHits& mine = it->second;
    if (h.first_seconds < mine.first_seconds) {
      mine.first_seconds = h.first_seconds;
      mine.first_program = h.first_program;
    }
    mine.programs += h.programs;
  }
}

void to_json(nlohmann::json& j, const FeatureHits& h) {
  j = {{"programs", h.programs}, {"first_seconds", h.first_seconds}, {"first_program", h.first_program}};
}
void from_json(const nlohmann::json& j, FeatureHits& h) {
  h.programs = j.at("programs").get<int64_t>();
  h.first_seconds = j.at("first_seconds").get<double>();
  h.first_program = j.at("first_program").get<std::string>();
}
void to_json(nlohmann::json& j, const TargetCoverage& c) { j = {{"programs", c.programs}, {"features", c.features}}; }
void from_json(const nlohmann::json& j, TargetCoverage& c) {
  c.programs = j.at("programs").get<int64_t>();
  c.features = j.at("features").get<std::map<std::string, FeatureHits>>();
}

std::string feature_file(const std::string& name) {
  const size_t colon = name.rfind(':');
  return colon == std::string::npos ? "" : name.substr(0, colon);
}

std::string feature_kind(const std::string& name) {
  if (name.rfind("line:", 0) == 0) return feature_file(name);
  return name.substr(0, name.find(':'));
}

std::map<std::string, size_t> feature_kinds(const TargetCoverage& c, const PluginDescription& d) {
  const std::set<std::string> switches(d.switches.begin(), d.switches.end());
  std::map<std::string, size_t> kinds;
  for (const auto& [name, hits] : c.features)
    if (!switches.count(name)) ++kinds[feature_kind(name)];
  return kinds;
}

std::vector<std::string> reachable_features(const PluginDescription& d) { return d.reachable.empty() ? d.switches : d.reachable; }

size_t reachable_fired(const TargetCoverage& c, const PluginDescription& d) {
  size_t fired = 0;
  for (const std::string& f : reachable_features(d)) fired += c.features.count(f);
  return fired;
}

nlohmann::json target_coverage_json(const TargetCoverage& c, const PluginDescription& d) {
  if (c.features.empty() && d.switches.empty()) return nlohmann::json::object();
  const std::vector<std::string> reachable = reachable_features(d);
  nlohmann::json j;
  j["known"] = d.switches.size();
  j["reachable"] = reachable.size();
  j["programs"] = c.programs;
  j["fired_any"] = c.features.size();
  size_t fired = 0;
  nlohmann::json files = nlohmann::json::object(), never = nlohmann::json::array();
  for (const std::string& f : reachable) {
    nlohmann::json& row = files[feature_file(f)];
    if (row.is_null()) row = {{"reachable", 0}, {"fired", 0}};
    const bool hit = c.features.count(f) > 0;
    row["reachable"] = row["reachable"].get<int>() + 1;
    row["fired"] = row["fired"].get<int>() + (hit ? 1 : 0);
    fired += hit;
    if (!hit) {
      const auto src = d.switch_source.find(f);
      never.push_back(src == d.switch_source.end() ? f : f + "  " + src->second);
    }
  }
  j["fired"] = fired;
  j["files"] = files;
  nlohmann::json features = nlohmann::json::object();
  for (const auto& [name, h] : c.features)
    features[name] = {{"programs", h.programs}, {"first_seconds", std::round(h.first_seconds * 100) / 100}, {"first_program", h.first_program}};
  j["features"] = features;
  j["kinds"] = feature_kinds(c, d);
  j["never_fired"] = never;
  return j;
}

std::string target_coverage_text(const TargetCoverage& c, const PluginDescription& d) {
  if (c.features.empty() && d.switches.empty()) return "";
  std::string kinds;
  size_t others = 0;
  for (const auto& [kind, n] : feature_kinds(c, d)) {
    kinds += (kinds.empty() ? "; other features: " : ", ") + kind + " " + std::to_string(n);
    others += n;
  }
  return "fired " + std::to_string(reachable_fired(c, d)) + " of " + std::to_string(reachable_features(d).size()) +
         " reachable switches (" +
         std::to_string(c.features.size() - others) + " of " + std::to_string(d.switches.size()) + " known) in " +
         std::to_string(c.programs) + " programs" + kinds;
}

}  // namespace uf

// Comparing runs with their baselines: the buckets a target gained between two of its versions.
#include "fuzz/report/regressions.h"

#include <algorithm>
#include <map>
#include <set>

#include "fuzz/report/html.h"

namespace uf::report {

namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* k) {
  return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
}

const json& target_of(const Run& r) {
  static const json none = json::object();
  return r.summary.contains("target") && r.summary["target"].is_object() ? r.summary["target"] : none;
}

// All that decides what a run can find, but the target's version: runs that differ here are not compared.
std::string configuration(const Run& r) {
  std::string key = text_of(target_of(r), "name");
  for (const char* k : {"renderer", "cc", "cflags", "f16", "bf16"}) key += '\x1f' + text_of(r.start, k);
  return key;
}

Comparison compare_one(const std::vector<Run>& runs, size_t i) {
  Comparison c;
  c.run = i;
  c.target = text_of(target_of(runs[i]), "name");
  c.to = text_of(target_of(runs[i]), "version");
  std::set<std::string> before, versions;
  for (size_t b = 0; b < runs.size(); ++b) {
    if (!runs[b].baseline || configuration(runs[b]) != configuration(runs[i])) continue;
    c.baselines.push_back(b);
    const std::string v = text_of(target_of(runs[b]), "version");
    if (versions.insert(v).second) c.from += (c.from.empty() ? "" : ",") + v;
    for (const std::string& s : runs[b].signatures()) before.insert(s);
  }
  if (c.baselines.empty()) return c;
  const std::vector<std::string> now = runs[i].signatures();
  // The same version on both sides: a difference is the campaigns' luck, not a change of the target.
  c.versions_differ = !versions.contains(c.to);
  if (c.versions_differ)
    for (const std::string& s : now)
      if (!before.contains(s)) c.regressions.push_back(s);
  for (const std::string& s : before)
    if (!std::binary_search(now.begin(), now.end(), s)) c.not_seen.push_back(s);
  return c;
}

std::string links(const std::vector<std::string>& sigs, const std::map<std::string, std::string>& ids) {
  if (sigs.empty()) return "—";
  std::string s;
  for (const std::string& sig : sigs) {
    const auto id = ids.find(sig);
    s += (s.empty() ? "" : ", ") +
         (id == ids.end() ? esc(sig) : "<a href=\"#bucket-" + esc(id->second) + "\"><code>" + esc(sig) + "</code></a>");
  }
  return s;
}

std::string labels(const std::vector<Run>& runs, const std::vector<size_t>& which) {
  std::string s;
  for (const size_t b : which) s += (s.empty() ? "" : ", ") + esc(runs[b].label);
  return s;
}

}  // namespace

std::string Comparison::label() const { return (target.empty() ? "" : target + " ") + "regression " + range(); }

std::vector<Comparison> compare_runs(const std::vector<Run>& runs) {
  std::vector<Comparison> out;
  if (std::none_of(runs.begin(), runs.end(), [](const Run& r) { return r.baseline; })) return out;
  for (size_t i = 0; i < runs.size(); ++i)
    if (!runs[i].baseline) out.push_back(compare_one(runs, i));
  return out;
}

void mark_regressions(const std::vector<Comparison>& cmps, std::vector<Bucket>& buckets) {
  for (Bucket& b : buckets)
    for (const Comparison& c : cmps)
      if (std::find(c.regressions.begin(), c.regressions.end(), b.signature) != c.regressions.end() &&
          b.regression.find(c.label()) == std::string::npos)
        b.regression += (b.regression.empty() ? "" : "; ") + c.label();
}

std::string regressions_section(const std::vector<Run>& runs, const std::vector<Comparison>& cmps,
                                const std::vector<Bucket>& buckets) {
  if (cmps.empty()) return "";
  std::map<std::string, std::string> ids;
  for (const Bucket& b : buckets) ids[b.signature] = b.id;
  std::string s =
      "<section id=\"regressions\"><h2>Regressions</h2><p>Each run against the baseline runs of its configuration "
      "(the same target, renderer command, compiler, flags and half modes): a bucket the run found and they did not, "
      "at another version of the target, is a regression of that target over the versions BASELINE..RUN. A campaign "
      "is a sample: replay the reproducer at the baseline version to rule out that the baseline missed it.</p>"
      "<div class=\"scroll\"><table id=\"regression-table\"><tr><th>run</th><th>target</th><th>baseline</th>"
      "<th>versions</th><th>regressions</th><th>not seen (fixed?)</th></tr>";
  for (const Comparison& c : cmps) {
    const std::string versions = c.baselines.empty() ? "—"
                                 : c.versions_differ ? "<code>" + esc(c.range()) + "</code>"
                                                     : "same version <code>" + esc(c.to) + "</code>: not compared";
    s += "<tr id=\"regressions-" + std::to_string(c.run) + "\"><td>" + esc(runs[c.run].label) + "</td><td>" +
         esc(c.target.empty() ? "—" : c.target) + "</td><td>" +
         (c.baselines.empty() ? "none of its configuration" : labels(runs, c.baselines)) + "</td><td>" + versions +
         "</td><td class=\"new\">" + links(c.regressions, ids) + "</td><td>" + links(c.not_seen, ids) + "</td></tr>";
  }
  return s + "</table></div></section>";
}

}  // namespace uf::report

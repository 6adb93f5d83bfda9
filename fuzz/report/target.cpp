// The report's target coverage section: reachable target features fired over time, per source file,
// and the ones no run fired, from the summaries' `target_coverage` and the event logs' samples.
#include <algorithm>
#include <map>
#include <set>

#include "fuzz/report/html.h"
#include "fuzz/report/report.h"
#include "fuzz/report/svg.h"

namespace uf::report {

namespace {

using nlohmann::json;

const json* coverage_of(const Run& r) {
  const json& s = r.summary;
  return s.contains("target_coverage") && s["target_coverage"].is_object() && s["target_coverage"].contains("reachable")
             ? &s["target_coverage"]
             : nullptr;
}

std::string over_time(const std::vector<Run>& runs) {
  std::vector<Series> all;
  for (const Run& r : runs) {
    Series se{r.label, {}};
    for (const Sample& s : r.samples) se.points.push_back({s.t, static_cast<double>(s.target_fired)});
    if (coverage_of(r) && !se.points.empty()) all.push_back(std::move(se));
  }
  if (all.empty()) return "";
  return "<div class=\"scroll\">" +
         line_chart("chart-target", "reachable target features fired (cumulative)", "seconds", "features", all) + "</div>";
}

// One row per source file, a fired/reachable column per run.
std::string per_file(const std::vector<Run>& runs) {
  std::map<std::string, std::vector<std::string>> rows;
  std::string head = "<tr><th>file</th>";
  size_t column = 0;
  for (const Run& r : runs) {
    const json* c = coverage_of(r);
    if (!c) continue;
    head += "<th>" + esc(r.label) + "<br>" + grouped((*c)["fired"].get<int64_t>()) + " / " +
            grouped((*c)["reachable"].get<int64_t>()) + "</th>";
    for (const auto& [file, row] : (*c)["files"].items()) {
      auto& cells = rows[file];
      cells.resize(column, "");
      cells.push_back(grouped(row.value("fired", int64_t{0})) + " / " + grouped(row.value("reachable", int64_t{0})));
    }
    ++column;
  }
  std::string s = "<div class=\"scroll\"><table id=\"target-files\" class=\"num\">" + head + "</tr>";
  for (auto& [file, cells] : rows) {
    cells.resize(column, "");
    s += "<tr><td>" + esc(file.empty() ? "(no file)" : file) + "</td>";
    for (const std::string& c : cells) s += "<td class=\"n\">" + c + "</td>";
    s += "</tr>";
  }
  return s + "</table></div>";
}

// The reachable features no run fired: FILE:LINE and the target's line of source.
std::string never_fired(const std::vector<Run>& runs) {
  std::map<std::string, std::string> never;  // name -> its line
  std::set<std::string> fired;
  for (const Run& r : runs) {
    const json* c = coverage_of(r);
    if (!c) continue;
    for (const auto& line : (*c)["never_fired"]) {
      const std::string text = line.get<std::string>();
      never.emplace(text.substr(0, text.find(' ')), text);
    }
    for (const auto& [name, _] : (*c)["features"].items()) fired.insert(name);
  }
  std::string items;
  size_t n = 0;
  for (const auto& [name, text] : never)
    if (!fired.count(name)) {
      items += "<li><code>" + esc(text) + "</code></li>";
      ++n;
    }
  return "<details id=\"target-never\"><summary>" + grouped(static_cast<int64_t>(n)) +
         " reachable features no run fired</summary><ul>" + items + "</ul></details>";
}

}  // namespace

std::string target_section(const std::vector<Run>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const Run& r) { return coverage_of(r) != nullptr; })) return "";
  return "<section id=\"target\"><h2>Target coverage</h2><p>What of the target the programs reached: the features its "
         "renders reported (protocol 2's <code>used</code>; tinygrad: the rewrite rules that fired), counted over those "
         "a generated program can reach (the handshake's <code>reachable</code>).</p>" +
         over_time(runs) + per_file(runs) + never_fired(runs) + "</section>";
}

}  // namespace uf::report

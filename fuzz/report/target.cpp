// The report's target coverage section: target features fired over time, per source file, and the ones
// no run fired, from the summaries' `target_coverage` and the event logs' samples. A target that lists
// its switches (a plug-in's handshake) is counted over the reachable ones; one that lists none (a C
// compiler's optimization remarks, `fuzz --remarks`) by every feature fired, grouped by compiler and pass.
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
  return s.contains("target_coverage") && s["target_coverage"].is_object() && s["target_coverage"].contains("fired_any")
             ? &s["target_coverage"]
             : nullptr;
}

bool has_reachable_set(const json& c) { return c.value("reachable", int64_t{0}) > 0; }

// A remark's group: its compiler and pass (`gcc optimized`, `clang loop-vectorize`; remarks.h).
std::string remark_group(const std::string& name) { return name.substr(0, name.find(": ")); }

std::string over_time(const std::vector<Run>& runs) {
  std::vector<Series> all;
  for (const Run& r : runs) {
    const json* c = coverage_of(r);
    if (!c) continue;
    const bool listed = has_reachable_set(*c);
    Series se{listed ? r.label : r.label + " (all features)", {}};
    for (const Sample& s : r.samples) se.points.push_back({s.t, static_cast<double>(listed ? s.target_fired : s.target_features)});
    if (!se.points.empty()) all.push_back(std::move(se));
  }
  if (all.empty()) return "";
  return "<div class=\"scroll\">" +
         line_chart("chart-target", "target features fired (cumulative; of the reachable ones where the target lists them)",
                    "seconds", "features", all) +
         "</div>";
}

// One row per source file (fired / reachable) or remark pass (fired), a column per run.
std::string per_file(const std::vector<Run>& runs) {
  std::map<std::string, std::vector<std::string>> rows;
  std::string head = "<tr><th>file or pass</th>";
  size_t column = 0;
  const auto cell = [&rows, &column](const std::string& row) -> std::string& {
    auto& cells = rows[row];
    cells.resize(column + 1, "");
    return cells[column];
  };
  for (const Run& r : runs) {
    const json* c = coverage_of(r);
    if (!c) continue;
    if (has_reachable_set(*c)) {
      head += "<th>" + esc(r.label) + "<br>" + grouped((*c)["fired"].get<int64_t>()) + " / " +
              grouped((*c)["reachable"].get<int64_t>()) + "</th>";
      for (const auto& [file, row] : (*c)["files"].items())
        cell(file) = grouped(row.value("fired", int64_t{0})) + " / " + grouped(row.value("reachable", int64_t{0}));
    } else {
      head += "<th>" + esc(r.label) + "<br>" + grouped((*c)["fired_any"].get<int64_t>()) + " fired</th>";
      std::map<std::string, int64_t> fired;
      for (const auto& [name, _] : (*c)["features"].items()) ++fired[remark_group(name)];
      for (const auto& [group, n] : fired) cell(group) = grouped(n);
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
  bool listed = false;
  for (const Run& r : runs) {
    const json* c = coverage_of(r);
    if (!c || !has_reachable_set(*c)) continue;
    listed = true;
    for (const auto& line : (*c)["never_fired"]) {
      const std::string text = line.get<std::string>();
      never.emplace(text.substr(0, text.find(' ')), text);
    }
    for (const auto& [name, _] : (*c)["features"].items()) fired.insert(name);
  }
  if (!listed) return "";
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
         "a generated program can reach (the handshake's <code>reachable</code>); a C compiler's optimization remarks "
         "(<code>fuzz --remarks</code>) by compiler and pass, all of them.</p>" +
         over_time(runs) + per_file(runs) + never_fired(runs) + "</section>";
}

}  // namespace uf::report

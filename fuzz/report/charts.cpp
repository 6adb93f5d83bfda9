// The report's chart sections: the coverage heat maps, the time series, and the trends across runs.
// Each chart is followed by the same numbers as a table (folded), for screen readers and for copying.
#include <algorithm>
#include <map>
#include <set>

#include "core/dtype.h"
#include "core/ops.h"
#include "core/text.h"
#include "fuzz/report/html.h"
#include "fuzz/report/report.h"
#include "fuzz/report/svg.h"

namespace uf::report {

namespace {

using nlohmann::json;

// Names in the order of core's tables (ops.def, dtypes.def), unknown names after them alphabetically.
int op_rank(const std::string& n) {
  const auto o = parse_op(n);
  return o ? static_cast<int>(*o) : 1000;
}
int dtype_rank(const std::string& n) {
  const auto d = parse_dtype(n);
  return d ? static_cast<int>(*d) : 1000;
}

std::vector<std::string> ordered(std::set<std::string> names, int (*rank)(const std::string&)) {
  std::vector<std::string> v(names.begin(), names.end());
  std::stable_sort(v.begin(), v.end(), [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return v;
}

// One table of the summaries' coverage_counts (`op_dtype` or `cast`), summed over the runs, drawn as a
// heat map; `mark(sig words)` names the cell a bucket's signature points at, if any.
std::string heat_section(const std::vector<Run>& runs, const std::vector<Bucket>& buckets, const char* table,
                         const std::string& id, const std::string& title, const std::string& row_name,
                         const std::string& col_name,
                         std::pair<std::string, std::string> (*cell_of)(const std::vector<std::string>&)) {
  std::map<std::pair<std::string, std::string>, uint64_t> counts;
  std::set<std::string> rows, cols;
  for (const Run& r : runs) {
    const json& cc = r.summary.contains("coverage_counts") ? r.summary["coverage_counts"] : json();
    if (!cc.is_object() || !cc.contains(table) || !cc[table].is_object()) continue;
    for (const auto& [row, by_col] : cc[table].items()) {
      if (!by_col.is_object()) continue;
      for (const auto& [col, n] : by_col.items()) {
        rows.insert(row);
        cols.insert(col);
        counts[{row, col}] += n.is_number_unsigned() || n.is_number_integer() ? n.get<uint64_t>() : 0;
      }
    }
  }
  std::string s = "<h3>" + esc(title) + "</h3>";
  if (counts.empty())
    return s +
           "<p>These runs' summaries carry no per-pair counts (<code>coverage_counts</code>): written by an older uopfuzz.</p>";
  std::map<std::pair<std::string, std::string>, std::vector<const Bucket*>> failed;
  for (const Bucket& b : buckets)
    if (const auto cell = cell_of(words(b.signature)); !cell.first.empty()) failed[cell].push_back(&b);
  std::vector<HeatCell> cells;
  size_t covered = 0;
  for (const auto& [key, n] : counts) {
    HeatCell c{key.first, key.second, n, "", ""};
    covered += n > 0;
    if (const auto f = failed.find(key); f != failed.end()) {
      c.link = "#bucket-" + f->second.front()->id;
      for (const Bucket* b : f->second) c.note += (c.note.empty() ? "" : ", ") + b->signature;
    }
    cells.push_back(c);
  }
  const std::vector<std::string> row_order = ordered(rows, table == std::string("cast") ? dtype_rank : op_rank);
  const std::vector<std::string> col_order = ordered(cols, dtype_rank);
  s += "<p>" + std::to_string(covered) + " of " + std::to_string(counts.size()) +
       " pairs ran; colour: how often (live nodes of "
       "all programs, log scale); a ring: a bucket failed there.</p>";
  s += "<div class=\"scroll\">" + heat_map(id, title, row_order, col_order, cells) + "</div>";
  s += "<details><summary>" + esc(title) + " as a table</summary><div class=\"scroll\"><table class=\"num\"><tr><th>" +
       esc(row_name) + " \\ " + esc(col_name) + "</th>";
  for (const std::string& c : col_order) s += "<th>" + esc(c) + "</th>";
  s += "</tr>";
  for (const std::string& r : row_order) {
    s += "<tr><th>" + esc(r) + "</th>";
    for (const std::string& c : col_order) {
      const auto it = counts.find({r, c});
      s += it == counts.end() ? "<td></td>" : "<td>" + grouped(static_cast<int64_t>(it->second)) + "</td>";
    }
    s += "</tr>";
  }
  return s + "</table></div></details>";
}

// `mismatch MUL i16` -> (MUL, i16); `mismatch CAST f64>u32` -> (CAST, f64): a CAST counts by its source.
std::pair<std::string, std::string> op_cell(const std::vector<std::string>& w) {
  if (w.size() < 3 || w[0] != "mismatch") return {};
  return {w[1], w[2].substr(0, w[2].find('>'))};
}
std::pair<std::string, std::string> cast_cell(const std::vector<std::string>& w) {
  if (w.size() < 3 || w[0] != "mismatch" || w[1] != "CAST" || w[2].find('>') == std::string::npos) return {};
  return {w[2].substr(0, w[2].find('>')), w[2].substr(w[2].find('>') + 1)};
}

// A run's samples thinned to about `points` points (the last one always kept), as (t, programs/s between
// kept points) and (t, buckets).
void thin(const Run& r, size_t points, Series& rate, Series& buckets) {
  if (r.samples.empty()) return;
  const double span = r.samples.back().t, step = std::max(1.0, span / static_cast<double>(points));
  const Sample* prev = &r.samples.front();
  buckets.points.push_back({prev->t, static_cast<double>(prev->buckets)});
  for (size_t i = 1; i < r.samples.size(); ++i) {
    const Sample& s = r.samples[i];
    if (s.t - prev->t < step && i + 1 < r.samples.size()) continue;
    if (s.t > prev->t) rate.points.push_back({s.t, static_cast<double>(s.programs - prev->programs) / (s.t - prev->t)});
    buckets.points.push_back({s.t, static_cast<double>(s.buckets)});
    prev = &s;
  }
}

std::string series_table(const std::string& caption, const std::string& x, const std::string& y, const std::vector<Series>& all) {
  std::string s = "<details><summary>" + esc(caption) +
                  " as a table</summary><div class=\"scroll\"><table class=\"num\"><tr><th>run</th><th>" + esc(x) + "</th><th>" +
                  esc(y) + "</th></tr>";
  for (const Series& se : all)
    for (const auto& [px, py] : se.points)
      s += "<tr><td>" + esc(se.name) + "</td><td>" + num(px, 2) + "</td><td>" + num(py, 2) + "</td></tr>";
  return s + "</table></div></details>";
}

}  // namespace

std::string coverage_section(const std::vector<Run>& runs, const std::vector<Bucket>& buckets) {
  return "<section id=\"coverage\"><h2>Coverage</h2>" +
         heat_section(runs, buckets, "op_dtype", "heat-op-dtype", "op × dtype", "op", "dtype", op_cell) +
         heat_section(runs, buckets, "cast", "heat-cast", "CAST source × target", "source", "target", cast_cell) + "</section>";
}

std::string time_section(const std::vector<Run>& runs) {
  std::vector<Series> rates, buckets;
  // About 600 markers a chart whatever the number of runs: a night of 84 shard runs stays small too.
  const size_t points = std::max<size_t>(10, std::min<size_t>(120, 600 / std::max<size_t>(1, runs.size())));
  for (const Run& r : runs) {
    Series rate{r.label, {}}, b{r.label, {}};
    thin(r, points, rate, b);
    if (!b.points.empty()) {
      rates.push_back(std::move(rate));
      buckets.push_back(std::move(b));
    }
  }
  std::string s = "<section id=\"time\"><h2>Over time</h2>";
  if (buckets.empty())
    return s + "<p>No event log beside these summaries (<code>fuzz --events</code>): no time series.</p></section>";
  s += "<div class=\"scroll\">" + line_chart("chart-rate", "programs per second", "seconds", "programs/s", rates) + "</div>";
  s += series_table("programs per second", "seconds", "programs/s", rates);
  s += "<div class=\"scroll\">" + line_chart("chart-buckets", "buckets found (cumulative)", "seconds", "buckets", buckets) +
       "</div>";
  return s + series_table("buckets found", "seconds", "buckets", buckets) + "</section>";
}

std::string trend_section(const std::vector<Run>& runs, const std::vector<Bucket>& buckets) {
  if (runs.size() < 2) return "";
  Series programs{"programs", {}}, found{"buckets", {}};
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& s = runs[i].summary;
    programs.points.push_back({static_cast<double>(i + 1), s.value("programs", 0.0)});
    found.points.push_back({static_cast<double>(i + 1), s.value("buckets", 0.0)});
  }
  std::string s = "<section id=\"trends\"><h2>Across runs</h2><p>Runs in the order given, numbered from 1.</p>";
  s +=
      "<div class=\"scroll\">" + line_chart("chart-trend-programs", "programs per run", "run", "programs", {programs}) + "</div>";
  s += "<div class=\"scroll\">" + line_chart("chart-trend-buckets", "buckets per run", "run", "buckets", {found}) + "</div>";
  s += "<div class=\"scroll\"><table "
       "id=\"run-changes\"><tr><th>#</th><th>run</th><th>programs</th><th>buckets</th><th>new</th><th>gone</th></tr>";
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string added, gone;
    for (const Bucket& b : buckets) {
      const auto link = "<a href=\"#bucket-" + esc(b.id) + "\">" + esc(b.signature) + "</a> ";
      if (b.in_run[i] && b.first_run == i && i > 0) added += link;
      if (i > 0 && b.in_run[i - 1] && !b.in_run[i]) gone += link;
    }
    s += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + esc(runs[i].label) + "</td><td class=\"n\">" +
         grouped(runs[i].summary.value("programs", int64_t{0})) + "</td><td class=\"n\">" +
         grouped(runs[i].summary.value("buckets", int64_t{0})) + "</td><td class=\"new\">" + (i == 0 ? "(first run)" : added) +
         "</td><td>" + gone + "</td></tr>";
  }
  return s + "</table></div></section>";
}

}  // namespace uf::report

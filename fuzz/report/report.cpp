// The report page: style, header, the sections of charts.cpp, the buckets table and the reproducers.
#include "fuzz/report/report.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "core/timestamp.h"
#include "fuzz/report/html.h"
#include "fuzz/report/listing.h"
#include "fuzz/report/regressions.h"

namespace uf::report {

namespace {

using nlohmann::json;

// Plain CSS: one column that narrows to a phone; wide charts and tables scroll inside their box.
const char* const kStyle = R"(
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;background:#fff}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:2px solid #ddd;padding-bottom:4px;margin-top:1.6em}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;margin:12px 0}
.fact{background:#f4f6f8;border-radius:6px;padding:8px 10px}.fact b{display:block;font-size:1.4em}
.scroll{overflow-x:auto;max-width:100%}
svg.chart{width:100%;height:auto;display:block}svg .lab{font-size:11px;fill:#333}svg .grid{stroke:#e4e4e4}
svg a.fail:focus rect,svg a.fail:hover rect{stroke:#000;stroke-width:2}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f6f8}td.n,table.num td{text-align:right;font-variant-numeric:tabular-nums}
.new{font-weight:600}.tag{display:inline-block;background:#0072B2;color:#fff;border-radius:3px;padding:0 5px;font-size:.85em}
.tag.reg{background:#B8420A}
pre{background:#f7f7f7;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:13px;line-height:1.35}
mark{background:#ffe08a}.cut{color:#666;font-style:italic}.path,.note{color:#555;font-size:.9em;word-break:break-all}
section.repro{border-top:1px solid #ddd;padding-top:4px}section.repro:target,tr:target{background:#fff7d6}
details{margin:6px 0}summary{cursor:pointer;color:#0b5394}
@media (max-width:600px){main{padding:8px}body{font-size:14px}th,td{padding:2px 4px}h1{font-size:1.3em}}
)";

int64_t i64(const json& s, const char* k) { return s.contains(k) && s[k].is_number() ? s[k].get<int64_t>() : 0; }
std::string str(const json& s, const char* k) { return s.contains(k) && s[k].is_string() ? s[k].get<std::string>() : ""; }
// The summary's failing programs: its counters of counters.def's FAILURE rows, summed.
int64_t failures(const json& s) {
  int64_t n = 0;
#define COUNTER(name, summary_key, doc)
#define FAILURE(name, summary_key, verdict, doc) n += i64(s, summary_key);
#include "fuzz/campaign/counters.def"
  return n;
}

std::string fact(const std::string& label, const std::string& value) {
  return "<div class=\"fact\"><b>" + value + "</b>" + esc(label) + "</div>";
}

// Under the renderer: the target its handshake named, the mode, and the merged --without set (summary keys).
std::string target_note(const json& summary) {
  std::string note;
  if (summary.contains("target") && summary["target"].is_object() && summary["target"].value("protocol", 0) > 0) {
    const json& t = summary["target"];
    note += esc(t.value("name", "") + " " + t.value("version", "")) + " (" + esc(t.value("mode", "")) + ")";
  }
  if (summary.contains("without") && summary["without"].is_array() && !summary["without"].empty()) {
    std::string names;
    for (const json& n : summary["without"]) names += (names.empty() ? "" : ",") + (n.is_string() ? n.get<std::string>() : "");
    note += (note.empty() ? "" : "<br>") + std::string("without ") + esc(names);
  }
  return note.empty() ? "" : "<br><small>" + note + "</small>";
}

std::string header(const std::vector<Run>& runs, const std::vector<Bucket>& buckets) {
  int64_t programs = 0, runs_n = 0, fails = 0, saved = 0;
  double seconds = 0;
  for (const Run& r : runs) {
    programs += i64(r.summary, "programs");
    runs_n += i64(r.summary, "runs");
    fails += failures(r.summary);
    saved += r.summary.contains("saved") && r.summary["saved"].is_array() ? static_cast<int64_t>(r.summary["saved"].size()) : 0;
    seconds += r.summary.value("seconds", 0.0);
  }
  std::string s = "<header><h1>uopfuzz campaign report</h1><p>" + std::to_string(runs.size()) +
                  (runs.size() == 1 ? " run" : " runs") + ", report written " + utc_timestamp() + ".</p>";
  s += "<div class=\"facts\">" + fact("programs", grouped(programs)) + fact("kernel runs compared", grouped(runs_n)) +
       fact("failing programs", grouped(fails)) + fact("buckets", grouped(static_cast<int64_t>(buckets.size()))) +
       fact("new buckets (reproducers saved)", grouped(saved)) + fact("seconds fuzzed", num(seconds, 1));
  if (std::any_of(runs.begin(), runs.end(), [](const Run& r) { return r.baseline; }))
    s += fact("regressions (buckets new since a baseline)",
              grouped(std::count_if(buckets.begin(), buckets.end(), [](const Bucket& b) { return !b.regression.empty(); })));
  s += "</div></header>";
  s += "<section id=\"runs\"><h2>Runs</h2><div class=\"scroll\"><table><tr><th>run</th><th>started (UTC)</th><th>seconds</th>"
       "<th>compiler</th><th>flags</th><th>renderer</th><th>seed</th><th>jobs</th><th>programs</th><th>runs</th>"
       "<th>failures</th><th>buckets</th><th>new</th></tr>";
  for (const Run& r : runs) {
    const json& st = r.start;
    const std::string cc =
        str(st, "cc").empty()
            ? "—"
            : esc(str(st, "cc")) + (str(st, "cc_version").empty() ? "" : "<br><small>" + esc(str(st, "cc_version")) + "</small>");
    s += "<tr><td>" + esc(r.label) + (r.baseline ? " <span class=\"tag\">baseline</span>" : "") + "</td><td>" +
         esc(r.started().empty() ? "—" : r.started()) + "</td><td class=\"n\">" + num(r.summary.value("seconds", 0.0), 1) +
         "</td><td>" + cc + "</td><td><code>" + esc(str(st, "cflags")) + "</code></td><td>" + esc(str(st, "renderer")) +
         target_note(r.summary) + "</td><td class=\"n\">" + (st.contains("seed") ? esc(st["seed"].dump()) : "") +
         "</td><td class=\"n\">" + (st.contains("jobs") ? esc(st["jobs"].dump()) : "") + "</td><td class=\"n\">" +
         grouped(i64(r.summary, "programs")) + "</td><td class=\"n\">" + grouped(i64(r.summary, "runs")) +
         "</td><td class=\"n\">" + grouped(failures(r.summary)) + "</td><td class=\"n\">" + grouped(i64(r.summary, "buckets")) +
         "</td><td class=\"n\">" + grouped(r.summary.contains("saved") ? static_cast<int64_t>(r.summary["saved"].size()) : 0) +
         "</td></tr>";
    if (!r.has_events)
      s += "<tr><td colspan=\"13\" class=\"note\">" + esc(r.label) + ": no event log beside the summary</td></tr>";
  }
  return s + "</table></div></section>";
}

std::string group_anchor(const std::string& key) {
  std::string out;
  for (const char c : key) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

// The first word of a `meta reachable`: the front-end level that reaches the bucket ("tensor"), "kernel", or "".
std::string reach_level(const std::string& reachable) { return reachable.substr(0, reachable.find(' ')); }

// A group's reachability: a front-end level when any of its buckets has one, else "kernel" when one of
// them was checked, else "".
std::string group_reach(const std::vector<const Bucket*>& members) {
  std::string out;
  for (const Bucket* b : members)
    if (const std::string level = reach_level(b->reachable); !level.empty() && (out.empty() || out == "kernel")) out = level;
  return out;
}

// The buckets by root cause (group_key): what a user counts; each row lists its buckets. Groups user code
// reaches (a front-end level, not "kernel") come first: a triager's first question.
std::string groups_table(const std::vector<Bucket>& buckets) {
  if (buckets.empty()) return "";
  std::map<std::string, std::vector<const Bucket*>> by_key;
  for (const Bucket& b : buckets) by_key[b.group].push_back(&b);
  std::vector<std::pair<std::string, std::vector<const Bucket*>>> groups(by_key.begin(), by_key.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    const auto user_reached = [](const auto& g) { return !group_reach(g.second).empty() && group_reach(g.second) != "kernel"; };
    return user_reached(a) && !user_reached(b);
  });
  std::string s = "<section id=\"groups\"><h2>Groups</h2><p>" + std::to_string(buckets.size()) + " buckets in " +
                  std::to_string(groups.size()) +
                  " groups: buckets with the same class and culprit, or without a named culprit the same class and op "
                  "across dtypes; those user code reaches (uopfuzz triage, meta reachable) first.</p><div class=\"scroll\">"
                  "<table id=\"group-table\"><tr><th>group</th><th>reachable</th><th>buckets</th><th>signatures</th></tr>";
  for (const auto& [key, members] : groups) {
    std::string list;
    for (const Bucket* b : members)
      list += (list.empty() ? "" : ", ") + ("<a href=\"#bucket-" + esc(b->id) + "\"><code>" + esc(b->signature) + "</code></a>");
    const std::string reach = group_reach(members);
    s += "<tr id=\"group-" + esc(group_anchor(key)) + "\"><td>" + esc(key) + "</td><td>" + (reach.empty() ? "—" : esc(reach)) +
         "</td><td class=\"n\">" +
         std::to_string(members.size()) + "</td><td>" + list + "</td></tr>";
  }
  return s + "</table></div></section>";
}

std::string buckets_table(const std::vector<Run>& runs, const std::vector<Bucket>& buckets, size_t max_listings) {
  std::string s = "<section id=\"buckets\"><h2>Buckets</h2>";
  if (buckets.empty()) return s + "<p>No failures: every compared program agreed with the reference.</p></section>";
  s += "<div class=\"scroll\"><table id=\"bucket-table\"><tr><th>signature</th><th>class</th><th>first seen</th>"
       "<th>count</th><th>blame</th><th>culprit</th><th>reachable</th><th>group</th><th>nodes</th><th>reproducer</th></tr>";
  size_t listed = 0;  // as reproducers_section: the first max_listings buckets with a file
  for (const Bucket& b : buckets) {
    const bool is_new = runs.size() > 1 && b.first_run > 0;
    const std::string classes = std::string(is_new ? "new-bucket" : "") + (is_new && !b.regression.empty() ? " " : "") +
                                (b.regression.empty() ? "" : "regression");
    s += "<tr id=\"bucket-" + esc(b.id) + "\"" + (classes.empty() ? "" : " class=\"" + classes + "\"") + "><td><code>" +
         esc(b.signature) + "</code>" +
         (is_new ? " <span class=\"tag\">new in " + esc(runs[b.first_run].label) + "</span>" : "") +
         (b.regression.empty() ? "" : " <span class=\"tag reg\">" + esc(b.regression) + "</span>") + "</td><td>" + esc(b.klass) +
         "</td><td>" + esc(b.first_seen) + "</td><td class=\"n\">" + (b.count ? grouped(*b.count) : "—") + "</td><td>" +
         (b.blame.empty() ? "—" : esc(b.blame)) + "</td><td>" + (b.culprit.empty() ? "—" : esc(b.culprit)) +
         "</td><td>" + (b.reachable.empty() ? "—" : esc(b.reachable)) + "</td><td><a href=\"#group-" + esc(group_anchor(b.group)) + "\">" + esc(b.group) + "</a></td><td class=\"n\">" +
         (b.nodes ? std::to_string(*b.nodes) + (b.reduced == "no" ? " (unreduced)" : "") : "—") + "</td><td>";
    if (b.repro_path.empty())
      s += "not found";
    else if (listed++ < max_listings)
      s += "<a class=\"repro-link\" href=\"#repro-" + esc(b.id) + "\">show</a>";
    else
      s += esc(b.repro_path);
    s += "</td></tr>";
  }
  s += "</table></div>";
  if (buckets.size() > max_listings)
    s += "<p class=\"note\">Reproducers of the first " + std::to_string(max_listings) +
         " buckets are shown below; the others by path.</p>";
  return s + "</section>";
}

}  // namespace

std::string build_report(const std::vector<Run>& runs, const ReportOptions& o) {
  std::vector<Bucket> buckets = collect_buckets(runs, o.corpus_dirs);
  const std::vector<Comparison> comparisons = compare_runs(runs);
  mark_regressions(comparisons, buckets);
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      "<title>uopfuzz campaign report</title><style>" +
      std::string(kStyle) + "</style></head><body><main>";
  page += header(runs, buckets);
  page += coverage_section(runs, buckets);
  page += target_section(runs);
  page += approx_section(runs);
  page += time_section(runs);
  page += trend_section(runs, buckets);
  page += regressions_section(runs, comparisons, buckets);
  page += groups_table(buckets);
  page += buckets_table(runs, buckets, o.max_listings);
  page += "<section id=\"reproducers\"><h2>Reproducers</h2>";
  size_t shown = 0, bytes = 0;
  for (const Bucket& b : buckets)
    if (!b.repro_path.empty() && shown < o.max_listings) {
      const std::string listing = reproducer_html(b, bytes > o.listing_budget);
      bytes += listing.size();
      page += listing;
      ++shown;
    }
  if (shown == 0) page += "<p>None to show.</p>";
  return page + "</section></main></body></html>\n";
}

}  // namespace uf::report

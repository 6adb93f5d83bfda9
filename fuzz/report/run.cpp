// Reading RUNs and gathering their buckets.
#include "fuzz/report/run.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "codegen/runtime/files.h"
#include "core/error.h"
#include "core/text.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/campaign/events.h"
#include "fuzz/oracle/shrink.h"

namespace uf::report {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_summary(const std::string& path) {
  std::optional<std::string> text = read_file(path);
  if (!text) throw UserError(path + ": cannot read file");
  return std::move(*text);
}

int64_t int_of(const json& j, const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<int64_t>() : 0; }

void read_events(Run& r, const std::string& path) {
  std::ifstream in(path);
  if (!in) return;  // a summary without a log: no time series
  r.has_events = true;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    json e;
    try {
      e = json::parse(line);
    } catch (const json::exception&) {
      // The last line of a killed campaign may be cut short; any other bad line is an error.
      if (in.peek() == EOF) break;
      throw UserError(path + ":" + std::to_string(line_no) + ": not a JSON event");
    }
    if (!e.is_object() || !e.contains("event") || !e["event"].is_string())
      throw UserError(path + ":" + std::to_string(line_no) + ": not an event (no \"event\" name)");
    const std::string kind = e["event"];
    const double t = e.contains("t") && e["t"].is_number() ? e["t"].get<double>() : 0.0;
    const auto str = [&](const char* k) { return e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string(); };
    if (kind == "start")
      r.start = e;
    else if (kind == "sample")
      r.samples.push_back(
          {t, int_of(e, "programs"), int_of(e, "runs"), int_of(e, "failures"), int_of(e, "buckets"), int_of(e, "target_fired"),
           int_of(e, "target_features")});
    else if (kind == "bucket")
      r.first_seen.emplace(str("signature"), t);
    else if (kind == "saved")
      r.saved[str("signature")] = str("path");
  }
}

// The file's meta, read once.
struct Meta {
  std::string blame, culprit, reduced, count, reachable;
  std::optional<size_t> nodes;
};

std::optional<Meta> read_reproducer(const std::string& path) {
  try {
    const Program p = read_program(path);
    Meta m;
    for (const auto& [k, v] : p.meta) {
      if (k == "blame" && m.blame.empty()) m.blame = v;
      if (k == "culprit" && m.culprit.empty()) m.culprit = v;
      if (k == "reduced" && m.reduced.empty()) m.reduced = v;
      if (k == "count" && m.count.empty()) m.count = v;
      if (k == "reachable" && m.reachable.empty()) m.reachable = v;
    }
    m.nodes = program_cost(p).nodes;
    return m;
  } catch (const UserError&) {
    return std::nullopt;  // an unreadable reproducer is shown as found but not sized (report.cpp says why)
  }
}

}  // namespace

std::vector<std::string> Run::signatures() const {
  std::vector<std::string> out;
  if (summary.contains("signatures") && summary["signatures"].is_array())
    for (const json& s : summary["signatures"])
      if (s.is_string()) out.push_back(s);
  std::sort(out.begin(), out.end());
  return out;
}

std::string Run::started() const {
  return start.contains("time") && start["time"].is_string() ? start["time"].get<std::string>() : "";
}

std::string utc_plus(const std::string& utc, double seconds) {
  std::tm tm{};
  if (!strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return "";
  const std::time_t t = timegm(&tm) + static_cast<std::time_t>(seconds);
  std::tm out{};
  gmtime_r(&t, &out);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &out);
  return buf;
}

Run load_run(const std::string& json_path) {
  Run r;
  r.path = json_path;
  r.label = fs::path(json_path).filename().string();
  if (r.label.size() > 5 && r.label.ends_with(".json")) r.label.resize(r.label.size() - 5);
  const std::string text = read_summary(json_path);
  try {
    r.summary = json::parse(text);
  } catch (const json::exception& e) { throw UserError(json_path + ": not a JSON summary (" + std::string(e.what()) + ")"); }
  if (!r.summary.is_object() || !r.summary.contains("programs") || !r.summary.contains("signatures"))
    throw UserError(json_path + ": not a uopfuzz fuzz summary (no \"programs\" or \"signatures\")");
  read_events(r, default_events_path(json_path));
  return r;
}

void disambiguate_labels(std::vector<Run>& runs) {
  std::map<std::string, int> uses;
  for (const Run& r : runs) ++uses[r.label];
  for (Run& r : runs)
    if (uses[r.label] > 1) {
      const std::string dir = fs::absolute(r.path).parent_path().filename().string();
      r.label = dir + "/" + r.label;
    }
}

std::vector<Bucket> collect_buckets(const std::vector<Run>& runs, const std::vector<std::string>& corpus_dirs) {
  std::map<std::string, Bucket> by_sig;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    for (const std::string& sig : run.signatures()) {
      auto [it, fresh] = by_sig.try_emplace(sig);
      Bucket& b = it->second;
      if (fresh) {
        b.signature = sig;
        b.klass = sig.substr(0, sig.find(' '));
        const std::string file = Corpus::file_name(sig);
        b.id = file.substr(0, file.size() - 4);
        b.in_run.assign(runs.size(), false);
        b.first_run = i;
        const auto seen = run.first_seen.find(sig);
        b.first_seen = seen != run.first_seen.end() ? utc_plus(run.started(), seen->second) : "";
        if (b.first_seen.empty()) b.first_seen = run.label;
      }
      b.in_run[i] = true;
      const json& hits = run.summary.contains("bucket_hits") ? run.summary["bucket_hits"] : json();
      if (hits.is_object() && hits.contains(sig) && hits[sig].is_number())
        b.count = b.count.value_or(0) + hits[sig].get<int64_t>();
      const json& culprits = run.summary.contains("culprits") ? run.summary["culprits"] : json();
      if (culprits.is_object() && culprits.contains(sig) && culprits[sig].is_string()) b.culprit = culprits[sig];
    }
  }
  std::vector<Bucket> out;
  for (auto& [sig, b] : by_sig) {
    const std::string file = Corpus::file_name(sig);
    std::vector<std::string> candidates;
    for (const std::string& d : corpus_dirs) candidates.push_back((fs::path(d) / file).string());
    for (const Run& run : runs) {
      if (const auto s = run.saved.find(sig); s != run.saved.end()) candidates.push_back(s->second);
      if (run.start.contains("corpus") && run.start["corpus"].is_string())
        candidates.push_back((fs::path(run.start["corpus"].get<std::string>()) / file).string());
    }
    for (const std::string& c : candidates) {
      std::error_code ec;
      if (!fs::is_regular_file(c, ec)) continue;
      b.repro_path = c;
      if (const std::optional<Meta> m = read_reproducer(c)) {
        b.blame = m->blame;
        if (!m->culprit.empty()) b.culprit = m->culprit;
        b.reduced = m->reduced;
        b.reachable = m->reachable;
        b.nodes = m->nodes;
        if (!b.count && !m->count.empty()) b.count = std::strtoll(m->count.c_str(), nullptr, 10);
      }
      break;
    }
    b.group = group_key(sig, b.culprit);
    out.push_back(std::move(b));
  }
  // First the newest findings, then by signature: what a reader looks for first.
  std::stable_sort(out.begin(), out.end(), [](const Bucket& a, const Bucket& b) { return a.first_run > b.first_run; });
  return out;
}

}  // namespace uf::report

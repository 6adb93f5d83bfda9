// The event log writer: diffs the parent's running summary, so the campaign needs no extra reports.
#include "fuzz/campaign/events.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>

#include "codegen/runtime/compiler.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace uf {

namespace {

// A saved reproducer's `meta KEY` (the file was just written whole, by link or rename); empty if absent.
std::string meta_of(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const MetaLine m = parse_meta_line(line);
    if (m.is_meta && !m.error && m.key == key) return m.value;
  }
  return "";
}

}  // namespace

std::string default_events_path(const std::string& json_path) {
  const std::string ext = ".json";
  if (json_path.size() > ext.size() && json_path.compare(json_path.size() - ext.size(), ext.size(), ext) == 0)
    return json_path.substr(0, json_path.size() - ext.size()) + ".events.jsonl";
  return json_path + ".events.jsonl";
}

EventLog::EventLog(const std::string& path, const CampaignOptions& o) {
  if (path.empty()) return;
  path_ = path;
  out_.reset(std::fopen(path.c_str(), "w"));
  if (!out_) throw UserError(path + ": cannot write the event log (" + std::strerror(errno) + ")");
  std::string cc_version;
  try {
    cc_version = compiler_id(o.cfg.cc).version_line();
  } catch (const UserError&) {
    // The workers report a compiler that does not answer; the log just lacks its version.
  }
  write({{"event", "start"},
         {"time", utc_timestamp()},
         {"seed", o.seed},
         {"jobs", o.jobs},
         {"inputs", o.inputs},
         {"time_limit", o.time_s},
         {"count", o.count},
         {"cc", o.cfg.cc},
         {"cc_version", cc_version},
         {"cflags", o.cfg.cflags},
         {"renderer", o.cfg.renderer_cmd.empty() ? "builtin" : o.cfg.renderer_cmd},
         {"renderer_protocol", o.cfg.renderer_cmd.empty() || o.cfg.renderer_protocol == RendererProtocol::program
                                   ? "one"
                                   : protocol_name(o.cfg.renderer_protocol)},
         {"target", target_json(o.cfg)},
         {"without", without_list(o)},
         {"f16", o.cfg.render.f16_native ? "native" : "soft"},
         {"bf16", o.cfg.render.bf16_native ? "native" : "soft"},
         {"corpus", o.corpus_dir}},
        0);
}

void EventLog::write(nlohmann::json j, double t) {
  if (!out_) return;
  j["t"] = std::round(t * 100) / 100;
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fputs(line.c_str(), out_.get()) >= 0 && std::fflush(out_.get()) == 0) return;
  std::cerr << "uopfuzz: " << path_ << ": cannot write the event log (" << std::strerror(errno) << "): removed\n";
  out_.reset();
  std::remove(path_.c_str());
}

void EventLog::sample(const CampaignSummary& s, double t) {
  write({{"event", "sample"},
         {"programs", s.counts.programs},
         {"valid", s.counts.valid},
         {"runs", s.counts.runs},
         {"failures", s.counts.failures()},
         {"buckets", s.buckets.size()},
         {"saved", s.saved.size()},
         {"target_fired", reachable_fired(s.target_coverage, s.description)},
         {"target_features", s.target_coverage.features.size()},
         {"derived", s.derived_programs}},
        t);
  last_sample_ = t;
}

void EventLog::observe(const CampaignSummary& s, double t) {
  if (!out_) return;
  for (const std::string& b : s.buckets)
    if (buckets_.insert(b).second) write({{"event", "bucket"}, {"signature", b}}, t);
  for (; saved_ < s.saved.size(); ++saved_) {
    const std::string& path = s.saved[saved_];
    write({{"event", "saved"}, {"path", path}, {"signature", meta_of(path, "signature")}, {"class", meta_of(path, "class")}}, t);
  }
  for (; reduced_ < s.reductions.size(); ++reduced_) {
    nlohmann::json j = s.reductions[reduced_];
    j["event"] = "reduced";
    write(std::move(j), t);
  }
  for (const auto& [sig, k] : s.known)
    if (known_.insert(sig).second) write({{"event", "known"}, {"signature", sig}, {"file", k.known}, {"culprit", k.culprit}}, t);
  for (const auto& [name, hits] : s.target_coverage.features)
    if (features_.insert(name).second)
      write({{"event", "feature"}, {"name", name}, {"program", hits.first_program}, {"programs", s.counts.programs}}, t);
  if (last_sample_ < 0 || t - last_sample_ >= 1.0) sample(s, t);
}

void EventLog::finish(const CampaignSummary& s) {
  if (!out_) return;
  observe(s, s.seconds);
  sample(s, s.seconds);
  write({{"event", "end"}, {"interrupted", s.interrupted}, {"errors", s.errors}}, s.seconds);
}

}  // namespace uf

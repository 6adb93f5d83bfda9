// The campaign's event log (`fuzz --events FILE`, docs/format.md section 3): JSON lines a report draws
// its time series and its findings from. The summary says where a campaign ended; this says how it got
// there: a `start` line (when, seed, compiler, flags, renderer, corpus), a `sample` about once a second
// (programs, runs, failures, buckets), one `bucket` line per signature first seen, one
// `feature` line per target feature first reached (target_coverage.h), one `saved` line per
// reproducer written (path, signature, class), one `reduced` line per reduction ended (its totals and
// each reducer pass's tried/accepted/seconds), and an `end` line. Each line is flushed as written, so
// an interrupted or killed campaign still leaves a readable log. A log that cannot be written (a full
// disk) is removed with a warning: the campaign goes on, and its summary still says how it ended.
#pragma once
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/campaign/campaign.h"

namespace uf {

// Where a campaign whose summary goes to `json_path` writes its events by default: `X.json` gives
// `X.events.jsonl`, any other name gets `.events.jsonl` appended.
std::string default_events_path(const std::string& json_path);

class EventLog {
 public:
  // Creates `path` (UserError when it cannot) and writes the start line; an empty path logs nothing.
  EventLog(const std::string& path, const CampaignOptions& o);
  // The parent calls this whenever reports have arrived: new buckets and saved files at once, a sample
  // when a second has passed since the last.
  void observe(const CampaignSummary& s, double t);
  // A last sample and the end line.
  void finish(const CampaignSummary& s);

 private:
  void write(nlohmann::json j, double t);
  void sample(const CampaignSummary& s, double t);

  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out_{nullptr, &std::fclose};
  double last_sample_ = -1;
  std::set<std::string> buckets_;
  std::set<std::string> features_;  // target features already logged
  size_t saved_ = 0;
  size_t reduced_ = 0;
  std::set<std::string> known_;  // buckets written as known
};

}  // namespace uf

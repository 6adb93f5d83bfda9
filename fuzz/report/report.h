// `uopfuzz report`: one self-contained HTML page (inline CSS and SVG, no script, nothing fetched) from
// one or more campaign RUNs (run.h). It shows what ran and when, the op×dtype and CAST heat maps with
// failures marked, throughput and findings over time, the buckets with their reproducers inline, and,
// for several runs (a week of nightlies, in the order given), which buckets each run added or lost.
#pragma once
#include <string>
#include <vector>

#include "fuzz/report/run.h"

namespace uf::report {

struct ReportOptions {
  std::vector<std::string> corpus_dirs;  // where reproducers are looked for first (run.h)
  size_t max_listings = 150;             // reproducers shown inline; the rest are listed by path only
  size_t listing_budget = 400000;        // bytes of listings; past it, only their marked lines
};

std::string build_report(const std::vector<Run>& runs, const ReportOptions& o);

// The page's parts (charts.cpp); each returns a <section>.
std::string coverage_section(const std::vector<Run>& runs, const std::vector<Bucket>& buckets);
std::string time_section(const std::vector<Run>& runs);
std::string trend_section(const std::vector<Run>& runs, const std::vector<Bucket>& buckets);
// target.cpp: what of the target the runs reached (the summaries' target_coverage); "" when none reports any.
std::string target_section(const std::vector<Run>& runs);
// approx.cpp: the judged results of approximated ops by ULP bin (the summaries' approx_ulps); "" when none has any.
std::string approx_section(const std::vector<Run>& runs);

}  // namespace uf::report

// `uopfuzz report` (the HTML page of campaign runs) and `uopfuzz corpus merge` (shards' corpora, one
// reproducer per bucket).
#include <iostream>
#include <memory>
#include <set>

#include "cli/cli.h"
#include "fuzz/campaign/merge.h"
#include "fuzz/report/regressions.h"
#include "fuzz/report/report.h"

namespace uf::cli {

namespace {

struct ReportCliOptions {
  std::vector<std::string> runs, corpus_dirs, baselines;
  std::string out;
};

// What the page marks, on stderr too, for a CI log: each regression, and each run without a baseline to compare.
void tell_regressions(const std::vector<report::Run>& runs) {
  for (const report::Comparison& c : report::compare_runs(runs)) {
    if (c.baselines.empty())
      std::cerr << "report: " << runs[c.run].label << ": no --baseline run of its target and configuration\n";
    for (const std::string& sig : c.regressions)
      std::cerr << "report: " << c.label() << ": " << sig << " (" << runs[c.run].label << ")\n";
  }
}

int run_report(const ReportCliOptions& o) {
  std::vector<report::Run> runs;
  // Baselines first: the page's "new in" tags and changes table then read as "since the baseline". A file
  // given as a baseline twice, or also as a RUN, is one baseline run.
  std::set<std::string> baselines;
  for (const std::string& path : o.baselines)
    if (baselines.insert(path).second) {
      runs.push_back(report::load_run(path));
      runs.back().baseline = true;
    }
  for (const std::string& path : o.runs)
    if (!baselines.contains(path)) runs.push_back(report::load_run(path));
  report::disambiguate_labels(runs);
  report::ReportOptions ro;
  ro.corpus_dirs = o.corpus_dirs;
  const std::string html = report::build_report(runs, ro);
  tell_regressions(runs);
  write_output(o.out, html);
  if (!o.out.empty() && o.out != "-") std::cerr << "report: " << o.out << " (" << html.size() << " bytes)\n";
  return kOk;
}

struct MergeCliOptions {
  std::vector<std::string> dirs;
  std::string out;
};

int run_merge(const MergeCliOptions& o) {
  const MergeResult r = merge_corpora(o.dirs, o.out);
  for (const std::string& s : r.skipped) std::cerr << "corpus merge: skipped " << s << "\n";
  std::cerr << "corpus merge: " << r.files << " files, " << r.written.size() << " buckets in " << r.groups.size() << " groups -> "
            << o.out << "\n";
  if (r.seeds > 0)
    std::cerr << "corpus merge: " << r.seeds << " seeds reaching " << r.seed_features.size() << " target features -> " << o.out
              << "/seeds\n";
  for (const auto& [key, members] : r.groups)
    std::cerr << "corpus merge: group " << key << ": " << members.size() << (members.size() == 1 ? " bucket" : " buckets")
              << "\n";
  return kOk;
}

}  // namespace

std::vector<Command> report_commands(CLI::App& app) {
  auto ro = std::make_shared<ReportCliOptions>();
  CLI::App* rep = app.add_subcommand("report", "Write one self-contained HTML report of campaign runs (fuzz --json files)");
  rep->add_option("RUN", ro->runs, "a fuzz --json summary; its event log is read from beside it (X.events.jsonl)")->required();
  rep->add_option("-o,--out", ro->out, "the HTML file (default stdout)");
  rep->add_option("--corpus", ro->corpus_dirs, "look for reproducers here first (repeatable), e.g. a merged corpus");
  rep->add_option("--baseline", ro->baselines,
                  "a run to compare the RUNs of its target and configuration with (repeatable): their buckets it lacks, at "
                  "another target version, are regressions of the target over BASELINE..RUN versions")
      ->allow_extra_args(false);

  auto mo = std::make_shared<MergeCliOptions>();
  CLI::App* corpus = app.add_subcommand("corpus", "Corpus directories");
  corpus->require_subcommand(1);
  CLI::App* merge =
      corpus->add_subcommand("merge", "Merge corpus directories: one reproducer per bucket, the smallest, counts added");
  merge->add_option("DIR", mo->dirs, "corpus directories")->required();
  merge->add_option("-o,--out", mo->out, "output directory (created if needed)")->required();

  return {{rep, [ro] { return run_report(*ro); }}, {merge, [mo] { return run_merge(*mo); }}};
}

}  // namespace uf::cli

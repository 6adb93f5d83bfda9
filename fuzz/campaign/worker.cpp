// One campaign worker: generate, check in batches, reduce and save new failures, report to the parent
// (protocol.h).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>

#include "codegen/runtime/compiler.h"
#include "codegen/runtime/process.h"
#include "fuzz/campaign/campaign.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/reduce.h"

namespace uf {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void request_stop(int) {
  g_stop = 1;
  cancel_processes();  // the compiler or renderer in flight dies now, not after the parent's SIGKILL
}

// For the reproducers' meta only: a compiler that does not answer is reported by the first compile.
std::string compiler_version(const std::string& cc) {
  try {
    return compiler_id(cc).version_line();
  } catch (const UserError&) {
    return "";
  }
}

}  // namespace

void run_worker(const CampaignOptions& o, int w, int fd) {
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  const uint64_t quota = o.count > 0 ? static_cast<uint64_t>(o.count / o.jobs + (w < o.count % o.jobs ? 1 : 0)) : UINT64_MAX;

  Corpus corpus(o.corpus_dir);
  std::set<std::string> seen;
  const FindingContext ctx{std::to_string(w), o.cfg, compiler_version(o.cfg.cc)};
  Coverage coverage;
  size_t batch = std::clamp(o.first_batch, o.min_batch, o.max_batch);
  double seconds_per_program = 0;  // of the last batch: sizes the final batch of a --time run
  uint64_t index = 0;
  while (!g_stop && index < quota && (o.time_s <= 0 || elapsed() < o.time_s)) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(batch, quota - index));
    if (o.time_s > 0 && seconds_per_program > 0) {  // end near --time instead of one whole batch later
      // ...but never with a batch under min_batch, which would waste a compiler call: stop now when that
      // is nearer to --time than the end of a min_batch batch would be.
      const double fit = (o.time_s - elapsed()) / seconds_per_program;  // programs that fit in the time left
      if (fit < static_cast<double>(o.min_batch) / 2) break;
      n = std::min(n, std::max(o.min_batch, static_cast<size_t>(std::ceil(fit))));
    }
    std::vector<Program> programs;
    programs.reserve(n);
    for (size_t k = 0; k < n; ++k) programs.push_back(generate(program_seed(o.seed, static_cast<uint64_t>(w), index + k), o.policy));
    std::vector<const Program*> ptrs;
    for (const Program& p : programs) { ptrs.push_back(&p); coverage.add(p); }
    const auto t0 = clock::now();
    const std::vector<Finding> r = check(ptrs, o.cfg);
    const double dt = std::chrono::duration<double>(clock::now() - t0).count();

    CheckCounts counts;
    counts.batches = 1;
    for (const Finding& f : r) counts.count(f);
    send_report(fd, BatchReport{counts});  // before reducing: see BatchReport
    send_report(fd, CoverageReport{coverage});
    for (size_t k = 0; k < n; ++k) {
      if (!r[k].defined()) continue;
      const Observation& obs = r[k].observation;
      if (obs.verdict == Verdict::ok) continue;
      if (!seen.insert(obs.signature).second) continue;
      send_report(fd, BucketReport{obs.signature});
      if (corpus.has(obs.signature) || g_stop) continue;  // stopping: start no new reduction
      Program reproducer = programs[k];
      Observation failure = obs;
      if (o.reduce) {
        ReduceOptions ro;
        ro.time_limit_s = o.time_s > 0 ? std::max(5.0, std::min(o.reduce_time_s, o.time_s - elapsed())) : o.reduce_time_s;
        try {
          ReduceResult red = reduce(programs[k], obs.signature, o.cfg, ro);
          if (red.observation.signature == obs.signature) {  // keep the reduced form only if it still fails alike
            reproducer = std::move(red.program);
            failure = red.observation;
          }
        } catch (const Interrupted&) {
          // Stopping: the finding is saved as found rather than lost.
        }
      }
      reproducer.set_meta("campaign_seed", std::to_string(o.seed));
      const Program kept = reproducer;
      try {
        if (auto path = corpus.save(std::move(reproducer), failure, ctx)) send_report(fd, SavedReport{*path, verdict_name(failure.verdict)});
      } catch (const UserError&) {
        // The disk is full or the directory went away: the finding goes to the log instead of being lost.
        const std::string text = "uopfuzz: worker " + std::to_string(w) + ": could not save `" + failure.signature +
                                 "`; the reproducer follows\n" + reproducer_text(kept, failure, ctx);
        if (::write(2, text.data(), text.size()) < 0) {}
        throw;
      }
    }
    index += n;
    send_report(fd, CompilerReport{compiler_stats()});
    seconds_per_program = dt / static_cast<double>(n);
    if (n < batch) continue;  // a short final batch says nothing about the batch size
    if (dt < o.target_batch_s / 2 && batch < o.max_batch) batch = std::min(o.max_batch, batch * 2);
    else if (dt > o.target_batch_s * 2 && batch > o.min_batch) batch = std::max(o.min_batch, batch / 2);
  }
}

}  // namespace uf

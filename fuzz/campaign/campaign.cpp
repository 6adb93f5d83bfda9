// The campaign parent: fork the workers, aggregate their reports, progress line, signals, summary.
#include "fuzz/campaign/campaign.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>

#include "codegen/plugin_server.h"
#include "codegen/runtime/fd.h"
#include "codegen/runtime/process.h"
#include "core/stopwatch.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/campaign/events.h"
#include "fuzz/campaign/hint.h"
#include "fuzz/campaign/reduction_queue.h"
#include "fuzz/oracle/culprit.h"

namespace uf {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

// SIGINT/SIGTERM set g_interrupted while the campaign runs; the previous handlers are back on every way
// out.
class InterruptHandlers {
 public:
  InterruptHandlers() {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptHandlers() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

// The parent's view of one worker process.
struct WorkerProcess {
  int index = 0;
  pid_t pid = -1;
  UniqueFd reports;     // closed at EOF: the worker is done
  std::string pending;  // a partial report line
  // Its latest cumulative reports.
  Coverage coverage;
  TargetCoverageReport target;
  SizeReport sizes;
  CompilerStats compiler;
};

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;  // clang 14 (the libFuzzer build) deduces no aggregate

void apply(const Report& report, CampaignSummary& s, WorkerProcess& w) {
  std::visit(Overloaded{
                 [&](const BatchReport& r) {
                   s.counts += r.counts;
                   for (const auto& [sig, n] : r.hits) s.bucket_hits[sig] += n;
                   for (const auto& [sig, names] : r.avoid)
                     for (const auto& [name, n] : names) s.avoid_hits[sig][name] += n;
                   for (const auto& [op, bins] : r.approx_ulps)
                     for (const auto& [bin, n] : bins) s.approx_ulps[op][bin] += n;
                 },
                 [&](const BucketReport& r) { s.buckets.insert(r.signature); },
                 [&](const SavedReport& r) {
                   s.saved.push_back(r.path);
                   if (r.verdict == verdict_name(Verdict::mismatch)) ++s.new_mismatches;
                 },
                 [&](const ReducedReport& r) { s.reductions.push_back(r); },
                 [&](const CulpritReport& r) { s.culprits[r.signature] = r.culprit; },
                 [&](const KnownReport& r) {
                   s.known_checks += r.checks;
                   if (!r.known.empty()) s.known[r.signature] = r;
                 },
                 [&](const CoverageReport& r) { w.coverage = r.coverage; },
                 [&](const TargetCoverageReport& r) { w.target = r; },
                 [&](const SizeReport& r) { w.sizes = r; },
                 [&](const CompilerReport& r) { w.compiler = r.stats; },
                 [&](const ErrorReport& r) { s.errors.push_back(r.message); },
             },
             report);
}

void apply_line(const std::string& line, CampaignSummary& s, WorkerProcess& w) {
  if (const std::optional<Report> r = decode(line))
    apply(*r, s, w);
  else
    s.errors.push_back("a worker's report was not understood: " + line);
}

// "  target 131/295" (reachable features fired) when the target reports features.
std::string target_progress(const CampaignSummary& s) {
  if (s.target_coverage.programs == 0) return "";
  return "  target " + std::to_string(reachable_fired(s.target_coverage, s.description)) + "/" +
         std::to_string(reachable_features(s.description).size());
}

std::string progress_line(const CampaignSummary& s, double t) {
  char buf[512];
  const CheckCounts& c = s.counts;
  const auto cov = s.coverage.op_dtype_count();
  std::snprintf(buf, sizeof buf,
                "uopfuzz: %6.1fs  %lld programs (%.1f/s)  runs %lld (%.1f/s)  valid %lld  undefined %.1f%%  failures %lld  "
                "buckets %zu  saved %zu  coverage %zu/%zu op×dtype%s",
                t, static_cast<long long>(c.programs), t > 0 ? c.programs / t : 0.0, static_cast<long long>(c.runs),
                t > 0 ? c.runs / t : 0.0, static_cast<long long>(c.valid), c.programs ? 100.0 * c.undefined / c.programs : 0.0,
                static_cast<long long>(c.failures()), s.buckets.size(), s.saved.size(), cov.covered, cov.total,
                target_progress(s).c_str());
  const std::string hint = dominant_failure_hint(s);
  return hint.empty() ? std::string(buf) : buf + ("  (" + hint + ")");
}


// The forked child: runs the worker and ends, never returning into the parent's code.
[[noreturn]] void worker_main(const CampaignOptions& o, int w, int report_fd, ReductionQueue& queue) {
  int code = 0;
  try {
    run_worker(o, w, report_fd, queue);
  } catch (const Interrupted&) {
    // Stopped by SIGINT/SIGTERM inside a compile or render: what it finished is already reported.
  } catch (const std::exception& e) {
    send_report(report_fd, ErrorReport{"worker " + std::to_string(w) + ": " + e.what()});
    code = 2;
  }
  stop_plugin_servers();  // _exit runs no destructors, and a hung server would outlive us
  ::_exit(code);
}

WorkerProcess start_worker(const CampaignOptions& o, int w, ReductionQueue& queue) {
  // Close-on-exec: a compiler or renderer a worker starts must not hold the report pipe open, or a
  // killed worker's pipe would not reach EOF until they finish, delaying the parent's exit.
  std::optional<Pipe> pipe = Pipe::open();
  if (!pipe) throw UserError("cannot create a pipe for worker " + std::to_string(w));
  const pid_t pid = ::fork();
  if (pid < 0) throw UserError("cannot start worker " + std::to_string(w));
  if (pid == 0) {
    pipe->read_end.reset();
    worker_main(o, w, pipe->write_end.get(), queue);
  }
  return {w, pid, std::move(pipe->read_end), "", {}, {}, {}, {}};  // the write end closes here: EOF when the worker ends
}

// Reads what the worker has written and applies its whole lines; at EOF (or a failed read) closes its pipe.
void read_reports(WorkerProcess& w, CampaignSummary& s) {
  char buf[65536];
  const ssize_t n = ::read(w.reports.get(), buf, sizeof buf);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    w.reports.reset();
    return;
  }
  w.pending.append(buf, static_cast<size_t>(n));
  for (size_t nl; (nl = w.pending.find('\n')) != std::string::npos;) {
    apply_line(w.pending.substr(0, nl), s, w);
    w.pending.erase(0, nl + 1);
  }
}

// Waits up to 200 ms for reports, then reads every worker that has some.
void poll_reports(std::vector<WorkerProcess>& workers, CampaignSummary& s) {
  std::vector<pollfd> fds;
  std::vector<WorkerProcess*> owners;
  for (WorkerProcess& w : workers)
    if (w.reports) {
      fds.push_back({w.reports.get(), POLLIN, 0});
      owners.push_back(&w);
    }
  ::poll(fds.data(), fds.size(), 200);
  for (size_t i = 0; i < fds.size(); ++i)
    if (fds[i].revents != 0) read_reports(*owners[i], s);
}

// After SIGINT/SIGTERM (or a finding, with stop_on_finding, or the budget spent): SIGTERM to every live
// worker (they stop between batches), SIGKILL to those still running `grace` seconds later (a reducer
// interpreting candidates runs no process that SIGTERM could cancel). Findings are already saved as
// found and corpus writes are atomic, so a kill loses nothing. `stop_at` is when the stop began.
void stop_workers(const std::vector<WorkerProcess>& workers, bool stop, double grace, std::optional<double>& stop_at,
                  double now) {
  int sig = 0;
  if (stop && !stop_at) {
    stop_at = now;
    sig = SIGTERM;
  } else if (stop_at && now - *stop_at > grace) {
    sig = SIGKILL;
  }
  if (sig)
    for (const WorkerProcess& w : workers)
      if (w.reports) ::kill(w.pid, sig);
}

// The workers' latest cumulative coverage reports, added up into s.
void merge_coverage(const std::vector<WorkerProcess>& workers, CampaignSummary& s) {
  s.coverage = {};
  s.target_coverage = {};
  s.derived_programs = s.seeds = 0;
  s.sizes = {};
  for (const WorkerProcess& w : workers) {
    for (const auto& [range, c] : w.sizes.sizes) {
      s.sizes[range].programs += c.programs;
      s.sizes[range].new_buckets += c.new_buckets;
    }
    s.coverage.merge(w.coverage);
    s.target_coverage.merge(w.target.coverage);
    s.derived_programs += w.target.derived;
    s.seeds += w.target.seeds;
  }
}

// --time is the whole run's budget: a worker starts no batch or reduction it cannot finish in time, and
// one that a slow compiler or a loaded machine keeps past the budget is stopped as on SIGTERM (the batch
// in flight is not counted; a finding being reduced stays saved as found, `meta reduced = no`).
bool past_budget(const CampaignOptions& o, double now) { return o.time_s > 0 && now > o.time_s + std::max(1.0, 0.02 * o.time_s); }

// Until every worker has closed its pipe: their reports, the progress line, the stop on a signal.
void supervise(const CampaignOptions& o, std::vector<WorkerProcess>& workers, CampaignSummary& s, const Stopwatch& clock,
               EventLog& events, ReductionQueue& queue) {
  double last_progress = 0;
  std::optional<double> stop_at;
  while (std::any_of(workers.begin(), workers.end(), [](const WorkerProcess& w) { return w.reports.valid(); })) {
    const bool budget_spent = (o.stop_on_finding && s.first_finding) || past_budget(o, clock.seconds());
    // A user's Ctrl-C waits longer for the workers than a budget, which has only its few percent left.
    stop_workers(workers, g_interrupted || budget_spent, g_interrupted ? 5.0 : 1.5, stop_at, clock.seconds());
    poll_reports(workers, s);
    for (const WorkerProcess& w : workers)
      if (!w.reports) queue.stop_generating(w.index);  // ended, maybe without saying so (killed)
    if (!s.first_finding && !s.buckets.empty()) s.first_finding = {clock.seconds(), s.counts.programs};
    merge_coverage(workers, s);
    events.observe(s, clock.seconds());
    if (o.progress && clock.seconds() - last_progress >= 1.0) {
      std::cerr << progress_line(s, clock.seconds()) << std::endl;
      last_progress = clock.seconds();
    }
  }
}

// Reaps every worker; one that a signal other than our stop killed is an error of the campaign.
void reap(const std::vector<WorkerProcess>& workers, CampaignSummary& s) {
  for (const WorkerProcess& w : workers) {
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM && WTERMSIG(status) != SIGKILL)
      s.errors.push_back("worker died with signal " + std::to_string(WTERMSIG(status)));
  }
}

}  // namespace

CampaignSummary run_campaign(const CampaignOptions& o) {
  if (o.jobs < 1) throw UserError("--jobs must be at least 1");
  if (o.inputs < 1 || o.inputs > kMaxInputs) throw UserError("--inputs must be 1 to " + std::to_string(kMaxInputs));
  if (o.time_s <= 0 && o.count <= 0) throw UserError("give --time or --count");
  Corpus writable(o.corpus_dir);  // fail early, in the parent, when the corpus cannot be written
  EventLog events(o.events_path, o);
  const Stopwatch clock;
  const InterruptHandlers interrupts;
  ReductionQueue queue(o.jobs);
  std::vector<WorkerProcess> workers;
  for (int w = 0; w < o.jobs; ++w) workers.push_back(start_worker(o, w, queue));

  CampaignSummary s;
  s.description = o.cfg.renderer_description;
  supervise(o, workers, s, clock, events, queue);
  reap(workers, s);
  merge_coverage(workers, s);
  for (const WorkerProcess& w : workers) {
    s.compiler_calls += w.compiler.calls;
    s.compile_seconds += w.compiler.seconds;
  }
  s.jobs = o.jobs;
  s.inputs = o.inputs;
  s.target = target_json(o.cfg);
  s.guide = guide_name(o.guide);
  s.without = without_list(o);
  if (!o.cfg.renderer_description.opts.empty()) s.opts_mode = o.opts_mode;
  s.known_dir = o.known_dir;
  s.known_findings = static_cast<int>(o.known.size());
  s.suggested = o.suggested;
  s.seconds = clock.seconds();
  s.interrupted = g_interrupted != 0;
  events.finish(s);
  return s;
}

}  // namespace uf

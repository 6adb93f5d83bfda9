// The campaign parent: fork the workers, aggregate their reports, progress line, signals, summary.
#include "fuzz/campaign/campaign.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "codegen/runtime/process.h"
#include "fuzz/campaign/corpus.h"

namespace uf {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string pending;  // a partial report line
  bool done = false;
};

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;  // clang 14 (the libFuzzer build) deduces no aggregate

// What a worker reports cumulatively: the latest line replaces the previous one.
struct WorkerTotals {
  Coverage coverage;
  CompilerStats compiler;
};

void apply(const Report& report, CampaignSummary& s, WorkerTotals& totals) {
  std::visit(Overloaded{
                 [&](const BatchReport& r) { s.counts += r.counts; },
                 [&](const BucketReport& r) { s.buckets.insert(r.signature); },
                 [&](const SavedReport& r) {
                   s.saved.push_back(r.path);
                   if (r.verdict == verdict_name(Verdict::mismatch)) ++s.new_mismatches;
                 },
                 [&](const CoverageReport& r) { totals.coverage = r.coverage; },
                 [&](const CompilerReport& r) { totals.compiler = r.stats; },
                 [&](const ErrorReport& r) { s.errors.push_back(r.message); },
             },
             report);
}

void apply_line(const std::string& line, CampaignSummary& s, WorkerTotals& totals) {
  if (const std::optional<Report> r = decode(line)) apply(*r, s, totals);
  else s.errors.push_back("a worker's report was not understood: " + line);
}

std::string progress_line(const CampaignSummary& s, double t) {
  char buf[512];
  const auto cov = s.coverage.op_dtype_count();
  std::snprintf(buf, sizeof buf,
                "uopfuzz: %6.1fs  %lld programs (%.1f/s)  valid %lld  undefined %.1f%%  failures %lld  buckets %zu  saved %zu  "
                "coverage %zu/%zu op×dtype",
                t, static_cast<long long>(s.counts.programs), t > 0 ? s.counts.programs / t : 0.0, static_cast<long long>(s.counts.valid),
                s.counts.programs ? 100.0 * s.counts.undefined / s.counts.programs : 0.0,
                static_cast<long long>(s.counts.mismatching + s.counts.crashes + s.counts.compile_errors + s.counts.render_errors + s.counts.timeouts),
                s.buckets.size(), s.saved.size(), cov.covered, cov.total);
  return buf;
}

// Numbers for people: rates and shares to one decimal, durations to the centisecond.
double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

nlohmann::json CampaignSummary::to_json() const {
  nlohmann::json j;
  j["programs"] = counts.programs;
  j["valid"] = counts.valid;
  j["undefined"] = counts.undefined;
  j["mismatches"] = new_mismatches;
  j["mismatching_programs"] = counts.mismatching;
  j["crashes"] = counts.crashes;
  j["compile_errors"] = counts.compile_errors;
  j["render_errors"] = counts.render_errors;
  j["timeouts"] = counts.timeouts;
  j["buckets"] = buckets.size();
  j["signatures"] = buckets;
  j["seconds"] = rounded(seconds, 2);
  j["programs_per_second"] = rounded(seconds > 0 ? counts.programs / seconds : 0.0, 1);
  j["saved"] = saved;
  j["batches"] = counts.batches;
  j["compiler_calls"] = compiler_calls;
  j["programs_per_compiler_call"] =
      rounded(compiler_calls ? static_cast<double>(counts.valid) / static_cast<double>(compiler_calls) : 0.0, 1);
  j["compile_seconds"] = rounded(compile_seconds, 2);
  j["compiler_busy"] = rounded(seconds > 0 && jobs > 0 ? compile_seconds / (seconds * jobs) : 0.0, 3);
  j["coverage"] = coverage.summary();
  j["coverage_missing"] = coverage.missing();
  j["interrupted"] = interrupted;
  j["errors"] = errors;
  return j;
}

std::string CampaignSummary::to_text() const {
  std::ostringstream o;
  o << "uopfuzz: " << counts.programs << " programs in " << fixed(seconds, 1) << " s (" << fixed(seconds > 0 ? counts.programs / seconds : 0, 1) << "/s), "
    << counts.valid << " compared, " << counts.undefined << " undefined\n"
    << "uopfuzz: failures: " << counts.mismatching << " mismatch, " << counts.crashes << " crash, " << counts.timeouts << " timeout, "
    << counts.compile_errors << " compile-error, " << counts.render_errors << " render-error; " << buckets.size() << " buckets, "
    << saved.size() << " new reproducers\n"
    << "uopfuzz: coverage: " << coverage.summary() << "\n";
  if (compiler_calls > 0)
    o << "uopfuzz: compiler: " << compiler_calls << " calls ("
      << fixed(static_cast<double>(counts.valid) / static_cast<double>(compiler_calls), 1) << " programs each), busy "
      << fixed(100 * compile_seconds / std::max(1e-9, seconds * jobs), 1) << " % of " << jobs << " × wall\n";
  for (const auto& b : buckets) o << "uopfuzz: bucket: " << b << "\n";
  for (const auto& f : saved) o << "uopfuzz: saved " << f << "\n";
  for (const auto& e : errors) o << "uopfuzz: error: " << e << "\n";
  if (interrupted) o << "uopfuzz: interrupted\n";
  return o.str();
}

CampaignSummary run_campaign(const CampaignOptions& o) {
  if (o.jobs < 1) throw UserError("--jobs must be at least 1");
  if (o.time_s <= 0 && o.count <= 0) throw UserError("give --time or --count");
  Corpus check(o.corpus_dir);  // fail early, in the parent, when the corpus cannot be written
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };

  g_interrupted = 0;
  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  std::vector<Worker> workers(static_cast<size_t>(o.jobs));
  for (int w = 0; w < o.jobs; ++w) {
    int fds[2];
    // Close-on-exec: a compiler or renderer a worker starts must not hold the report pipe open, or a
    // killed worker's pipe would not reach EOF until they finish, delaying the parent's exit.
    if (::pipe2(fds, O_CLOEXEC) != 0) throw UserError("cannot create a pipe for worker " + std::to_string(w));
    const pid_t pid = ::fork();
    if (pid < 0) throw UserError("cannot start worker " + std::to_string(w));
    if (pid == 0) {
      ::close(fds[0]);
      int code = 0;
      try {
        run_worker(o, w, fds[1]);
      } catch (const Interrupted&) {
        // Stopped by SIGINT/SIGTERM inside a compile or render: what it finished is already reported.
      } catch (const std::exception& e) {
        send_report(fds[1], ErrorReport{"worker " + std::to_string(w) + ": " + e.what()});
        code = 2;
      }
      ::_exit(code);
    }
    ::close(fds[1]);
    workers[static_cast<size_t>(w)] = {pid, fds[0], "", false};
  }

  CampaignSummary s;
  std::vector<WorkerTotals> totals(workers.size());
  double last_progress = 0;
  bool stopping = false;
  double stop_at = 0;
  size_t live = workers.size();
  while (live > 0) {
    if (g_interrupted && !stopping) {
      stopping = true;
      stop_at = elapsed();
      for (const Worker& w : workers) if (!w.done) ::kill(w.pid, SIGTERM);
    }
    if (stopping && elapsed() - stop_at > 5)
      for (const Worker& w : workers) if (!w.done) ::kill(w.pid, SIGKILL);
    std::vector<pollfd> fds;
    for (const Worker& w : workers) if (!w.done) fds.push_back({w.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 200);
    for (size_t i = 0; i < workers.size(); ++i) {
      Worker& w = workers[i];
      if (w.done) continue;
      pollfd pf{w.fd, POLLIN, 0};
      if (::poll(&pf, 1, 0) <= 0) continue;
      char buf[65536];
      const ssize_t n = ::read(w.fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        w.done = true;
        --live;
        ::close(w.fd);
        continue;
      }
      w.pending.append(buf, static_cast<size_t>(n));
      for (size_t nl; (nl = w.pending.find('\n')) != std::string::npos;) {
        apply_line(w.pending.substr(0, nl), s, totals[i]);
        w.pending.erase(0, nl + 1);
      }
    }
    if (o.progress && elapsed() - last_progress >= 1.0) {
      s.coverage = Coverage{};
      for (const WorkerTotals& t : totals) s.coverage.merge(t.coverage);
      std::cerr << progress_line(s, elapsed()) << std::endl;
      last_progress = elapsed();
    }
  }
  for (Worker& w : workers) {
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM && WTERMSIG(status) != SIGKILL)
      s.errors.push_back("worker died with signal " + std::to_string(WTERMSIG(status)));
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  s.coverage = Coverage{};
  for (const WorkerTotals& t : totals) {
    s.coverage.merge(t.coverage);
    s.compiler_calls += t.compiler.calls;
    s.compile_seconds += t.compiler.seconds;
  }
  s.jobs = o.jobs;
  s.seconds = elapsed();
  s.interrupted = g_interrupted != 0;
  return s;
}

}  // namespace uf

// One campaign worker: generate, check in batches, reduce and save new failures, report to the parent
// (protocol.h).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>

#include "codegen/runtime/process.h"
#include "core/stopwatch.h"
#include "fuzz/campaign/campaign.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/campaign/hint.h"
#include "fuzz/campaign/reduction_queue.h"
#include "fuzz/campaign/size_schedule.h"
#include "fuzz/campaign/worker_config.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/oracle/reduce.h"
#include "interp/approx.h"

namespace uf {

namespace {

constexpr double kMinResumeS = 5;  // a cut reduction is resumed only with this much of the budget left

volatile std::sig_atomic_t g_stop = 0;
void request_stop(int) {
  g_stop = 1;
  cancel_processes();  // the compiler or renderer in flight dies now, not after the parent's SIGKILL
}

class Worker {
 public:
  Worker(const CampaignOptions& o, int w, int report_fd, ReductionQueue& queue)
      : o_(o),
        w_(w),
        fd_(report_fd),
        queue_(queue),
        quota_(quota(o, w)),
        corpus_(o.corpus_dir),
        cfg_(budgeted(o)),
        ctx_{std::to_string(w), cfg_, compiler_version(o.cfg.cc)},
        slow_server_(o.cfg.renders_per_request()),
        min_batch_(slow_server_ ? std::min(o.min_batch, o.server_min_batch) : o.min_batch),
        batch_(
            std::clamp(slow_server_ ? std::min(o.first_batch, o.server_first_batch) : o.first_batch, min_batch_, o.max_batch)),
        guide_(Guide::Options{o.guide, o.seeds_dir, o.seed, w, o.jobs, without_list(o), o.target_rules, o.read_seed_dirs,
                              o.cfg.renderer_description.approximate}),
        size_(o.policy, o.guide != GuideMode::none && o.time_s > 0 && o.count <= 0, program_seed(o.seed, static_cast<uint64_t>(w), UINT64_MAX)) {}

  void run() {
    while (!g_stop && index_ < quota_ && (o_.time_s <= 0 || clock_.seconds() < generation_end())) {
      const std::optional<size_t> n = next_batch_size();
      if (!n) break;
      run_batch(*n);
      reduce_queued(ReductionQueue::Take::unstalled, /*within_share=*/true);
    }
    help_reduce();
  }

 private:
  // When a --time run starts its last batch: early enough to reduce a bucket found in it (about this
  // worker's longest reduction, or 200 renders of a slow plug-in, at most --reduce-time) and its share of
  // those still queued at its mean reduction (reduce_share leaves some until generation ends); all at most
  // a quarter of --time.
  double generation_end() const {
    if (!o_.reduce) return o_.time_s;
    const double one = std::min(o_.reduce_time_s, std::max(longest_reduction_s_, 200 * mean_render_seconds(cfg_)));
    const double mean = reductions_ > 0 ? std::min(o_.reduce_time_s, reduction_seconds_ / reductions_) : one;
    const double queued = queue_.outstanding() * mean / o_.jobs;
    return o_.time_s - std::min(one + queued, 0.25 * o_.time_s);
  }

  // The next batch's size, or nullopt to stop: --time would end before a worthwhile batch does.
  std::optional<size_t> next_batch_size() {
    if (slow_server_ && mean_render_seconds(cfg_) > 0 && mean_render_seconds(cfg_) < o_.fast_render_s) {
      slow_server_ = false;  // compile-bound after all: the built-in batch sizes
      min_batch_ = o_.min_batch;
      batch_ = std::clamp(std::max(batch_, o_.first_batch), min_batch_, o_.max_batch);
    }
    size_t n = static_cast<size_t>(std::min<uint64_t>(batch_, quota_ - index_));
    if (o_.time_s > 0 && seconds_per_program_ > 0) {  // end near --time instead of one whole batch later
      // ...but never with a batch under min_batch, which would waste a compiler call: stop now when that
      // is nearer to --time than the end of a min_batch batch would be.
      const double fit = (generation_end() - clock_.seconds()) / seconds_per_program_;  // programs that fit in the time left
      if (fit < static_cast<double>(min_batch_) / 2) return std::nullopt;
      n = std::min(n, std::max(min_batch_, static_cast<size_t>(std::ceil(fit))));
    }
    return n;
  }

  void run_batch(size_t n) {
    guide_.sync();  // the seeds the other workers kept since
    std::vector<Guide::Pick> picks;
    std::vector<int> arms;  // each program's size arm; -1 for a seed checked or mutated as a program
    picks.reserve(n);
    for (size_t k = 0; k < n; ++k) picks.push_back(next_program(arms.emplace_back(size_.pick())));
    std::vector<const Program*> ptrs;
    for (const Guide::Pick& p : picks) ptrs.push_back(&p.program);
    const Stopwatch timer;
    const std::vector<Finding> found = check(ptrs, extra_inputs(picks), cfg_);
    const double dt = timer.seconds();
    std::vector<size_t> nodes;
    for (const Guide::Pick& p : picks) nodes.push_back(linearize(p.program).size());

    BatchReport batch;
    batch.counts.batches = 1;
    for (size_t k = 0; k < n; ++k) {
      const Finding& f = found[k];
      if (f.out_of_time) continue;  // the budget ended before its render: not checked, not counted
      const Program& program = picks[k].program;
      guide_.learn(picks[k], f.features, f.render_seconds);
      target_.add(f.features, clock_.seconds(), picks[k].origin());
      coverage_.add(program);
      batch.counts.count(f, program.meta_value("observed") != nullptr);
      if (f.defined() && f.observation.verdict != Verdict::ok) ++batch.hits[f.observation.signature];
      for (const ApproxError& e : f.observation.approx_ulps)
        ++batch.approx_ulps[std::string(name(e.op)) + " " + name(e.dtype)][ulp_bin(e.ulps, e.special_wrong)];
      if (f.defined() && (f.observation.verdict == Verdict::render_error || f.observation.verdict == Verdict::compile_error))
        if (std::string n = avoid_name(f.observation.message); !n.empty()) ++batch.avoid[f.observation.signature][n];
    }
    send_report(fd_, batch);  // before reducing: see BatchReport
    send_report(fd_, CoverageReport{coverage_});
    if (target_.programs > 0) send_report(fd_, TargetCoverageReport{target_, guide_.derived(), guide_.kept()});
    size_t checked = 0, checked_nodes = 0;
    for (size_t k = 0; k < n; ++k) {
      if (found[k].out_of_time) continue;
      const bool new_bucket =
          found[k].defined() && found[k].observation.verdict != Verdict::ok && keep(picks[k].program, found[k]);
      if (arms[k] >= 0) size_.checked(arms[k], nodes[k], new_bucket);
      ++checked, checked_nodes += nodes[k];
    }
    if (checked > 0) size_.batch(checked, checked_nodes, dt);
    if (size_.enabled()) send_report(fd_, SizeReport{size_.counts()});
    index_ += n;
    send_report(fd_, CompilerReport{compiler_stats()});
    adapt_batch_size(n, dt);
  }

  // The guide's next program, drawn with the step range of size arm `arm`, which a reproducer's `meta
  // steps` records when it is not the policy's own (`gen --seed` rebuilds it only with that range). A
  // program not generated (a seed checked or mutated as a program) has no size: `arm` becomes -1.
  Guide::Pick next_program(int& arm) {
    const GenPolicy& used = size_.policy(arm);
    Guide::Pick p = guide_.next(used);
    if (p.as_is || (p.seed >= 0 && !guide_.seeds()[static_cast<size_t>(p.seed)].has_choices))
      arm = -1;
    else if (used.min_steps != o_.policy.min_steps || used.max_steps != o_.policy.max_steps)
      p.program.set_meta("steps", size_.range(arm));
    if (o_.opts_mode == "none" && !o_.cfg.renderer_description.opts.empty()) p.program.opts = OptSequence{};
    return p;
  }

  // Data sets 1 .. inputs-1 of each program (set 0 is its own data; fewer for a workload-sized one,
  // data_sets_for). The generator's guards were chosen for set 0, so the reference may find some of these
  // UNDEFINED: the oracle skips those.
  std::vector<std::vector<DataSet>> extra_inputs(const std::vector<Guide::Pick>& picks) const {
    std::vector<std::vector<DataSet>> extra(picks.size());
    for (size_t k = 0; k < picks.size(); ++k)
      for (int input = 1, n = data_sets_for(picks[k].program, o_.inputs); input < n; ++input)
        extra[k].push_back(input_data(picks[k].program, picks[k].choices, static_cast<uint64_t>(input), o_.policy));
    return extra;
  }

  // A failure: its bucket reported the first time this worker sees it; when the corpus does not have it
  // yet, saved at once as found (`meta reduced = no`: a kill from here on loses nothing) and queued for
  // whichever worker is free first to reduce it. The program saved carries the data set that failed.
  // Returns whether it was new to the corpus.
  bool keep(const Program& checked, const Finding& f) {
    const Observation& obs = f.observation;
    if (!seen_.insert(obs.signature).second) return false;
    send_report(fd_, BucketReport{obs.signature});
    if (corpus_.has(obs.signature)) return false;  // this run's or an earlier one's: reduction time goes to new buckets
    Program found = f.failing(checked);
    found.set_meta("campaign_seed", std::to_string(o_.seed));
    if (!o_.without_names.empty()) found.set_meta("without", o_.without_names);
    if (!o_.policy_file.empty()) found.set_meta("policy", o_.policy_file);
    if (f.input > 0) found.set_meta("input", std::to_string(f.input));
    found.set_meta("reduced", "no");
    const std::optional<std::string> path = save(found, obs);
    using K = ReductionQueue::Kind;
    const bool new_look = looks_.insert(group_key(obs.signature, "")).second;
    if (path && (o_.reduce || o_.culprit || !o_.matrix.empty()))
      queue_.push(std::filesystem::path(*path).filename(),
                  is_render_timeout(obs.signature) ? K::found_slow : new_look ? K::found : K::found_again);
    return path.has_value();
  }

  // Reduces queued findings, anyone's, until none is left (with Take::any, stalled ones too) or, `within_share`,
  // its time on them passes its share (reduce_share); a reduction its limit cut is queued again.
  void reduce_queued(ReductionQueue::Take take, bool within_share = false) {
    while (!g_stop && (!within_share || finishing_s_ <= o_.reduce_share * clock_.seconds()))
      if (const std::optional<ReductionQueue::Claim> claim = queue_.claim(take)) {
        const Stopwatch timer;
        const std::optional<ReductionQueue::Kind> again = finish(corpus_.dir() + "/" + claim->name());
        finishing_s_ += timer.seconds();
        if (again) queue_.push(claim->name(), *again);
      } else {
        return;
      }
  }

  // After this worker's last batch: reduces what the others queue until they stop generating; then
  // the stalled reductions too, with the time left (reduction_limit), until none is left or the budget
  // ends.
  void help_reduce() {
    queue_.stop_generating(w_);
    while (!g_stop && (o_.time_s <= 0 || clock_.seconds() < o_.time_s)) {
      reduce_queued(queue_.generating() ? ReductionQueue::Take::unstalled : ReductionQueue::Take::any);
      if (!queue_.generating() && queue_.outstanding() == 0) return;
      ::usleep(100'000);
    }
  }

  // A queued finding, read back from its file: its reduction, blame and culprit, each replacing the file.
  // A file that no longer fails as saved (a flaky target, e.g. a kernel reading memory it never wrote) is
  // left as found, with `meta flaky` saying what the check alone gave.
  // Returns how to queue it again when its reduction was cut by its own limit with budget left to resume
  // it: after steps (resume) or without one (stalled); nothing when it is done.
  std::optional<ReductionQueue::Kind> finish(const std::string& path) {
    const Stopwatch timer;
    Program found = read_program(path);
    const std::string* saved_as = found.meta_value("signature");
    if (!saved_as) return std::nullopt;
    const CompiledPathConfig cfg = config_for(*saved_as, cfg_, o_);
    const Finding first = check({&found}, cfg).at(0);
    if (!first.defined() || first.observation.signature != *saved_as) {
      if (g_stop || first.out_of_time) return std::nullopt;  // a check the budget cut says nothing
      const std::string got = !first.defined()                      ? "UNDEFINED"
                              : first.observation.signature.empty() ? "ok"
                                                                    : first.observation.signature;
      found.set_meta("flaky", "did not fail again when checked alone (got " + got + "), so it is not reduced");
      corpus_.rewrite(path, found);
      return std::nullopt;
    }
    const Observation& obs = first.observation;
    if (explained_by_known(path, found, obs.signature, cfg)) return std::nullopt;
    FindingContext ctx = ctx_;  // the file keeps the worker that found it
    ctx.cfg = cfg;
    if (const std::string* w = found.meta_value("worker")) ctx.worker = *w;
    Program final = found;
    Observation final_obs = obs;
    bool changed = false;
    std::optional<ReductionQueue::Kind> again;
    try {
      const double limit = reduction_limit();
      if (o_.reduce && limit > 0) {  // else the budget is spent: the file says it is unreduced
        ReduceOptions ro;
        ro.time_limit_s = limit;
        ReduceResult red = reduce(found, obs.signature, cfg, ro);
        longest_reduction_s_ = std::max(longest_reduction_s_, red.seconds);
        reduction_seconds_ += red.seconds;
        ++reductions_;
        send_report(fd_, ReducedReport{path, obs.signature, red.steps, red.candidates, red.compiler_calls, red.seconds,
                                       red.complete, red.passes});
        if (red.observation.signature == obs.signature && (red.steps > 0 || red.complete)) {
          final = std::move(red.program);
          final.set_meta("reduced", red.complete ? "yes" : "no");
          final_obs = std::move(red.observation);
          changed = true;
        }
        // Resumed later from the file only in a --time run, which has the time: a --count run would
        // loop on a reduction that never completes within --reduce-time.
        if (!red.complete && o_.time_s > 0 && !g_stop && o_.time_s - clock_.seconds() > kMinResumeS)
          again = red.steps > 0 ? ReductionQueue::Kind::resume : ReductionQueue::Kind::stalled;
      }
      if (!o_.matrix.empty() && !g_stop) {  // blame: a handful of one-kernel compiles of the small program
        final.set_meta("blame", blame_text(triage(final, obs.signature, cfg, o_.matrix)));
        changed = true;
      }
      if (o_.culprit && !g_stop) {  // the pass, flags or switch: a few dozen builds of the small program
        CulpritOptions co;
        co.time_limit_s = o_.culprit_time_s;
        co.other_data = other_data_sets(final, kCulpritRecheckDataSets, o_.policy);
        co.stop_at = cfg.render_stop_at;
        const Culprit c = find_culprit(final, obs.signature, cfg, co);
        final.set_meta("culprit", c.text);
        send_report(fd_, CulpritReport{obs.signature, c.text, c.checks, c.seconds});
        if (const KnownFinding* k = known_by_culprit(o_.known, c.text, obs.signature, target_)) {  // found only once reduced: another bug was in the way
          final.set_meta("known", k->file + " (" + k->culprit + "; the same culprit, once reduced)");
          send_report(fd_, KnownReport{obs.signature, k->file, k->culprit, 0});
        }
        changed = true;
      }
    } catch (const Interrupted&) {
      // Stopping: keep what is done (a finished reduction without its blame, or the finding as found).
    }
    if (changed) replace(path, final, final_obs, ctx);
    if (changed) size_.reduced(linearize(found).size(), timer.seconds());
    return again;
  }

  // A finding a known one explains (known.h) is marked `meta known` and left as found: no reduction, no
  // culprit search. Every checked finding is reported, with the renders the check took.
  bool explained_by_known(const std::string& path, Program& found, const std::string& signature, const CompiledPathConfig& cfg) {
    if (o_.known.empty() || cfg.switches_off.size() > 0 || cfg.renderer_description.switches.empty()) return false;
    KnownVerdict v;
    try {
      v = explain_known(found, signature, o_.known, cfg, target_);
    } catch (const Interrupted&) {
      return false;
    }
    send_report(fd_, KnownReport{signature, v.known ? v.known->file : "", v.known ? v.known->culprit : "", v.checks});
    if (!v.known) return false;
    found.set_meta("known", v.known->file + " (" + v.known->culprit + ")");
    corpus_.rewrite(path, found);
    return true;
  }

  // One reduction's limit: --reduce-time, within the budget's time left; and when the findings still to
  // reduce would not all fit in it at this worker's mean reduction so far, that time shared among them
  // (a burst of new buckets early in a long run is no reason to cut any of them short). Once every
  // worker is done generating, the time left is all for reductions: the share, not --reduce-time.
  double reduction_limit() const {
    if (o_.time_s <= 0) return o_.reduce_time_s;
    const double left = o_.time_s - clock_.seconds();
    const double per_worker = static_cast<double>(std::max(1, queue_.outstanding())) / o_.jobs;
    // at the end, the first finding of each look gets the time left; those of a look seen before wait
    const double first_per_worker = static_cast<double>(std::max(1, queue_.outstanding() - queue_.waiting_again())) / o_.jobs;
    if (!queue_.generating()) return left / std::max(1.0, first_per_worker);
    const double expected = reductions_ > 0 ? reduction_seconds_ / reductions_ : o_.reduce_time_s / 2;
    const double limit = std::min(o_.reduce_time_s, left);
    return per_worker * expected > left ? std::min(limit, left / per_worker) : limit;
  }

  std::optional<std::string> save(const Program& reproducer, const Observation& failure) {
    try {
      auto path = corpus_.save(reproducer, failure, ctx_);
      if (path) send_report(fd_, SavedReport{*path, verdict_name(failure.verdict)});
      return path;
    } catch (const UserError&) {
      lost(reproducer, failure);
      throw;
    }
  }

  void replace(const std::string& path, const Program& reproducer, const Observation& failure, const FindingContext& ctx) {
    try {
      corpus_.replace(path, reproducer, failure, ctx);
    } catch (const UserError&) {
      lost(reproducer, failure);
      throw;
    }
  }

  // The disk is full or the directory went away: the finding goes to the log instead of being lost.
  void lost(const Program& reproducer, const Observation& failure) const {
    const std::string text = "uopfuzz: worker " + std::to_string(w_) + ": could not save `" + failure.signature +
                             "`; the reproducer follows\n" + reproducer_text(reproducer, failure, ctx_);
    if (::write(2, text.data(), text.size()) < 0) {}
  }

  // Towards target_batch_s of compile+run time per batch, within min_batch..max_batch.
  void adapt_batch_size(size_t n, double dt) {
    seconds_per_program_ = dt / static_cast<double>(n);
    if (n < batch_) return;  // a short final batch says nothing about the batch size
    if (dt < o_.target_batch_s / 2 && batch_ < o_.max_batch)
      batch_ = std::min(o_.max_batch, batch_ * 2);
    else if (dt > o_.target_batch_s * 2 && batch_ > min_batch_)
      batch_ = std::max(min_batch_, batch_ / 2);
  }

  const CampaignOptions& o_;
  const int w_;
  const int fd_;
  ReductionQueue& queue_;
  const uint64_t quota_;
  const Stopwatch clock_;
  Corpus corpus_;
  const CompiledPathConfig cfg_;  // o_.cfg, with no plug-in request lasting past the --time budget
  const FindingContext ctx_;
  std::set<std::string> seen_;  // buckets this worker has reported
  std::set<std::string> looks_;  // group_key(signature, "") of the findings it queued
  Coverage coverage_;
  TargetCoverage target_;
  bool slow_server_;  // a plug-in server not yet shown to render faster than fast_render_s
  size_t min_batch_, batch_;
  Guide guide_;
  SizeSchedule size_;
  double seconds_per_program_ = 0;  // of the last batch: sizes the final batch of a --time run
  double longest_reduction_s_ = 0;
  double reduction_seconds_ = 0;  // over this worker's reductions
  double finishing_s_ = 0;        // in finish(): reductions, known checks, culprit searches
  int reductions_ = 0;
  uint64_t index_ = 0;  // programs checked so far
};

}  // namespace

void run_worker(const CampaignOptions& o, int w, int report_fd, ReductionQueue& queue) {
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  Worker(o, w, report_fd, queue).run();
}

}  // namespace uf

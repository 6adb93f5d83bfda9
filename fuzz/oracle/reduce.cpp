// The greedy shrink-and-restart loop over the registry's passes.
#include "fuzz/oracle/reduce.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>

#include "core/error.h"
#include "fuzz/oracle/passes.h"
#include "fuzz/oracle/shrink.h"

namespace uf {

std::unordered_map<const UOp*, Scalar> reference_values(const Program& p) {
  std::unordered_map<const UOp*, Scalar> values;
  const Probe probe = signature_probe(p);
  const RefResult ref = interpret(probe.program);
  if (ref.undefined) return values;
  // A value inside a loop has one per iteration, a vector one per lane: neither has one value to give.
  for (const ProbePoint& at : probe.points)
    if (at.loops.empty() && !at.node->is_vector()) values[at.node] = ref.buffers.at(at.slot).at(static_cast<size_t>(at.index));
  return values;
}

namespace {

// The first candidate (in order) that still fails with `signature`. One compiled run checks the whole
// batch without probes; then only mismatching candidates are probed for their signature, the first
// alone, then a few, then the rest, since the first mismatching candidate usually keeps the bucket.
std::optional<size_t> first_keeping(const std::vector<const Program*>& batch, const std::string& signature,
                                    const CompiledPathConfig& cfg, ReduceResult& r) {
  const std::vector<Finding> checked = check(batch, cfg, false);
  ++r.compiler_calls;
  r.candidates += static_cast<int>(batch.size());
  std::vector<size_t> mismatching;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!checked[i].defined() || checked[i].out_of_time) continue;  // cut by the deadline: unknown
    const Observation& o = checked[i].observation;
    if (o.verdict == Verdict::mismatch)
      mismatching.push_back(i);
    else if (o.verdict != Verdict::ok && o.signature == signature)
      return i;
  }
  if (signature.rfind("mismatch", 0) != 0) return std::nullopt;
  for (size_t from = 0, group = 1; from < mismatching.size(); from += group, group *= 4) {
    std::vector<const Program*> probes;
    for (size_t k = from; k < std::min(mismatching.size(), from + group); ++k) probes.push_back(batch[mismatching[k]]);
    const std::vector<Finding> probed = check(probes, cfg);
    ++r.compiler_calls;
    for (size_t k = 0; k < probes.size(); ++k)
      if (probed[k].defined() && !probed[k].out_of_time && probed[k].observation.signature == signature) return mismatching[from + k];
  }
  return std::nullopt;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Candidate {
  Program program;
  size_t pass;  // index into the reduction's passes (and its ReduceResult::passes)
};

// One round's candidates, made pass by pass as the batches reach them: a hit in an early pass ends the
// round before later passes are generated (on a 350-node program with data, the literal pass's
// candidates alone take a minute to make and verify). Batches span pass boundaries as before.
// A round starts with the pass whose step the last round took, then the others in registry order: a
// pass that just made progress usually makes more (the literal pass simplifies one value at a time), and
// restarting every pass before it after each of its steps cost most of a reduction's candidates.
class Round {
 public:
  Round(const std::vector<const Pass*>& passes, size_t first, const Program& p, std::function<const Divergence*()> divergence,
        ReduceResult& r)
      : passes_(passes), p_(p), divergence_(std::move(divergence)), r_(r), values_(reference_values(p)) {
    order_.push_back(first);
    for (size_t k = 0; k < passes.size(); ++k)
      if (k != first) order_.push_back(k);
  }

  // Candidates at .. at+n-1 (fewer at the round's end), generating passes until they exist.
  std::span<Candidate> take(size_t at, size_t n) {
    while (out_.size() < at + n && next_ < passes_.size()) generate(order_[next_++]);
    if (at >= out_.size()) return {};
    return std::span(out_).subspan(at, std::min(n, out_.size() - at));
  }
  bool exhausted(size_t at) const { return at >= out_.size() && next_ == passes_.size(); }

 private:
  void generate(size_t k) {
    const Clock::time_point start = Clock::now();
    for (Program& q : pass_candidates(*passes_[k], p_, values_, divergence_))
      if (verifies(q)) out_.push_back({std::move(q), k});
    r_.passes[k].seconds += seconds_since(start);
  }

  const std::vector<const Pass*>& passes_;
  const Program& p_;
  const std::function<const Divergence*()> divergence_;  // a copy: callers pass lambdas
  ReduceResult& r_;
  const std::unordered_map<const UOp*, Scalar> values_;
  std::vector<Candidate> out_;
  std::vector<size_t> order_;  // pass indices in the order this round generates them
  size_t next_ = 0;
};

// A batch checked: each candidate counts as tried for its pass, and the batch's time is shared by count.
void count_tried(std::span<const Candidate> batch, double seconds, ReduceResult& r) {
  for (const Candidate& c : batch) {
    ++r.passes[c.pass].tried;
    r.passes[c.pass].seconds += seconds / static_cast<double>(batch.size());
  }
}

// The termination rule (pass_candidates keeps only strictly cheaper candidates) is checked here, once for
// every pass: a step that does not lower program_cost would be our bug, and could loop forever.
void accept(Candidate&& c, ReduceResult& r, const ReduceOptions& options) {
  const std::string& pass = r.passes[c.pass].name;
  if (!(program_cost(c.program) < program_cost(r.program)))
    throw InternalError("reduce: pass `" + pass + "` offered a step that does not lower program_cost");
  r.program = std::move(c.program);
  ++r.steps;
  ++r.passes[c.pass].accepted;
  if (options.log)
    options.log("reduce: step " + std::to_string(r.steps) + " (" + pass + "), " + std::to_string(program_cost(r.program).nodes) +
                " nodes");
}

// A round's first batch. A slow plug-in server (tinygrad: 0.1 to 1 s a candidate, against a compiler
// call's ~0.1 s) makes a batch wait for its renders, and most hits of a round come early: its rounds
// start with small batches that double while they find nothing. A fast one (uopfuzz's own renderer
// behind a script: 10 ms) keeps full batches, as compiler calls are then the cost. The candidates are
// checked in the same order either way, so the steps taken are the same. A render timeout starts at one:
// each candidate that keeps it costs the whole render timeout, and most do.
size_t first_batch_size(const std::string& signature, const CompiledPathConfig& cfg, const ReduceOptions& options) {
  if (is_render_timeout(signature)) return 1;
  return mean_render_seconds(cfg) > options.slow_render_s ? std::min(options.batch, options.slow_first_batch) : options.batch;
}

constexpr int kFinalChecks = 3;  // checks of the result before it is taken to pass (see reduce)

}  // namespace

ReduceResult reduce(const Program& p, const std::string& signature, const CompiledPathConfig& final_cfg,
                    const ReduceOptions& options) {
  const Clock::time_point start = Clock::now();
  // The candidates' renders end with the budget too (a plug-in that hangs or backs off must not carry a
  // reduction past it); the final check of the result is given the plain render timeout.
  CompiledPathConfig cfg = final_cfg;
  auto seconds = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  Clock::time_point budget_end = start + seconds(std::min(options.time_limit_s, 1e7));
  // When the caller's renders stop at a moment (a campaign's --time), the result's own check must still
  // render before it: the candidates stop earlier by a few renders (else a finished reduction is lost).
  if (final_cfg.render_stop_at)
    budget_end = std::min(budget_end, *final_cfg.render_stop_at - seconds(std::max(2.0, 3 * mean_render_seconds(final_cfg))));
  cfg.render_stop_at = cfg.render_stop_at ? std::min(*cfg.render_stop_at, budget_end) : budget_end;
  const std::vector<const Pass*> passes = passes_named(options.passes);
  ReduceResult r;
  r.program = p;
  for (const Pass* pass : passes) r.passes.push_back({std::string(pass->name), 0, 0, 0});
  // The first round of a mismatch slices down to where it diverges: found once, when the slice pass asks.
  std::optional<Divergence> divergence;
  auto first_divergence = [&]() -> const Divergence* {
    if (r.steps > 0 || signature.rfind("mismatch", 0) != 0) return nullptr;
    if (!divergence) {
      divergence = find_divergence(r.program, cfg);
      ++r.compiler_calls;
    }
    return &*divergence;
  };
  bool progress = true, cut = false;  // cut: a batch ended past the budget, its verdicts not trusted
  size_t first_pass = 0;              // the pass of the last step taken
  while (progress && Clock::now() < budget_end) {
    progress = false;
    Round round(passes, first_pass, r.program, first_divergence, r);
    size_t at = 0, size = first_batch_size(signature, cfg, options);
    for (; !progress && Clock::now() < budget_end; size = std::min(options.batch, size * 2)) {
      const std::span<Candidate> candidates = round.take(at, size);
      if (candidates.empty()) break;
      at += candidates.size();
      std::vector<const Program*> batch;
      for (const Candidate& c : candidates) batch.push_back(&c.program);
      const Clock::time_point checking = Clock::now();
      const std::optional<size_t> hit = first_keeping(batch, signature, cfg, r);
      count_tried(candidates, seconds_since(checking), r);
      // A batch the budget ended in is not trusted: its late renders fail as render-errors (no time left).
      cut = Clock::now() >= budget_end;
      if (hit && !cut) {
        first_pass = candidates[*hit].pass;
        accept(std::move(candidates[*hit]), r, options);
        progress = true;
      }
    }
    r.complete = !progress && !cut && round.exhausted(at);  // a whole round in time, no candidate kept the failure
  }
  // A crash that depends on what the target left in registers or memory (an x86 image decoding bytes it
  // did not mean) may not show on one check: the result is checked up to kFinalChecks times.
  for (int i = 0; i < kFinalChecks && (i == 0 || r.observation.signature != signature); ++i)
    r.observation = check({&r.program}, final_cfg).at(0).observation;
  r.seconds = seconds_since(start);
  return r;
}

}  // namespace uf

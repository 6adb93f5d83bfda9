// The greedy shrink-and-restart loop.
#include "fuzz/oracle/reduce.h"

#include <chrono>
#include <optional>

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
    if (!checked[i].defined()) continue;
    const Observation& o = checked[i].observation;
    if (o.verdict == Verdict::mismatch) mismatching.push_back(i);
    else if (o.verdict != Verdict::ok && o.signature == signature) return i;
  }
  if (signature.rfind("mismatch", 0) != 0) return std::nullopt;
  for (size_t from = 0, group = 1; from < mismatching.size(); from += group, group *= 4) {
    std::vector<const Program*> probes;
    for (size_t k = from; k < std::min(mismatching.size(), from + group); ++k) probes.push_back(batch[mismatching[k]]);
    const std::vector<Finding> probed = check(probes, cfg);
    ++r.compiler_calls;
    for (size_t k = 0; k < probes.size(); ++k)
      if (probed[k].defined() && probed[k].observation.signature == signature) return mismatching[from + k];
  }
  return std::nullopt;
}

}  // namespace

ReduceResult reduce(const Program& p, const std::string& signature, const CompiledPathConfig& cfg,
                    const ReduceOptions& options) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  ReduceResult r{p, {}, 0, 0, 0, 0};
  bool progress = true;
  while (progress && elapsed() < options.time_limit_s) {
    progress = false;
    const auto values = reference_values(r.program);
    std::vector<Program> candidates;
    if (r.steps == 0 && signature.rfind("mismatch", 0) == 0) {
      // First round: try slicing straight down to the diverging node.
      const Divergence d = find_divergence(r.program, cfg);
      ++r.compiler_calls;
      auto slice_values = values;
      slice_values.insert(d.loop_operands.begin(), d.loop_operands.end());
      candidates = d.lane >= 0 ? lane_slices(r.program, d.node->dtype, d.node->lanes, d.lane, d.lane_value)
                               : slice_candidates(r.program, d.node, slice_values);
      for (Program& q : candidates) q.got.clear();
    }
    for (Program& q : shrink_candidates(r.program, values)) candidates.push_back(std::move(q));
    std::erase_if(candidates, [](const Program& q) { return !verifies(q); });
    size_t at = 0;
    for (; at < candidates.size() && !progress && elapsed() < options.time_limit_s; at += options.batch) {
      std::vector<const Program*> batch;
      for (size_t i = at; i < std::min(candidates.size(), at + options.batch); ++i) batch.push_back(&candidates[i]);
      const std::optional<size_t> hit = first_keeping(batch, signature, cfg, r);
      if (hit) {
        r.program = std::move(candidates[at + *hit]);
        ++r.steps;
        progress = true;
        if (options.log) options.log("reduce: step " + std::to_string(r.steps) + ", " + std::to_string(program_cost(r.program).nodes) + " nodes");
      }
    }
    r.complete = !progress && at >= candidates.size();  // a whole round, and no candidate kept the failure
  }
  r.observation = check({&r.program}, cfg).at(0).observation;
  r.seconds = elapsed();
  return r;
}

}  // namespace uf

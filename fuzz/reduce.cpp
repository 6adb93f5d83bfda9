// The greedy shrink-and-restart loop.
#include "fuzz/reduce.h"

#include <chrono>

#include "fuzz/shrink.h"

namespace uf {

namespace {

// The reference value of every live value node, read back from the probe program's buffers.
std::unordered_map<const UOp*, Scalar> reference_values(const Program& p) {
  std::unordered_map<const UOp*, Scalar> values;
  const Probe probe = instrument(p);
  const RefResult ref = interpret(probe.program);
  if (ref.undefined) return values;
  for (const auto& [node, at] : probe.where) values[node] = ref.buffers.at(at.first).at(static_cast<size_t>(at.second));
  return values;
}

bool verifies(const Program& p) {
  try {
    verify(p);
    return true;
  } catch (const UserError&) {
    return false;
  }
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
    std::vector<Program> candidates = shrink_candidates(r.program, reference_values(r.program));
    std::erase_if(candidates, [](const Program& q) { return !verifies(q); });
    for (size_t at = 0; at < candidates.size() && !progress && elapsed() < options.time_limit_s; at += options.batch) {
      std::vector<const Program*> batch;
      for (size_t i = at; i < std::min(candidates.size(), at + options.batch); ++i) batch.push_back(&candidates[i]);
      const BatchResult checked = check_batch(batch, cfg, true);
      ++r.compiler_calls;
      r.candidates += static_cast<int>(batch.size());
      for (size_t i = 0; i < batch.size(); ++i)
        if (checked.defined[i] && checked.observations[i].signature == signature) {
          r.program = std::move(candidates[at + i]);
          ++r.steps;
          progress = true;
          if (options.log) {
            const ProgramCost c = program_cost(r.program);
            options.log("reduce: step " + std::to_string(r.steps) + ", " + std::to_string(c.nodes) + " nodes");
          }
          break;
        }
    }
  }
  const BatchResult last = check_batch({&r.program}, cfg, true);
  r.observation = last.observations.at(0);
  r.seconds = elapsed();
  return r;
}

}  // namespace uf

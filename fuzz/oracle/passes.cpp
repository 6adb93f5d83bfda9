// The pass registry: the table built from passes.def, lookup by name, and the one cost filter.
#include "fuzz/oracle/passes.h"

#include <algorithm>

#include "core/error.h"
#include "core/rewrite.h"
#include "fuzz/oracle/shrink.h"

namespace uf {

namespace {

constexpr Pass kPasses[] = {
#define PASS(name, function, file, description) {name, &function, #function, file, description},
#include "fuzz/oracle/passes.def"
#undef PASS
};

}  // namespace

std::span<const Pass> all_passes() { return kPasses; }

std::vector<const Pass*> passes_named(const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (std::none_of(std::begin(kPasses), std::end(kPasses), [&](const Pass& p) { return p.name == n; })) {
      std::string valid;
      for (const Pass& p : kPasses) valid += (valid.empty() ? "" : ", ") + std::string(p.name);
      throw UserError("reduce: unknown pass `" + n + "` (the passes: " + valid + ")");
    }
  std::vector<const Pass*> out;
  for (const Pass& p : kPasses)
    if (names.empty() || std::find(names.begin(), names.end(), p.name) != names.end()) out.push_back(&p);
  return out;
}

std::string pass_list_text() {
  size_t width = 0;
  for (const Pass& p : kPasses) width = std::max(width, p.name.size());
  std::string out;
  for (const Pass& p : kPasses)
    out += std::string(p.name) + std::string(width + 2 - p.name.size(), ' ') + std::string(p.description) + "\n";
  return out;
}

std::vector<Program> pass_candidates(const Pass& pass, const Program& p, const std::unordered_map<const UOp*, Scalar>& values,
                                     std::function<const Divergence*()> divergence) {
  const std::vector<const UOp*> order = linearize(p);
  const ProgramCost cost = program_cost(p);
  std::vector<Program> out;
  pass.run({p, order, values, std::move(divergence), [&](Program&& q) {
              q.expect.clear();
              q.got.clear();
              if (q.opts) prune_opts(q, linearize(q));
              if (program_cost(q) < cost) out.push_back(std::move(q));
            }});
  return out;
}

std::vector<Program> shrink_candidates(const Program& p, const std::unordered_map<const UOp*, Scalar>& values) {
  std::vector<Program> out;
  for (const Pass& pass : kPasses)
    for (Program& q : pass_candidates(pass, p, values)) out.push_back(std::move(q));
  return out;
}

void offer_substitution(const PassInput& in, const std::unordered_map<const UOp*, const UOp*>& replace) {
  try {
    in.add(substitute(in.p, replace));
  } catch (const TypeError&) {
    // A rebuilt node no longer type-checks: not a candidate.
  }
}

}  // namespace uf

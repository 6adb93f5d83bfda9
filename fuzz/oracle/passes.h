// The reducer's passes as a registry (fuzz/oracle/passes.def): each named pass offers the candidate
// programs one step smaller than a given one. The reducer (fuzz/oracle/reduce.h) runs the chosen passes,
// each round from the last productive one, then in registry order, and keeps per-pass statistics.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/program.h"
#include "fuzz/oracle/oracle.h"

namespace uf {

// What a pass sees of the program being reduced, and where it offers candidates.
struct PassInput {
  const Program& p;
  const std::vector<const UOp*>& order;                  // linearize(p)
  const std::unordered_map<const UOp*, Scalar>& values;  // reference values of live top-level value nodes
  // In the first round of a mismatch's reduction: where it diverges (may run the compiler once); else
  // nullptr. Only the slice pass asks.
  std::function<const Divergence*()> divergence;
  std::function<void(Program&&)> add;  // offers a candidate
};

#define PASS(name, function, file, description) void function(const PassInput& in);
#include "fuzz/oracle/passes.def"
#undef PASS

struct Pass {
  std::string_view name;
  void (*run)(const PassInput&);
  std::string_view function, file;  // the row's function name and the file that defines it
  std::string_view description;
};

// Every pass, in registry order.
std::span<const Pass> all_passes();
// The passes named (registry order, whatever the order of `names`); every pass when `names` is empty.
// UserError for an unknown name, listing the valid ones.
std::vector<const Pass*> passes_named(const std::vector<std::string>& names);
// "name  description" lines, one per pass: `uopfuzz reduce --list-passes` and its --help.
std::string pass_list_text();

// The candidates `pass` offers for `in.p` that are strictly cheaper (program_cost) than it, their
// expect/got cleared: the reducer's termination rule, applied here once for every pass.
std::vector<Program> pass_candidates(const Pass& pass, const Program& p, const std::unordered_map<const UOp*, Scalar>& values,
                                     std::function<const Divergence*()> divergence = nullptr);

// Drops the opts steps that name an axis no RANGE of `order` has any more (a pass removed that loop): the
// steps go with their loop.
void prune_opts(Program& p, const std::vector<const UOp*>& order);

// Offers `in.p` with `replace` substituted; nothing when a rebuilt node no longer type-checks.
void offer_substitution(const PassInput& in, const std::unordered_map<const UOp*, const UOp*>& replace);

}  // namespace uf

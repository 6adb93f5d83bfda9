// GenPolicy as JSON: `uopfuzz policy` prints it, `--policy FILE` reads a (partial) one back.
//
// Every knob of GenPolicy (a row of policy.def) has one key: sizes and probabilities as
// numbers, the per-op and per-dtype arrays as objects keyed by op or dtype name, each Weights<E> as an
// object keyed by enumerator name, the other arrays as arrays (docs/format.md, "Generator policy").
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/gen/policy.h"

namespace uf {

nlohmann::json policy_to_json(const GenPolicy& p);
// Overrides the fields of `p` that `j` names. UserError "KEY: message" for an unknown key, a wrong type,
// a negative weight or size, a probability outside [0, 1], an unknown op/dtype/enumerator name, or a
// min_X above its max_X.
void apply_policy_json(GenPolicy& p, const nlohmann::json& j);
// The default policy with `path`'s JSON applied; UserError "PATH: message" when it cannot be read or used.
GenPolicy policy_from_file(const std::string& path);

// The policy table of docs/format.md ("Generator policy"), from policy.def: one row per knob with its
// type, default, swarm rule, --without features and doc (`uopfuzz policy --markdown` prints it).
std::string policy_markdown();

}  // namespace uf

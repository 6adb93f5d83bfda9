// The rows of policy.def as data: for_each_knob walks GenPolicy's members with what their row says
// (name, swarm rule, --without features, doc). The JSON reader and writer, swarm(), --without and
// `uopfuzz policy --markdown` are walks over it, so none of them names a knob of its own.
#pragma once
#include <array>
#include <cstdint>

#include "fuzz/gen/policy.h"

namespace uf {

// One thing swarm() does to a knob per program (policy.def, the swarm column).
struct SwarmRule {
  enum Kind : uint8_t { Thin, Drop } kind = Thin;
  // The rule's place in swarm()'s sequence of draws: a program's draws (and so its text) depend on it.
  int order = 0;
  double GenPolicy::*keep = nullptr;  // the probability of keeping each weight (Thin) or the knob (Drop)
  // Thin: entries restored after thinning. Drop on a table: the entries dropped (each restored from the
  // base policy with probability keep, else zeroed); none: the knob itself (a probability).
  std::array<int, 2> at = {-1, -1};
  bool fit_ops = false;  // after thinning: give the base's ops back until some ALU op has a kept dtype
};

// A knob's swarm column: up to two rules.
struct Swarm {
  std::array<SwarmRule, 2> rules{};
  int count = 0;
  constexpr Swarm fitting_ops() const {
    Swarm s = *this;
    s.rules[0].fit_ops = true;
    return s;
  }
  constexpr Swarm operator+(const Swarm& o) const {
    Swarm s = *this;
    s.rules[s.count++] = o.rules[0];
    return s;
  }
};

namespace swarm_rules {
inline constexpr Swarm no_swarm{};
template <class... E>
constexpr Swarm rule(SwarmRule::Kind kind, int order, double GenPolicy::*keep, E... at) {
  SwarmRule r{kind, order, keep};
  int i = 0;
  ((r.at[i++] = static_cast<int>(at)), ...);
  Swarm s;
  s.rules[0] = r;
  s.count = 1;
  return s;
}
template <class... E>
constexpr Swarm thin(int order, double GenPolicy::*keep, E... except) {
  return rule(SwarmRule::Thin, order, keep, except...);
}
template <class... E>
constexpr Swarm drop(int order, double GenPolicy::*keep, E... at) {
  return rule(SwarmRule::Drop, order, keep, at...);
}
}  // namespace swarm_rules

// A knob's row, but for its type and default (those are the member's).
struct Knob {
  const char* name;
  Swarm swarm;
  const char* without;  // "feature" or "feature:Enumerator", space-separated
  const char* doc;
  const char* section;  // the KNOB_SECTION it is in
};

// f(const Knob&, &GenPolicy::member) for every row of policy.def, in the table's order.
template <class F>
void for_each_knob(F&& f) {
  using namespace swarm_rules;
  const char* section = "";
#define KNOB_SECTION(title) section = title;
#define KNOB(type, name, default_value, swarm, without, doc) f(Knob{#name, swarm, without, doc, section}, &GenPolicy::name);
#include "fuzz/gen/policy.def"
}

}  // namespace uf

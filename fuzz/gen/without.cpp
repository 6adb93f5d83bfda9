// `--without NAME`: what a target does not support, taken out of the policy (policy.h, without()).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "core/uop.h"
#include "core/error.h"
#include "core/program.h"
#include "fuzz/gen/policy_table.h"

namespace uf {

namespace {

// Structural features by name. What each zeroes is policy.def's `without` column.
struct Feature {
  const char* name;
  const char* what;
};

constexpr Feature kFeatures[] = {
    {"loop", "RANGE/END loops (with their accumulators and gated accesses)"},
    {"vector", "vector dtypes"},
    {"observed", "kernels that store every intermediate"},
    // Scratch arrays and accumulator chains need an ALLOC; a loop reduction accumulates in a BUFFER.
    {"alloc", "ALLOC (kernel-local memory)"},
    // Reading what was written needs AFTER: those steps and loop reductions go, and access() drops an
    // access that would need one (a load becomes a constant).
    {"after", "AFTER (ordering of accesses to one memory)"},
    {"gated", "gated LOAD and STORE"},
    // Loops still index by their RANGE: that is what a loop is.
    {"dynamic-index", "computed indices outside loops (gathers, scatters)"},
    {"runtime-trips", "loop trip counts loaded at run time"},
    {"dead-code", "nodes (a STORE among them) the SINK does not reach"},
    {"opts", "optimization sequences (the opts line): the target's own optimizer decides"},
};

template <class E>
int entry_index(const Weights<E>&, std::string_view name) {
  const auto names = enum_names(E{});
  for (size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return static_cast<int>(i);
  return -1;
}

// Zeroes a knob: all of it (entry "": a probability or flag) or one enumerator's weight of a table.
template <class T>
void zero_knob(T& x, std::string_view entry, const char* knob) {
  if constexpr (std::is_arithmetic_v<T>) {
    if (entry.empty()) return void(x = T{});
  } else if constexpr (requires { entry_index(x, entry); }) {
    if (const int e = entry_index(x, entry); e >= 0) return void(x[static_cast<size_t>(e)] = 0);
  }
  throw InternalError(std::string("policy.def: ") + knob + ": cannot zero '" + std::string(entry) + "'");
}

bool is_feature(std::string_view name) {
  for (const Feature& f : kFeatures)
    if (name == f.name) return true;
  return false;
}

// Zeroes what policy.def's `without` column gives to `feature` ("feature" or "feature:Enumerator" items).
void apply_feature(GenPolicy& p, std::string_view feature) {
  for_each_knob([&](const Knob& k, auto m) {
    for (std::string_view rest = k.without; !rest.empty();) {
      const size_t space = std::min(rest.find(' '), rest.size());
      const std::string_view item = rest.substr(0, space);
      rest.remove_prefix(std::min(space + 1, rest.size()));
      const size_t colon = std::min(item.find(':'), item.size());
      const std::string_view name = item.substr(0, colon);
      if (!is_feature(name))
        throw InternalError(std::string("policy.def: ") + k.name + ": no feature '" + std::string(name) + "'");
      if (name == feature) zero_knob(p.*m, item.substr(std::min(colon + 1, item.size())), k.name);
    }
  });
}

template <class E>
void zero(Weights<E>& w, std::initializer_list<E> es) {
  for (E e : es) w[static_cast<size_t>(e)] = 0;
}

bool none(const auto& w) {
  for (double x : w)
    if (x > 0) return false;
  return true;
}

// The integer and float shapes that would build a banned op take another form (policy.h, op_banned).
void drop_shapes(GenPolicy& p, Op op) {
  using S = ShiftAmount;
  using N = Numerator;
  using C = IndexClamp;
  using G = FloatGuard;
  switch (op) {
    case Op::MAX:
      zero(p.shift_weight, {S::MaxZero});
      zero(p.numerator_weight, {N::MaxZero});
      zero(p.clamp_weight, {C::CModOfMax});
      break;
    case Op::CMOD: zero(p.clamp_weight, {C::CModOfMax}); break;
    case Op::FLOORMOD:
      zero(p.shift_weight, {S::FloorMod});
      zero(p.clamp_weight, {C::FloorMod});
      break;
    case Op::AND:
      zero(p.shift_weight, {S::AndMask, S::Operand});  // an operand that may be negative is masked
      zero(p.numerator_weight, {N::AndMask});
      zero(p.clamp_weight, {C::AndMask, C::WhereInRange});
      zero(p.guard_weight, {G::WhereAnd});
      break;
    case Op::MUL: zero(p.guard_weight, {G::WhereMul}); break;
    case Op::WHERE:
      zero(p.clamp_weight, {C::WhereInRange});
      zero(p.guard_weight, {G::WhereAnd, G::WhereMul});
      break;
    case Op::CAST:
      zero(p.numerator_weight, {N::CastU8, N::CastBool});
      zero(p.leaf_weight, {Leaf::Cast});
      p.p_range_operand = 0;
      break;
    default: break;
  }
  if (none(p.guard_weight)) p.guard_weight[static_cast<size_t>(G::Constant)] = 1;  // a constant needs no op
  if (none(p.numerator_weight)) p.p_nonneg_numerator = 0;
  // No clamp left: clamp_index falls back to FLOORMOD, which an index needs in some form.
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `OP:int`: the ALU op on integer operands, or nullopt when `name` (lower case) is not of that form.
std::optional<Op> int_only_op(std::string_view name) {
  constexpr std::string_view kSuffix = ":int";
  if (!name.ends_with(kSuffix)) return std::nullopt;
  std::string upper(name.substr(0, name.size() - kSuffix.size()));
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto op = parse_op(upper);
  if (!op || !is_alu(*op)) return std::nullopt;
  for (DType d : kValueDTypes)
    if (is_int(d) && op_accepts(*op, d)) return op;
  return std::nullopt;
}

}  // namespace

bool policy_accepts(const GenPolicy& p, Op op, DType d) {
  return op_accepts(op, d) && !(is_int(d) && p.op_banned_int[static_cast<size_t>(op)]);
}

std::vector<std::string> without_names() {
  std::vector<std::string> out;
  for (const Feature& f : kFeatures) out.emplace_back(f.name);
  for (Op op : kAluOps) out.push_back(lower(name(op)));
  for (DType d : kValueDTypes) out.emplace_back(name(d));
  return out;
}

bool is_without_name(std::string_view name) {
  const std::string n = lower(name);
  const std::vector<std::string> valid = without_names();
  return std::find(valid.begin(), valid.end(), n) != valid.end() || int_only_op(n).has_value();
}

std::string without_violation(const Program& p, const std::vector<std::string>& names) {
  std::set<std::string> banned;
  for (const std::string& n : names) banned.insert(lower(n));
  if (p.opts && banned.count("opts")) return "an opts line (opts)";
  for (const UOp* u : linearize(p)) {
    const std::string op = lower(name(u->op)), dt = name(u->dtype);
    if (is_alu(u->op) && banned.count(op)) return name(u->op);
    if (is_alu(u->op) && !u->src.empty() && is_int(u->src[0]->dtype) && banned.count(op + ":int"))
      return std::string(name(u->op)) + " on " + name(u->src[0]->dtype);
    if (!is_void(u->dtype) && banned.count(dt)) return "dtype " + dt;
    if (u->is_vector() && banned.count("vector")) return "a vector (vector)";
    if ((u->op == Op::RANGE && banned.count("loop")) || (u->op == Op::ALLOC && banned.count("alloc")) ||
        (u->op == Op::AFTER && banned.count("after")))
      return name(u->op);
    if (u->is_gated() && banned.count("gated")) return "a gated " + op;
  }
  return "";
}

void without(GenPolicy& p, std::string_view what) {
  const std::string n = lower(what);
  if (is_feature(n)) return apply_feature(p, n);
  if (const auto op = int_only_op(n)) return void(p.op_banned_int[static_cast<size_t>(*op)] = true);
  if (const auto d = parse_dtype(n); d && std::find(kValueDTypes.begin(), kValueDTypes.end(), *d) != kValueDTypes.end()) {
    p.dtype_weight[static_cast<size_t>(*d)] = 0;
    for (double w : p.dtype_weight)
      if (w > 0) return;
    throw UserError("--without " + std::string(what) + ": no dtype left to generate");
  }
  std::string upper = n;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (const auto op = parse_op(upper); op && is_alu(*op)) {
    p.op_weight[static_cast<size_t>(*op)] = 0;
    p.op_banned[static_cast<size_t>(*op)] = true;
    drop_shapes(p, *op);
    return;
  }
  std::string valid;
  for (const std::string& s : without_names()) valid += (valid.empty() ? "" : " ") + s;
  throw UserError("--without: unknown name '" + std::string(what) + "'; valid names: " + valid +
                  ", and OP:int for an op on integer operands only (pow:int)");
}

}  // namespace uf

// `--without NAME`: what a target does not support, taken out of the policy (policy.h, without()).
#include <algorithm>
#include <cctype>

#include "core/uop.h"
#include "fuzz/gen/policy.h"

namespace uf {

namespace {

// Structural features by name: each zeroes what produces it.
struct Feature {
  const char* name;
  void (*apply)(GenPolicy&);
  const char* what;
};
void zero(GenPolicy& p, Step s) { p.step_weight[static_cast<size_t>(s)] = 0; }

constexpr Feature kFeatures[] = {
    {"loop", [](GenPolicy& p) { zero(p, Step::Loop); p.p_force_loop = 0; },
     "RANGE/END loops (with their accumulators and gated accesses)"},
    {"vector", [](GenPolicy& p) { zero(p, Step::Vector); }, "vector dtypes"},
    {"observed", [](GenPolicy& p) { p.p_observe_intermediates = 0; }, "kernels that store every intermediate"},
    // Scratch arrays and accumulator chains need an ALLOC; a loop reduction accumulates in a BUFFER.
    {"alloc", [](GenPolicy& p) { zero(p, Step::Scratch); zero(p, Step::Accumulate); p.allow_alloc = false; },
     "ALLOC (kernel-local memory)"},
    // Reading what was written needs AFTER: those steps and loop reductions go, and access() drops an
    // access that would need one (a load becomes a constant).
    {"after", [](GenPolicy& p) {
       for (Step s : {Step::Scratch, Step::Accumulate, Step::StoreReload}) zero(p, s);
       p.loop_kind_weight[static_cast<size_t>(LoopKind::Reduce)] = 0;
       p.p_redundant_after = p.p_spurious_after = 0;
       p.allow_after = false;
     },
     "AFTER (ordering of accesses to one memory)"},
    {"gated", [](GenPolicy& p) {
       p.loop_read_weight[static_cast<size_t>(LoopRead::PadAfter)] = 0;
       p.loop_read_weight[static_cast<size_t>(LoopRead::PadBefore)] = 0;
       p.p_gated_store = 0;
     },
     "gated LOAD and STORE"},
    // Loops still index by their RANGE: that is what a loop is.
    {"dynamic-index", [](GenPolicy& p) {
       zero(p, Step::Gather);
       zero(p, Step::Scatter);
       p.p_dynamic_index = p.p_scratch_overwrite = 0;
     },
     "computed indices outside loops (gathers, scatters)"},
    {"runtime-trips", [](GenPolicy& p) { p.p_runtime_trips = 0; }, "loop trip counts loaded at run time"},
    {"dead-code", [](GenPolicy& p) { p.p_dead_code = 0; }, "nodes (a STORE among them) the SINK does not reach"},
};

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
    case Op::MAX: zero(p.shift_weight, {S::MaxZero}); zero(p.numerator_weight, {N::MaxZero}); zero(p.clamp_weight, {C::CModOfMax}); break;
    case Op::CMOD: zero(p.clamp_weight, {C::CModOfMax}); break;
    case Op::FLOORMOD: zero(p.shift_weight, {S::FloorMod}); zero(p.clamp_weight, {C::FloorMod}); break;
    case Op::AND:
      zero(p.shift_weight, {S::AndMask, S::Operand});  // an operand that may be negative is masked
      zero(p.numerator_weight, {N::AndMask});
      zero(p.clamp_weight, {C::AndMask, C::WhereInRange});
      zero(p.guard_weight, {G::WhereAnd});
      break;
    case Op::MUL: zero(p.guard_weight, {G::WhereMul}); break;
    case Op::WHERE: zero(p.clamp_weight, {C::WhereInRange}); zero(p.guard_weight, {G::WhereAnd, G::WhereMul}); break;
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

}  // namespace

std::vector<std::string> without_names() {
  std::vector<std::string> out;
  for (const Feature& f : kFeatures) out.emplace_back(f.name);
  for (Op op : kAluOps) out.push_back(lower(name(op)));
  for (DType d : kValueDTypes) out.emplace_back(name(d));
  return out;
}

void without(GenPolicy& p, std::string_view what) {
  const std::string n = lower(what);
  for (const Feature& f : kFeatures)
    if (n == f.name) return f.apply(p);
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
  throw UserError("--without: unknown name '" + std::string(what) + "'; valid names: " + valid);
}

}  // namespace uf

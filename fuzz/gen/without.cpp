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
constexpr Feature kFeatures[] = {
    {"loop", [](GenPolicy& p) { p.step_weight[static_cast<size_t>(Step::Loop)] = 0; p.p_force_loop = 0; },
     "RANGE/END loops (with their accumulators and gated accesses)"},
    {"vector", [](GenPolicy& p) { p.step_weight[static_cast<size_t>(Step::Vector)] = 0; }, "vector dtypes"},
    {"observed", [](GenPolicy& p) { p.p_observe_intermediates = 0; }, "kernels that store every intermediate"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> without_names() {
  std::vector<std::string> out;
  for (const Feature& f : kFeatures) out.emplace_back(f.name);
  for (int o = static_cast<int>(Op::ADD); o <= static_cast<int>(Op::BITCAST); ++o) out.push_back(lower(name(static_cast<Op>(o))));
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
    return;
  }
  std::string valid;
  for (const std::string& s : without_names()) valid += (valid.empty() ? "" : " ") + s;
  throw UserError("--without: unknown name '" + std::string(what) + "'; valid names: " + valid);
}

}  // namespace uf

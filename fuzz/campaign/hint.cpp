// Inferring a `--without` from render and compile errors (hint.h). The signature of such a failure is
// only its class (oracle.cpp: `render-error`, `compile-error`), so the worker reads the renderer's or
// compiler's message instead and reports, per signature, the name each failure points at.
#include "fuzz/campaign/hint.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/ops.h"
#include "fuzz/campaign/campaign.h"
#include "fuzz/gen/policy.h"

namespace uf {

namespace {

// The IR words a message may use for a structural feature, and the `--without` name that removes it.
// ALU ops and dtypes map to their own names (policy.h, without()).
constexpr std::pair<std::string_view, std::string_view> kFeatureWords[] = {
    {"ALLOC", "alloc"}, {"AFTER", "after"}, {"RANGE", "loop"}, {"END", "loop"}, {"GEP", "vector"}, {"STACK", "vector"},
};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// An IR word (an ALU op as `MULACC`, a dtype as `f16`) names the `--without` of the same name, when
// without() knows it: the valid names are without_names(), one list for both.
std::string word_name(std::string_view w) {
  for (const auto& [word, name] : kFeatureWords)
    if (w == word) return std::string(name);
  const auto op = parse_op(w);
  if ((op && w == uf::name(*op)) || parse_dtype(w)) {
    std::string n(w);
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::vector<std::string> valid = without_names();
    if (std::find(valid.begin(), valid.end(), n) != valid.end()) return n;
  }
  // A vector dtype (f32x4) needs vectors.
  if (const size_t x = w.rfind('x');
      x != std::string_view::npos && x + 1 < w.size() && std::isdigit(static_cast<unsigned char>(w[x + 1])))
    if (parse_dtype(w.substr(0, x))) return "vector";
  return "";
}

}  // namespace

std::string avoid_name(const std::string& message) {
  for (size_t at = 0; at < message.size();) {
    if (!word_char(message[at])) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < message.size() && word_char(message[end])) ++end;
    if (std::string n = word_name(std::string_view(message).substr(at, end - at)); !n.empty()) return n;
    at = end;
  }
  return "";
}

std::string dominant_failure_hint(const CampaignSummary& s) {
  const int64_t programs = s.counts.programs;
  if (programs < 20) return "";
  for (const auto& [sig, n] : s.bucket_hits) {
    if (sig.rfind("render-error", 0) != 0 && sig != "compile-error") continue;  // render errors may name a bucket
    if (2 * n < programs) continue;
    std::string hint =
        "most programs fail the same way: " + sig + " (" + std::to_string(n) + " of " + std::to_string(programs) + ")";
    if (const auto it = s.avoid_hits.find(sig); it != s.avoid_hits.end())
      for (const auto& [name, k] : it->second)
        if (2 * k >= n) return hint + "; --without " + name + " would avoid it";
    return hint;
  }
  return "";
}

}  // namespace uf

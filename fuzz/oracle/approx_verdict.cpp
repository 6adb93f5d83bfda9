// Approximate ops in the oracle (fuzz/oracle/approx_verdict.h).
#include "fuzz/oracle/approx_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "fuzz/oracle/oracle.h"
#include "interp/approx.h"

namespace uf {

namespace {

// `ulp 1e+01`: the decade of an error, so that one bug's results share a bucket.
std::string ulp_decade(double ulps) {
  if (std::isinf(ulps)) return "ulp inf";
  char text[32];
  std::snprintf(text, sizeof text, "ulp %.0e", std::pow(10.0, std::floor(std::log10(std::max(ulps, 1e-300)))));
  return text;
}

std::string judgement_text(const ApproxStore& s, const ApproxJudgement& j, double got) {
  std::string text = approx_store_text(s) + ": got " + value_text(got) + ", correctly rounded " + value_text(j.reference);
  text += j.special_wrong ? " (a special value: exact)" : ", " + ulp_text(j.ulps) + " over the budget " + ulp_text(j.budget->ulps);
  return text + " (" + j.budget->source + ")";
}

}  // namespace

std::string value_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string approx_store_text(const ApproxStore& s) {
  const UOp* u = s.node;
  const std::string operands = value_text(s.a.f) + (u->src.size() > 1 ? ", " + value_text(s.b.f) : "");
  return std::string(name(u->op)) + " " + name(u->dtype) + "(" + operands + ") at p" + std::to_string(s.slot) + "[" +
         std::to_string(s.element) + "]";
}

void judge_approximate(const Program& p, const RefResult& ref, const std::map<int64_t, Values>& got,
                       const std::vector<Op>& approx, Observation& o) {
  if (approx.empty()) return;
  std::map<std::pair<int64_t, size_t>, std::pair<const ApproxStore*, ApproxJudgement>> judged;
  for (const ApproxStore& s : ref.approx_stores) {
    const auto g = got.find(s.slot);
    if (!is_approximated(s.node, approx) || g == got.end() || s.element >= g->second.size()) continue;
    const ApproxJudgement j = judge_approx(s.node->op, s.node->dtype, s.a.f, s.b.f, g->second[s.element].f);
    o.approx_ulps.push_back({s.node->op, s.node->dtype, j.ulps, j.special_wrong});
    judged[{s.slot, s.element}] = {&s, j};
  }
  if (o.verdict != Verdict::mismatch) return;
  bool other = false;
  const std::pair<const ApproxStore*, ApproxJudgement>* over = nullptr;
  double over_got = 0;
  for (const auto& [slot, values] : o.got) {
    const Values& want = ref.buffers.at(slot);
    const DType d = p.buffer(slot)->dtype;
    if (values.size() != want.size()) other = true;
    for (size_t e = 0; e < std::min(values.size(), want.size()); ++e) {
      if (same_value(d, want[e], values[e])) continue;
      const auto it = judged.find({slot, e});
      if (it == judged.end()) other = true;
      else if (!it->second.second.within && !over) over = &it->second, over_got = values[e].f;
    }
  }
  if (other) return;  // an exact op differs too: the usual signature (its probe skips approximated values)
  if (!over) {
    o.verdict = Verdict::ok;
    o.got.clear();
    return;
  }
  const auto& [store, j] = *over;
  o.approximate = true;
  o.signature = "mismatch " + std::string(name(store->node->op)) + " " + name(store->node->dtype) + " " +
                (j.special_wrong ? "special" : ulp_decade(j.ulps));
  o.message = judgement_text(*store, j, over_got);
}

}  // namespace uf

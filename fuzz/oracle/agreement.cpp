// Backends agree (fuzz/oracle/agreement.h).
#include "fuzz/oracle/agreement.h"

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "fuzz/oracle/approx_verdict.h"
#include "interp/approx.h"

namespace uf {

namespace {

// NaNs are one result (docs/semantics.md: any NaN for NaN); zeros differ by sign.
bool same_result(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool approximates(const VersionRun& r, Op op) { return std::find(r.approx.begin(), r.approx.end(), op) != r.approx.end(); }

}  // namespace

bool exact_part_right(const VersionRun& r) {
  return r.outcome.status == KernelStatus::ok && (r.observation.verdict == Verdict::ok || r.observation.approximate);
}

std::string Disagreement::signature() const {
  std::string s = std::string("disagree ") + name(at.node->op) + " " + name(at.node->dtype);
  for (size_t i = 0; i < results.size(); ++i) {
    s += " ";
    for (size_t k = 0; k < results[i].names.size(); ++k) s += (k ? "=" : "") + results[i].names[k];
  }
  return s;
}

std::string Disagreement::message() const {
  std::string text = approx_store_text(at) + ":";
  for (const Result& r : results) {
    std::string names;
    for (const std::string& n : r.names) names += (names.empty() ? "" : " and ") + n;
    text += " " + names + " " + value_text(r.got) + " (" + (r.special_wrong ? "a wrong special value" : ulp_text(r.ulps)) + ");";
  }
  return text + " correctly rounded " + value_text(reference);
}

Agreement compare_versions(const RefResult& ref, const std::vector<VersionRun>& runs) {
  Agreement out;
  for (const ApproxStore& s : ref.approx_stores) {
    const UOp* u = s.node;
    if (!is_judged_approx(u->op, u->dtype)) continue;
    Disagreement d{s, 0, {}};
    size_t stored = 0;
    for (const VersionRun& r : runs) {
      if (!approximates(r, u->op) || !exact_part_right(r)) continue;
      const auto it = r.outcome.buffers.find(s.slot);
      if (it == r.outcome.buffers.end() || s.element >= it->second.size()) continue;
      const double got = it->second[s.element].f;
      ++stored;
      const auto same =
          std::find_if(d.results.begin(), d.results.end(), [got](const auto& x) { return same_result(x.got, got); });
      if (same != d.results.end()) {
        same->names.push_back(r.name);
        continue;
      }
      const ApproxJudgement j = judge_approx(u->op, u->dtype, s.a.f, s.b.f, got);
      d.reference = j.reference;
      d.results.push_back({got, j.ulps, j.special_wrong, {r.name}});
    }
    if (stored < 2) continue;
    ++out.compared[std::string(name(u->op)) + " " + name(u->dtype)];
    if (d.results.size() > 1) out.disagreements.push_back(std::move(d));
  }
  return out;
}

Program single_op_program(const Disagreement& d) {
  const UOp* u = d.at.node;
  const std::string dt = name(u->dtype);
  const bool binary = u->src.size() > 1;
  std::string text = "uops 1\n";
  text += "%0 = BUFFER " + dt + "[" + (binary ? "2" : "1") + "] slot=0\n";
  text += "%1 = BUFFER " + dt + "[1] slot=1\n%2 = CONST i32 0\n%3 = INDEX " + dt + " %0 %2\n%4 = LOAD " + dt + " %3\n";
  int next = 5;
  std::string operands = "%4";
  if (binary) {
    text += "%5 = CONST i32 1\n%6 = INDEX " + dt + " %0 %5\n%7 = LOAD " + dt + " %6\n";
    operands += " %7";
    next = 8;
  }
  const std::string op = "%" + std::to_string(next), index = "%" + std::to_string(next + 1),
                    store = "%" + std::to_string(next + 2);
  text += op + " = " + name(u->op) + " " + dt + " " + operands + "\n";
  text += index + " = INDEX " + dt + " %1 %2\n" + store + " = STORE void " + index + " " + op + "\n";
  text += "%" + std::to_string(next + 3) + " = SINK void " + store + "\n";
  text += "data 0 = " + format_scalar(u->dtype, d.at.a) + (binary ? " " + format_scalar(u->dtype, d.at.b) : "") + "\n";
  text += "data 1 = " + format_scalar(u->dtype, Scalar::zero()) + "\n";
  return parse_program(text, "<disagreement>");
}

}  // namespace uf

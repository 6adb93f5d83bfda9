#include "core/opts.h"

#include <algorithm>

#include "core/program.h"
#include "core/text_lex.h"

namespace uf {

std::optional<OptStep> parse_opt(std::string_view text) {
  OptStep o;
  const size_t c1 = text.find(':');
  o.action = std::string(text.substr(0, c1));
  if (o.action.empty() || !(o.action[0] >= 'A' && o.action[0] <= 'Z') ||
      !std::all_of(o.action.begin(), o.action.end(), [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; }))
    return std::nullopt;
  if (c1 == std::string_view::npos) return o;
  const std::string_view rest = text.substr(c1 + 1);
  const size_t c2 = rest.find(':');
  auto number = [](std::string_view t, int64_t& out) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }) && lex::to_int(t, out) &&
           out <= (int64_t{1} << 30);
  };
  if (!number(rest.substr(0, c2), o.axis)) return std::nullopt;
  if (c2 != std::string_view::npos && !number(rest.substr(c2 + 1), o.arg)) return std::nullopt;
  return o;
}

std::string format_opt(const OptStep& o) {
  std::string s = o.action;
  if (o.axis >= 0) s += ":" + std::to_string(o.axis);
  if (o.axis >= 0 && o.arg >= 0) s += ":" + std::to_string(o.arg);
  return s;
}

std::string format_opts(const OptSequence& s) {
  std::string out;
  for (const OptStep& o : s) out += (out.empty() ? "" : " ") + format_opt(o);
  return out;
}

void check_opts(const Program& p, const std::vector<const UOp*>& order) {
  if (!p.opts) return;
  for (const OptStep& o : *p.opts) {
    if (o.axis < 0) continue;
    const auto n = std::count_if(order.begin(), order.end(), [&](const UOp* u) { return u->op == Op::RANGE && u->value.i == o.axis; });
    if (n == 1) continue;
    throw UserError("opts: " + format_opt(o) + " names axis " + std::to_string(o.axis) + ", which " +
                        (n == 0 ? std::string("no RANGE of the program has") : std::to_string(n) + " RANGEs have (an axis must name one)"),
                    p.opts_line);
  }
}

}  // namespace uf

// The canonical printer: header, meta in order, nodes in linear order, then data/expect/got by slot.
#include <algorithm>
#include <unordered_map>

#include "core/text.h"

namespace uf {

std::string print_values_line(const char* key, int64_t slot, DType d, const Values& v) {
  std::string s = key;
  s += ' ';
  s += std::to_string(slot);
  s += " =";
  for (Scalar x : v) {
    s += ' ';
    append_scalar(s, d, x);
  }
  s += '\n';
  return s;
}

std::string print_program(const Program& p) {
  const std::vector<const UOp*> order = linearize(p);
  std::vector<int> id_of(p.graph->size(), -1);
  // Version 2 exactly when the program has a vector, a loop or a gated access (docs/format.md).
  const bool v2 = std::any_of(order.begin(), order.end(), [](const UOp* u) {
    return u->is_vector() || u->op == Op::GEP || u->op == Op::RANGE || u->op == Op::END || u->is_gated();
  });
  std::string out = v2 ? "uops 2\n" : "uops 1\n";
  for (const auto& [k, v] : p.meta) out += "meta " + k + " = " + v + "\n";
  if (p.opts) out += p.opts->empty() ? "opts\n" : "opts " + format_opts(*p.opts) + "\n";
  for (size_t i = 0; i < order.size(); ++i) {
    const UOp* u = order[i];
    id_of[u->id] = static_cast<int>(i);
    out += '%';
    out += std::to_string(i);
    out += " = ";
    out += name(u->op);
    out += ' ';
    out += name(u->dtype);
    if (u->is_vector()) {
      out += 'x';
      out += std::to_string(u->lanes);
    }
    if (u->op == Op::GEP || u->op == Op::RANGE) {
      out += ' ';
      out += std::to_string(u->value.i);
    }
    if (u->op == Op::BUFFER || u->op == Op::ALLOC) {
      out += '[' + std::to_string(u->len) + "] slot=" + std::to_string(u->slot);
    } else if (u->op == Op::CONST) {
      out += ' ';
      append_scalar(out, u->dtype, u->value);
    }
    for (const UOp* s : u->src) {
      out += " %";
      out += std::to_string(id_of[s->id]);
    }
    if (u->op == Op::RANGE && u->range_kind() != RangeKind::Loop) {
      out += " kind=";
      out += name(u->range_kind());
    }
    out += '\n';
  }
  auto lines = [&](const char* key, const std::map<int64_t, Values>& m) {
    for (const auto& [slot, vals] : m)
      if (const UOp* b = p.buffer(slot)) out += print_values_line(key, slot, b->dtype, vals);
  };
  lines("data", p.data);
  lines("expect", p.expect);
  lines("got", p.got);
  return out;
}

}  // namespace uf

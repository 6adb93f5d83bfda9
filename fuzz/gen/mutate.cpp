#include "fuzz/gen/mutate.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/text.h"

namespace uf {

namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// Node lines are canonical: `%ID = OP DTYPE rest`.
std::vector<size_t> node_lines(const std::vector<std::string>& lines, bool (*want)(Op)) {
  std::vector<size_t> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto w = words(lines[i]);
    if (w.size() < 4 || w[0].empty() || w[0][0] != '%') continue;
    if (const auto op = parse_op(w[2]); op && want(*op)) out.push_back(i);
  }
  return out;
}

bool plain_alu(Op op) { return is_alu(op) && op != Op::CAST && op != Op::BITCAST; }

std::string data_mutation(const Program& p, Rng& r, bool whole) {
  if (p.buffers.empty()) return "";
  const UOp* b = r.pick(p.buffers);
  if (b->len == 0) return "";
  Values v = p.initial(b);
  if (whole) {
    const Scalar x = mutation_value(b->dtype, r);
    for (Scalar& e : v) e = x;
  } else {
    v[r.below(v.size())] = mutation_value(b->dtype, r);
  }
  Program q = p;
  q.data[b->slot] = std::move(v);
  return bare_text(std::move(q));
}
std::string element_mutation(const Program& p, Rng& r) { return data_mutation(p, r, false); }
std::string fill_mutation(const Program& p, Rng& r) { return data_mutation(p, r, true); }

std::string const_mutation(const Program& p, Rng& r) {
  auto lines = uf::lines(bare_text(p));
  const auto at = node_lines(lines, [](Op op) { return op == Op::CONST; });
  if (at.empty()) return "";
  std::string& line = lines[r.pick(at)];
  auto w = words(line);
  const auto d = w.size() == 5 ? parse_dtype(w[3]) : std::nullopt;
  if (!d) return "";
  line = w[0] + " = CONST " + w[3] + " " + format_scalar(*d, mutation_value(*d, r));
  return join_lines(lines);
}

std::string alu_mutation(const Program& p, Rng& r, bool swap_operands) {
  auto lines = uf::lines(bare_text(p));
  const auto at = node_lines(lines, plain_alu);
  if (at.empty()) return "";
  std::string& line = lines[r.pick(at)];
  auto w = words(line);
  const Op op = *parse_op(w[2]);
  if (swap_operands) {
    if (w.size() != 6) return "";
    std::swap(w[4], w[5]);
  } else {
    std::vector<Op> alike;
    for (int o = 0; o < kNumOps; ++o) {
      const auto c = static_cast<Op>(o);
      if (c != op && plain_alu(c) && info(c).arity == info(op).arity && info(c).result == info(op).result) alike.push_back(c);
    }
    if (alike.empty()) return "";
    w[2] = name(r.pick(alike));
  }
  line.clear();
  for (size_t i = 0; i < w.size(); ++i) line += (i ? " " : "") + w[i];
  return join_lines(lines);
}
std::string op_mutation(const Program& p, Rng& r) { return alu_mutation(p, r, false); }
std::string swap_mutation(const Program& p, Rng& r) { return alu_mutation(p, r, true); }

struct Mutation {
  const char* name;
  double weight;
  std::string (*apply)(const Program&, Rng&);
};
constexpr Mutation kMutations[] = {
    {"data", 22, element_mutation}, {"fill", 6, fill_mutation}, {"const", 25, const_mutation},
    {"op", 15, op_mutation},        {"swap", 10, swap_mutation},
};

}  // namespace

std::string bare_text(Program p) {
  p.expect.clear();
  p.got.clear();
  p.meta.clear();
  return print_program(p);
}

std::optional<Program> read_mutant(std::string_view text) {
  try {
    Program p = parse_program(text, "<mutant>");
    verify(p);
    return p;
  } catch (const UserError&) { return std::nullopt; }
}

Scalar mutation_value(DType d, Rng& r) {
  if (is_bool(d)) return Scalar::of_uint(r.below(2));
  if (is_int(d)) {
    static constexpr int64_t kEdges[] = {0,   1,     -1,     2,     7,         -8,        127,        128,       -128,
                                         255, 32767, -32768, 65535, INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN};
    const uint64_t kind = r.below(3);
    const int64_t v = kind == 0 ? r.pick(kEdges) : kind == 1 ? r.range(-16, 16) : static_cast<int64_t>(r.next());
    return normalize(d, Scalar::of_int(v));
  }
  static constexpr double kEdges[] = {0.0,          -0.0,          1.0,          -1.0,
                                      0.5,          -2.5,          65504.0,      65520.0,
                                      16777217.0,   2147483648.0,  -2147483649.0, 4294967296.0,
                                      9223372036854775807.0, 18446744073709551616.0, 1e300, 0x1p-14,
                                      0x1p-24,      0x1p-149,      0x1p-1074,    std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  double v;
  switch (r.below(3)) {
    case 0: v = r.pick(kEdges); break;
    case 1: v = static_cast<double>(r.range(-64, 64)) / 4; break;
    default: {
      const uint64_t bits = r.next();
      if (d == DType::F16) {
        v = half_to_double(static_cast<uint16_t>(bits));
      } else if (d == DType::F32) {
        float f;
        const uint32_t w = static_cast<uint32_t>(bits);
        std::memcpy(&f, &w, 4);
        v = f;
      } else {
        std::memcpy(&v, &bits, 8);
      }
    }
  }
  if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();  // one NaN: the text has one
  return normalize(d, Scalar::of_float(v));
}

std::optional<Program> mutate_program(const Program& p, Rng& rng) {
  std::vector<double> weights;
  for (const Mutation& m : kMutations) weights.push_back(m.weight);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::string out = kMutations[rng.weighted(weights)].apply(p, rng);
    if (out.empty()) continue;
    if (std::optional<Program> q = read_mutant(out)) return q;
  }
  return std::nullopt;
}

}  // namespace uf

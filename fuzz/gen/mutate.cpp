#include "fuzz/gen/mutate.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
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

// A node line's words and the position of one of its value sources, drawn among the plain ALU nodes.
struct Use {
  size_t line;
  std::vector<std::string> words;
  size_t source;  // index into words (4 ...)
};
std::optional<Use> draw_use(const std::vector<std::string>& lines, Rng& r) {
  const auto at = node_lines(lines, plain_alu);
  if (at.empty()) return std::nullopt;
  Use u{r.pick(at), {}, 0};
  u.words = words(lines[u.line]);
  if (u.words.size() < 5) return std::nullopt;
  u.source = 4 + r.below(u.words.size() - 4);
  return u;
}

std::string joined(const std::vector<std::string>& w) {
  std::string line;
  for (size_t i = 0; i < w.size(); ++i) line += (i ? " " : "") + w[i];
  return line;
}

// The dtype word of node `%id` (lines are canonical: node k is on the line that starts `%k =`).
std::string dtype_of(const std::vector<std::string>& lines, const std::string& id) {
  for (const std::string& l : lines)
    if (l.rfind(id + " = ", 0) == 0) return words(l)[3];
  return "";
}

// One source of an ALU node replaced by an earlier node of the same dtype: x+x, x%x, (x^y)^y, x*c+x*d,
// the shapes of tinygrad's symbolic rules a generator draws rarely.
std::string operand_mutation(const Program& p, Rng& r) {
  auto lines = uf::lines(bare_text(p));
  std::optional<Use> u = draw_use(lines, r);
  if (!u) return "";
  const std::string want = dtype_of(lines, u->words[u->source]);
  std::vector<std::string> alike;
  for (size_t i = 0; i < u->line; ++i) {
    const auto w = words(lines[i]);
    const auto op = w.size() >= 4 && w[0][0] == '%' ? parse_op(w[2]) : std::nullopt;
    if (op && !(info(*op).flags & MEM) && *op != Op::SINK && w[3] == want && w[0] != u->words[u->source]) alike.push_back(w[0]);
  }
  if (alike.empty()) return "";
  u->words[u->source] = r.pick(alike);
  lines[u->line] = joined(u->words);
  return join_lines(lines);
}

// `%k` of a node line: its number.
size_t node_number(const std::string& id) { return std::stoul(id.substr(1)); }

// Lines inserted before line `at`, each `= REST` (numbered from the first id they take), the later nodes
// and every reference to them renumbered: the file stays in canonical order with no gap.
void insert_nodes(std::vector<std::string>& lines, size_t at, const std::vector<std::string>& rests) {
  const size_t first = node_number(words(lines[at])[0]), n = rests.size();
  for (size_t i = at; i < lines.size(); ++i) {
    auto w = words(lines[i]);
    if (w.empty() || w[0][0] != '%') continue;
    for (std::string& x : w)
      if (x.size() > 1 && x[0] == '%' && node_number(x) >= first) x = "%" + std::to_string(node_number(x) + n);
    lines[i] = joined(w);
  }
  std::vector<std::string> fresh;
  for (size_t k = 0; k < n; ++k) fresh.push_back("%" + std::to_string(first + k) + " " + rests[k]);
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), fresh.begin(), fresh.end());
}

// Nodes inserted before the line of use u (insert_nodes), u's own line renumbered and each of its sources
// `points` names (a word index and which new node, 0-based) pointed at a new node.
std::string insert_operands(std::vector<std::string>& lines, Use& u, const std::vector<std::string>& rests,
                            const std::vector<std::pair<size_t, size_t>>& points) {
  const size_t at = u.line, first = node_number(u.words[0]), n = rests.size();
  insert_nodes(lines, at, rests);
  u.words[0] = "%" + std::to_string(first + n);  // its sources are earlier nodes: their numbers stay
  for (const auto& [word, k] : points) u.words[word] = "%" + std::to_string(first + k);
  lines[at + n] = joined(u.words);
  return join_lines(lines);
}

// The id the k-th node insert_operands puts before use u takes (0-based).
std::string new_id(const Use& u, size_t k) { return "%" + std::to_string(node_number(u.words[0]) + k); }

// One source x of an ALU node replaced by `x OP c`, a binary op of x's dtype and a new constant: nested
// index arithmetic ((x//c)//d, (x+c)+y, x*c+x) that tinygrad's symbolic and div-and-mod rules rewrite.
std::string grow_mutation(const Program& p, Rng& r) {
  auto lines = uf::lines(bare_text(p));
  std::optional<Use> u = draw_use(lines, r);
  if (!u) return "";
  const std::string x = u->words[u->source], dt = dtype_of(lines, x);
  const auto d = parse_dtype(dt);
  if (!d) return "";
  std::vector<Op> grow;
  for (Op op : kAluOps)
    if (info(op).arity == 2 && info(op).result == ResultRule::SAME) grow.push_back(op);
  const Op op = r.pick(grow);
  const Scalar c = mutation_value(*d, r);  // an edge, small or random constant, as every mutation draws them
  return insert_operands(
      lines, *u,
      {"= CONST " + dt + " " + format_scalar(*d, c), "= " + std::string(name(op)) + " " + dt + " " + x + " " + new_id(*u, 0)},
      {{u->source, 1}});
}

// Every node line's id and the RANGEs its value depends on (lines are canonical: sources come first).
std::map<std::string, std::set<std::string>> ranges_under(const std::vector<std::string>& lines) {
  std::map<std::string, std::set<std::string>> under;
  for (const std::string& l : lines) {
    const auto w = words(l);
    if (w.size() < 4 || w[0][0] != '%') continue;
    std::set<std::string>& mine = under[w[0]];
    if (w[2] == "RANGE") mine.insert(w[0]);
    for (size_t i = 4; i < w.size(); ++i)
      if (auto it = under.find(w[i]); it != under.end() && w[i] != w[0]) mine.insert(it->second.begin(), it->second.end());
  }
  return under;
}

// One source x of an ALU node inside a loop replaced by `c != r ? 0 : x`, r a RANGE it depends on and c a
// constant of 0 to 3 (most trip counts are larger): tinygrad's one-hot select (a gather, an embedding),
// which its reduction rules collapse (codegen/simplify.py, pm_reduce_load_collapse).
std::string one_hot_mutation(const Program& p, Rng& r) {
  auto lines = uf::lines(bare_text(p));
  std::optional<Use> u = draw_use(lines, r);
  if (!u) return "";
  const auto under = ranges_under(lines);
  const auto it = under.find(u->words[0]);
  if (it == under.end() || it->second.empty()) return "";
  const std::string range = *std::next(it->second.begin(), static_cast<std::ptrdiff_t>(r.below(it->second.size())));
  const std::string x = u->words[u->source], dt = dtype_of(lines, x), rdt = dtype_of(lines, range);
  const auto d = parse_dtype(dt), rd = parse_dtype(rdt);
  if (!d || !rd) return "";
  return insert_operands(
      lines, *u,
      {"= CONST " + rdt + " " + format_scalar(*rd, normalize(*rd, Scalar::of_int(r.range(0, 3)))),
       "= CMPNE bool " + new_id(*u, 0) + " " + range, "= CONST " + dt + " " + format_scalar(*d, Scalar::zero()),
       "= WHERE " + dt + " " + new_id(*u, 1) + " " + new_id(*u, 2) + " " + x},
      {{u->source, 3}});
}

// One bool source x of an ALU node replaced by its logical not as tinygrad writes it, `x != true`; both
// sources of a bool AND: `!x & !y`, which tinygrad's late rewrites turn into `!(x | y)`.
std::string not_mutation(const Program& p, Rng& r) {
  auto lines = uf::lines(bare_text(p));
  std::optional<Use> u = draw_use(lines, r);
  if (!u || dtype_of(lines, u->words[u->source]) != "bool") return "";
  const bool both = u->words[2] == "AND" && u->words.size() == 6 && dtype_of(lines, u->words[4]) == "bool" &&
                    dtype_of(lines, u->words[5]) == "bool";
  const std::string t = "= CONST bool " + format_scalar(DType::Bool, Scalar::of_uint(1));
  if (!both)
    return insert_operands(lines, *u, {t, "= CMPNE bool " + u->words[u->source] + " " + new_id(*u, 0)}, {{u->source, 1}});
  return insert_operands(
      lines, *u, {t, "= CMPNE bool " + u->words[4] + " " + new_id(*u, 0), "= CMPNE bool " + u->words[5] + " " + new_id(*u, 0)},
      {{4, 1}, {5, 2}});
}

struct Mutation {
  const char* name;
  double weight;
  std::string (*apply)(const Program&, Rng&);
};
constexpr Mutation kMutations[] = {
    {"data", 22, element_mutation}, {"fill", 6, fill_mutation},       {"const", 25, const_mutation},
    {"op", 15, op_mutation},        {"swap", 10, swap_mutation},      {"operand", 12, operand_mutation},
    {"grow", 12, grow_mutation},    {"one-hot", 6, one_hot_mutation}, {"not", 4, not_mutation},
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

std::optional<Program> mutate_program(const Program& p, Rng& rng, std::string* row) {
  std::vector<double> weights;
  for (const Mutation& m : kMutations) weights.push_back(m.weight);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const Mutation& m = kMutations[rng.weighted(weights)];
    const std::string out = m.apply(p, rng);
    if (out.empty()) continue;
    if (std::optional<Program> q = read_mutant(out)) {
      if (row) *row = m.name;
      return q;
    }
  }
  return std::nullopt;
}

std::vector<std::string> mutation_names() {
  std::vector<std::string> names;
  for (const Mutation& m : kMutations) names.push_back(m.name);
  return names;
}

}  // namespace uf

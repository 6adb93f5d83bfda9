// The differential target's custom mutator: inputs are .uop programs, and every mutation yields a
// program that reads and verifies, so libFuzzer spends its executions on comparisons, not on
// rejected text.
//
// Mutations (the seed libFuzzer passes drives every choice, so a run with -seed=N is repeatable):
//  - generate: a fresh small program from the generator (generate(seed, policy)), with a random
//    size and swarm policy; also the fallback when the input does not read;
//  - data: one element of a BUFFER's data, or the whole line, set to an edge, small or random value;
//  - const: a CONST's value likewise;
//  - op: an ALU op replaced by another of the same arity and result rule (ADD -> FLOORDIV, CMPLT -> CMPNE);
//  - swap: the two operands of a binary op exchanged;
//  - bytes: libFuzzer's own byte mutation (kept only when the result still reads and verifies).
// Expect, got and meta lines are dropped: the target compares with the reference, not with them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/rng.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using uf::DType;
using uf::Program;
using uf::Rng;
using uf::Scalar;

std::optional<Program> read_valid(std::string_view text) {
  try {
    Program p = uf::parse_program(text, "<mutant>");
    uf::verify(p);
    return p;
  } catch (const uf::UserError&) { return std::nullopt; }
}

std::string input_text(Program p) {
  p.expect.clear();
  p.got.clear();
  p.meta.clear();
  return uf::print_program(p);
}

Scalar random_value(DType d, Rng& r) {
  if (uf::is_bool(d)) return Scalar::of_uint(r.below(2));
  if (uf::is_int(d)) {
    static constexpr int64_t kEdges[] = {0,   1,     -1,     2,     7,         -8,        127,        128,       -128,
                                         255, 32767, -32768, 65535, INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN};
    const uint64_t kind = r.below(3);
    const int64_t v = kind == 0 ? r.pick(kEdges) : kind == 1 ? r.range(-16, 16) : static_cast<int64_t>(r.next());
    return uf::normalize(d, Scalar::of_int(v));
  }
  static constexpr double kEdges[] = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      0.5,
                                      -2.5,
                                      65504.0,
                                      65520.0,
                                      16777217.0,
                                      2147483648.0,
                                      -2147483649.0,
                                      4294967296.0,
                                      9223372036854775807.0,
                                      18446744073709551616.0,
                                      1e300,
                                      0x1p-14,
                                      0x1p-24,
                                      0x1p-149,
                                      0x1p-1074,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN()};
  double v;
  switch (r.below(3)) {
    case 0: v = r.pick(kEdges); break;
    case 1: v = static_cast<double>(r.range(-64, 64)) / 4; break;
    default: {
      const uint64_t bits = r.next();
      if (d == DType::F16) {
        v = uf::half_to_double(static_cast<uint16_t>(bits));
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
  return uf::normalize(d, Scalar::of_float(v));
}

std::string generate_small(Rng& r) {
  uf::GenPolicy pol;
  pol.min_steps = 1;
  pol.max_steps = 2 + static_cast<int>(r.below(30));
  pol.max_nodes = 600;
  pol.max_long_len = 16;
  pol.min_chain_len = 2;
  pol.max_chain_len = 16;
  Program p = uf::generate(r.next(), pol);
  return input_text(std::move(p));
}

std::string mutate_data(Program p, Rng& r) {
  if (p.buffers.empty()) return "";
  const uf::UOp* b = r.pick(p.buffers);
  if (b->len == 0) return "";
  uf::Values v = p.initial(b);
  if (r.chance(0.2)) {
    const Scalar x = random_value(b->dtype, r);
    for (Scalar& e : v) e = x;
  } else {
    v[r.below(v.size())] = random_value(b->dtype, r);
  }
  p.data[b->slot] = std::move(v);
  return input_text(std::move(p));
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// Node lines are canonical: `%ID = OP DTYPE rest`.
std::vector<size_t> node_lines(const std::vector<std::string>& lines, bool (*want)(uf::Op)) {
  std::vector<size_t> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto w = uf::words(lines[i]);
    if (w.size() < 4 || w[0].empty() || w[0][0] != '%') continue;
    if (const auto op = uf::parse_op(w[2]); op && want(*op)) out.push_back(i);
  }
  return out;
}

std::string mutate_const(const std::string& text, Rng& r) {
  auto lines = uf::lines(text);
  const auto at = node_lines(lines, [](uf::Op op) { return op == uf::Op::CONST; });
  if (at.empty()) return "";
  std::string& line = lines[r.pick(at)];
  auto w = uf::words(line);
  if (w.size() != 5) return "";
  const auto d = uf::parse_dtype(w[3]);
  if (!d) return "";
  w[4] = uf::format_scalar(*d, random_value(*d, r));
  line = w[0] + " = CONST " + w[3] + " " + w[4];
  return join_lines(lines);
}

bool plain_alu(uf::Op op) { return uf::is_alu(op) && op != uf::Op::CAST && op != uf::Op::BITCAST; }

std::string mutate_op(const std::string& text, Rng& r, bool swap_operands) {
  auto lines = uf::lines(text);
  const auto at = node_lines(lines, plain_alu);
  if (at.empty()) return "";
  std::string& line = lines[r.pick(at)];
  auto w = uf::words(line);
  const uf::Op op = *uf::parse_op(w[2]);
  if (swap_operands) {
    if (w.size() != 6) return "";
    std::swap(w[4], w[5]);
  } else {
    std::vector<uf::Op> alike;
    for (int o = 0; o < uf::kNumOps; ++o) {
      const auto c = static_cast<uf::Op>(o);
      if (c != op && plain_alu(c) && uf::info(c).arity == uf::info(op).arity && uf::info(c).result == uf::info(op).result)
        alike.push_back(c);
    }
    if (alike.empty()) return "";
    w[2] = uf::name(r.pick(alike));
  }
  line.clear();
  for (size_t i = 0; i < w.size(); ++i) line += (i ? " " : "") + w[i];
  return join_lines(lines);
}

// One attempt; "" when the mutation does not apply or its result does not read and verify.
std::string try_mutation(const uint8_t* data, size_t size, size_t max_size, const std::optional<Program>& p, Rng& r) {
  const std::string text = p ? input_text(*p) : "";
  std::string out;
  const uint64_t pick = p ? r.below(100) : 0;
  if (pick < 12) return generate_small(r);  // valid by construction
  if (pick < 40)
    out = mutate_data(*p, r);
  else if (pick < 65)
    out = mutate_const(text, r);
  else if (pick < 80)
    out = mutate_op(text, r, false);
  else if (pick < 90)
    out = mutate_op(text, r, true);
  else {
    std::vector<uint8_t> buf(data, data + size);
    buf.resize(max_size);
    buf.resize(LLVMFuzzerMutate(buf.data(), size, max_size));
    out.assign(buf.begin(), buf.end());
  }
  if (out.empty()) return "";
  const auto q = read_valid(out);
  return q ? input_text(*q) : "";
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng r(seed);
  const auto p = read_valid(std::string_view(reinterpret_cast<const char*>(data), size));
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string out = try_mutation(data, size, max_size, attempt < 12 ? p : std::nullopt, r);
    if (!out.empty() && out.size() <= max_size) {
      std::memcpy(data, out.data(), out.size());
      return out.size();
    }
  }
  return size;  // nothing fit: unchanged
}

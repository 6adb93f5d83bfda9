// Ops: the enum and the per-op description, all generated from core/ops.def.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace uf {

enum class Op : uint8_t {
#define OP(N, arity, dtypes, result, flags) N,
#include "core/ops.def"
#undef OP
};
inline constexpr int kNumOps = static_cast<int>(Op::BITCAST) + 1;

// Which operand dtypes an op accepts.
enum class OperandClass : uint8_t { ANY, INT, INT_BOOL, FLOAT, NUM };
// How the result dtype follows from the operands.
enum class ResultRule : uint8_t { SAME, BOOL, TARGET, VOID, MEMORY, LANES };

inline constexpr int VARIADIC = -1;
enum OpFlag : uint8_t { ALU = 1, MEM = 2, COMMUTATIVE = 4, TOTAL = 8, APPROX = 16 };

struct OpInfo {
  const char* name;
  int arity;
  OperandClass operands;
  ResultRule result;
  uint8_t flags;
};

inline constexpr OpInfo kOpInfo[] = {
#define OP(N, arity, dtypes, result, flags) {#N, arity, OperandClass::dtypes, ResultRule::result, static_cast<uint8_t>(flags)},
#include "core/ops.def"
#undef OP
};

constexpr const OpInfo& info(Op op) { return kOpInfo[static_cast<int>(op)]; }
constexpr const char* name(Op op) { return info(op).name; }
constexpr bool is_alu(Op op) { return info(op).flags & ALU; }
constexpr bool is_memory_op(Op op) { return info(op).flags & MEM; }
constexpr bool is_commutative(Op op) { return info(op).flags & COMMUTATIVE; }
constexpr bool is_total(Op op) { return info(op).flags & TOTAL; }
// An op a target may compute approximately on floats, judged then by a budget (interp/approx.h).
constexpr bool may_approximate(Op op) { return info(op).flags & APPROX; }

std::optional<Op> parse_op(std::string_view s);

// ---- Op groups (tinygrad's GroupOp): named sets of ops, each computed from the table above, in op
// order. Code that means "the ALU ops" or "the comparisons" iterates a group, never a range of the enum.
constexpr bool is_comparison(Op op) { return is_alu(op) && info(op).result == ResultRule::BOOL; }
constexpr bool is_unary_alu(Op op) { return is_alu(op) && info(op).arity == 1; }
constexpr bool is_binary_alu(Op op) { return is_alu(op) && info(op).arity == 2; }
constexpr bool is_ternary_alu(Op op) { return is_alu(op) && info(op).arity == 3; }
// CAST and BITCAST: an ALU op whose result dtype is the node's own, not its operand's.
constexpr bool is_conversion(Op op) { return is_alu(op) && info(op).result == ResultRule::TARGET; }

namespace op_group_detail {
template <bool (*In)(Op)>
constexpr size_t count_where() {
  size_t n = 0;
  for (int o = 0; o < kNumOps; ++o) n += In(static_cast<Op>(o));
  return n;
}
template <bool (*In)(Op)>
constexpr auto collect() {
  std::array<Op, count_where<In>()> group{};
  size_t k = 0;
  for (int o = 0; o < kNumOps; ++o)
    if (In(static_cast<Op>(o))) group[k++] = static_cast<Op>(o);
  return group;
}
}  // namespace op_group_detail

// Every op for which In holds, in op order (an std::array<Op, N>).
template <bool (*In)(Op)>
inline constexpr auto kOpsWhere = op_group_detail::collect<In>();

inline constexpr auto kAluOps = kOpsWhere<is_alu>;
inline constexpr auto kComparisonOps = kOpsWhere<is_comparison>;
inline constexpr auto kUnaryAluOps = kOpsWhere<is_unary_alu>;
inline constexpr auto kBinaryAluOps = kOpsWhere<is_binary_alu>;
inline constexpr auto kTernaryAluOps = kOpsWhere<is_ternary_alu>;
inline constexpr auto kConversionOps = kOpsWhere<is_conversion>;
// The ops a loop reduction accumulates with (tinygrad's REDUCE ALU ops), in the order the generator
// draws from.
inline constexpr std::array<Op, 3> kReduceOps = {Op::ADD, Op::MAX, Op::MUL};

}  // namespace uf

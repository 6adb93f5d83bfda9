// Ops: the enum and the per-op description, all generated from core/ops.def.
#pragma once
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
enum OpFlag : uint8_t { ALU = 1, MEM = 2, COMMUTATIVE = 4, TOTAL = 8 };

struct OpInfo {
  const char* name;
  int arity;
  OperandClass operands;
  ResultRule result;
  uint8_t flags;
};

inline constexpr OpInfo kOpInfo[] = {
#define OP(N, arity, dtypes, result, flags) \
  {#N, arity, OperandClass::dtypes, ResultRule::result, static_cast<uint8_t>(flags)},
#include "core/ops.def"
#undef OP
};

constexpr const OpInfo& info(Op op) { return kOpInfo[static_cast<int>(op)]; }
constexpr const char* name(Op op) { return info(op).name; }
constexpr bool is_alu(Op op) { return info(op).flags & ALU; }
constexpr bool is_memory_op(Op op) { return info(op).flags & MEM; }
constexpr bool is_commutative(Op op) { return info(op).flags & COMMUTATIVE; }
constexpr bool is_total(Op op) { return info(op).flags & TOTAL; }

std::optional<Op> parse_op(std::string_view s);

}  // namespace uf

// The reference ALU table: dispatch to the op families of alu_ops.h, and the words for UNDEFINED.
#include "interp/alu.h"

#include "interp/alu_ops.h"

namespace uf {

AluResult exec_alu(Op op, DType result, DType operand, const Scalar* operands) {
  switch (op) {
#define OP(N, arity, dtypes, rule, flags) \
  case Op::N:                             \
    return alu::apply<Op::N>(result, operand, operands);
#include "core/ops.def"
#undef OP
  }
  UOPFUZZ_CHECK(!"a known op");
  return {};
}

std::string undefined_reason(Op op, DType result, DType operand, const Scalar* operands) {
  switch (op) {
    case Op::SHL:
    case Op::SHR: return std::string(name(op)) + " by negative amount " + format_scalar(operand, operands[1]);
    case Op::CAST: return "CAST of " + format_scalar(operand, operands[0]) + " to " + name(result);
    case Op::BITCAST:
      return "BITCAST of " + format_scalar(operand, operands[0]) + " (" + name(operand) + " to " + name(result) + ")";
    case Op::POW:
      if (!is_float(operand)) return "POW by negative exponent " + format_scalar(operand, operands[1]);
      return "POW " + format_scalar(operand, operands[0]) + " ** " + format_scalar(operand, operands[1]) + " overflows binary64";
    default: return std::string(name(op)) + " has no defined result";
  }
}

}  // namespace uf

// Programs built in C++ with core's factory: a node-by-node Builder, and programs of single ALU ops
// (one golden case, or a batch of them). Random programs are in random_programs.h.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/program.h"
#include "tests/support/golden.h"

namespace uf::testing {

// Builds a program node by node (sources must come first).
struct Builder {
  Program p;
  Graph& g() { return *p.graph; }
  const UOp* buffer(DType d, int64_t len, int64_t slot) { return g().memory(Op::BUFFER, d, len, slot); }
  const UOp* alloc(DType d, int64_t len, int64_t slot) { return g().memory(Op::ALLOC, d, len, slot); }
  const UOp* c(DType d, Scalar v) { return g().constant(d, v); }
  const UOp* ci(int64_t i) { return c(DType::I32, Scalar::of_int(i)); }
  const UOp* cf(float f) { return c(DType::F32, Scalar::of_float(f)); }
  const UOp* op(Op o, std::vector<const UOp*> src, std::optional<DType> d = std::nullopt) {
    return g().make(o, std::span<const UOp* const>(src.data(), src.size()), d);
  }
  const UOp* index(const UOp* mem, const UOp* i) { return op(Op::INDEX, {mem, i}); }
  const UOp* index(const UOp* mem, int64_t i) { return index(mem, ci(i)); }
  const UOp* load(const UOp* mem, int64_t i) { return op(Op::LOAD, {index(mem, i)}); }
  const UOp* store(const UOp* mem, int64_t i, const UOp* v) { return op(Op::STORE, {index(mem, i), v}); }
  // The SINK over `effects`, the program's BUFFERs collected, and verify()'d.
  Program finish(const std::vector<const UOp*>& effects);
};

// out[i] = OP(operands of case i), for cases of one op and dtypes. The operands are CONSTs, or (loaded)
// LOADs of input BUFFER j (slot j) at index i; the output BUFFER's slot is the operand count.
struct AluProgram {
  Program program;
  std::vector<const UOp*> nodes;  // the ALU node of each case
  int64_t out_slot = 0;
};
AluProgram alu_program(const std::vector<const AluCase*>& cases, bool loaded);
// The program of one case: out[0] = OP(operands).
inline AluProgram one_op_program(const AluCase& c, bool loaded) { return alu_program({&c}, loaded); }

// Parses and verifies `text` as the file `file`; the `FILE:LINE: message` of the first error, or "" when
// the program is well formed.
std::string parse_and_verify_error(const std::string& text, const std::string& file);

}  // namespace uf::testing

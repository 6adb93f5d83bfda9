#include "tests/support/programs.h"

#include "core/text.h"

namespace uf::testing {

Program Builder::finish(const std::vector<const UOp*>& effects) {
  p.sink = op(Op::SINK, effects);
  p.collect_buffers();
  verify(p);
  return std::move(p);
}

// (Loading each distinct value once and sharing the LOADs would shrink the C, but the long live ranges
// make gcc slower, not faster.) Small batches keep the compilers' superlinear passes cheap.
AluProgram alu_program(const std::vector<const AluCase*>& cases, bool loaded) {
  Builder b;
  const AluCase& first = *cases[0];
  const size_t nops = first.operands.size();
  const auto k = static_cast<int64_t>(cases.size());
  std::vector<const UOp*> in;
  if (loaded) {
    for (size_t j = 0; j < nops; ++j) {
      in.push_back(b.buffer(first.operand_dtypes[j], k, static_cast<int64_t>(j)));
      Values& data = b.p.data[static_cast<int64_t>(j)];
      for (const AluCase* c : cases) data.push_back(c->operands[j]);
    }
  }
  AluProgram r;
  r.out_slot = static_cast<int64_t>(nops);
  const UOp* out = b.buffer(first.result_dtype, k, r.out_slot);
  std::vector<const UOp*> stores;
  for (int64_t i = 0; i < k; ++i) {
    const AluCase& c = *cases[static_cast<size_t>(i)];
    std::vector<const UOp*> src;
    for (size_t j = 0; j < nops; ++j) src.push_back(loaded ? b.load(in[j], i) : b.c(first.operand_dtypes[j], c.operands[j]));
    r.nodes.push_back(b.op(first.op, src, first.result_dtype));
    stores.push_back(b.store(out, i, r.nodes.back()));
  }
  r.program = b.finish(stores);
  return r;
}

std::string parse_and_verify_error(const std::string& text, const std::string& file) {
  try {
    const Program p = parse_program(text, file);
    verify(p);
  } catch (const UserError& e) { return located(file, e); }
  return "";
}

}  // namespace uf::testing

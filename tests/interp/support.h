// Shared helpers for the interpreter tests: the golden files, and one-op programs built with Graph.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/program.h"
#include "interp/interp.h"

namespace uf::testing {

inline std::filesystem::path golden_path(const std::string& rel) {
  return std::filesystem::path(UOPFUZZ_GOLDEN_DIR) / rel;
}

inline std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline Scalar parse_or_throw(DType d, std::string_view text) {
  const ScalarParse r = parse_scalar(d, text);
  if (r.error)
    throw std::runtime_error("bad " + std::string(name(d)) + " value '" + std::string(text) + "': " + r.error);
  return r.value;
}

// A program computing one ALU op and storing its result into BUFFER slot 0 (one element). Operands are
// CONST nodes, or (from_memory) each LOADed from its own one-element BUFFER (slots 1, 2, 3).
struct OneOp {
  Program program;
  const UOp* node = nullptr;  // the ALU node
};

inline OneOp one_op_program(Op op, DType result, const std::vector<DType>& operand_dtypes,
                            const std::vector<Scalar>& operands, bool from_memory) {
  OneOp r;
  Program& p = r.program;
  Graph& g = *p.graph;
  const UOp* zero = g.constant(DType::I32, Scalar::of_int(0));
  std::vector<const UOp*> src;
  for (size_t k = 0; k < operands.size(); ++k) {
    const DType d = operand_dtypes[k];
    if (!from_memory) {
      src.push_back(g.constant(d, operands[k]));
      continue;
    }
    const int64_t slot = static_cast<int64_t>(k) + 1;
    const UOp* buf = g.memory(Op::BUFFER, d, 1, slot);
    p.data[slot] = {operands[k]};
    src.push_back(g.make(Op::LOAD, {g.make(Op::INDEX, {buf, zero})}));
  }
  r.node = g.make(op, src, result);
  const UOp* out = g.memory(Op::BUFFER, result, 1, 0);
  const UOp* store = g.make(Op::STORE, {g.make(Op::INDEX, {out, zero}), r.node});
  p.sink = g.make(Op::SINK, {store});
  p.collect_buffers();
  return r;
}

}  // namespace uf::testing

// Helpers shared by the codegen tests: a private compile cache per test process, program builders,
// and the golden ALU vector reader.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/compiled_path.h"
#include "core/program.h"
#include "core/text.h"

namespace uf::test {

inline std::string golden_path(const std::string& rel) { return std::string(UOPFUZZ_GOLDEN_DIR) + "/" + rel; }
inline std::string source_path(const std::string& rel) { return std::string(UOPFUZZ_SOURCE_DIR) + "/" + rel; }

// The independent generator's whole programs (tests/golden/programs/*.uop), in name order.
inline std::vector<std::string> golden_program_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(golden_path("programs")))
    if (e.path().extension() == ".uop") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh cache directory (UOPFUZZ_CACHE_DIR) for the life of the object: tests never touch the
// user's cache and never depend on what an earlier run left behind.
struct TempCache {
  std::string dir;
  TempCache() {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/uopfuzz-test-cache-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir = tmpl + "/cache";  // not yet existing: cache_dir() must create it
    ::setenv("UOPFUZZ_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(dir).parent_path(), ec);
  }
};

// Builds a program node by node with core's factory (sources must come first).
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
  Program finish(const std::vector<const UOp*>& effects) {
    p.sink = op(Op::SINK, effects);
    p.collect_buffers();
    verify(p);
    return std::move(p);
  }
};

// One line of golden/alu.txt.
struct AluCase {
  int line = 0;
  std::string text;
  Op op{};
  std::vector<DType> operand_dtypes;
  std::vector<Scalar> operands;
  DType result_dtype{};
  std::optional<Scalar> result;  // nullopt: UNDEFINED
};

// Parses one line in alu.txt's format (`OP DTYPE operands... -> result`, `CAST SRC>DST v -> r`).
inline AluCase parse_alu_line(const std::string& line, int n) {
  auto parse = [&](DType d, const std::string& t) {
    ScalarParse r = parse_scalar(d, t);
    if (r.error) throw std::runtime_error("alu line " + std::to_string(n) + ": " + r.error + ": " + t);
    return r.value;
  };
  std::istringstream ss(line);
  std::vector<std::string> w;
  for (std::string t; ss >> t;) w.push_back(t);
  AluCase c;
  c.line = n;
  c.text = line;
  c.op = *parse_op(w.at(0));
  const size_t arrow = static_cast<size_t>(std::find(w.begin(), w.end(), "->") - w.begin());
  if (c.op == Op::CAST || c.op == Op::BITCAST) {
    const size_t gt = w[1].find('>');
    c.operand_dtypes = {*parse_dtype(w[1].substr(0, gt))};
    c.result_dtype = *parse_dtype(w[1].substr(gt + 1));
  } else {
    const DType d = *parse_dtype(w[1]);
    c.operand_dtypes.assign(arrow - 2, d);
    if (c.op == Op::WHERE) c.operand_dtypes[0] = DType::Bool;
    const bool cmp = c.op == Op::CMPLT || c.op == Op::CMPNE || c.op == Op::CMPEQ;
    c.result_dtype = cmp ? DType::Bool : d;
  }
  for (size_t i = 2; i < arrow; ++i) c.operands.push_back(parse(c.operand_dtypes[i - 2], w[i]));
  if (w.at(arrow + 1) != "UNDEFINED") c.result = parse(c.result_dtype, w[arrow + 1]);
  return c;
}

inline std::vector<AluCase> read_alu_golden() {
  std::vector<AluCase> cases;
  std::ifstream in(golden_path("alu.txt"));
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line[0] != '#') cases.push_back(parse_alu_line(line, n));
  }
  return cases;
}

// out[i] = OP(operands of case i); operands are CONSTs, or LOADs of input buffer j at index i. (Loading
// each distinct value once and sharing the LOADs would shrink the C, but the long live ranges make gcc
// slower, not faster.) Small functions keep the compilers' superlinear passes cheap.
inline Program alu_program(const std::vector<const AluCase*>& cs, bool loaded) {
  Builder b;
  const AluCase& first = *cs[0];
  const size_t nops = first.operands.size();
  const auto k = static_cast<int64_t>(cs.size());
  std::vector<const UOp*> in;
  if (loaded) {
    for (size_t j = 0; j < nops; ++j) {
      in.push_back(b.buffer(first.operand_dtypes[j], k, static_cast<int64_t>(j)));
      Values& data = b.p.data[static_cast<int64_t>(j)];
      for (const AluCase* c : cs) data.push_back(c->operands[j]);
    }
  }
  const UOp* out = b.buffer(first.result_dtype, k, static_cast<int64_t>(nops));
  const bool typed = first.op == Op::CAST || first.op == Op::BITCAST;
  std::vector<const UOp*> stores;
  for (int64_t i = 0; i < k; ++i) {
    const AluCase& c = *cs[static_cast<size_t>(i)];
    std::vector<const UOp*> src;
    for (size_t j = 0; j < nops; ++j)
      src.push_back(loaded ? b.load(in[j], i) : b.c(first.operand_dtypes[j], c.operands[j]));
    const UOp* v = b.op(first.op, src, typed ? std::optional<DType>(first.result_dtype) : std::nullopt);
    stores.push_back(b.store(out, i, v));
  }
  return b.finish(stores);
}

}  // namespace uf::test

#include "tests/support/golden.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

DType dtype_or_throw(const std::string& s) {
  if (auto d = parse_dtype(s)) return *d;
  throw std::runtime_error("bad dtype " + s);
}

Scalar value_or_throw(DType d, const std::string& text) {
  const ScalarParse r = parse_scalar(d, text);
  if (r.error) throw std::runtime_error("bad " + std::string(name(d)) + " value '" + text + "': " + r.error);
  return r.value;
}

AluCase parse_words(const std::vector<std::string>& t) {
  AluCase c;
  const auto op = t.empty() ? std::nullopt : parse_op(t[0]);
  if (!op || !is_alu(*op)) throw std::runtime_error("bad op");
  c.op = *op;
  const size_t arity = static_cast<size_t>(info(c.op).arity);
  if (t.size() != arity + 4 || t[arity + 2] != "->") throw std::runtime_error("bad shape");
  if (c.op == Op::CAST || c.op == Op::BITCAST) {
    const size_t gt = t[1].find('>');
    if (gt == std::string::npos) throw std::runtime_error("bad SRC>DST");
    c.operand_dtypes = {dtype_or_throw(t[1].substr(0, gt))};
    c.result_dtype = dtype_or_throw(t[1].substr(gt + 1));
  } else {
    const DType d = dtype_or_throw(t[1]);
    c.operand_dtypes.assign(arity, d);
    if (c.op == Op::WHERE) c.operand_dtypes[0] = DType::Bool;
    c.result_dtype = info(c.op).result == ResultRule::BOOL ? DType::Bool : d;
  }
  for (size_t k = 0; k < arity; ++k) c.operands.push_back(value_or_throw(c.operand_dtypes[k], t[2 + k]));
  if (t.back() != "UNDEFINED") c.result = value_or_throw(c.result_dtype, t.back());
  return c;
}

// "..., seed 1, 53256 cases": the number before " cases", or 0.
size_t declared_count(const std::string& comment) {
  const size_t end = comment.find(" cases");
  if (end == std::string::npos || end == 0) return 0;
  const size_t begin = comment.find_last_not_of("0123456789", end - 1) + 1;
  return begin < end ? std::stoul(comment.substr(begin, end - begin)) : 0;
}

std::optional<int> undefined_at(const Program& p, const std::string& file) {
  const std::string* ref = p.meta_value("reference");
  if (!ref) return std::nullopt;
  int id = -1;
  char end = 0;
  if (std::sscanf(ref->c_str(), "UNDEFINED (%%%d%c", &id, &end) != 2 || end != ')' || id < 0)
    throw std::runtime_error(file + ": unknown meta reference " + *ref);
  return id;
}

}  // namespace

AluCase parse_alu_line(const std::string& text, int line) {
  try {
    AluCase c = parse_words(words(text));
    c.line = line;
    c.text = text;
    return c;
  } catch (const std::exception& e) {
    throw std::runtime_error("alu line " + std::to_string(line) + ": cannot parse '" + text + "': " + e.what());
  }
}

const AluGolden& alu_golden(const std::string& file) {
  static std::mutex mu;
  static std::map<std::string, AluGolden> read;
  const std::lock_guard<std::mutex> lock(mu);
  if (auto it = read.find(file); it != read.end()) return it->second;
  AluGolden g;
  int n = 0;
  for (const std::string& line : read_lines(golden_path(file))) {
    ++n;
    if (line.starts_with("#")) {
      if (const size_t count = declared_count(line)) g.declared = count;
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    g.cases.push_back(parse_alu_line(line, n));
  }
  return read.emplace(file, std::move(g)).first->second;
}

std::vector<std::string> golden_program_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(golden_path("programs")))
    if (e.path().extension() == ".uop") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

const std::vector<GoldenProgram>& golden_programs() {
  static const std::vector<GoldenProgram> all = [] {
    std::vector<GoldenProgram> out;
    for (const std::string& f : golden_program_files()) {
      GoldenProgram g{std::filesystem::path(f).filename().string(), read_program(f), std::nullopt};
      g.undefined_at = undefined_at(g.program, g.file);
      out.push_back(std::move(g));
    }
    return out;
  }();
  return all;
}

Program example_program(const std::string& stem) { return read_program(example_path(stem + ".uop")); }

}  // namespace uf::testing

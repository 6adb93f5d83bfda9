// The golden data of tests/golden (tests/golden/README.md) and the example programs of tests/programs:
// THE reader of alu.txt's line format, and the whole programs with their expect lines.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/program.h"

namespace uf::testing {

// One line in alu.txt's format: `OP DTYPE operands... -> result`, or `CAST SRC>DST v -> r` (also BITCAST).
// WHERE's DTYPE is the value dtype (its condition is bool); a comparison's DTYPE is its operands'.
struct AluCase {
  int line = 0;      // 1-based line number in its file
  std::string text;  // the line itself
  Op op{};
  std::vector<DType> operand_dtypes;
  std::vector<Scalar> operands;
  DType result_dtype{};
  std::optional<Scalar> result;  // nullopt: UNDEFINED
};

// Parses one line; throws std::runtime_error naming the line number for anything malformed (an unknown
// or non-ALU op, a wrong operand count, a bad dtype or value).
AluCase parse_alu_line(const std::string& text, int line);

struct AluGolden {
  std::vector<AluCase> cases;
  size_t declared = 0;  // the case count its header comment states ("..., 53256 cases")
};

// A golden ALU vector file of tests/golden, read once per process: alu.txt (the 12 original dtypes and
// 27 ops) or alu-ext.txt (bf16, the fp8s, POW). Comment lines (#) and blank lines are skipped.
const AluGolden& alu_golden(const std::string& file = "alu.txt");
inline constexpr const char* kAluGoldenFiles[] = {"alu.txt", "alu-ext.txt"};

// A whole golden program (tests/golden/programs/*.uop).
struct GoldenProgram {
  std::string file;  // its name, e.g. "p042.uop"
  Program program;
  std::optional<int> undefined_at;  // the file id its `meta reference = UNDEFINED (%N)` names
};

// tests/golden/programs/*.uop in name order (full paths).
std::vector<std::string> golden_program_files();
// Every golden program, read once per process (not verified: that is the tests' business). Throws on a
// `meta reference` that is not `UNDEFINED (%N)`.
const std::vector<GoldenProgram>& golden_programs();

// An example program of tests/programs, by stem ("dot_product").
Program example_program(const std::string& stem);

}  // namespace uf::testing

// Every line of golden/alu.txt (tinygrad's own exec_alu) through exec_alu and through the interpreter,
// with operands as CONSTs and as values LOADed from BUFFERs. No line is skipped; any difference fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "interp/alu.h"
#include "interp/interp.h"
#include "tests/support/golden.h"
#include "tests/support/paths.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

std::string show(DType d, Scalar v) {
  std::ostringstream out;
  out << format_scalar(d, v) << " (bits 0x" << std::hex << v.u << ")";
  return out.str();
}

// Empty when the result agrees with the golden line, else what differs.
std::string compare(const AluCase& c, bool undefined, Scalar got) {
  if (!c.result != undefined) return undefined ? "got UNDEFINED" : "got " + show(c.result_dtype, got) + ", want UNDEFINED";
  if (c.result && !same_value(c.result_dtype, got, *c.result))
    return "got " + show(c.result_dtype, got) + ", want " + show(c.result_dtype, *c.result);
  return "";
}

// Runs every case through `run` and fails once per differing line (the first 200 printed in full).
// Both golden files: alu.txt and alu-ext.txt (bf16, the fp8s, POW).
template <class Run>
void check_all(Run run) {
  for (const char* file : kAluGoldenFiles) {
    const AluGolden& g = alu_golden(file);
    ASSERT_GT(g.declared, 0u) << file << " header does not state its case count";
    ASSERT_EQ(g.cases.size(), g.declared) << file << " holds a different number of cases than its header says";
    size_t failures = 0;
    for (const AluCase& c : g.cases) {
      const std::string diff = run(c);
      if (diff.empty()) continue;
      if (++failures <= 200) ADD_FAILURE() << file << ":" << c.line << ": " << c.text << "  ->  " << diff;
    }
    EXPECT_EQ(failures, 0u) << "golden ALU lines of " << file << " that differ";
  }
}

TEST(InterpGoldenAlu, FileIsPresentAndComplete) {
  ASSERT_TRUE(std::filesystem::exists(golden_path("alu.txt"))) << golden_path("alu.txt");
  EXPECT_EQ(alu_golden().cases.size(), 53256u);
  EXPECT_EQ(alu_golden("alu-ext.txt").cases.size(), 31176u);
}

TEST(InterpGoldenAlu, ExecAlu) {
  check_all([](const AluCase& c) {
    const AluResult r = exec_alu(c.op, c.result_dtype, c.operand_dtypes.back(), c.operands.data());
    return compare(c, !r.defined(), r.value);
  });
}

std::string through_interpreter(const AluCase& c, bool from_memory) {
  const AluProgram one = one_op_program(c, from_memory);  // verified
  const RefResult r = interpret(one.program);
  if (r.undefined && r.undefined->node != one.nodes[0]) return "UNDEFINED at the wrong node: " + r.undefined->reason;
  if (r.undefined && r.undefined->reason.empty()) return "UNDEFINED without a reason";
  const Scalar got = r.undefined ? Scalar::zero() : r.buffers.at(one.out_slot).at(0);
  return compare(c, r.undefined.has_value(), got);
}

TEST(InterpGoldenAlu, InterpreterWithConstOperands) {
  check_all([](const AluCase& c) { return through_interpreter(c, false); });
}

TEST(InterpGoldenAlu, InterpreterWithLoadedOperands) {
  check_all([](const AluCase& c) { return through_interpreter(c, true); });
}

}  // namespace
}  // namespace uf::testing

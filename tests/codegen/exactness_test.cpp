// Hand-picked cases, one or more per place where plain C differs from the reference (docs/semantics.md,
// "Where plain C differs", and what the renderer found beyond it). The expected values are worked out
// by hand from docs/semantics.md, in alu.txt's line format; each runs with its operands as constants and as
// loaded values, under gcc (default flags and -O0) and clang -O2 with FMA available.
#include <gtest/gtest.h>

#include "codegen/compiled_path.h"
#include "codegen/runtime/process.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

const char* const kCases[] = {
    // Signed overflow wraps (undefined in C).
    "ADD i32 2147483647 1 -> -2147483648",
    "MUL i64 -9223372036854775808 -1 -> -9223372036854775808",
    "NEG i32 -2147483648 -> -2147483648",
    "MULACC i32 65536 65536 7 -> 7",
    "SUB i64 -9223372036854775808 1 -> 9223372036854775807",
    // Small types promote to int in C: u16*u16 overflows int.
    "MUL u16 65535 65535 -> 1",
    "MUL i8 -128 -1 -> -128",
    "ADD u8 200 100 -> 44",
    "MULACC u16 65535 65535 65535 -> 0",
    // Shifts by >= the width saturate (undefined in C); a negative SHR rounds toward -inf.
    "SHL i32 1 32 -> 0",
    "SHL u64 1 64 -> 0",
    "SHL i8 1 7 -> -128",
    "SHL u8 255 4 -> 240",
    "SHR i32 -5 100 -> -1",
    "SHR i64 -1 63 -> -1",
    "SHR i16 -32768 15 -> -1",
    "SHR u32 4294967295 32 -> 0",
    "SHR i8 -7 1 -> -4",
    // Floor division and modulo (C truncates; /0 and MIN/-1 trap).
    "FLOORDIV i32 -7 2 -> -4",
    "FLOORMOD i32 -7 2 -> 1",
    "FLOORMOD i32 7 -2 -> -1",
    "FLOORDIV i32 -2147483648 -1 -> -2147483648",
    "FLOORMOD i32 -2147483648 -1 -> 0",
    "FLOORDIV i64 5 0 -> 0",
    "FLOORMOD i64 5 0 -> 5",
    "CDIV i8 -128 -1 -> -128",
    "CMOD i8 -128 -1 -> 0",
    "CDIV i32 -7 2 -> -3",
    "CMOD i32 -7 2 -> -1",
    "CMOD u32 7 0 -> 7",
    "FLOORDIV u64 18446744073709551615 2 -> 9223372036854775807",
    // float -> int truncates, then wraps mod 2^N (undefined in C out of range).
    "CAST f64>i32 10000000000.0 -> 1410065408",
    "CAST f64>u8 -1.5 -> 255",
    "CAST f32>i8 300.75 -> 44",
    "CAST f64>u64 1.8446744073709552e+19 -> 0",
    "CAST f64>i64 -9.223372036854776e+18 -> -9223372036854775808",
    "CAST f64>i16 1e+300 -> 0",
    "CAST f16>u8 -0.0 -> 0",
    "CAST f32>u32 -1.0 -> 4294967295",
    // int -> f32 rounds to binary64 first (C's direct conversion rounds once): 2^60+2^36+1 -> 2^60.
    "CAST i64>f32 1152921573326323713 -> 1.152921504606847e+18",
    "CAST u64>f32 9223372586610589697 -> 9.223372036854776e+18",
    "CAST bool>f16 true -> 1.0",
    "CAST f32>bool nan -> true",
    "CAST f64>bool -0.0 -> false",
    // MULACC on floats: a*b and +c in binary64, one rounding; never fused, never in float.
    "MULACC f32 1.000244140625 1.000244140625 -1.0 -> 0.000488340854644775390625",      // float product would round
    "MULACC f32 1.000244140625 1.000244140625 0x1p-70 -> 1.00048828125",                // an FMA would round up
    "MULACC f64 1.0000000074505806 1.0000000074505806 -1.0 -> 1.4901161193847656e-08",  // an FMA keeps 2^-54
    "MULACC f16 683.0 3.0 9.5367431640625e-07 -> 2050.0",                               // via float: 2049 then a tie to 2048
    // MAX is Python's max: a unless b > a.
    "MAX f32 nan 1.0 -> nan",
    "MAX f32 1.0 nan -> 1.0",
    "MAX f64 -0.0 0.0 -> -0.0",
    "MAX f64 0.0 -0.0 -> 0.0",
    "MAX f16 -0.0 0.0 -> -0.0",
    "MAX i64 -1 -9223372036854775808 -> -1",
    // TRUNC gives an integer, so a zero result is +0.0 (C's trunc keeps the sign).
    "TRUNC f32 -0.5 -> 0.0",
    "TRUNC f64 -0.0 -> 0.0",
    "TRUNC f16 -0.75 -> 0.0",
    "TRUNC f64 -inf -> -inf",
    "TRUNC f32 -2.5 -> -2.0",
    // Transcendentals: the binary64 library function, then one rounding (not sinf/exp2f/log2f).
    "LOG2 f32 0.0 -> -inf",
    "LOG2 f32 -0.0 -> -inf",
    "LOG2 f64 -1.0 -> nan",
    "SIN f64 inf -> nan",
    "SIN f32 106858266624.0 -> 0.3605252802371979",
    "EXP2 f32 200.0 -> inf",
    "EXP2 f64 -1100.0 -> 0.0",
    "EXP2 f16 16.0 -> inf",
    "EXP2 f16 15.0 -> 32768.0",
    // bool: ADD is or, SUB xor, MUL and, NEG the identity.
    "ADD bool true true -> true",
    "SUB bool true true -> false",
    "NEG bool true -> true",
    "MUL bool true false -> false",
    "MAX bool false true -> true",
    "CMPLT bool false true -> true",
    // Comparisons with NaN.
    "CMPNE f32 nan nan -> true",
    "CMPEQ f64 nan nan -> false",
    "CMPLT f16 nan 1.0 -> false",
    // Specials of RECIP and SQRT; f16 results rounded from binary64.
    "RECIP f32 -0.0 -> -inf",
    "SQRT f64 -0.0 -> -0.0",
    "SQRT f32 -1.0 -> nan",
    "RECIP f16 0.0001 -> 10000.0",
    "ADD f16 65504.0 16.0 -> inf",
    "ADD f16 65504.0 15.0 -> 65504.0",
    "CAST f64>f16 65519.99 -> 65504.0",
    "CAST f64>f16 65520.0 -> inf",
    "CAST f64>f16 0x1p-25 -> 0.0",
    "CAST f64>f16 0x1.0000000000001p-25 -> 5.960464477539063e-08",
    "CAST f64>f16 -0x1.ffcp-15 -> -6.103515625e-05",
    "CAST f32>f16 1.00048828125 -> 1.0",
    "CAST f32>f16 1.00146484375 -> 1.001953125",
    // BITCAST.
    "BITCAST f32>i32 -0.0 -> -2147483648",
    "BITCAST i16>f16 31744 -> inf",
    "BITCAST u16>f16 15360 -> 1.0",
    "BITCAST f16>u16 -2.0 -> 49152",
    "BITCAST u64>f64 1 -> 5e-324",
    "BITCAST i8>u8 -1 -> 255",
    // Extreme constants must print as exact literals.
    "ADD i64 -9223372036854775808 0 -> -9223372036854775808",
    "ADD u64 18446744073709551615 1 -> 0",
    "ADD i32 -2147483648 0 -> -2147483648",
    "ADD f32 3.4028234663852886e+38 0.0 -> 3.4028234663852886e+38",
    "ADD f64 5e-324 0.0 -> 5e-324",
    "SUB f32 1.0 -1.0 -> 2.0",
    "NEG f64 -0.0 -> 0.0",
    "ADD f32 1e-45 0.0 -> 1e-45",
};

void run_cases(const std::string& cc, const std::string& cflags) {
  if (find_executable(cc).empty()) FAIL() << "compiler '" << cc << "' is not installed: this test needs it";
  TempCache cache;
  std::vector<AluCase> cases;
  int n = 0;
  for (const char* line : kCases) cases.push_back(parse_alu_line(line, ++n));
  std::vector<Program> programs;
  std::vector<const AluCase*> of;
  for (bool loaded : {false, true})
    for (const AluCase& c : cases) {
      programs.push_back(one_op_program(c, loaded).program);
      of.push_back(&c);
    }
  std::vector<const Program*> batch;
  for (const Program& p : programs) batch.push_back(&p);
  CompiledPathConfig cfg;
  cfg.cc = cc;
  cfg.cflags = cflags;
  const auto out = run_compiled(batch, cfg);
  for (size_t i = 0; i < programs.size(); ++i) {
    const AluCase& c = *of[i];
    ASSERT_EQ(out[i].status, KernelStatus::ok) << c.text << ": " << out[i].message.substr(0, 2000);
    const Scalar got = out[i].buffers.at(static_cast<int64_t>(c.operands.size()))[0];
    EXPECT_TRUE(same_value(c.result_dtype, *c.result, got))
        << c.text << (i < cases.size() ? "  (constants)" : "  (loaded)") << "  got " << format_scalar(c.result_dtype, got);
  }
}

TEST(CodegenExactness, GccDefaultFlags) { run_cases("gcc", kDefaultCFlags); }
TEST(CodegenExactness, GccO0) { run_cases("gcc", "-O0"); }
TEST(CodegenExactness, GccO2WithFmaAvailable) { run_cases("gcc", "-O2 -march=native -ffp-contract=off"); }
TEST(CodegenExactness, ClangO2WithFmaAvailable) { run_cases("clang", "-O2 -march=native"); }

}  // namespace
}  // namespace uf::testing

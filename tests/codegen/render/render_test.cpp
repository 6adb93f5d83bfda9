// The renderer's text: the example programs of tests/programs/ as golden C files, and their run results.
// Golden files live in tests/codegen/render/golden/NAME.c and hold render_function(tests/programs/NAME.uop, NAME)
// exactly. To regenerate after an intended change: UOPFUZZ_UPDATE_GOLDEN=1 (the test then reports SKIPPED).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "codegen/compiled_path.h"
#include "codegen/render/render.h"
#include "codegen/render/rules.h"
#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"
#include "tests/support/paths.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

// The example programs with a golden rendering: elementwise (c = a*b + 1), alloc_after (scratch memory
// ordered by AFTER), chain (every value used three times), floordiv_negative (loaded operands: nothing is
// known, so the exact helpers), divmod_fast (a provably non-negative numerator over 4: plain / and %)
// and casts_where (CMPLT, CAST and WHERE).
const char* const kExamples[] = {"elementwise", "alloc_after", "chain", "floordiv_negative", "divmod_fast", "casts_where"};

std::string golden_c(const std::string& name) { return source_path("tests/codegen/render/golden/" + name + ".c"); }

Program chain(int depth) {  // v = v*v + v, `depth` times: tests/programs/chain.uop at any depth
  Builder b;
  const UOp* a = b.buffer(DType::F32, 1, 0);
  const UOp* out = b.buffer(DType::F32, 1, 1);
  const UOp* v = b.load(a, 0);
  for (int i = 0; i < depth; ++i) v = b.op(Op::ADD, {b.op(Op::MUL, {v, v}), v});
  b.p.data[0] = {Scalar::of_float(1)};
  return b.finish({b.store(out, 0, v)});
}

TEST(CodegenRender, GoldenText) {
  const bool update = std::getenv("UOPFUZZ_UPDATE_GOLDEN") != nullptr;
  for (const std::string name : kExamples) {
    const std::string text = render_function(example_program(name), name);
    const std::string path = golden_c(name);
    if (update) {
      std::ofstream(path, std::ios::binary) << text;
      continue;
    }
    EXPECT_EQ(text, read_text(path)) << "rendering of " << name << " differs from " << path << "; got:\n" << text;
  }
  if (update) GTEST_SKIP() << "golden files rewritten";
}

// Each example compiled and run gives its file's expect lines, every BUFFER's.
TEST(CodegenRender, ExamplesRun) {
  TempCache cache;
  std::vector<Program> programs;
  for (const char* name : kExamples) programs.push_back(example_program(name));
  std::vector<const Program*> batch;
  for (const Program& p : programs) batch.push_back(&p);
  const auto out = run_compiled(batch, CompiledPathConfig{});
  for (size_t i = 0; i < std::size(kExamples); ++i) {
    ASSERT_EQ(out[i].status, KernelStatus::ok) << kExamples[i] << ": " << out[i].message;
    const Program& p = programs[i];
    ASSERT_EQ(p.expect.size(), p.buffers.size()) << kExamples[i] << ": every BUFFER needs an expect line";
    for (const auto& [slot, want] : p.expect) {
      const DType d = p.buffer(slot)->dtype;
      const Values& got = out[i].buffers.at(slot);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(same_value(d, want[k], got[k]))
            << kExamples[i] << " slot " << slot << "[" << k << "] = " << format_scalar(d, got[k]) << ", want "
            << format_scalar(d, want[k]);
    }
  }
}

TEST(CodegenRender, FastPathOnlyWhenProvable) {
  const std::string fast = render_function(example_program("divmod_fast"), "k");
  EXPECT_NE(fast.find("/4)"), std::string::npos) << fast;
  EXPECT_NE(fast.find("%4)"), std::string::npos) << fast;
  EXPECT_NE(fast.find("uf_floordiv_i32("), std::string::npos) << fast;  // the -4 divisor
  const std::string slow = render_function(example_program("floordiv_negative"), "k");
  EXPECT_NE(slow.find("uf_floordiv_i32("), std::string::npos) << slow;
  EXPECT_NE(slow.find("uf_floormod_i32("), std::string::npos) << slow;
  EXPECT_EQ(slow.find('/'), std::string::npos) << slow;
}

TEST(CodegenRender, ChainIsLinearInDepth) {
  EXPECT_EQ(render_function(chain(4), "chain"), read_text(golden_c("chain")));  // the example's shape
  const std::string c30 = render_function(chain(30), "chain");
  const std::string c60 = render_function(chain(60), "chain");
  // One line per level: the 30-deep chain would hold 3^30 copies of val1 if it were inlined.
  EXPECT_EQ(std::count(c30.begin(), c30.end(), '\n'), 30 + 3) << c30;
  EXPECT_LT(c30.size(), 30u * 60u) << c30;
  EXPECT_LT(c60.size(), 2 * c30.size() + 200);
  // And it computes: 1 -> 2 -> 6 -> ... overflows f32 to inf after a few more levels.
  TempCache cache;
  const Program p = chain(30);
  const KernelOutcome o = run_compiled(p, CompiledPathConfig{});
  ASSERT_EQ(o.status, KernelStatus::ok) << o.message;
  EXPECT_TRUE(std::isinf(o.buffers.at(1)[0].f));
}

TEST(CodegenRender, LongSingleUseChainStaysShallow) {
  // 20,000 single-use ADDs: inlining them all would nest 20,000 parentheses deep and copy the growing
  // expression at every step (quadratic). Long expressions are named instead.
  Builder b;
  const UOp* a = b.buffer(DType::I32, 1, 0);
  const UOp* out = b.buffer(DType::I32, 1, 1);
  const UOp* v = b.load(a, 0);
  for (int i = 1; i <= 20000; ++i) v = b.op(Op::ADD, {v, b.ci(i)});
  b.p.data[0] = {Scalar::of_int(5)};
  const Program p = b.finish({b.store(out, 0, v)});
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = render_function(p, "k");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  size_t longest = 0, start = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') {
      longest = std::max(longest, i - start);
      start = i + 1;
    }
  EXPECT_LT(longest, 400u);
  TempCache cache;
  const KernelOutcome o = run_compiled(p, CompiledPathConfig{});
  ASSERT_EQ(o.status, KernelStatus::ok) << o.message.substr(0, 2000);
  EXPECT_EQ(o.buffers.at(1)[0].i, 5 + 20000 * 20001 / 2);
}

TEST(CodegenRender, Deterministic) {
  for (const std::string name : kExamples) {
    const Program p = example_program(name);
    const std::string once = render_c(p, name);
    EXPECT_EQ(once, render_c(p, name));
    // Same program through its text form (new graph, new node ids): same C.
    const Program q = parse_program(print_program(p));
    EXPECT_EQ(once, render_c(q, name));
  }
}

TEST(CodegenRender, SignatureHasEveryBufferBySlot) {
  Builder b;
  b.p.buffers.push_back(b.buffer(DType::F16, 2, 7));  // unreachable from the SINK, still a parameter
  const UOp* x = b.buffer(DType::Bool, 1, 2);
  const UOp* y = b.buffer(DType::U64, 1, 0);
  const Program p = b.finish({b.store(y, 0, b.op(Op::CAST, {b.load(x, 0)}, DType::U64))});
  const std::string text = render_function(p, "sig");
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "void sig(uint64_t* restrict data0, bool* restrict data2, uint16_t* restrict data7) {");
}

TEST(CodegenRender, RejectsBadFunctionNames) {
  const Program p = example_program("elementwise");
  for (const char* bad : {"", "1k", "a-b", "uf_add_i32", "int", "__x", "k k"})
    EXPECT_THROW(render_function(p, bad), UserError) << bad;
  EXPECT_NO_THROW(render_function(p, "_k9"));
}

TEST(CodegenRender, ConstantsAreExactLiterals) {
  EXPECT_EQ(c_constant(DType::I32, Scalar::of_int(INT32_MIN)), "(-2147483647-1)");
  EXPECT_EQ(c_constant(DType::I64, Scalar::of_int(INT64_MIN)), "(-INT64_C(9223372036854775807)-1)");
  EXPECT_EQ(c_constant(DType::U64, Scalar::of_uint(UINT64_MAX)), "UINT64_C(18446744073709551615)");
  EXPECT_EQ(c_constant(DType::U32, Scalar::of_uint(4294967295u)), "4294967295u");
  EXPECT_EQ(c_constant(DType::I8, Scalar::of_int(-128)), "(-128)");
  EXPECT_EQ(c_constant(DType::F32, Scalar::of_float(0.1f)), "0.10000000149011612f");
  EXPECT_EQ(c_constant(DType::F32, Scalar::of_float(-0.0)), "(-0.0f)");
  EXPECT_EQ(c_constant(DType::F32, Scalar::of_float(1e-45f)), "1.401298464324817e-45f");  // the f32 value
  EXPECT_EQ(c_constant(DType::F64, Scalar::of_float(5e-324)), "5e-324");
  EXPECT_EQ(c_constant(DType::F64, Scalar::of_float(-INFINITY)), "(-INFINITY)");
  EXPECT_EQ(c_constant(DType::F16, Scalar::of_float(NAN)), "NAN");
  EXPECT_EQ(c_constant(DType::Bool, Scalar::of_uint(1)), "1");
}

}  // namespace
}  // namespace uf::testing

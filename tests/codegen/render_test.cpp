// The renderer's text: the example programs of tests/programs/ as golden C files, and their run results.
// Golden files live in tests/codegen/golden/NAME.c and hold render_function(program, NAME) exactly.
// To regenerate after an intended change: UOPFUZZ_UPDATE_GOLDEN=1 (the test then reports SKIPPED).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "codegen/compiled_path.h"
#include "codegen/render/render.h"
#include "codegen/render/rules.h"
#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

Program elementwise() {  // c = a*b + 1 on four elements, one store per element
  Builder b;
  const UOp* a = b.buffer(DType::F32, 4, 0);
  const UOp* bb = b.buffer(DType::F32, 4, 1);
  const UOp* c = b.buffer(DType::F32, 4, 2);
  std::vector<const UOp*> st;
  for (int i = 0; i < 4; ++i)
    st.push_back(b.store(c, i, b.op(Op::ADD, {b.op(Op::MUL, {b.load(a, i), b.load(bb, i)}), b.cf(1.0f)})));
  b.p.data[0] = {Scalar::of_float(0), Scalar::of_float(1), Scalar::of_float(2), Scalar::of_float(3)};
  b.p.data[1] = Values(4, Scalar::of_float(2));
  return b.finish(st);
}

Program alloc_after() {  // tmp[0] = a[0] + a[1]; out[0] = tmp[0] * tmp[0], ordered by AFTER
  Builder b;
  const UOp* a = b.buffer(DType::F32, 2, 0);
  const UOp* out = b.buffer(DType::F32, 1, 1);
  const UOp* tmp = b.alloc(DType::F32, 1, 0);
  const UOp* w = b.store(tmp, 0, b.op(Op::ADD, {b.load(a, 0), b.load(a, 1)}));
  const UOp* v = b.load(b.op(Op::AFTER, {tmp, w}), 0);
  b.p.data[0] = {Scalar::of_float(1), Scalar::of_float(2)};
  return b.finish({b.store(out, 0, b.op(Op::MUL, {v, v}))});
}

Program chain(int depth) {  // v = v*v + v, `depth` times: every value is used three times
  Builder b;
  const UOp* a = b.buffer(DType::F32, 1, 0);
  const UOp* out = b.buffer(DType::F32, 1, 1);
  const UOp* v = b.load(a, 0);
  for (int i = 0; i < depth; ++i) v = b.op(Op::ADD, {b.op(Op::MUL, {v, v}), v});
  b.p.data[0] = {Scalar::of_float(1)};
  return b.finish({b.store(out, 0, v)});
}

Program divmod_negative() {  // loaded operands: nothing is known, so the exact helpers are used
  Builder b;
  const UOp* a = b.buffer(DType::I32, 2, 0);
  const UOp* out = b.buffer(DType::I32, 2, 1);
  const UOp* x = b.load(a, 0);
  const UOp* y = b.load(a, 1);
  b.p.data[0] = {Scalar::of_int(-7), Scalar::of_int(2)};
  return b.finish({b.store(out, 0, b.op(Op::FLOORDIV, {x, y})), b.store(out, 1, b.op(Op::FLOORMOD, {x, y}))});
}

Program divmod_fast() {  // numerator a cast of a u8 (>= 0), divisor a positive constant: plain / and %
  Builder b;
  const UOp* a = b.buffer(DType::U8, 1, 0);
  const UOp* out = b.buffer(DType::I32, 4, 1);
  const UOp* x = b.op(Op::CAST, {b.load(a, 0)}, DType::I32);
  const UOp* four = b.ci(4);
  const UOp* minus = b.ci(-4);
  b.p.data[0] = {Scalar::of_uint(203)};
  return b.finish({b.store(out, 0, b.op(Op::FLOORDIV, {x, four})), b.store(out, 1, b.op(Op::FLOORMOD, {x, four})),
                   // a negative divisor keeps the helper even for a non-negative numerator
                   b.store(out, 2, b.op(Op::FLOORDIV, {x, minus})), b.store(out, 3, b.op(Op::FLOORMOD, {x, minus}))});
}

Program casts_where() {  // out[i] = a[i] < 0 ? -1 : int(a[i])
  Builder b;
  const UOp* a = b.buffer(DType::F32, 3, 0);
  const UOp* out = b.buffer(DType::I32, 3, 1);
  std::vector<const UOp*> st;
  for (int i = 0; i < 3; ++i) {
    const UOp* v = b.load(a, i);
    const UOp* neg = b.op(Op::CMPLT, {v, b.cf(0.0f)});
    st.push_back(b.store(out, i, b.op(Op::WHERE, {neg, b.ci(-1), b.op(Op::CAST, {v}, DType::I32)})));
  }
  b.p.data[0] = {Scalar::of_float(-1.5), Scalar::of_float(3.75), Scalar::of_float(2.0)};
  return b.finish(st);
}

struct Example {
  const char* name;
  Program (*make)();
  std::map<int64_t, std::vector<double>> expect;  // slot -> values (all exact in their dtypes)
};

Program chain4() { return chain(4); }

const Example kExamples[] = {
    {"elementwise", elementwise, {{2, {1, 3, 5, 7}}}},
    {"alloc_after", alloc_after, {{1, {9}}}},
    {"chain", chain4, {{1, {1806}}}},  // 1 -> 2 -> 6 -> 42 -> 1806
    {"divmod_negative", divmod_negative, {{1, {-4, 1}}}},
    {"divmod_fast", divmod_fast, {{1, {50, 3, -51, -1}}}},
    {"casts_where", casts_where, {{1, {-1, 3, 2}}}},
};

TEST(CodegenRender, GoldenText) {
  const bool update = std::getenv("UOPFUZZ_UPDATE_GOLDEN") != nullptr;
  for (const Example& ex : kExamples) {
    const Program p = ex.make();
    const std::string text = render_function(p, ex.name);
    const std::string path = source_path(std::string("tests/codegen/golden/") + ex.name + ".c");
    if (update) {
      std::ofstream(path, std::ios::binary) << text;
      continue;
    }
    EXPECT_EQ(text, read_text(path)) << "rendering of " << ex.name << " differs from " << path << "; got:\n" << text;
  }
  if (update) GTEST_SKIP() << "golden files rewritten";
}

TEST(CodegenRender, ExamplesRun) {
  TempCache cache;
  std::vector<Program> programs;
  for (const Example& ex : kExamples) programs.push_back(ex.make());
  std::vector<const Program*> batch;
  for (const Program& p : programs) batch.push_back(&p);
  const auto out = run_compiled(batch, CompiledPathConfig{});
  for (size_t i = 0; i < std::size(kExamples); ++i) {
    ASSERT_EQ(out[i].verdict, Verdict::ok) << kExamples[i].name << ": " << out[i].message;
    for (const auto& [slot, want] : kExamples[i].expect) {
      const DType d = programs[i].buffer(slot)->dtype;
      const Values& got = out[i].buffers.at(slot);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        const Scalar w = is_float(d) ? Scalar::of_float(want[k]) : Scalar::of_int(static_cast<int64_t>(want[k]));
        EXPECT_TRUE(same_value(d, w, got[k])) << kExamples[i].name << " slot " << slot << "[" << k << "] = "
                                              << format_scalar(d, got[k]) << ", want " << want[k];
      }
    }
  }
}

TEST(CodegenRender, FastPathOnlyWhenProvable) {
  const std::string fast = render_function(divmod_fast(), "k");
  EXPECT_NE(fast.find("/4)"), std::string::npos) << fast;
  EXPECT_NE(fast.find("%4)"), std::string::npos) << fast;
  EXPECT_NE(fast.find("uf_floordiv_i32("), std::string::npos) << fast;  // the -4 divisor
  const std::string slow = render_function(divmod_negative(), "k");
  EXPECT_NE(slow.find("uf_floordiv_i32("), std::string::npos) << slow;
  EXPECT_NE(slow.find("uf_floormod_i32("), std::string::npos) << slow;
  EXPECT_EQ(slow.find('/'), std::string::npos) << slow;
}

TEST(CodegenRender, ChainIsLinearInDepth) {
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
  ASSERT_EQ(o.verdict, Verdict::ok) << o.message;
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
    if (text[i] == '\n') { longest = std::max(longest, i - start); start = i + 1; }
  EXPECT_LT(longest, 400u);
  TempCache cache;
  const KernelOutcome o = run_compiled(p, CompiledPathConfig{});
  ASSERT_EQ(o.verdict, Verdict::ok) << o.message.substr(0, 2000);
  EXPECT_EQ(o.buffers.at(1)[0].i, 5 + 20000 * 20001 / 2);
}

TEST(CodegenRender, Deterministic) {
  for (const Example& ex : kExamples) {
    const Program p = ex.make();
    const std::string once = render_c(p, ex.name);
    EXPECT_EQ(once, render_c(p, ex.name));
    // Same program through its text form (new graph, new node ids): same C.
    const Program q = parse_program(print_program(p));
    EXPECT_EQ(once, render_c(q, ex.name));
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
  const Program p = elementwise();
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

// --f16 native (RenderOptions::f16_native): the text really uses the compiler's _Float16 (so the
// golden runs in the compiler matrix could not pass by silently falling back), soft mode stays as it
// was, the ops that must stay helpers do, and a program mixing native and helper ops is exact under
// the default compiler at the flags a user types.
#include <gtest/gtest.h>

#include "codegen/compiled_path.h"
#include "codegen/render/render.h"
#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

RenderOptions native() {
  RenderOptions o;
  o.f16_native = true;
  return o;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(NativeF16, EmitsFloat16) {
  const Program p = example_program("f16_native_chain");
  const std::string c = render_c(p, "k", native());
  EXPECT_TRUE(has(c, "typedef _Float16 uf_h;"));
  EXPECT_TRUE(has(c, "#define uf_hadd(a, b) ((_Float16)((a) + (b)))"));  // the cast that ends excess precision
  const std::string fn = render_function(p, "k", native());
  for (const char* s : {"uf_h val1 = uf_frombits_h(data0[0]);", "uf_hadd(val1,val2)", "uf_hmul(", "uf_hsub(", "uf_hrecip("})
    EXPECT_TRUE(has(fn, s)) << s << " not in\n" << fn;
  EXPECT_FALSE(has(fn, "uf_round_f16")) << fn;
}

TEST(NativeF16, SoftModeUnchanged) {
  const Program p = example_program("f16_native_chain");
  EXPECT_FALSE(has(render_prelude(), "typedef _Float16"));
  EXPECT_FALSE(has(render_function(p, "k"), "uf_h"));
  EXPECT_EQ(render_c(p, "k"), render_c(p, "k", RenderOptions{}));
  // The native prelude is the soft one with one section added before its end.
  const std::string soft = render_prelude(), nat = render_prelude(native());
  const size_t end = soft.rfind("/* end of prelude */");
  EXPECT_EQ(nat.substr(0, end), soft.substr(0, end));
  EXPECT_EQ(nat.substr(nat.size() - (soft.size() - end)), soft.substr(end));
}

// MULACC, the library ops, TRUNC and conversions keep their exact helpers, now rounding to uf_h.
TEST(NativeF16, HelperOpsStayHelpers) {
  Builder b;
  const UOp* h = b.buffer(DType::F16, 3, 0);
  const UOp* f = b.buffer(DType::F32, 1, 1);
  const UOp* i = b.buffer(DType::I32, 1, 2);
  const UOp* out = b.buffer(DType::F16, 6, 3);
  const UOp* x = b.load(h, 0);
  const UOp* y = b.load(h, 1);
  const UOp* z = b.load(h, 2);
  const Program p = b.finish({b.store(out, 0, b.op(Op::MULACC, {x, y, z})), b.store(out, 1, b.op(Op::EXP2, {x})),
                              b.store(out, 2, b.op(Op::TRUNC, {y})), b.store(out, 3, b.op(Op::CAST, {b.load(f, 0)}, DType::F16)),
                              b.store(out, 4, b.op(Op::CAST, {b.load(i, 0)}, DType::F16)), b.store(out, 5, b.op(Op::NEG, {z}))});
  const std::string fn = render_function(p, "k", native());
  for (const char* s : {"uf_round_h((double)val1*(double)val2+(double)val3)", "uf_round_h(uf_exp2((double)val1))",
                        "uf_trunc_h(val2)", "uf_round_h_f32(val4)", "uf_round_h((double)val5)", "uf_bits_h((-val3))"})
    EXPECT_TRUE(has(fn, s)) << s << " not in\n" << fn;
}

TEST(NativeF16, ChainExactUnderDefaultCompiler) {
  TempCache cache;
  const Program p = example_program("f16_native_chain");
  for (const char* flags : {"-O0", "-O2", "-O3 -march=native"}) {
    CompiledPathConfig cfg;
    cfg.cflags = flags;
    cfg.render = native();
    const KernelOutcome o = run_compiled(p, cfg);
    ASSERT_EQ(o.status, KernelStatus::ok) << o.message.substr(0, 3000);
    const Values& got = o.buffers.at(1);
    ASSERT_EQ(got.size(), 3u);
    for (size_t k = 0; k < 3; ++k)
      EXPECT_TRUE(same_value(DType::F16, p.expect.at(1)[k], got[k]))
          << flags << ": element " << k << " is " << format_scalar(DType::F16, got[k]);
  }
}

}  // namespace
}  // namespace uf::testing

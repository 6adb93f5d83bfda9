// What the renderer guarantees beyond the golden values: no memory outside a kernel's buffers for any
// index (UNDEFINED in the reference, never compared, but it must not crash), large scratch memory off
// the stack, distinct names for ALLOCs that share a slot, and a bounds analysis that is sound for the C
// actually produced (checked on random integer programs, with the division results checked exactly).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "codegen/compiled_path.h"
#include "codegen/render/render.h"
#include "core/int_bounds.h"
#include "tests/support/files.h"
#include "tests/support/int_model.h"
#include "tests/support/programs.h"
#include "tests/support/random_programs.h"

namespace uf::testing {
namespace {

TEST(CodegenRenderSafety, OutOfBoundsIndicesStayInside) {
  Builder b;
  const UOp* idx = b.buffer(DType::I32, 5, 0);
  const UOp* in = b.buffer(DType::F32, 3, 1);
  const UOp* out = b.buffer(DType::F32, 3, 2);
  const UOp* tmp = b.alloc(DType::F32, 4, 0);
  const UOp* mem = out;
  const UOp* scratch = tmp;
  std::vector<const UOp*> effects;
  for (int k = 0; k < 5; ++k) {  // out[i] = in[i] and tmp[i] = in[i] for wild i, each ordered after the last
    const UOp* i = b.load(idx, k);
    const UOp* v = b.op(Op::LOAD, {b.index(in, i)});
    const UOp* s = b.op(Op::STORE, {b.index(mem, i), v});
    const UOp* t = b.op(Op::STORE, {b.index(scratch, i), v});
    mem = b.op(Op::AFTER, {out, s});
    scratch = b.op(Op::AFTER, {tmp, t});
    effects = {s, t};
  }
  effects.push_back(b.store(b.op(Op::AFTER, {out, effects[0]}), 0, b.load(scratch, 2)));
  b.p.data[0] = {Scalar::of_int(1000000), Scalar::of_int(-5), Scalar::of_int(2), Scalar::of_int(INT32_MIN),
                 Scalar::of_int(INT32_MAX)};
  b.p.data[1] = {Scalar::of_float(10), Scalar::of_float(20), Scalar::of_float(30)};
  const Program p = b.finish(effects);
  const std::string text = render_function(p, "k");
  EXPECT_NE(text.find("uf_idx("), std::string::npos) << text;
  TempCache cache;
  for (const char* flags : {kDefaultCFlags, "-O0"}) {
    CompiledPathConfig cfg;
    cfg.cflags = flags;
    const KernelOutcome o = run_compiled(p, cfg);
    ASSERT_EQ(o.status, KernelStatus::ok) << o.message;  // a wild write would fault in the sandbox
    EXPECT_EQ(o.buffers.at(2)[2].f, 30.0);               // the one in-bounds access did its work
    EXPECT_EQ(o.buffers.at(0)[0].i, 1000000);            // inputs untouched
  }
}

TEST(CodegenRenderSafety, LargeAllocationsUseTheHeap) {
  Builder b;
  const UOp* idx = b.buffer(DType::I32, 1, 0);
  const UOp* out = b.buffer(DType::F64, 1, 1);
  const UOp* big = b.alloc(DType::F64, 100000, 5);
  const UOp* w = b.op(Op::STORE, {b.index(big, b.load(idx, 0)), b.c(DType::F64, Scalar::of_float(2.5))});
  const UOp* r = b.load(b.op(Op::AFTER, {big, w}), 99999);
  b.p.data[0] = {Scalar::of_int(99999)};
  const Program p = b.finish({b.store(out, 0, r)});
  const std::string text = render_function(p, "k");
  EXPECT_NE(text.find("calloc(100000, sizeof(double))"), std::string::npos) << text;
  EXPECT_NE(text.find("free(acc5);"), std::string::npos) << text;
  TempCache cache;
  const KernelOutcome o = run_compiled(p, CompiledPathConfig{});
  ASSERT_EQ(o.status, KernelStatus::ok) << o.message;
  EXPECT_EQ(o.buffers.at(1)[0].f, 2.5);
}

TEST(CodegenRenderSafety, AllocsSharingASlotGetDistinctNames) {
  Builder b;
  const UOp* out = b.buffer(DType::I32, 2, 0);
  const UOp* a = b.alloc(DType::I32, 1, 3);
  const UOp* f = b.alloc(DType::F32, 2, 3);
  const UOp* wa = b.store(a, 0, b.ci(7));
  const UOp* wf = b.store(f, 1, b.cf(1.5f));
  const UOp* ra = b.load(b.op(Op::AFTER, {a, wa}), 0);
  const UOp* rf = b.op(Op::CAST, {b.load(b.op(Op::AFTER, {f, wf}), 1)}, DType::I32);
  const Program p = b.finish({b.store(out, 0, ra), b.store(out, 1, rf)});
  const std::string text = render_function(p, "k");
  EXPECT_NE(text.find("acc3 "), std::string::npos) << text;
  EXPECT_NE(text.find("acc3_2["), std::string::npos) << text;
  TempCache cache;
  const KernelOutcome o = run_compiled(p, CompiledPathConfig{});
  ASSERT_EQ(o.status, KernelStatus::ok) << o.message;
  EXPECT_EQ(o.buffers.at(0)[0].i, 7);
  EXPECT_EQ(o.buffers.at(0)[1].i, 1);
}

// ---- random integer programs: every value inside its computed range; divisions exact ----

TEST(CodegenRenderSafety, BoundsAreSoundForTheRenderedC) {
  std::mt19937_64 rng(20261129);
  std::vector<RandomIntProgram> progs;
  for (int i = 0; i < 120; ++i) progs.push_back(random_int_program(rng));
  std::vector<const Program*> batch;
  for (const RandomIntProgram& rp : progs) batch.push_back(&rp.p);
  TempCache cache;
  const auto out = run_compiled(batch, CompiledPathConfig{});
  size_t checked = 0, divisions = 0, fast = 0;
  for (size_t i = 0; i < progs.size(); ++i) {
    ASSERT_EQ(out[i].status, KernelStatus::ok) << out[i].message.substr(0, 3000);
    const RandomIntProgram& rp = progs[i];
    const std::vector<IntRange> bounds = int_bounds(linearize(rp.p), rp.p.graph->size());
    std::map<const UOp*, Scalar> got;
    for (size_t k = 0; k < rp.observed.size(); ++k) {
      const auto [d, e] = rp.at[k];
      got[rp.observed[k]] = out[i].buffers.at(100 + static_cast<int64_t>(d))[e];
    }
    for (const auto& [u, v] : got) {
      const int128 x = int_value(u->dtype, v);
      const IntRange r = bounds[u->id];
      EXPECT_TRUE(contains(r, x)) << "program " << i << ": " << name(u->op) << " " << name(u->dtype) << " = "
                                  << format_scalar(u->dtype, v) << " outside its computed range\n"
                                  << render_function(rp.p, "k");
      ++checked;
      if (u->op == Op::FLOORDIV || u->op == Op::FLOORMOD || u->op == Op::CDIV || u->op == Op::CMOD) {
        auto val = [&](const UOp* s) { return s->op == Op::CONST ? s->value : got.at(s); };
        const Scalar operands[2] = {val(u->src[0]), val(u->src[1])};
        const Scalar want = *python_int_op(u->op, u->dtype, u->dtype, operands);  // the exact integer model
        EXPECT_TRUE(same_value(u->dtype, want, v))
            << name(u->op) << " " << name(u->dtype) << " " << format_scalar(u->dtype, val(u->src[0])) << " "
            << format_scalar(u->dtype, val(u->src[1])) << " = " << format_scalar(u->dtype, v) << ", want "
            << format_scalar(u->dtype, want);
        ++divisions;
        fast += division_fast_path(u, bounds);
      }
    }
  }
  EXPECT_GT(checked, 3000u);
  EXPECT_GT(divisions, 300u);
  EXPECT_GT(fast, 50u);  // the fast path was really exercised
}

}  // namespace
}  // namespace uf::testing

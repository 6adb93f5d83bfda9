// What the renderer guarantees beyond the golden values: no memory outside a kernel's buffers for any
// index (UNDEFINED in the reference, never compared, but it must not crash), large scratch memory off
// the stack, distinct names for ALLOCs that share a slot, and a bounds analysis that is sound for the C
// actually produced (checked on random integer programs, with the division results checked exactly).
#include <random>

#include "codegen/render/bounds.h"
#include "codegen/render/render.h"
#include "test_util.h"

namespace uf::test {
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
    ASSERT_EQ(o.verdict, Verdict::ok) << o.message;  // a wild write would fault in the sandbox
    EXPECT_EQ(o.buffers.at(2)[2].f, 30.0);           // the one in-bounds access did its work
    EXPECT_EQ(o.buffers.at(0)[0].i, 1000000);        // inputs untouched
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
  ASSERT_EQ(o.verdict, Verdict::ok) << o.message;
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
  ASSERT_EQ(o.verdict, Verdict::ok) << o.message;
  EXPECT_EQ(o.buffers.at(0)[0].i, 7);
  EXPECT_EQ(o.buffers.at(0)[1].i, 1);
}

// ---- random integer programs: every value inside its computed range; divisions exact ----

constexpr DType kInts[] = {DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64};

int128 as_int(DType d, Scalar v) { return is_unsigned(d) || is_bool(d) ? static_cast<int128>(v.u) : v.i; }

Scalar wrap(DType d, int128 v) {
  const int128 m = int128{1} << bits(d);
  int128 r = v % m;
  if (r < 0) r += m;
  if (is_signed(d) && r >= m / 2) r -= m;
  return is_signed(d) ? Scalar::of_int(static_cast<int64_t>(r)) : Scalar::of_uint(static_cast<uint64_t>(r));
}

// Independent of the prelude: Python's // and % and C-style division, on exact integers, then wrapped.
Scalar divide(Op op, DType d, int128 a, int128 b) {
  if (b == 0) return wrap(d, op == Op::FLOORDIV || op == Op::CDIV ? 0 : a);
  int128 q = a / b;
  if ((op == Op::FLOORDIV || op == Op::FLOORMOD) && q * b != a && ((a < 0) != (b < 0))) --q;
  return wrap(d, op == Op::FLOORDIV || op == Op::CDIV ? q : a - q * b);
}

struct RandomProgram {
  Program p;
  std::vector<const UOp*> observed;         // every value node, stored in order
  std::vector<std::pair<DType, size_t>> at;  // where: (dtype of the output buffer, element)
};

RandomProgram random_program(std::mt19937_64& rng) {
  Builder b;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto value = [&](DType d) {
    const Interval r = dtype_range(d);
    const int128 special[] = {0, 1, 2, 3, 7, -1, -2, -7, r.lo, r.hi, r.lo + 1, r.hi - 1};
    int128 v = pick(3) ? special[pick(std::size(special))] : static_cast<int128>(static_cast<int64_t>(rng()));
    return wrap(d, v);
  };
  std::vector<const UOp*> pool;
  for (size_t k = 0; k < std::size(kInts); ++k) {
    const DType d = kInts[k];
    const UOp* buf = b.buffer(d, 4, static_cast<int64_t>(k));
    Values& data = b.p.data[static_cast<int64_t>(k)];
    for (int i = 0; i < 4; ++i) {
      data.push_back(value(d));
      pool.push_back(b.load(buf, i));
    }
  }
  auto same_dtype = [&](DType d) {
    std::vector<const UOp*> c;
    for (const UOp* u : pool) if (u->dtype == d) c.push_back(u);
    return c[pick(c.size())];
  };
  const Op binary[] = {Op::ADD, Op::SUB, Op::MUL, Op::MAX, Op::AND, Op::OR, Op::XOR, Op::SHR, Op::SHL,
                       Op::FLOORDIV, Op::FLOORMOD, Op::CDIV, Op::CMOD};
  for (int step = 0; step < 24; ++step) {
    const UOp* x = pool[pick(pool.size())];
    const DType d = x->dtype;
    const UOp* made = nullptr;
    switch (pick(6)) {
      case 0: made = b.op(Op::CAST, {x}, kInts[pick(std::size(kInts))]); break;
      case 1: made = b.op(Op::NEG, {x}); break;
      case 2: made = b.op(Op::WHERE, {b.op(Op::CMPLT, {x, same_dtype(d)}), x, same_dtype(d)}); break;
      case 3: {  // a small positive constant divisor: the fast path's territory
        const Op o = std::array{Op::FLOORDIV, Op::FLOORMOD, Op::CDIV, Op::CMOD}[pick(4)];
        made = b.op(o, {x, b.c(d, wrap(d, 1 + pick(9)))});
        break;
      }
      case 4: made = b.op(Op::MULACC, {x, same_dtype(d), same_dtype(d)}); break;
      default: made = b.op(binary[pick(std::size(binary))], {x, same_dtype(d)}); break;
    }
    pool.push_back(made);
  }
  RandomProgram rp;
  std::map<DType, std::vector<const UOp*>> by;
  for (const UOp* u : pool) by[u->dtype].push_back(u);
  std::vector<const UOp*> stores;
  for (auto& [d, list] : by) {
    const UOp* out = b.buffer(d, static_cast<int64_t>(list.size()), 100 + static_cast<int64_t>(d));
    for (size_t i = 0; i < list.size(); ++i) {
      stores.push_back(b.store(out, static_cast<int64_t>(i), list[i]));
      rp.observed.push_back(list[i]);
      rp.at.emplace_back(d, i);
    }
  }
  rp.p = b.finish(stores);
  return rp;
}

TEST(CodegenRenderSafety, BoundsAreSoundForTheRenderedC) {
  std::mt19937_64 rng(20261129);
  std::vector<RandomProgram> progs;
  for (int i = 0; i < 120; ++i) progs.push_back(random_program(rng));
  std::vector<const Program*> batch;
  for (const RandomProgram& rp : progs) batch.push_back(&rp.p);
  TempCache cache;
  const auto out = run_compiled(batch, CompiledPathConfig{});
  size_t checked = 0, divisions = 0, fast = 0;
  for (size_t i = 0; i < progs.size(); ++i) {
    ASSERT_EQ(out[i].verdict, Verdict::ok) << out[i].message.substr(0, 3000);
    const RandomProgram& rp = progs[i];
    const std::vector<Interval> bounds = int_bounds(linearize(rp.p), rp.p.graph->size());
    std::map<const UOp*, Scalar> got;
    for (size_t k = 0; k < rp.observed.size(); ++k) {
      const auto [d, e] = rp.at[k];
      got[rp.observed[k]] = out[i].buffers.at(100 + static_cast<int64_t>(d))[e];
    }
    for (const auto& [u, v] : got) {
      const int128 x = as_int(u->dtype, v);
      const Interval r = bounds[u->id];
      EXPECT_TRUE(r.lo <= x && x <= r.hi) << "program " << i << ": " << name(u->op) << " " << name(u->dtype) << " = "
                                          << format_scalar(u->dtype, v) << " outside its computed range\n"
                                          << render_function(rp.p, "k");
      ++checked;
      if (u->op == Op::FLOORDIV || u->op == Op::FLOORMOD || u->op == Op::CDIV || u->op == Op::CMOD) {
        auto val = [&](const UOp* s) { return s->op == Op::CONST ? s->value : got.at(s); };
        const Scalar want = divide(u->op, u->dtype, as_int(u->dtype, val(u->src[0])), as_int(u->dtype, val(u->src[1])));
        EXPECT_TRUE(same_value(u->dtype, want, v)) << name(u->op) << " " << name(u->dtype) << " "
                                                   << format_scalar(u->dtype, val(u->src[0])) << " "
                                                   << format_scalar(u->dtype, val(u->src[1])) << " = "
                                                   << format_scalar(u->dtype, v) << ", want " << format_scalar(u->dtype, want);
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
}  // namespace uf::test

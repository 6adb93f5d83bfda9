// The exact integer idioms (fuzz/gen/int_idioms.cpp): tinygrad's rewrites of them hold on every value in
// exec_alu's arithmetic, the generator builds each form, and the programs stay valid.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <initializer_list>
#include <vector>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "tests/support/alu.h"
#include "tests/support/generated_forms.h"

namespace uf::testing {
namespace {

Scalar alu(Op op, DType d, DType operand, std::initializer_list<Scalar> x) { return exec_defined(op, d, operand, x); }
Scalar alu(Op op, DType d, std::initializer_list<Scalar> x) { return exec_defined(op, d, d, x); }

const std::vector<uint64_t> kEdges = {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
                                      0x8000000000000000, 0xffffffffffffffff, 0x123456789abcdef0};

// Each rewrite (uop/symbolic.py) on edge values, computed with exec_alu as the interpreter does: the
// reason a firing rule is never a spec gap here.
TEST(IntIdioms, TinygradsRewritesHoldOnEveryValue) {
  const Scalar c32 = Scalar::of_uint(32);
  for (uint64_t a : kEdges)
    for (uint64_t b : kEdges) {
      const Scalar x = normalize(DType::U64, Scalar::of_uint(a)), hi = normalize(DType::U32, Scalar::of_uint(a));
      const Scalar lo = normalize(DType::U32, Scalar::of_uint(b));
      const Scalar lo64 = alu(Op::CAST, DType::U64, DType::U32, {lo});
      // ((x << 32) | u64(y)) as u32 == y  (:180)
      const Scalar packed = alu(Op::OR, DType::U64, {alu(Op::SHL, DType::U64, {x, c32}), lo64});
      EXPECT_EQ(alu(Op::CAST, DType::U32, DType::U64, {packed}).u, lo.u) << a << " " << b;
      // ((u64(x) << 32) | u64(y)) >> 32 == u64(x)  (:182)
      const Scalar hi64 = alu(Op::CAST, DType::U64, DType::U32, {hi});
      const Scalar both = alu(Op::OR, DType::U64, {alu(Op::SHL, DType::U64, {hi64, c32}), lo64});
      EXPECT_EQ(alu(Op::SHR, DType::U64, {both, c32}).u, hi64.u) << a << " " << b;
      // (y + c?t:f) + c?tt:ff == y + c?(t+tt):(f+ff), wrapping  (:253)
      for (DType d : {DType::I8, DType::I32, DType::U16, DType::I64})
        for (bool c : {false, true}) {
          const Scalar y = normalize(d, Scalar::of_uint(a)), t = normalize(d, Scalar::of_uint(b));
          const Scalar f = normalize(d, Scalar::of_uint(a ^ b)), tt = normalize(d, Scalar::of_uint(a + 7));
          const Scalar ff = normalize(d, Scalar::of_uint(b * 3));
          const Scalar left = alu(Op::ADD, d, {alu(Op::ADD, d, {y, c ? t : f}), c ? tt : ff});
          const Scalar right = alu(Op::ADD, d, {y, c ? alu(Op::ADD, d, {t, tt}) : alu(Op::ADD, d, {f, ff})});
          EXPECT_EQ(left.u, right.u) << name(d) << " " << a << " " << b << " " << c;
        }
    }
  for (bool b : {false, true}) {  // x | !x == true  (:231), !x as x != true
    const Scalar x = Scalar::of_uint(b), yes = Scalar::of_uint(1);
    const Scalar not_x = alu(Op::CMPNE, DType::Bool, DType::Bool, {x, yes});
    EXPECT_EQ(alu(Op::OR, DType::Bool, {x, not_x}).u, 1u);
  }
}

// The forms, by the rule each is for.
std::map<std::string, int> forms_in(const Program& p) {
  std::map<std::string, int> n;
  for (const UOp* u : linearize(p)) {
    const auto is_shift32 = [](const UOp* s, Op op) { return s->op == op && s->src[1]->op == Op::CONST && s->src[1]->value.u == 32; };
    if (u->op == Op::OR && u->dtype == DType::Bool && u->src[1]->op == Op::CMPNE && u->src[1]->src[0] == u->src[0]) ++n["x|!x"];
    if (u->op == Op::ADD && u->src[0]->op == Op::ADD && u->src[1]->op == Op::WHERE && u->src[0]->src[1]->op == Op::WHERE &&
        u->src[0]->src[1]->src[0] == u->src[1]->src[0])
      ++n["two selects"];
    if (u->op == Op::CAST && u->dtype == DType::U32 && u->src[0]->op == Op::OR && is_shift32(u->src[0]->src[0], Op::SHL)) ++n["pack"];
    if (is_shift32(u, Op::SHR) && u->src[0]->op == Op::OR && is_shift32(u->src[0]->src[0], Op::SHL)) ++n["unpack"];
  }
  return n;
}

TEST(IntIdioms, EveryFormAppearsAndStaysValid) {
  GenPolicy idioms;
  idioms.p_exact_int_idiom = 1;
  const FormCounts total = forms_over_seeds(idioms, 1000, forms_in);
  for (const char* form : {"x|!x", "two selects", "pack", "unpack"}) EXPECT_GT(total.count(form) ? total.at(form) : 0, 3) << form;
}

TEST(IntIdioms, OffByDefault) {
  for (uint64_t s = 0; s < 100; ++s) {
    const std::map<std::string, int> n = forms_in(generate(s));
    EXPECT_EQ(n.count("two selects") + n.count("pack") + n.count("unpack"), 0u) << "seed " << s;
  }
}

}  // namespace
}  // namespace uf::testing

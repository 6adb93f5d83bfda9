// The exact float idioms (fuzz/gen/float_idioms.cpp): tinygrad's non-IEEE rewrites give the same bits on
// the values they are built on, the generator builds each of the nine forms on those values, and the
// programs stay valid.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "tests/support/generated_forms.h"

namespace uf::testing {
namespace {

// Each form and what tinygrad rewrites it to (uop/symbolic.py), over every value the idioms build:
// p in {1, 2, 4, 8} (1 << (v & 3)), q in {1, 2} (1 << (v & 1)), a in 0..127, m in {0, 1, 3, 7}, c in
// {0.5, 2, 4}. Bit for bit, in f32 and f64: the reason a firing rule is no spec gap here.
template <typename F>
void expect_rewrites_exact() {
  auto same = [](F x, F y) {
    if constexpr (sizeof(F) == 4) return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
    else return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y);
  };
  auto r = [](F x) { return F(1) / x; };  // RECIP, correctly rounded as every CPU backend computes it
  for (int pk = 0; pk < 4; ++pk)
    for (int qk = 0; qk < 2; ++qk)
      for (int a_int = 0; a_int < 128; ++a_int) {
        const F p = F(1 << pk), q = F(1 << qk), a = F(a_int), m = F((1 << pk) - 1);
        const std::string at = "p=" + std::to_string(p) + " q=" + std::to_string(q) + " a=" + std::to_string(a);
        EXPECT_TRUE(same(p * r(p), F(1))) << "x/x -> 1 at " << at;
        EXPECT_TRUE(same((a * p) * r(p), a)) << "(x*x2)/x2 -> x at " << at;
        EXPECT_TRUE(same((a * r(p)) * r(q), a * r(p * q))) << "(x/x2)/x3 at " << at;
        EXPECT_TRUE(same(r(p * p), r(p) * r(p))) << "1/(x*x) at " << at;
        EXPECT_TRUE(same(r(p * p * p), r(p) * r(p) * r(p))) << "1/(x*x*x) at " << at;
        for (F c : {F(0.5), F(2), F(4)}) EXPECT_TRUE(same(r(p * c), r(p) * r(c))) << "1/(x*c) at " << at;
        const F d = r(F(1) + m);
        EXPECT_TRUE(same(m * d, F(1) - d)) << "x/(1+x) at " << at;
        EXPECT_TRUE(same(m * (d * a), a * (F(1) - d))) << "x*(d*y) at " << at;
        EXPECT_TRUE(same(m * (d + a), (F(1) - d) + m * a)) << "x*(d+y) at " << at;
      }
}

TEST(FloatIdioms, TinygradsRewritesAreExactOnTheirValues) {
  expect_rewrites_exact<float>();
  expect_rewrites_exact<double>();
}

bool is_power_of_two(const UOp* u) {  // CAST(1 << (v & mask))
  return u->op == Op::CAST && u->src[0]->op == Op::SHL && u->src[0]->src[1]->op == Op::AND;
}
bool is_small_int(const UOp* u) { return u->op == Op::CAST && u->src[0]->op == Op::AND; }
bool is_two_k_minus_one(const UOp* u) { return u->op == Op::CAST && u->src[0]->op == Op::SUB; }
bool is_recip_of(const UOp* u, const std::function<bool(const UOp*)>& of) { return u->op == Op::RECIP && of(u->src[0]); }
bool is_mul(const UOp* u) { return u->op == Op::MUL; }

// The forms, by the rule each is for.
std::map<std::string, int> forms_in(const Program& p) {
  std::map<std::string, int> n;
  for (const UOp* u : linearize(p)) {
    if (u->op == Op::RECIP && is_mul(u->src[0])) {
      const UOp* x = u->src[0];
      if (is_power_of_two(x->src[0]) && x->src[1] == x->src[0]) ++n["1/(x*x)"];
      if (is_mul(x->src[0]) && x->src[0]->src[0] == x->src[1] && x->src[0]->src[1] == x->src[1]) ++n["1/(x*x*x)"];
      if (is_power_of_two(x->src[0]) && x->src[1]->op == Op::CONST) ++n["1/(x*c)"];
    }
    if (!is_mul(u)) continue;
    const UOp *x = u->src[0], *y = u->src[1];
    if (is_power_of_two(x) && is_recip_of(y, [x](const UOp* s) { return s == x; })) ++n["x/x"];
    if (is_mul(x) && is_small_int(x->src[0]) && is_recip_of(y, [x](const UOp* s) { return s == x->src[1]; })) ++n["(x*x2)/x2"];
    if (is_mul(x) && is_small_int(x->src[0]) && is_recip_of(x->src[1], is_power_of_two) && is_recip_of(y, is_power_of_two))
      ++n["(x/x2)/x3"];
    if (!is_two_k_minus_one(x)) continue;
    const auto one_over = [x](const UOp* s) { return is_recip_of(s, [x](const UOp* t) { return t->op == Op::ADD && t->src[0] == x; }); };
    if (one_over(y)) ++n["x/(1+x)"];
    if (is_mul(y) && one_over(y->src[0]) && is_small_int(y->src[1])) ++n["x*(d*y)"];
    if (y->op == Op::ADD && one_over(y->src[0]) && is_small_int(y->src[1])) ++n["x*(d+y)"];
  }
  return n;
}

TEST(FloatIdioms, EveryFormAppearsAndStaysValid) {
  GenPolicy idioms;
  idioms.p_exact_float_idiom = 1;
  const FormCounts total = forms_over_seeds(idioms, 1000, forms_in);
  for (const char* form : {"x/x", "(x*x2)/x2", "(x/x2)/x3", "1/(x*x)", "1/(x*x*x)", "1/(x*c)", "x/(1+x)", "x*(d*y)", "x*(d+y)"})
    EXPECT_GT(total.count(form) ? total.at(form) : 0, 3) << form;
}

TEST(FloatIdioms, OffByDefault) {
  for (uint64_t s = 0; s < 100; ++s) EXPECT_EQ(forms_in(generate(s)).size(), 0u) << "seed " << s;
}

}  // namespace
}  // namespace uf::testing

// The program generator: deterministic, valid by construction, text round trip, sensible sizes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/text.h"
#include "fuzz/campaign/coverage.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::testing {
namespace {

constexpr uint64_t kValiditySeeds = 3000;

// A weight lands at its enumerator's index whatever order the table is written in.
static_assert(weights_by_value<Leaf>({{Leaf::Cast, 4}, {Leaf::Reuse, 1}, {Leaf::Load, 3}, {Leaf::Const, 2}}) ==
              Weights<Leaf>{1, 2, 3, 4});

TEST(Generator, SameSeedSameText) {
  for (uint64_t s = 0; s < 200; ++s) {
    const std::string a = print_program(generate(s));
    const std::string b = print_program(generate(s));
    ASSERT_EQ(a, b) << "seed " << s;
  }
}

TEST(Generator, DifferentSeedsDiffer) {
  std::set<std::string> texts;
  for (uint64_t s = 0; s < 500; ++s) {
    Program p = generate(s);
    p.meta.clear();  // the seed line alone would make them differ
    texts.insert(print_program(p));
  }
  EXPECT_GE(texts.size(), 495u);
}

TEST(Generator, MetaAndData) {
  for (uint64_t s = 0; s < 300; ++s) {
    const Program p = generate(s);
    ASSERT_NE(p.meta_value("seed"), nullptr);
    EXPECT_EQ(*p.meta_value("seed"), std::to_string(s));
    ASSERT_NE(p.meta_value("generator"), nullptr);
    EXPECT_EQ(*p.meta_value("generator"), std::to_string(kGeneratorVersion));
    ASSERT_FALSE(p.buffers.empty());
    for (const UOp* b : p.buffers) {
      ASSERT_TRUE(p.data.count(b->slot)) << "seed " << s << ": no data for slot " << b->slot;
      EXPECT_EQ(static_cast<int64_t>(p.data.at(b->slot).size()), b->len);
    }
  }
}

// Every program verifies, and parse(print(p)) prints the same text (which also re-checks types).
void check_valid(uint64_t seed, const GenPolicy& policy = {}) {
  const Program p = generate(seed, policy);
  try {
    verify(p);
  } catch (const UserError& e) { FAIL() << "seed " << seed << ": " << e.what() << "\n" << print_program(p); }
  const std::string text = print_program(p);
  const Program q = parse_program(text, "seed-" + std::to_string(seed));
  EXPECT_NO_THROW(verify(q)) << "seed " << seed;
  ASSERT_EQ(print_program(q), text) << "seed " << seed;
}

TEST(Generator, ThousandsOfSeedsVerifyAndRoundTrip) {
  for (uint64_t s = 0; s < kValiditySeeds; ++s) {
    check_valid(s);
    if (HasFatalFailure()) return;
  }
}

TEST(Generator, CampaignSeedsVerify) {
  for (uint64_t i = 0; i < 300; ++i) {
    check_valid(program_seed(0xC0FFEE, i % 4, i));
    if (HasFatalFailure()) return;
  }
}

// Policies at the ends of their ranges still give valid programs.
TEST(Generator, ExtremePoliciesStayValid) {
  GenPolicy big;
  big.min_steps = 300;
  big.max_steps = 600;
  big.max_alloc_len = 32;
  big.max_acc_steps = 30;
  GenPolicy tiny;
  tiny.min_steps = tiny.max_steps = 1;
  tiny.max_inputs = tiny.min_inputs = 1;
  tiny.max_outputs = 1;
  tiny.max_len = 1;
  tiny.max_long_len = 1;
  GenPolicy no_swarm;
  no_swarm.p_swarm = 0;
  GenPolicy memory_heavy;
  memory_heavy.step_weight = weights_by_value<Step>({{Step::Alu, 1},
                                                     {Step::Chain, 0},
                                                     {Step::Load, 1},
                                                     {Step::Gather, 2},
                                                     {Step::Scratch, 3},
                                                     {Step::Accumulate, 3},
                                                     {Step::ReadModifyWrite, 3},
                                                     {Step::Scatter, 3},
                                                     {Step::StoreReload, 3},
                                                     {Step::Vector, 1},
                                                     {Step::Loop, 2}});
  memory_heavy.p_dynamic_index = 0.9;
  memory_heavy.p_keep_all_deps = 0.5;
  memory_heavy.p_spurious_after = 0.3;
  memory_heavy.p_after_on_index = 0.5;
  for (const GenPolicy* pol : {&big, &tiny, &no_swarm, &memory_heavy})
    for (uint64_t s = 0; s < 150; ++s) {
      check_valid(s, *pol);
      if (HasFatalFailure()) return;
    }
}

// The idiom knobs (0 by default, set by a fitted policy) at 1: every drawn first operand of a binary op is
// its own op, every unary op's operand a sum or product. The programs stay valid (the interpreter defines
// them: check_valid), and the shapes are there: (x % y) % y sharing y, -(x + k).
TEST(Generator, IdiomsAtFullStrengthStayValidAndAppear) {
  GenPolicy idioms;
  idioms.p_nest_op = 1;
  idioms.p_nest_shared = 1;
  idioms.p_unary_of_affine = 1;
  int nested = 0, shared = 0, unary = 0, on_sum = 0;
  for (uint64_t s = 0; s < 300; ++s) {
    check_valid(s, idioms);
    if (HasFatalFailure()) return;
    const Program p = generate(s, idioms);
    for (const UOp* u : linearize(p)) {
      if (is_binary_alu(u->op) && info(u->op).result == ResultRule::SAME && u->src[0]->op == u->op) {
        ++nested;
        shared += u->src[1] == u->src[0]->src[1];
      }
      if (is_unary_alu(u->op) && !is_conversion(u->op)) {
        ++unary;
        on_sum += u->src[0]->op == Op::ADD || u->src[0]->op == Op::MUL;
      }
    }
  }
  EXPECT_GT(nested, 100);
  EXPECT_GT(shared, nested / 2) << "p_nest_shared 1: the outer node takes the inner's second operand (a constant's fold aside)";
  EXPECT_GT(on_sum, unary / 2) << on_sum << " of " << unary;
}

// Data of ValueKind::Approx only: the switch points of tinygrad's approximations (xsin's 30, xexp2's f32
// bound 128, near pi/2 multiples) appear in f32 data, one f32 step beside them too, and huge sin arguments.
TEST(Generator, ApproxValuesReachTheApproximationsSwitchPoints) {
  GenPolicy approx;
  approx.data_value_weight = Weights<ValueKind>{};
  approx.data_value_weight[static_cast<size_t>(ValueKind::Approx)] = 1;
  approx.dtype_weight = PerDType<double>{};
  approx.dtype_weight[static_cast<size_t>(DType::F32)] = 1;
  std::set<float> seen;
  for (uint64_t s = 0; s < 300; ++s) {
    const Program p = generate(s, approx);
    for (const UOp* b : p.buffers)
      if (b->dtype == DType::F32)
        for (const Scalar& v : p.data.at(b->slot)) seen.insert(static_cast<float>(std::fabs(v.f)));
  }
  for (const float x : {30.0f, std::nextafter(30.0f, 31.0f), 128.0f, 149.0f, 1e22f, 1.5707963267948966f * 4, 0.75f})
    EXPECT_TRUE(seen.count(x)) << x;
  EXPECT_GT(seen.size(), 60u);
}

// The loop and logic idioms at 1: every loop body one-hot selected (x != r ? 0 : v, or v * (x == r) cast),
// every mask masked twice, every operand of a drawn bool AND or OR a logical not. Valid, and there.
TEST(Generator, LoopAndLogicIdiomsStayValidAndAppear) {
  GenPolicy idioms;
  idioms.p_one_hot = 1;
  idioms.p_mask_twice = 1;
  idioms.p_masked_term = 1;
  idioms.p_not_operand = 1;
  int one_hot_where = 0, one_hot_mul = 0, mask_of_mask = 0, logic = 0, of_nots = 0;
  const auto is_not = [](const UOp* u) { return u->op == Op::CMPNE && is_bool(u->src[0]->dtype) && u->src[1]->op == Op::CONST; };
  for (uint64_t s = 0; s < 300; ++s) {
    check_valid(s, idioms);
    if (HasFatalFailure()) return;
    const Program p = generate(s, idioms);  // alive while its nodes are read (a temporary's graph is freed)
    for (const UOp* u : linearize(p)) {
      if (u->op == Op::WHERE && u->src[0]->op == Op::CMPNE && u->src[0]->src[1]->op == Op::RANGE) ++one_hot_where;
      if (u->op == Op::MUL && u->src[1]->op == Op::CAST && u->src[1]->src[0]->op == Op::CMPEQ) ++one_hot_mul;
      if (u->op == Op::WHERE && (u->src[1]->op == Op::WHERE || u->src[2]->op == Op::WHERE)) ++mask_of_mask;
      if ((u->op == Op::AND || u->op == Op::OR) && is_bool(u->dtype)) {
        ++logic;
        of_nots += is_not(u->src[0]) && is_not(u->src[1]);
      }
    }
  }
  EXPECT_GT(one_hot_where, 20);
  EXPECT_GT(one_hot_mul, 20);
  EXPECT_GT(mask_of_mask, 20);
  // Most bool ANDs are a guard's or a clamp's, not a drawn op's: some, not most, are of two nots.
  EXPECT_GE(of_nots, 10) << of_nots << " of " << logic;
}

// The fold idioms tinygrad's policies weigh (plugins/tinygrad/policy/README.md) at 1: every reduction's body an
// arange (a masked loop-invariant value, r or r * k against a bound), gathers compared against r + k, every
// signed SHR and FLOORDIV of a power of two after a mask clearing the bits it drops. Valid, and there.
TEST(Generator, FoldIdiomsStayValidAndAppear) {
  GenPolicy idioms;
  idioms.p_arange = 1;
  idioms.p_one_hot = 0.5;
  idioms.p_index_affine = 0.5;
  idioms.p_clear_low_bits = 1;
  idioms.p_index_spelling = 0.5;
  const auto is_range = [](const UOp* u) { return u->op == Op::RANGE; };
  const auto is_strided = [&](const UOp* u) { return u->op == Op::MUL && is_range(u->src[0]) && u->src[1]->op == Op::CONST; };
  int arange = 0, strided = 0, two_bounds = 0, shifted_gather = 0, cleared = 0;
  std::map<std::string, int> spelled;  // p_index_spelling's forms, by the symbolic rule each is for
  for (uint64_t s = 0; s < 300; ++s) {
    check_valid(s, idioms);
    if (HasFatalFailure()) return;
    const Program p = generate(s, idioms);
    for (const UOp* u : linearize(p)) {
      const bool below_range = u->op == Op::CMPLT && (is_range(u->src[0]) || is_strided(u->src[0]));
      arange += below_range;
      strided += below_range && is_strided(u->src[0]);
      two_bounds += u->op == Op::AND && u->src[1]->op == Op::CMPLT && is_range(u->src[1]->src[0]);
      shifted_gather += u->op == Op::CMPNE && u->src[1]->op == Op::ADD && is_range(u->src[1]->src[0]);
      cleared += (u->op == Op::SHR || u->op == Op::FLOORDIV) && u->src[0]->op == Op::AND && u->src[0]->src[1]->op == Op::CONST &&
                 u->src[0]->src[1]->value.i < 0;
      const auto is_const = [](const UOp* x, int64_t v) { return x->op == Op::CONST && x->value.i == v; };
      if (u->op == Op::FLOORDIV && is_const(u->src[1], -1)) ++spelled["x//-1"];
      if (u->op == Op::FLOORDIV && u->src[0]->op == Op::FLOORDIV && u->src[1]->op == Op::CONST) ++spelled["(x//c1)//c2"];
      if (u->op == Op::FLOORMOD && u->src[0]->op == Op::FLOORMOD && u->src[0]->src[1] == u->src[1]) ++spelled["(x%y)%y"];
      if (u->op == Op::ADD && u->src[0]->op == Op::ADD && (u->src[1]->op == Op::MUL || u->src[0]->src[1]->op == Op::MUL))
        ++spelled["(y+x)+x*c"];
    }
  }
  EXPECT_GT(arange, 50);
  EXPECT_GT(strided, 10);
  EXPECT_GT(two_bounds, 10);
  EXPECT_GT(shifted_gather, 10);
  EXPECT_GT(cleared, 10);
  for (const char* form : {"x//-1", "(x//c1)//c2", "(x%y)%y", "(y+x)+x*c"}) EXPECT_GT(spelled[form], 5) << form;
}

RC_GTEST_PROP(Generator, AnySeedIsValid, (uint64_t seed)) {
  const Program p = generate(seed);
  verify(p);
  const std::string text = print_program(p);
  RC_ASSERT(print_program(parse_program(text)) == text);
}

TEST(Generator, ProgramSeedMixes) {
  std::set<uint64_t> seen;
  for (uint64_t w = 0; w < 8; ++w)
    for (uint64_t i = 0; i < 1000; ++i) seen.insert(program_seed(42, w, i));
  EXPECT_EQ(seen.size(), 8000u);
  EXPECT_EQ(program_seed(42, 3, 7), program_seed(42, 3, 7));
  EXPECT_NE(program_seed(42, 3, 7), program_seed(43, 3, 7));
  EXPECT_NE(program_seed(42, 3, 7), program_seed(42, 7, 3));
}

// Live node counts: most programs mid-sized, some tiny, some large, none absurd; and the program
// shapes the brief asks for are common: scratch memory, AFTER, dead code, several outputs, inputs only read.
TEST(Generator, SizeAndShapeDistribution) {
  constexpr int kPrograms = 1000;
  std::vector<size_t> sizes;
  int with_alloc = 0, with_after = 0, with_dead = 0, multi_out = 0, read_only = 0;
  for (uint64_t s = 0; s < kPrograms; ++s) {
    gen::Gen g(s, GenPolicy{});
    const Program p = g.run();
    const auto order = linearize(p);
    sizes.push_back(order.size());
    const std::set<const UOp*> live(order.begin(), order.end());
    std::set<const UOp*> stored, loaded;
    bool alloc = false, after = false;
    for (const UOp* u : order) {
      alloc |= u->op == Op::ALLOC;
      after |= u->op == Op::AFTER;
      if (u->op == Op::STORE) stored.insert(u->src[0]->base());
      if (u->op == Op::LOAD) loaded.insert(u->src[0]->base());
    }
    with_alloc += alloc;
    with_after += after;
    with_dead += std::any_of(g.values_.begin(), g.values_.end(), [&](const UOp* v) { return !live.count(v); });
    multi_out += std::count_if(stored.begin(), stored.end(), [](const UOp* m) { return m->op == Op::BUFFER; }) > 1;
    read_only += std::any_of(loaded.begin(), loaded.end(), [&](const UOp* m) { return m->op == Op::BUFFER && !stored.count(m); });
  }
  std::sort(sizes.begin(), sizes.end());
  const size_t median = sizes[sizes.size() / 2];
  std::printf(
      "live nodes: min %zu, median %zu, p90 %zu, max %zu; of %d programs: ALLOC %d, AFTER %d, "
      "dead code %d, several outputs %d, read-only inputs %d\n",
      sizes.front(), median, sizes[sizes.size() * 9 / 10], sizes.back(), kPrograms, with_alloc, with_after, with_dead, multi_out,
      read_only);
  EXPECT_GE(median, 40u);
  EXPECT_LE(median, 600u);
  EXPECT_LE(sizes.back(), 5000u);
  EXPECT_GE(with_alloc, kPrograms / 4);
  EXPECT_GE(with_after, kPrograms / 2);
  EXPECT_GE(with_dead, kPrograms / 4);
  EXPECT_GE(multi_out, kPrograms / 4);
  EXPECT_GE(read_only, kPrograms / 2);
}

// The swarm restriction is deterministic and never leaves a program without ALU ops or dtypes.
TEST(Generator, SwarmKeepsSomething) {
  for (uint64_t s = 0; s < 2000; ++s) {
    Rng a(s), b(s);
    const GenPolicy p = swarm(GenPolicy{}, a), q = swarm(GenPolicy{}, b);
    ASSERT_EQ(p.op_weight, q.op_weight);
    ASSERT_EQ(p.dtype_weight, q.dtype_weight);
    bool usable = false;
    for (int o = 0; o < kNumOps; ++o)
      for (DType d : kValueDTypes)
        usable |= is_alu(static_cast<Op>(o)) && p.op_weight[o] > 0 && p.dtype_weight[static_cast<size_t>(d)] > 0 &&
                  op_accepts(static_cast<Op>(o), d);
    ASSERT_TRUE(usable) << "seed " << s;
    EXPECT_GT(p.step_weight[static_cast<size_t>(Step::Alu)], 0);
  }
}

}  // namespace
}  // namespace uf::testing

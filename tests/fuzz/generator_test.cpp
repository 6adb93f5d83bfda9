// The program generator: deterministic, valid by construction, text round trip, sensible sizes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "core/text.h"
#include "fuzz/generator.h"

namespace uf {
namespace {

constexpr uint64_t kValiditySeeds = 3000;

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
  } catch (const UserError& e) {
    FAIL() << "seed " << seed << ": " << e.what() << "\n" << print_program(p);
  }
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
  memory_heavy.step_weight = {1, 0, 1, 2, 3, 3, 3, 3, 3};
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

// Live node counts: most programs mid-sized, some tiny, some large, none absurd.
TEST(Generator, SizeDistribution) {
  std::vector<size_t> sizes;
  size_t with_alloc = 0, with_after = 0, with_dead = 0, multi_out = 0;
  for (uint64_t s = 0; s < 1000; ++s) {
    const Program p = generate(s);
    const auto order = linearize(p);
    sizes.push_back(order.size());
    bool alloc = false, after = false;
    size_t stored = 0;
    std::set<const UOp*> outs;
    for (const UOp* u : order) {
      alloc |= u->op == Op::ALLOC;
      after |= u->op == Op::AFTER;
      if (u->op == Op::STORE && u->src[0]->base()->op == Op::BUFFER) outs.insert(u->src[0]->base());
    }
    stored = outs.size();
    with_alloc += alloc;
    with_after += after;
    with_dead += p.graph->size() > order.size() + 0;  // graph nodes that never run
    multi_out += stored > 1;
  }
  std::sort(sizes.begin(), sizes.end());
  const size_t median = sizes[sizes.size() / 2];
  RecordProperty("median_nodes", static_cast<int>(median));
  std::printf("live nodes: min %zu, median %zu, p90 %zu, max %zu; with ALLOC %zu, AFTER %zu, dead code %zu, "
              "several outputs %zu (of 1000)\n",
              sizes.front(), median, sizes[sizes.size() * 9 / 10], sizes.back(), with_alloc, with_after,
              with_dead, multi_out);
  EXPECT_GE(median, 40u);
  EXPECT_LE(median, 600u);
  EXPECT_LE(sizes.back(), 5000u);
  EXPECT_GE(with_alloc, 200u);
  EXPECT_GE(with_after, 300u);
  EXPECT_GE(with_dead, 200u);
  EXPECT_GE(multi_out, 200u);
}

}  // namespace
}  // namespace uf

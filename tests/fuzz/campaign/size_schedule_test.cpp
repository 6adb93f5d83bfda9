// The size schedule (fuzz/campaign/size_schedule.h): its step ranges, its cost fit, and where it sends
// programs when one range finds more or costs less, without a target (outcomes handed to it).
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "fuzz/campaign/size_schedule.h"

namespace uf::testing {
namespace {

// Draws `n` programs; `finds(arm)` says whether one finds a new bucket; returns the picks per arm.
template <class Finds>
std::array<int, 3> run(SizeSchedule& s, int n, Finds finds, double reduce_seconds_per_node = 0) {
  std::array<int, 3> picked{};
  for (int i = 0; i < n; ++i) {
    const int arm = s.pick();
    ++picked[static_cast<size_t>(arm)];
    const size_t nodes = static_cast<size_t>(20 * s.arms()[static_cast<size_t>(arm)].max_steps);
    const bool found = finds(arm, i);
    s.checked(arm, nodes, found);
    s.batch(1, nodes, 0.1 + 0.001 * static_cast<double>(nodes));
    if (found && reduce_seconds_per_node > 0) s.reduced(nodes, reduce_seconds_per_node * static_cast<double>(nodes));
  }
  return picked;
}

TEST(SizeSchedule, RangesScaleTheStepsAndOffIsThePolicyItself) {
  const GenPolicy base;  // 6..40 steps; arms at 25, 50, 100 percent
  SizeSchedule s(base, true, 1);
  ASSERT_EQ(s.arms().size(), 3u);
  EXPECT_EQ(s.range(0), "2..10");
  EXPECT_EQ(s.range(1), "5..20");
  EXPECT_EQ(s.range(2), "6..40");
  EXPECT_EQ(s.policy(1).max_steps, 20);
  EXPECT_EQ(s.policy(1).p_swarm, base.p_swarm);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(s.pick(), k) << "each range once before any is judged";

  GenPolicy fixed = base;  // off when the policy says so, or the campaign (--count, --guide none)
  fixed.adapt_size = false;
  for (SizeSchedule off : {SizeSchedule(fixed, true, 1), SizeSchedule(base, false, 1)}) {
    EXPECT_FALSE(off.enabled());
    ASSERT_EQ(off.arms().size(), 1u);
    EXPECT_EQ(off.range(0), "6..40");
    for (int i = 0; i < 10; ++i) EXPECT_EQ(off.pick(), 0);
  }

  GenPolicy same = base;  // percents that give one range twice make one arm
  same.max_steps = 4;
  same.min_steps = 1;
  same.size_arms_percent = {10, 20, 100};
  EXPECT_EQ(SizeSchedule(same, true, 1).arms().size(), 2u);
}

TEST(SizeSchedule, FitsCheckSecondsPerProgramAndPerNode) {
  SizeSchedule s(GenPolicy{}, true, 1);
  for (int k = 0; k < 3; ++k) s.checked(k, static_cast<size_t>(100 * (k + 1)), false);  // mean nodes 100, 200, 300
  // batches of mixed sizes, each costing exactly 0.5 s a program and 0.01 s a node
  for (const auto& [n, nodes] : {std::pair{4, 500}, std::pair{8, 900}, std::pair{2, 700}, std::pair{6, 1500}})
    s.batch(static_cast<size_t>(n), static_cast<size_t>(nodes), 0.5 * n + 0.01 * nodes);
  EXPECT_NEAR(s.check_seconds(0), 1.5, 1e-9);
  EXPECT_NEAR(s.check_seconds(2), 3.5, 1e-9);

  SizeSchedule one(GenPolicy{}, true, 1);  // one batch cannot tell the terms apart: seconds per node
  one.checked(0, 100, false);
  one.batch(4, 400, 2.0);
  EXPECT_NEAR(one.check_seconds(0), 0.5, 1e-9);
}

TEST(SizeSchedule, ProgramsGoWhereNewBucketsArePaidBest) {
  // Only the largest range finds anything: it gets most programs; each keeps its exploration share.
  SizeSchedule large(GenPolicy{}, true, 2);
  const auto picked = run(large, 600, [](int arm, int i) { return arm == 2 && i % 3 == 0; });
  EXPECT_GT(picked[2], 300) << picked[0] << " " << picked[1] << " " << picked[2];
  EXPECT_GT(picked[0], 15);
  EXPECT_GT(large.arms()[2].new_buckets, 50);

  // Every range finds as often, and checks cost about alike, but a reduction's seconds grow with the
  // program: the smallest range pays best.
  SizeSchedule costly(GenPolicy{}, true, 3);
  const auto cheap = run(costly, 600, [](int, int i) { return i % 4 == 0; }, 1.0);
  EXPECT_GT(cheap[0], 400) << cheap[0] << " " << cheap[1] << " " << cheap[2];
  EXPECT_GT(costly.rate(0), costly.rate(2));

  // Nothing found anywhere: no range starves.
  SizeSchedule none(GenPolicy{}, true, 4);
  const auto idle = run(none, 600, [](int, int) { return false; });
  for (const int n : idle) EXPECT_GT(n, 60) << idle[0] << " " << idle[1] << " " << idle[2];
}

// The schedule forgets (size_discount): a range that stopped finding loses its programs to one that
// started.
TEST(SizeSchedule, FollowsWhereBucketsWereFoundLately) {
  SizeSchedule s(GenPolicy{}, true, 5);
  run(s, 300, [](int arm, int) { return arm == 0; });
  run(s, 150, [](int arm, int) { return arm == 2; });  // about as long as its memory
  const auto later = run(s, 150, [](int arm, int) { return arm == 2; });
  EXPECT_GT(later[2], 2 * later[0]) << later[0] << " " << later[2];
}

}  // namespace
}  // namespace uf::testing

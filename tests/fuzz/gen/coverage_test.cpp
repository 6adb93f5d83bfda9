// Coverage of the generator: every op×dtype pair the op table allows, every CAST pair and every legal
// BITCAST pair appear in the live nodes of a few thousand programs.
#include <gtest/gtest.h>

#include "core/text.h"
#include "fuzz/campaign/coverage.h"
#include "fuzz/gen/generator.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

TEST(Coverage, CountsLiveNodesOnly) {
  const Program p = parse_program(
      "uops 1\n"
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = CONST i32 0\n"
      "%2 = INDEX f32 %0 %1\n"
      "%3 = LOAD f32 %2\n"
      "%4 = CAST i8 %3\n"
      "%5 = CAST f32 %4\n"
      "%6 = STORE void %2 %5\n"
      "%7 = SINK void %6\n");
  Coverage c;
  c.add(p);
  EXPECT_EQ(c.programs, 1u);
  EXPECT_EQ(c.cast_count().covered, 2u);
  EXPECT_EQ(c.bitcast_count().covered, 0u);
  const auto missing = c.missing();
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "CAST f32->i8"), 0);
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "CAST i8->f32"), 0);
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "LOAD f32"), 0);
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "STORE f32"), 0);
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "ADD f32"), 1);
  Coverage d;
  d.merge(c);
  d.merge(c);
  EXPECT_EQ(d.programs, 2u);
  EXPECT_EQ(d.cast_count().covered, 2u);
}

TEST(Coverage, TablesTotals) {
  const Coverage c;
  EXPECT_EQ(c.cast_count().total, 289u);    // 17 value dtypes, every pair
  EXPECT_EQ(c.bitcast_count().total, 70u);  // 1 byte: 6x6 (i8 u8 and the fp8s), 2 bytes: 4x4, 4: 3x3, 8: 3x3
  EXPECT_GT(c.op_dtype_count().total, 300u);
  EXPECT_EQ(c.op_dtype_count().covered, 0u);
}

TEST(Coverage, GeneratorCoversEveryPair) {
  Coverage c;
  for (uint64_t s = 0; s < 9000; ++s) c.add(generate(s));
  std::printf("%s\n", c.summary().c_str());
  std::vector<std::string> missing;
  for (const std::string& m : c.missing())
    if (!m.starts_with("loop: ")) missing.push_back(m);
  EXPECT_TRUE(missing.empty()) << c.summary() << "\nmissing:" << bulleted(missing);
}

// At the default policy most programs have a loop, and every loop feature occurs.
TEST(Coverage, GeneratorReachesEveryLoopFeature) {
  Coverage c;
  for (uint64_t s = 0; s < 600; ++s) c.add(generate(s));
  std::printf("%s\n", c.summary().c_str());
  std::vector<std::string> missing;
  for (const std::string& m : c.missing())
    if (m.starts_with("loop: ")) missing.push_back(m);
  EXPECT_TRUE(missing.empty()) << c.summary() << "\nmissing:" << bulleted(missing);
  EXPECT_GT(c.programs_with_loops * 2, c.programs) << c.summary();
}

// Each hand-written loop program has exactly the loop features its `about` line describes.
std::vector<std::string> features_of(const std::string& example) {
  const Program p = read_program(example_path(example));
  Coverage c;
  c.add(p);
  std::vector<std::string> had;
  for (size_t i = 0; i < kNumLoopFeatures; ++i)
    if (c.loop_feature[i]) had.emplace_back(describe(static_cast<LoopFeature>(i)));
  EXPECT_EQ(c.programs_with_loops, had.empty() ? 0u : 1u);
  return had;
}

TEST(Coverage, LoopFeaturesOfTheExamplePrograms) {
  using V = std::vector<std::string>;
  const std::string short_trips = "trip count 2..7 (shorter than an 8-lane vector)";
  EXPECT_EQ(features_of("loop_reductions.uop"), (V{"nest depth 1", short_trips, "reduction max", "reduction product"}));
  EXPECT_EQ(features_of("loop_sum.uop"), (V{"nest depth 1", "trip count 17..32", "reduction sum"}));
  EXPECT_EQ(features_of("loop_nest_divmod.uop"), (V{"nest depth 2", short_trips}));
  EXPECT_EQ(features_of("loop_gated_load.uop"), (V{"nest depth 1", short_trips, "gated load"}));
  EXPECT_EQ(features_of("loop_gated_store.uop"), (V{"nest depth 1", short_trips, "gated store"}));
  EXPECT_EQ(features_of("loop_shift.uop"), (V{"nest depth 1", short_trips, "one buffer read and written in a loop"}));
  EXPECT_EQ(features_of("loop_trip_counts.uop"),
            (V{"nest depth 1", "trip count 0", "trip count 1", "runtime trip count", "reduction sum"}));
  EXPECT_EQ(features_of("elementwise.uop"), V{});
}

}  // namespace
}  // namespace uf::testing

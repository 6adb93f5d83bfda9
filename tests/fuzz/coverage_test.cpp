// Coverage of the generator: every op×dtype pair the op table allows, every CAST pair and every legal
// BITCAST pair appear in the live nodes of a few thousand programs.
#include <gtest/gtest.h>

#include "core/text.h"
#include "fuzz/campaign/coverage.h"
#include "fuzz/gen/generator.h"
#include "tests/support/files.h"

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
  for (uint64_t s = 0; s < 6000; ++s) c.add(generate(s));
  std::printf("%s\n", c.summary().c_str());
  const auto missing = c.missing();
  EXPECT_TRUE(missing.empty()) << c.summary() << "\nmissing:" << bulleted(missing);
}

}  // namespace
}  // namespace uf::testing

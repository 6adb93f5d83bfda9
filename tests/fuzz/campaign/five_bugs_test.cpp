// One bucket per root cause: against a renderer with five independent bugs of five kinds
// (tests/fuzz/campaign/plugins/five_bugs.py: a wrong f64 constant, f32 MAX ignoring NaN, unguarded i32
// division, u32 SHL by the width, CAST f64 -> f32 rounded toward zero), a fixed-seed campaign of 120
// programs with --jobs 2 saves exactly one bucket per bug, each reduced to completion (`meta reduced =
// yes`) and to at most 10 nodes. The campaign is a count, not a time: which programs run does not depend
// on the machine's speed, so neither do the buckets, nor, with a generous --reduce-time, whether each reduction
// completes (that --time is kept is budget_test.cpp's subject).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/campaign.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

TEST(FiveBugs, OneReducedBucketPerBug) {
  TempDir tmp{"uopfuzz-five-bugs"};
  const fs::path dir = tmp.path();
  nlohmann::json s;
  ASSERT_NO_FATAL_FAILURE(run_finding_campaign(
      "--seed 35 --count 120 --jobs 2 -q --guide none --reduce-time 600 --renderer-protocol server --renderer-cmd " + source_path("tests/fuzz/campaign/plugins/five_bugs.py"), dir, &s));
  std::map<std::string, int> buckets;  // signature -> saved files
  for (const auto& path : s["saved"]) {
    const std::string file = path.get<std::string>();
    const Program p = read_program(file);
    verify(p);
    ASSERT_NE(p.meta_value("signature"), nullptr) << file;
    ++buckets[*p.meta_value("signature")];
    ASSERT_NE(p.meta_value("reduced"), nullptr) << file;
    EXPECT_EQ(*p.meta_value("reduced"), "yes") << read_text(file);
    EXPECT_LE(program_cost(p).nodes, 10u) << read_text(file);
  }
  const std::map<std::string, int> want = {{"mismatch CONST f64", 1},
                                           {"mismatch MAX f32", 1},
                                           {"crash SIGFPE", 1},
                                           {"mismatch SHL u32", 1},
                                           {"mismatch CAST f64>f32", 1}};
  EXPECT_EQ(buckets, want) << s.dump(2);
}

}  // namespace
}  // namespace uf::testing

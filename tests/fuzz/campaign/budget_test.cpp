// --time is the budget of the whole run, reductions included: a 40 s campaign whose findings take
// minutes to reduce still ends within 5 % of it, each finding is in the corpus, saved as found
// (`meta reduced = no`), and `uopfuzz reduce` on such a file finishes the job.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/campaign.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// Integer MUL rendered as ADD (tests/codegen/plugins/server_faults.py), found in the first batches, by a
// target slow on purpose (each render 2 s longer): one worker's several MUL buckets cannot all be
// reduced in 40 s on any machine (two workers sharing them may: reduction_queue_test.cpp). The finished reduction then has the target at its own speed.
TEST(Budget, ACampaignEndsOnTimeMidReductionAndKeepsItsFindingUnreduced) {
  TempDir tmp{"uopfuzz-budget"};
  const fs::path dir = tmp.path();
  const std::string plugin = source_path("tests/codegen/plugins/server_faults.py");
  ::setenv("UOPFUZZ_BREAK_MUL", "1", 1);
  ::setenv("UOPFUZZ_RENDER_SECONDS", "2.0", 1);
  nlohmann::json s;
  ASSERT_NO_FATAL_FAILURE(
      run_finding_campaign("--seed 7 --jobs 1 -q --without loop --reduce-time 600 --renderer-cmd " + plugin, dir, &s, 40));
  ::unsetenv("UOPFUZZ_RENDER_SECONDS");
  EXPECT_FALSE(s["interrupted"].get<bool>());
  std::string unreduced;
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    verify(p);
    ASSERT_NE(p.meta_value("reduced"), nullptr) << path;
    // The smallest unreduced mismatch (a crash from an out-of-bounds read need not recur).
    // (and one signed by its diverging value: a finding whose probe the budget's end cut short is signed
    // by its STORE, which `reduce` signs again by the value, a separate matter from this test's)
    if (*p.meta_value("reduced") == "no" && *p.meta_value("class") == "mismatch" &&
        p.meta_value("signature")->rfind("mismatch STORE", 0) != 0 &&
        (unreduced.empty() || program_cost(p) < program_cost(read_program(unreduced))))
      unreduced = path.get<std::string>();
  }
  ASSERT_FALSE(unreduced.empty()) << "every mismatch reduced within the budget: the test no longer cuts a reduction short\n"
                                  << s.dump(2);
  const fs::path finished = dir / "finished.uop";
  const Ran red = run_uopfuzz_isolated(
      "reduce " + unreduced + " --renderer-cmd " + plugin + " --time 600 -o " + finished.string(), dir / "cache");
  ASSERT_EQ(red.code, 0) << red.out;
  const Program before = read_program(unreduced), after = read_program(finished.string());
  ASSERT_NE(after.meta_value("reduced"), nullptr);
  EXPECT_EQ(*after.meta_value("reduced"), "yes") << red.out;
  EXPECT_EQ(*after.meta_value("signature"), *before.meta_value("signature"));
  // Not bigger; not always smaller: the worker's cut reduction may have reached the minimum already and
  // been stopped in its last check that no single step still shrinks it.
  EXPECT_LE(program_cost(after), program_cost(before));
  ::unsetenv("UOPFUZZ_BREAK_MUL");
}

}  // namespace
}  // namespace uf::testing

// --time is the budget of the whole run, reductions included: a campaign whose first finding takes
// minutes to reduce still ends on time, and the finding is in the corpus, saved as found.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// MUL rendered as ADD inside loop kernels: found in the first batches, minutes to reduce.
TEST(Budget, ACampaignEndsOnTimeMidReductionAndKeepsItsFindingUnreduced) {
  TempDir tmp{"uopfuzz-budget"};
  const fs::path dir = tmp.path();
  constexpr double kBudget = 30;
  const auto started = Clock::now();
  const Ran r = run_uopfuzz_isolated("fuzz --seed 7 --time 30 --jobs 2 -q --cflags -O1 --reduce-time 600 --renderer-cmd " +
                                         broken_renderer() + " --corpus " + (dir / "corpus").string() + " --json " +
                                         (dir / "s.json").string(),
                                     dir / "cache");
  const double wall = seconds_since(started);
  ASSERT_EQ(r.code, 1) << r.out;
  // The budget plus its 1 s grace, the workers' exit and the summary.
  EXPECT_LE(wall, kBudget + 3) << r.out;
  const auto s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_FALSE(s["interrupted"].get<bool>());
  int unreduced = 0;
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    verify(p);
    ASSERT_NE(p.meta_value("reduced"), nullptr) << path;
    unreduced += *p.meta_value("reduced") == "no";
  }
  EXPECT_GT(unreduced, 0) << "every finding reduced within the budget: the test no longer cuts a reduction short\n"
                          << s.dump(2);
}

}  // namespace
}  // namespace uf::testing

#include "tests/support/campaign.h"

#include <gtest/gtest.h>

#include "tests/support/files.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {

void run_finding_campaign(const std::string& args, const std::filesystem::path& dir, nlohmann::json* summary, int budget_s) {
  const std::string time = budget_s > 0 ? " --time " + std::to_string(budget_s) : "";
  const auto started = Clock::now();
  const Ran r = run_uopfuzz_isolated(
      "fuzz " + args + time + " --corpus " + (dir / "corpus").string() + " --json " + (dir / "s.json").string(), dir / "cache");
  const double wall = seconds_since(started);
  ASSERT_EQ(r.code, 1) << r.out;  // a reproducer saved
  if (budget_s > 0) { EXPECT_LE(wall, budget_s * 1.05) << r.out; }
  *summary = nlohmann::json::parse(read_text(dir / "s.json"));
}

}  // namespace uf::testing

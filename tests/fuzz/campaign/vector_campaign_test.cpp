// A renderer that gets a vector lane order wrong (tests/fuzz/campaign/plugins/lanes_swapped.py) is found by
// a fixed-seed campaign, reduced to a handful of nodes, and the reproducer replays with its signature.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/campaign.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

TEST(VectorCampaign, WrongLaneOrderIsFoundReducedAndReplayed) {
  const fs::path dir = fs::temp_directory_path() / ("uopfuzz-vector-campaign-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto run = [&](const std::string& args) { return run_uopfuzz_isolated(args, dir / "cache"); };
  nlohmann::json s;
  ASSERT_NO_FATAL_FAILURE(
      run_finding_campaign("--seed 2 --count 16 --jobs 1 -q --without loop --cflags -O1 --reduce-time 60 --renderer-cmd " +
                               std::string(UOPFUZZ_BROKEN_VECTOR_RENDERER),
                           dir, &s));
  ASSERT_FALSE(s["saved"].empty());
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    verify(p);
    EXPECT_LE(program_cost(p).nodes, 12u) << path << "\n" << print_program(p);
    ASSERT_NE(p.meta_value("signature"), nullptr);
    const auto replay = run("run " + path.get<std::string>());
    EXPECT_EQ(replay.code, 1) << replay.out;
    EXPECT_NE(replay.out.find("verdict: mismatch (" + *p.meta_value("signature") + ")"), std::string::npos) << replay.out;
    EXPECT_EQ(run("run --renderer-cmd builtin " + path.get<std::string>()).code, 0);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace uf::testing

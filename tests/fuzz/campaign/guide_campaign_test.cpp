// Target coverage and guidance end to end (docs/format.md: `fuzz --guide`, the summary's target_coverage,
// the `feature` events, seed files): a target that reports features (plugins/feature_target.py: one rule
// per op and dtype its program has, three never reachable), fuzzed with and without guidance.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

class GuidedCampaign : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-guided"};
  fs::path dir = tmp.path();
  const std::string plugin = source_path("tests/fuzz/campaign/plugins/feature_target.py");
  // One worker, so which programs a campaign checks does not depend on timing (seeds are shared between
  // workers only at batch starts).
  Ran fuzz(const std::string& name, const std::string& extra, int count = 64, int seed = 5) const {
    return run_uopfuzz_isolated("fuzz --seed " + std::to_string(seed) + " --count " + std::to_string(count) +
                                    " -q --no-reduce --renderer-cmd " + plugin + " --corpus " +
                                    (dir / "corpus").string() + " --json " + (dir / (name + ".json")).string() + " " + extra,
                                dir / "cache");
  }
  nlohmann::json summary(const std::string& name) const { return nlohmann::json::parse(read_text(dir / (name + ".json"))); }
  size_t seed_files() const {
    if (!fs::exists(dir / "corpus" / "seeds")) return 0;
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir / "corpus" / "seeds")) n += e.path().extension() == ".seed";
    return n;
  }
};

TEST_F(GuidedCampaign, CountsTheTargetsFeaturesAndKeepsSeeds) {
  const Ran r = fuzz("guided", "");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json s = summary("guided");
  const nlohmann::json& c = s["target_coverage"];
  const int64_t reachable = c["reachable"].get<int64_t>();
  EXPECT_EQ(c["known"].get<int64_t>(), reachable + 3) << c.dump();  // the three front-end rules are not reachable
  EXPECT_GT(c["fired"].get<int64_t>(), 100) << c.dump();            // of ~500 op×dtype pairs, 64 programs reach most
  EXPECT_EQ(c["fired"], c["fired_any"]);
  EXPECT_EQ(c["programs"], s["valid"]);
  EXPECT_EQ(c["files"]["add.py"]["reachable"].get<int64_t>(), reachable / static_cast<int64_t>(c["files"].size()));
  EXPECT_EQ(c["features"].size(), c["fired_any"].get<size_t>());
  EXPECT_EQ(c["never_fired"].size(), static_cast<size_t>(reachable - c["fired"].get<int64_t>()));
  EXPECT_NE(c["never_fired"][0].get<std::string>().find("  rule "), std::string::npos) << "the switch_source text";
  // seeds: every program that reached something new, as files; derived programs after the first batch
  EXPECT_EQ(s["guide"]["mode"], "coverage");
  EXPECT_GT(s["guide"]["seeds_kept"].get<int64_t>(), 10);
  EXPECT_EQ(static_cast<int64_t>(seed_files()), s["guide"]["seeds_kept"].get<int64_t>());
  for (const auto& e : fs::directory_iterator(dir / "corpus" / "seeds"))  // each with its render's time, measured
    EXPECT_GT(nlohmann::json::parse(read_text(e.path()))["seconds"].get<double>(), 0) << e.path();
  EXPECT_GT(s["guide"]["derived_programs"].get<int64_t>(), 0);
  // the event log has a `feature` line per feature, and samples count them
  size_t features = 0;
  int64_t last_fired = -1;
  for (const std::string& line : read_lines(dir / "guided.events.jsonl")) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] == "feature") ++features;
    if (e["event"] == "sample") last_fired = e["target_fired"].get<int64_t>();
  }
  EXPECT_EQ(features, c["fired_any"].get<size_t>());
  EXPECT_EQ(last_fired, c["fired"].get<int64_t>());
  EXPECT_NE(r.out.find("uopfuzz: target coverage: fired "), std::string::npos) << r.out;
}

// --guide none is the blind stream, with the same target coverage counted; a later guided campaign starts
// from the seeds an earlier one kept, so it derives programs from its first batch on.
TEST_F(GuidedCampaign, NoneIsBlindAndSeedsCarryOverToTheNextCampaign) {
  ASSERT_EQ(fuzz("blind", "--guide none").code, 0);
  const nlohmann::json blind = summary("blind");
  EXPECT_EQ(blind["guide"]["derived_programs"], 0);
  EXPECT_EQ(blind["guide"]["seeds_kept"], 0);
  EXPECT_EQ(seed_files(), 0u);
  EXPECT_GT(blind["target_coverage"]["fired"].get<int64_t>(), 100);

  ASSERT_EQ(fuzz("first", "").code, 0);
  const size_t kept = seed_files();
  ASSERT_GT(kept, 0u);
  ASSERT_EQ(fuzz("second", "", 8, 6).code, 0);  // one batch of 8
  EXPECT_GT(summary("second")["guide"]["derived_programs"].get<int64_t>(), 0);
}

TEST_F(GuidedCampaign, BadGuideOptionsAreUsageErrors) {
  for (const auto& [args, says] : {std::pair{"--target-rules symbolic.py", "'symbolic.py' is not FILE:LINE"},
                                   std::pair{"--guide sometimes", "--guide"}}) {
    const Ran r = fuzz("bad", args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << r.out;
  }
}

// The built-in renderer with gcc's remarks as features: the campaign counts them (no reachable set: all
// in fired_any) and keeps the programs that made the compiler do something new as seeds.
TEST_F(GuidedCampaign, CompilerRemarksAreFeaturesOfTheBuiltInPath) {
  const Ran r = run_uopfuzz_isolated("fuzz --seed 3 --count 48 -q --no-reduce --remarks --cc gcc --corpus " +
                                         (dir / "corpus").string() + " --json " + (dir / "remarks.json").string(),
                                     dir / "cache");
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out;
  const nlohmann::json s = summary("remarks");
  const nlohmann::json& c = s["target_coverage"];
  EXPECT_GT(c["fired_any"].get<int64_t>(), 5) << c.dump();
  bool vectorized = false;
  for (const auto& [name, hits] : c["features"].items()) vectorized |= name.rfind("gcc optimized: loop vectorized", 0) == 0;
  EXPECT_TRUE(vectorized) << c["features"].dump();
  EXPECT_GT(s["guide"]["seeds_kept"].get<int64_t>(), 0);
}

// A --time campaign fits the step range (docs/format.md, Program size): against a renderer with a bug
// (MUL rendered as ADD) every range is tried, the summary counts each range's programs and new buckets,
// and a reproducer drawn from a narrowed range says so (`meta steps`). A --count run, --guide none and
// a policy with adapt_size false keep the policy's own range.
TEST_F(GuidedCampaign, TimeRunsFitTheStepRangeToTheTarget) {
  const std::string broken = source_path("tests/fuzz/campaign/plugins/mul_as_add.py");
  const auto campaign = [&](const std::string& name, const std::string& args) {
    const Ran r = run_uopfuzz_isolated("fuzz --seed 2 -q --no-reduce --renderer-cmd " + broken + " --corpus " +
                                           (dir / name).string() + " --json " + (dir / (name + ".json")).string() + " " + args,
                                       dir / "cache");
    EXPECT_EQ(r.code, 1) << r.out;  // the bug is found
    return summary(name);
  };
  const nlohmann::json s = campaign("adapting", "--time 6");
  const nlohmann::json& sizes = s["guide"]["sizes"];
  ASSERT_EQ(sizes.size(), 3u) << sizes.dump();
  int64_t programs = 0, new_buckets = 0;
  for (const char* range : {"2..10", "5..20", "6..40"}) {
    ASSERT_TRUE(sizes.contains(range)) << sizes.dump();
    EXPECT_GT(sizes[range]["programs"].get<int64_t>(), 0) << range;
    programs += sizes[range]["programs"].get<int64_t>();
    new_buckets += sizes[range]["new_buckets"].get<int64_t>();
  }
  EXPECT_EQ(programs, s["programs"].get<int64_t>());
  EXPECT_EQ(new_buckets, static_cast<int64_t>(s["saved"].size()));
  for (const auto& path : s["saved"]) {
    const std::string text = read_text(path.get<std::string>());
    const size_t at = text.find("meta steps = ");
    if (at != std::string::npos) {
      EXPECT_TRUE(text.compare(at, 18, "meta steps = 2..10") == 0 || text.compare(at, 18, "meta steps = 5..20") == 0) << text;
    }
  }

  std::ofstream(dir / "fixed.policy.json") << R"({"adapt_size": false})";
  for (const auto& [name, args] : {std::pair{"counted", std::string("--count 24 --time 30")}, std::pair{"blind", std::string("--time 3 --guide none")},
                                   std::pair{"fixed", "--time 3 --policy " + (dir / "fixed.policy.json").string()}}) {
    const nlohmann::json fixed = campaign(name, args);
    EXPECT_EQ(fixed["guide"]["sizes"], nlohmann::json::object()) << name;
    for (const auto& path : fixed["saved"]) EXPECT_EQ(read_text(path.get<std::string>()).find("meta steps"), std::string::npos);
  }
}

}  // namespace
}  // namespace uf::testing

// `uopfuzz fuzz` end to end: a clean run on our own renderer, and a broken renderer's bugs found,
// bucketed, minimised, saved, replayed, and not saved twice by a resumed campaign.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/campaign.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// A plug-in whose one helper of a narrow float family is wrong (tests/fuzz/campaign/plugins/NAME), and the
// fixed campaign that must find it: a bucket whose signature contains `family` (e.g. "bf16").
struct FamilyBug {
  std::string plugin;
  std::string family;
  int seed, count;
};

class Campaign : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-campaign"};
  fs::path dir = tmp.path();
  // Runs uopfuzz with a private compile cache, so results never depend on what an earlier run cached.
  Ran run(const std::string& args) const { return run_uopfuzz_isolated(args, dir / "cache"); }
  static nlohmann::json summary(const fs::path& f) { return nlohmann::json::parse(read_text(f)); }
  // The campaign finds the bug, saves each new bucket reduced to at most 12 nodes, and each saved file
  // alone replays with its signature while the built-in renderer agrees on it.
  void expect_found_reduced_and_replayed(const FamilyBug& bug) const;
};

TEST_F(Campaign, OwnRendererRunsClean) {
  const Ran r = run("fuzz --count 96 --jobs 2 -q --corpus " + (dir / "corpus").string() + " --json " + (dir / "s.json").string());
  EXPECT_EQ(r.code, 0) << r.out;
  const auto s = summary(dir / "s.json");
  for (const char* key : {"programs", "valid", "undefined", "mismatches", "crashes", "compile_errors", "render_errors",
                          "timeouts", "buckets", "seconds", "programs_per_second", "saved"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["programs"], 96);
  EXPECT_EQ(s["valid"].get<int>() + s["undefined"].get<int>(), 96);
  EXPECT_EQ(s["buckets"], 0) << s.dump(2);
  EXPECT_TRUE(s["saved"].empty());
  // 48 programs per worker: one batch each (the first size is 64), one compile each.
  EXPECT_EQ(s["batches"], 2) << s.dump(2);
  EXPECT_EQ(s["compiler_calls"], 2) << s.dump(2);
  EXPECT_DOUBLE_EQ(s["programs_per_compiler_call"].get<double>(), s["valid"].get<double>() / 2);
  EXPECT_GT(s["compile_seconds"].get<double>(), 0.0);
  EXPECT_LE(s["compile_seconds"].get<double>(), 2 * s["seconds"].get<double>());
}

TEST_F(Campaign, BrokenRendererIsFoundReducedSavedAndReplayed) {
  const std::string corpus = (dir / "corpus").string();
  // Straight-line programs: in a loop MUL rendered as ADD breaks index arithmetic first, a different
  // (and slower to reduce) finding; the loop plug-ins' tests cover loops.
  const std::string common =
      " --jobs 2 -q --without loop --cflags -O1 --renderer-cmd " + broken_renderer() + " --corpus " + corpus;
  const Ran first = run("fuzz --count 32" + common + " --json " + (dir / "a.json").string());
  ASSERT_EQ(first.code, 1) << first.out;  // new reproducers saved
  const auto s = summary(dir / "a.json");
  ASSERT_FALSE(s["saved"].empty());
  EXPECT_GE(s["mismatches"].get<int>(), 1);
  std::set<std::string> signatures;
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    verify(p);
    // MUL rendered as ADD can also move an index the bounds analysis proved in range: a crash, whose
    // reduction is a different test's subject. The mismatches are this test's.
    if (p.meta_value("class") && *p.meta_value("class") == "crash") continue;
    EXPECT_LE(program_cost(p).nodes, 12u) << path;
    ASSERT_NE(p.meta_value("signature"), nullptr);
    EXPECT_TRUE(signatures.insert(*p.meta_value("signature")).second) << "bucket saved twice";
    for (const char* key : {"seed", "generator", "worker", "cc", "cc_version", "cflags", "renderer", "found", "status"})
      EXPECT_NE(p.meta_value(key), nullptr) << key;
    EXPECT_FALSE(p.got.empty());
    // And the policy it was generated under: its seed regenerates it only with the same --without.
    ASSERT_NE(p.meta_value("without"), nullptr);
    EXPECT_EQ(*p.meta_value("without"), "loop");
    // One command reproduces it: meta carries the compiler, flags and renderer.
    const Ran replay = run("run " + path.get<std::string>());
    EXPECT_EQ(replay.code, 1) << replay.out;
    EXPECT_NE(replay.out.find("verdict: mismatch (" + *p.meta_value("signature") + ")"), std::string::npos) << replay.out;
    EXPECT_EQ(run("replay " + path.get<std::string>()).code, 0);                      // status open: must still fail
    EXPECT_EQ(run("run --renderer-cmd builtin " + path.get<std::string>()).code, 0);  // the right renderer agrees
  }
  // One root cause, one group: gcc fails with every flag off (no compiler culprit), so each MUL bucket,
  // whatever its dtype, is in the group `mismatch MUL`.
  size_t mul_buckets = 0;
  for (const auto& sig : s["signatures"]) mul_buckets += sig.get<std::string>().rfind("mismatch MUL ", 0) == 0;
  EXPECT_GE(mul_buckets, 2u) << s.dump(2);
  ASSERT_TRUE(s["groups"].contains("mismatch MUL")) << s["groups"].dump();
  EXPECT_EQ(s["groups"]["mismatch MUL"].size(), mul_buckets) << s["groups"].dump();
  for (const auto& [sig, culprit] : s["culprits"].items()) EXPECT_EQ(culprit_key(culprit), "") << sig << ": " << culprit;
  // Resume: the same campaign again saves nothing new.
  const Ran second = run("fuzz --count 32" + common + " --json " + (dir / "b.json").string());
  EXPECT_EQ(second.code, 0) << second.out;
  EXPECT_TRUE(summary(dir / "b.json")["saved"].empty());
}

void Campaign::expect_found_reduced_and_replayed(const FamilyBug& bug) const {
  nlohmann::json s;
  ASSERT_NO_FATAL_FAILURE(run_finding_campaign("--seed " + std::to_string(bug.seed) + " --count " + std::to_string(bug.count) +
                                                   " --jobs 2 -q --without loop --renderer-cmd " +
                                                   source_path("tests/fuzz/campaign/plugins/" + bug.plugin),
                                               dir, &s));
  ASSERT_FALSE(s["saved"].empty()) << s.dump(2);
  EXPECT_TRUE(s["errors"].empty()) << s.dump(2);
  bool family_saved = false;
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    verify(p);
    EXPECT_LE(program_cost(p).nodes, 12u) << path << "\n" << read_text(path.get<std::string>());
    const std::string* sig = p.meta_value("signature");
    ASSERT_NE(sig, nullptr) << path;
    family_saved |= sig->find(bug.family) != std::string::npos;
    ASSERT_NE(p.meta_value("renderer"), nullptr) << path;
    ASSERT_NE(p.meta_value("class"), nullptr) << path;
    EXPECT_NE(p.meta_value("renderer")->find(bug.plugin), std::string::npos) << *p.meta_value("renderer");
    // `run FILE` alone reproduces it: meta carries the compiler, flags and the plug-in.
    const Ran replay = run("run " + path.get<std::string>());
    EXPECT_EQ(replay.code, 1) << replay.out;
    EXPECT_NE(replay.out.find("verdict: " + *p.meta_value("class") + " (" + *sig + ")"), std::string::npos) << replay.out;
    EXPECT_EQ(run("run --renderer-cmd builtin " + path.get<std::string>()).code, 0) << path;
  }
  EXPECT_TRUE(family_saved) << "no saved bucket names " << bug.family << ":\n" << s.dump(2);
}

// Seed 3, 8 programs: an i64 beyond fp8e5m2fnuz's range is cast to it (the plug-in gives NaN where the
// reference saturates to 57344). One bucket, reduced and replayed in seconds.
TEST_F(Campaign, Fp8WithoutSaturationIsFoundReducedAndReplayed) {
  expect_found_reduced_and_replayed({"fp8_no_saturation.py", "fp8", 3, 8});
}

// Seed 9, 64 programs: a binary64 one step off a bf16 tie (value kind Boundary), cast to bf16:
// rounding once gives the odd neighbour.
TEST_F(Campaign, Bf16SingleRoundingIsFoundReducedAndReplayed) {
  expect_found_reduced_and_replayed({"bf16_single_rounding.py", "bf16", 9, 64});
}

// The double-rounding band itself, on a hand-written program: the plug-in is caught there and `reduce`
// brings the program to at most 12 nodes.
TEST_F(Campaign, Bf16SingleRoundingIsCaughtOnTheDoubleRoundingBandAndReduced) {
  const std::string plugin = " --renderer-cmd " + source_path("tests/fuzz/campaign/plugins/bf16_single_rounding.py");
  const std::string band = source_path("tests/fuzz/campaign/plugins/bf16_double_rounding_band.uop");
  const std::string signature = "mismatch CAST f64>bf16";
  const Ran found = run("run " + band + plugin);
  EXPECT_EQ(found.code, 1) << found.out;
  EXPECT_NE(found.out.find("got 1 = 1.0078125 -1.0078125"), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("verdict: mismatch (" + signature + ")"), std::string::npos) << found.out;
  EXPECT_EQ(run("run " + band).code, 0);  // the built-in renderer rounds twice, like the reference
  const std::string reduced = (dir / "reduced.uop").string();
  const Ran r = run("reduce " + band + plugin + " --time 60 -o " + reduced);
  ASSERT_EQ(r.code, 0) << r.out;
  const Program p = read_program(reduced);
  verify(p);
  EXPECT_LE(program_cost(p).nodes, 12u) << read_text(reduced);
  ASSERT_NE(p.meta_value("signature"), nullptr);
  EXPECT_EQ(*p.meta_value("signature"), signature);
  const Ran replay = run("run " + reduced);  // meta renderer: the plug-in
  EXPECT_EQ(replay.code, 1) << replay.out;
  EXPECT_NE(replay.out.find("verdict: mismatch (" + signature + ")"), std::string::npos) << replay.out;
  EXPECT_EQ(run("run --renderer-cmd builtin " + reduced).code, 0);
}

TEST_F(Campaign, UsageErrorsExitTwo) {
  EXPECT_EQ(run("fuzz --jobs 0").code, 2);
  EXPECT_EQ(run("fuzz --count 1 --corpus /dev/null/x").code, 2);
  EXPECT_EQ(run("gen --count 2 --seed 1").code, 2);
}

}  // namespace
}  // namespace uf::testing

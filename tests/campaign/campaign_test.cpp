// `uopfuzz fuzz` end to end: a clean run on our own renderer, and a broken renderer's bugs found,
// bucketed, minimised, saved, replayed, and not saved twice by a resumed campaign.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/run_uopfuzz.h"

namespace uf {
namespace {

namespace fs = std::filesystem;

using uf::testing::Ran;

// Runs uopfuzz with a private compile cache, so results never depend on what an earlier run cached.
Ran run(const std::string& args) {
  const std::string cache = (fs::temp_directory_path() / ("uopfuzz-campaign-cache-" + std::to_string(::getpid()))).string();
  return uf::testing::run_uopfuzz(args, "UOPFUZZ_CACHE_DIR=" + cache + " UOPFUZZ=" + UOPFUZZ_BINARY + " ");
}

class Campaign : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("uopfuzz-campaign-" + std::to_string(::getpid()));
  void SetUp() override { fs::remove_all(dir); fs::create_directories(dir); }
  void TearDown() override {
    fs::remove_all(dir);
    fs::remove_all(fs::temp_directory_path() / ("uopfuzz-campaign-cache-" + std::to_string(::getpid())));
  }
  nlohmann::json summary(const fs::path& f) {
    std::ifstream in(f);
    return nlohmann::json::parse(in);
  }
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
  const std::string common = " --jobs 2 -q --cflags -O1 --renderer-cmd " + std::string(UOPFUZZ_BROKEN_RENDERER) + " --corpus " + corpus;
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
    // One command reproduces it: meta carries the compiler, flags and renderer.
    const Ran replay = run("run " + path.get<std::string>());
    EXPECT_EQ(replay.code, 1) << replay.out;
    EXPECT_NE(replay.out.find("verdict: mismatch (" + *p.meta_value("signature") + ")"), std::string::npos) << replay.out;
    EXPECT_EQ(run("replay " + path.get<std::string>()).code, 0);  // status open: must still fail
    EXPECT_EQ(run("run --renderer-cmd builtin " + path.get<std::string>()).code, 0);  // the right renderer agrees
  }
  // Resume: the same campaign again saves nothing new.
  const Ran second = run("fuzz --count 32" + common + " --json " + (dir / "b.json").string());
  EXPECT_EQ(second.code, 0) << second.out;
  EXPECT_TRUE(summary(dir / "b.json")["saved"].empty());
}

TEST_F(Campaign, UsageErrorsExitTwo) {
  EXPECT_EQ(run("fuzz --jobs 0").code, 2);
  EXPECT_EQ(run("fuzz --count 1 --corpus /dev/null/x").code, 2);
  EXPECT_EQ(run("gen --count 2 --seed 1").code, 2);
}

}  // namespace
}  // namespace uf

// Optimizer findings (docs/format.md, "Signatures": ` under opts`) through a target whose optimizer has a
// bug (tests/fuzz/campaign/plugins/upcast_one_short.py: any UPCAST step runs every loop one iteration short):
// a failure is the optimizer's only when the same program with an empty opts line passes; it is reduced in
// program and sequence (candidates that differ only in their sequence are different kernels), its culprit
// is the step, and a campaign finds it unaided.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

const std::string kNest = source_path("tests/programs/loop_global_reduce_nest.uop");  // opts UPCAST:0:3 UNROLL:1:2
std::string plugin(const std::string& name) { return " --renderer-cmd " + source_path("tests/fuzz/campaign/plugins/" + name); }

class OptimizerFinding : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-optimizer-finding"};
  fs::path dir = tmp.path();
  Ran run(const std::string& args) const { return run_uopfuzz_isolated(args, dir / "cache"); }
};

TEST_F(OptimizerFinding, IsSignedSoOnlyWhenThePlainProgramPasses) {
  const Ran under = run("run " + kNest + plugin("upcast_one_short.py"));
  EXPECT_EQ(under.code, 1) << under.out;
  EXPECT_NE(under.out.find("verdict: mismatch (mismatch RANGE i32 under opts)"), std::string::npos) << under.out;
  // An empty line asks for no optimization: the target renders right.
  std::string plain = read_text(kNest);
  plain.replace(plain.find("opts UPCAST:0:3 UNROLL:1:2"), 26, "opts");
  std::ofstream(dir / "plain.uop") << plain;
  EXPECT_EQ(run("run " + (dir / "plain.uop").string() + plugin("upcast_one_short.py")).code, 0);
  // A target that fails the same without the sequence: a plain finding, whatever the line says.
  const Ran always = run("run " + kNest + plugin("loop_one_short.py"));
  EXPECT_NE(always.out.find("verdict: mismatch (mismatch RANGE i32)"), std::string::npos) << always.out;
}

TEST_F(OptimizerFinding, IsReducedInProgramAndSequenceAndBlamesItsStep) {
  const std::string reduced = (dir / "reduced.uop").string();
  const Ran r = run("reduce " + kNest + plugin("upcast_one_short.py") + " --time 120 -o " + reduced);
  ASSERT_EQ(r.code, 0) << r.out;
  const Program p = read_program(reduced);
  EXPECT_LE(program_cost(p).nodes, 8u) << read_text(reduced);
  ASSERT_NE(p.meta_value("signature"), nullptr);
  EXPECT_EQ(*p.meta_value("signature"), "mismatch RANGE i32 under opts");
  // UNROLL dropped and UPCAST's amount lowered: each candidate sequence ran as its own kernel.
  ASSERT_TRUE(p.opts.has_value()) << read_text(reduced);
  EXPECT_EQ(format_opts(*p.opts), "UPCAST:0:2") << read_text(reduced);
  const Ran t = run("triage " + reduced + plugin("upcast_one_short.py") + " --no-backends");
  EXPECT_NE(t.out.find("upcast_one_short opt UPCAST:0:2 (needs opt UPCAST:0:2: passes without it; rules: no switches)"),
            std::string::npos)
      << t.out;
}

TEST_F(OptimizerFinding, IsFoundByACampaignUnaided) {
  const fs::path corpus = dir / "corpus";
  const Ran f = run("fuzz --count 40 --jobs 1 -q --reduce-time 10 --culprit-time 10 --corpus " + corpus.string() + plugin("upcast_one_short.py"));
  ASSERT_EQ(f.code, 1) << f.out;
  int found = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    if (e.path().extension() != ".uop") continue;
    const Program p = read_program(e.path().string());
    ASSERT_NE(p.meta_value("signature"), nullptr);
    EXPECT_TRUE(p.meta_value("signature")->ends_with(" under opts")) << read_text(e.path());
    ASSERT_TRUE(p.opts.has_value());
    EXPECT_NE(format_opts(*p.opts).find("UPCAST:"), std::string::npos) << read_text(e.path());
    ++found;
  }
  EXPECT_GE(found, 1) << f.out;
}

}  // namespace
}  // namespace uf::testing

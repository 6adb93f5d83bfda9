// Three broken renderers of loops (tests/fuzz/campaign/plugins): each is caught on a hand-written loop
// program and signed by the value where it goes wrong (values inside loops are probed per iteration),
// and `uopfuzz reduce` brings that program to at most 15 nodes in the same bucket, replaying under the
// plug-in and agreeing under the built-in renderer.
//  - loop_one_short.py: every loop runs one iteration fewer: the RANGE's last iteration is missing;
//  - acc_init_hoisted.py: an accumulator's init inside a loop runs once per kernel, before the nest: the
//    accumulator's LOAD in the second outer iteration reads the last sum, not the init;
//  - gate_ignored.py: a gated LOAD loads even when its gate is false (through the clamped index): the
//    LOAD is wrong, and it needs no loop, so its reproducer has none.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

struct LoopBug {
  std::string plugin, input, signature;
  bool needs_loop = true;
};
void PrintTo(const LoopBug& b, std::ostream* os) { *os << b.plugin << " on " << b.input; }

class LoopPlugin : public ::testing::TestWithParam<LoopBug> {
 protected:
  TempDir tmp{"uopfuzz-loop-plugin"};
  fs::path dir = tmp.path();
  Ran run(const std::string& args) const { return run_uopfuzz_isolated(args, dir / "cache"); }
};

TEST_P(LoopPlugin, IsCaughtAndReducedToAFewNodes) {
  const LoopBug& bug = GetParam();
  const std::string plugin = " --renderer-cmd " + source_path("tests/fuzz/campaign/plugins/" + bug.plugin);
  const std::string input = source_path("tests/fuzz/campaign/plugins/" + bug.input);
  const std::string& signature = bug.signature;
  const Program original = read_program(input);
  const Ran found = run("run " + input + plugin);
  EXPECT_EQ(found.code, 1) << found.out;
  EXPECT_NE(found.out.find("verdict: mismatch (" + signature + ")"), std::string::npos) << found.out;
  EXPECT_EQ(run("run " + input).code, 0);  // the built-in renderer agrees with the reference

  const std::string reduced = (dir / "reduced.uop").string();
  const Ran r = run("reduce " + input + plugin + " --time 400 -o " + reduced);
  ASSERT_EQ(r.code, 0) << r.out;
  std::printf("%s on %s: %s", bug.plugin.c_str(), bug.input.c_str(), r.out.substr(r.out.rfind("reduce: ")).c_str());
  const Program p = read_program(reduced);
  verify(p);
  EXPECT_LE(program_cost(p).nodes, 15u) << read_text(reduced);
  EXPECT_LT(program_cost(p), program_cost(original));
  if (bug.needs_loop) {
    EXPECT_GE(program_cost(p).iterations, 1) << "a loop bug needs a loop:\n" << read_text(reduced);
  }
  ASSERT_NE(p.meta_value("signature"), nullptr);
  EXPECT_EQ(*p.meta_value("signature"), signature);
  ASSERT_NE(p.meta_value("renderer"), nullptr);
  EXPECT_NE(p.meta_value("renderer")->find(bug.plugin), std::string::npos);
  const Ran replay = run("run " + reduced);  // meta renderer: the plug-in
  EXPECT_EQ(replay.code, 1) << replay.out;
  EXPECT_NE(replay.out.find("verdict: mismatch (" + signature + ")"), std::string::npos) << replay.out;
  EXPECT_EQ(run("run --renderer-cmd builtin " + reduced).code, 0) << read_text(reduced);
}

INSTANTIATE_TEST_SUITE_P(Plugins, LoopPlugin,
                         ::testing::Values(LoopBug{"loop_one_short.py", "loop_matvec.uop", "mismatch RANGE i32"},
                                           LoopBug{"acc_init_hoisted.py", "loop_matvec.uop", "mismatch LOAD i32"},
                                           LoopBug{"gate_ignored.py", "loop_padded_conv.uop", "mismatch LOAD i32", false}),
                         [](const auto& info) {
                           std::string n = info.param.plugin.substr(0, info.param.plugin.find('.'));
                           std::erase(n, '_');
                           return n;
                         });

// The plug-ins leave what they do not break alone: programs without loops, accumulators or gates
// render as the built-in renderer renders them, and every example loop program runs, compiled, under
// each (a mismatch is allowed, a compile or render error is not).
TEST(LoopPlugins, RenderEveryExampleProgram) {
  TempDir tmp{"uopfuzz-loop-plugin"};
  for (const char* plugin : {"loop_one_short.py", "acc_init_hoisted.py", "gate_ignored.py"})
    for (const auto& e : fs::directory_iterator(source_path("tests/programs"))) {
      if (e.path().extension() != ".uop") continue;
      const Ran r = run_uopfuzz_isolated(
          "run " + e.path().string() + " --renderer-cmd " + source_path(std::string("tests/fuzz/campaign/plugins/") + plugin),
          tmp.path() / "cache");
      EXPECT_TRUE(r.code == 0 || r.out.find("verdict: mismatch") != std::string::npos) << plugin << " on " << e.path() << ":\n"
                                                                                       << r.out;
    }
}

}  // namespace
}  // namespace uf::testing

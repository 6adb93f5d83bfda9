// The culprit search (fuzz/oracle/culprit.h) through `uopfuzz triage`: gcc's flags delta-debugged (a test
// compiler whose bug one flag switches on, and gcc 12's SLP finding with the renderer's workaround taken
// out), clang's passes bisected (the VZEXT_MOVL backend crash), and the group a bucket belongs to.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/oracle/culprit.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

// out[0] = in[0] * in[1] (3 * 5): wrong wherever MUL i32 is compiled as ADD.
const char* kMul =
    "uops 1\nmeta signature = mismatch MUL i32\n"
    "%0 = BUFFER i32[2] slot=0\n%1 = BUFFER i32[1] slot=1\n%2 = CONST i32 0\n%3 = CONST i32 1\n"
    "%4 = INDEX i32 %0 %2\n%5 = LOAD i32 %4\n%6 = INDEX i32 %0 %3\n%7 = LOAD i32 %6\n%8 = MUL i32 %5 %7\n"
    "%9 = INDEX i32 %1 %2\n%10 = STORE void %9 %8\n%11 = SINK void %10\ndata 0 = 3 5\n";

class Culprit : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-culprit"};
  TempCache cache;
  std::string env = "UOPFUZZ_CACHE_DIR=" + cache.dir + " UOPFUZZ=" + uopfuzz_binary() + " ";

  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(tmp / name) << text;
    return (tmp / name).string();
  }
  // `triage --write` of `f` (matrix: its own compiler), then its `meta culprit`.
  std::string culprit_of(const std::string& f, const std::string& args) {
    const Ran r = run_uopfuzz("triage --write " + f + " " + args, env);
    EXPECT_EQ(r.code, 0) << r.out;
    for (const std::string& line : read_lines(f))
      if (line.rfind("meta culprit = ", 0) == 0) return line.substr(15);
    ADD_FAILURE() << "no meta culprit in " << f << "\n" << r.out;
    return "";
  }
};

TEST_F(Culprit, AGccBugTiedToOneFlagIsThatFlag) {
  const std::string cc = source_path("tests/fuzz/oracle/plugins/cc_tree_pre_bug.sh");
  const std::string c = culprit_of(file("mul.uop", kMul), "--matrix " + cc + ":-O2 --cc " + cc + " --cflags -O2");
  EXPECT_EQ(culprit_key(c), "gcc -ftree-pre") << c;
  EXPECT_NE(c.find("-fno-tree-pre"), std::string::npos) << c;
}

TEST_F(Culprit, ARendererBugNamesNoCompilerFlag) {
  // MUL rendered as ADD by the renderer: gcc fails with every optimisation flag off, so no flag is named.
  const std::string c = culprit_of(file("mul.uop", kMul), "--matrix gcc:-O2 --cflags -O2 --renderer-cmd " + broken_renderer());
  EXPECT_EQ(c.rfind("none (gcc: fails with all of the ", 0), 0u) << c;
  EXPECT_EQ(culprit_key(c), "");
}

TEST_F(Culprit, GccSlpFoldIsTheSlpVectorizer) {
  // corpus/mismatch-cast-f32-f64-gcc-slp-fold.uop (gcc 12), rendered without the renderer's workaround.
  std::ifstream in(source_path("corpus/mismatch-cast-f32-f64-gcc-slp-fold.uop"));
  std::string text, line;
  while (std::getline(in, line))
    if (line.rfind("meta renderer", 0) != 0) text += line + "\n";
  const std::string c = culprit_of(
      file("slp.uop", text), "--matrix gcc:-O3 --renderer-cmd " + source_path("tests/fuzz/oracle/plugins/f32_unguarded.sh"));
  EXPECT_EQ(c.rfind("gcc ", 0), 0u) << c;
  EXPECT_NE(culprit_key(c).find("-ftree-slp-vectorize"), std::string::npos) << c;
}

TEST_F(Culprit, ClangBackendCrashIsBisectedToTheVectorizer) {
  // corpus/compile-error-clang15-vzext-movl.uop: clang-15 -O3 -mavx512fp16 crashes in instruction
  // selection on what the loop vectorizer made; with its pass skipped it compiles.
  const std::string f = file("vz.uop", read_text(source_path("corpus/compile-error-clang15-vzext-movl.uop")));
  const std::string c = culprit_of(f, "--matrix clang-15:-O3");
  EXPECT_EQ(culprit_key(c), "clang pass LoopVectorizePass") << c;
  EXPECT_NE(c.find("opt-bisect-limit="), std::string::npos) << c;
}

TEST(CulpritGroups, ANamedCulpritGroupsAcrossOpsOtherwiseTheOpAcrossDtypes) {
  EXPECT_EQ(group_key("mismatch MUL i32", ""), "mismatch MUL");
  EXPECT_EQ(group_key("mismatch MUL u8", "none (fails with all of the 100 -f flags '-O2' enables off)"), "mismatch MUL");
  EXPECT_EQ(group_key("mismatch CAST f32>f64", ""), "mismatch CAST");
  EXPECT_EQ(group_key("mismatch STORE f32 address", ""), "mismatch STORE");
  EXPECT_EQ(group_key("crash SIGFPE", ""), "crash SIGFPE");
  EXPECT_EQ(group_key("compile-error", ""), "compile-error");
  const std::string slp = "gcc -finline or -ftree-slp-vectorize (the -fno- of each alone makes it pass; ...)";
  EXPECT_EQ(group_key("mismatch CAST f32>f64", slp), group_key("mismatch EXP2 f32", slp));
  EXPECT_EQ(group_key("mismatch CAST f32>f64", slp), "gcc -finline or -ftree-slp-vectorize");
  EXPECT_EQ(group_key("crash SIGILL", slp), group_key("mismatch EXP2 f32", slp));  // one cause, whatever it shows as
  EXPECT_EQ(culprit_key("tinygrad switch uop/symbolic.py:12 (passes with it off; 9 checks)"),
            "tinygrad switch uop/symbolic.py:12");
  // An optimizer finding is a look of its own until a culprit names its cause.
  EXPECT_EQ(group_key("mismatch LOAD i16 under opts", ""), "mismatch LOAD under opts");
  EXPECT_EQ(group_key("render-error AssertionError at codegen/late/linearizer.py:80 under opts", ""),
            "render-error AssertionError at codegen/late/linearizer.py:80 under opts");
  EXPECT_EQ(group_key("mismatch RANGE i32 under opts", "tg opt UPCAST:0:2 (passes without it, 1 checks)"), "tg opt UPCAST:0:2");
  EXPECT_TRUE(is_render_timeout("render-error timeout under opts"));
  EXPECT_EQ(without_opts_mark("mismatch LOAD i16 under opts"), "mismatch LOAD i16");
}

// The switch sets a culprit names (what `fuzz --known` switches off): alternatives one by one, a set
// that passes only together as one; none for a culprit of no switch, a trigger, or none.
TEST(CulpritText, SwitchSetsOfACulprit) {
  using Sets = std::vector<std::vector<std::string>>;
  EXPECT_EQ(culprit_switch_sets("tinygrad switch a.py:1 (passes with it off; 3 checks)"), (Sets{{"a.py:1"}}));
  EXPECT_EQ(culprit_switch_sets("tinygrad-x86 switches a.py:1 or b.py:2 (each alone off makes it pass)"),
            (Sets{{"a.py:1"}, {"b.py:2"}}));
  EXPECT_EQ(culprit_switch_sets("tinygrad switches a.py:1 b.py:2 (together off make it pass)"), (Sets{{"a.py:1", "b.py:2"}}));
  EXPECT_EQ(culprit_switch_sets("trigger tinygrad switch a.py:1 (passes with it off on the finding's data, but ...)"), Sets{});
  EXPECT_EQ(culprit_switch_sets("none (switches: out of time)"), Sets{});
  EXPECT_EQ(culprit_switch_sets("gcc -finline or -ftree-slp-vectorize (the -fno- of each alone makes it pass)"), Sets{});
}

}  // namespace
}  // namespace uf::testing

// `uopfuzz export --as c`: one C file that stands alone. Built with the command its own header gives, in
// a directory holding nothing else, it exits 0 when the target agrees with the reference, prints the
// first difference and exits 1 on a miscompile, and dies by the signal a crashing kernel raises. (Every
// corpus file is checked the same way by tests/cli/export_check.py.)
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

struct Built {
  bool compiled = false;
  int exit_code = -1, signal = 0;
  std::string out;
};

class Export : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-export"};
  fs::path dir = tmp.path();

  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  Ran export_c(const std::string& args) {
    return run_uopfuzz_isolated("export " + args + " --as c -o " + (dir / "repro.c").string(), dir / "cache");
  }
  // Builds repro.c as its header says and runs it, both in `dir`.
  Built build_and_run() {
    const std::string text = read_text(dir / "repro.c");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, std::regex(R"(/\* Build: (.*) \*/)"))) << text.substr(0, 2000);
    Built b;
    const std::string cd = "cd '" + dir.string() + "' && ";
    b.compiled = std::system((cd + m[1].str() + " > build.log 2>&1").c_str()) == 0;
    if (!b.compiled) return b;
    const int status = std::system((cd + "./repro > run.log 2>&1").c_str());
    if (WIFEXITED(status)) {
      b.exit_code = WEXITSTATUS(status);
      if (b.exit_code > 128) b.signal = b.exit_code - 128;  // the shell reports a killed child as 128 + signal
    }
    b.out = read_text(dir / "run.log");
    return b;
  }
};

TEST_F(Export, AProgramTheTargetGetsRightExitsZero) {
  for (const char* name : {"dot_product.uop", "loop_gated_load.uop", "vector_lanes.uop", "casts_where.uop"}) {
    const Ran r = export_c(example_path(name));
    ASSERT_EQ(r.code, 0) << r.out;
    const Built b = build_and_run();
    ASSERT_TRUE(b.compiled) << name << "\n" << read_text(dir / "build.log");
    EXPECT_EQ(b.exit_code, 0) << name << "\n" << b.out;
    EXPECT_EQ(b.out, "ok: every buffer agrees with the reference\n") << name;
  }
}

// Integer MUL rendered as ADD: 3 * 5 comes out as 8.
TEST_F(Export, AMiscompilePrintsItsFirstDifferenceAndExitsOne) {
  const std::string f = file("mul.uop",
                             "uops 1\n%0 = BUFFER i32[3] slot=0\n%1 = CONST i32 0\n%2 = CONST i32 1\n%3 = INDEX i32 %0 %1\n"
                             "%4 = LOAD i32 %3\n%5 = INDEX i32 %0 %2\n%6 = LOAD i32 %5\n%7 = MUL i32 %4 %6\n%8 = CONST i32 2\n"
                             "%9 = INDEX i32 %0 %8\n%10 = STORE void %9 %7\n%11 = SINK void %10\ndata 0 = 3 5 0\n");
  const Ran r = export_c(f + " --renderer-cmd " + source_path("tests/fuzz/campaign/broken_renderer.sh"));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = read_text(dir / "repro.c");
  EXPECT_NE(text.find("/* buf0: data 0 = 3 5 0 */"), std::string::npos) << text;
  EXPECT_NE(text.find("/* buf0: expect 0 = 3 5 15 */"), std::string::npos) << text;
  EXPECT_NE(text.find("broken_renderer.sh"), std::string::npos);  // which target rendered it
  const Built b = build_and_run();
  ASSERT_TRUE(b.compiled) << read_text(dir / "build.log");
  EXPECT_EQ(b.exit_code, 1) << b.out;
  EXPECT_EQ(b.out, "buf0[2] = 8 expected 15\n");
}

TEST_F(Export, ACrashingKernelDiesByItsSignal) {
  const std::string f = file("segv.uop",
                             "uops 1\nmeta behaviour = segv\n%0 = BUFFER f32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX f32 %0 %1\n"
                             "%3 = CONST f32 1.0\n%4 = STORE void %2 %3\n%5 = SINK void %4\n");
  const Ran r = export_c(f + " --renderer-cmd " + source_path("tests/codegen/plugins/behave.sh"));
  ASSERT_EQ(r.code, 0) << r.out;
  const Built b = build_and_run();
  ASSERT_TRUE(b.compiled) << read_text(dir / "build.log");
  EXPECT_EQ(b.signal, SIGSEGV) << b.exit_code << "\n" << b.out;
}

TEST_F(Export, NothingToExportIsExitTwoWithTheReason) {
  const std::string undefined = file("u.uop",
                                     "uops 1\n%0 = BUFFER f32[1] slot=0\n%1 = BUFFER i32[1] slot=1\n%2 = CONST i32 0\n"
                                     "%3 = INDEX f32 %0 %2\n%4 = LOAD f32 %3\n%5 = CAST i32 %4\n%6 = INDEX i32 %1 %2\n"
                                     "%7 = STORE void %6 %5\n%8 = SINK void %7\ndata 0 = nan\n");
  Ran r = export_c(undefined);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("the reference is UNDEFINED at %5"), std::string::npos) << r.out;
  std::string chain = read_text(example_path("chain.uop"));
  chain.replace(chain.find("uops 1\n"), 7, "uops 1\nmeta behaviour = exit1\n");
  const std::string refused = file("r.uop", chain);
  r = export_c(refused + " --renderer-cmd " + source_path("tests/codegen/plugins/behave.sh"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("a render-error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refusing on purpose"), std::string::npos) << r.out;
  r = run_uopfuzz("export " + example_path("chain.uop") + " --as ptx");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--as 'ptx': expected c"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "repro.c"));  // nothing half-written
}

// reduce --c: C-Vise on the exported kernel. A kernel that stores 42 where the program stores 1 when
// optimised (a stand-in for wrong code) keeps its wrong store; one that stores 42 at every level (the
// renderer's bug, not the compiler's), or divides by zero (undefined behaviour), is refused.
TEST_F(Export, ReduceCKeepsTheFailureAndRefusesUndefinedBehaviour) {
  if (std::system("command -v cvise > /dev/null") != 0) GTEST_SKIP() << "cvise not installed (tools/setup installs it)";
  auto program = [&](const std::string& behaviour) {
    return file(behaviour + ".uop", "uops 1\nmeta behaviour = " + behaviour +
                                        "\n%0 = BUFFER f32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX f32 %0 %1\n"
                                        "%3 = CONST f32 1.0\n%4 = STORE void %2 %3\n%5 = SINK void %4\n");
  };
  const std::string behave = " --renderer-cmd " + source_path("tests/codegen/plugins/behave.sh");
  Ran r = run_uopfuzz_isolated("reduce --c " + program("optimized42") + behave + " --time 8 -o " + (dir / "repro.c").string(),
                               dir / "cache");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = read_text(dir / "repro.c");
  EXPECT_NE(text.find("Reduced with C-Vise"), std::string::npos) << text;
  const Built b = build_and_run();
  ASSERT_TRUE(b.compiled) << read_text(dir / "build.log");
  EXPECT_EQ(b.exit_code, 1) << b.out;
  EXPECT_EQ(b.out, "buf0[0] = 42 expected 1\n");  // the same wrong value, not just some difference
  r = run_uopfuzz_isolated("reduce --c " + program("fpe") + behave + " --time 20 -o " + (dir / "fpe.c").string(), dir / "cache");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("undefined behaviour"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "fpe.c"));
  r = run_uopfuzz_isolated("reduce --c " + program("store42") + behave + " --time 20 -o " + (dir / "s.c").string(), dir / "cache");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("the bug is the renderer's"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace uf::testing

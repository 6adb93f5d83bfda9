// `uopfuzz triage` and `fuzz --matrix`: blame across compilers and flags, written back as `meta blame`;
// and a batch renderer recorded in a reproducer so that `uopfuzz run FILE` speaks to it as one; and the
// renderer plug-in's front end asked whether users reach a finding (`meta reachable`).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// out[0] = in[0] * in[1]: wrong wherever MUL i32 is rendered as ADD (3 * 5 = 15, not 8).
const char* kMul =
    "uops 1\n"
    "%0 = BUFFER i32[2] slot=0\n%1 = BUFFER i32[1] slot=1\n%2 = CONST i32 0\n%3 = CONST i32 1\n"
    "%4 = INDEX i32 %0 %2\n%5 = LOAD i32 %4\n%6 = INDEX i32 %0 %3\n%7 = LOAD i32 %6\n%8 = MUL i32 %5 %7\n"
    "%9 = INDEX i32 %1 %2\n%10 = STORE void %9 %8\n%11 = SINK void %10\ndata 0 = 3 5\n";

class Triage : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-triage"};
  TempCache cache;
  std::string env = "UOPFUZZ_CACHE_DIR=" + cache.dir + " UOPFUZZ=" + uopfuzz_binary() + " ";

  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(tmp / name) << text;
    return (tmp / name).string();
  }
  Ran run(const std::string& args) { return run_uopfuzz(args, env); }
  // The `meta blame` value of a file, or "" without one.
  static std::string blame_of(const std::string& path) {
    for (const std::string& line : read_lines(path))
      if (line.rfind("meta blame = ", 0) == 0) return line.substr(13);
    return "";
  }
};

TEST_F(Triage, ABrokenRendererIsBlamedOnEveryConfiguration) {
  const std::string f = file("mul.uop", std::string("meta renderer = ") + broken_renderer() +
                                            "\nmeta status = open\nmeta signature = mismatch MUL i32\n" + kMul);
  const std::string before = read_text(f);
  const Ran dry = run("triage " + f + " --matrix 'gcc:-O0, gcc:-O2 -fwrapv'");
  ASSERT_EQ(dry.code, 0) << dry.out;
  EXPECT_NE(dry.out.find("blame: gcc:-O0, gcc:-O2 -fwrapv"), std::string::npos) << dry.out;
  EXPECT_EQ(read_text(f), before);  // without --write the file is left alone
  const Ran r = run("triage --write " + f + " --matrix gcc:-O0,gcc:-O2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(blame_of(f), "gcc:-O0, gcc:-O2");
  const Ran again = run("replay " + f);  // still a valid reproducer
  EXPECT_EQ(again.code, 0) << again.out;
}

TEST_F(Triage, AMiscompileAtOneLevelIsBlamedOnThatLevelOnly) {
  // A "compiler" that gets integer MUL wrong at -O3 only: gcc, after rewriting its input there.
  const std::string cc =
      file("cc-o3-bug.sh",
           "#!/bin/sh\n"
           "case \" $* \" in *\" -O3 \"*)\n"
           "  for a; do case $a in *.c) sed -i '/end of prelude/,$ s/uf_mul_/uf_add_/g' \"$a\";; esac; done;;\n"
           "esac\nexec gcc \"$@\"\n");
  fs::permissions(cc, fs::perms::owner_all);
  const std::string f = file("mul.uop", std::string("meta signature = mismatch MUL i32\n") + kMul);
  const Ran r = run("triage --write " + f + " --matrix " + cc + ":-O0," + cc + ":-O3,gcc:-O3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(cc + ":-O3  fails (mismatch MUL i32)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gcc:-O3" + std::string(cc.size() - 3 + 2, ' ') + "passes"), std::string::npos) << r.out;
  EXPECT_EQ(blame_of(f), cc + ":-O3");
}

TEST_F(Triage, BadMatrixIsAUsageError) {
  const std::string f = file("mul.uop", kMul);
  for (const auto& [matrix, message] :
       std::vector<std::pair<std::string, std::string>>{{"gcc", "--matrix: entry 'gcc' is not CC:FLAGS"},
                                                        {"gcc:-O0,,clang:-O2", "--matrix: empty entry"},
                                                        {":-O2", "has no compiler"},
                                                        {"'gcc:-O2 \"-DX'", "unbalanced"},
                                                        {"no-such-cc-xyz:-O2", "compiler 'no-such-cc-xyz' not found"}}) {
    const Ran r = run("triage " + f + " --matrix " + (matrix[0] == '\'' ? matrix : "'" + matrix + "'"));
    EXPECT_EQ(r.code, 2) << matrix << "\n" << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << matrix << "\n" << r.out;
  }
  const Ran fz = run("fuzz --count 1 -q --corpus " + (tmp / "c").string() + " --matrix gcc-O3");
  EXPECT_EQ(fz.code, 2) << fz.out;
  EXPECT_NE(fz.out.find("--matrix: entry 'gcc-O3' is not CC:FLAGS"), std::string::npos) << fz.out;
  const std::string bad = file("bad.uop", "uops 1\n%0 = FOO i32\n");
  const Ran b = run("triage " + bad + " --matrix gcc:-O0");
  EXPECT_EQ(b.code, 2) << b.out;
  EXPECT_NE(b.out.find(bad + ":2:"), std::string::npos) << b.out;
}

TEST_F(Triage, FuzzWithAMatrixSavesEachBucketWithItsBlame) {
  const fs::path corpus = tmp / "corpus";
  const Ran r = run("fuzz --count 16 --inputs 1 -q --without loop,vector --cflags -O1 --renderer-cmd " + broken_renderer() +
                    " --reduce-time 2 --corpus " + corpus.string() + " --matrix gcc:-O0,gcc:-O2");
  ASSERT_EQ(r.code, 1) << r.out;
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    ++files;
    EXPECT_EQ(blame_of(e.path().string()), "gcc:-O0, gcc:-O2") << read_text(e.path());
  }
  EXPECT_GT(files, 0u);
}

TEST_F(Triage, ABatchRendererIsRecordedAndReplayedAsOne) {
  const std::string plugin = source_path("tests/fuzz/campaign/plugins/batch_passthru.py");
  const std::string f = file("refused.uop", std::string("meta refuse = by design\n") + kMul);
  const std::string out = (tmp / "reduced.uop").string();
  const Ran red = run("reduce " + f + " --time 30 -o " + out + " --renderer-batch " + plugin);
  ASSERT_EQ(red.code, 0) << red.out;
  const std::string text = read_text(out);
  EXPECT_NE(text.find("meta renderer = " + plugin + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("meta renderer_protocol = batch\n"), std::string::npos) << text;
  const std::string counter = (tmp / "starts").string();
  const Ran replayed = run_uopfuzz("run " + out, env + "UOPFUZZ_PLUGIN_COUNTER=" + counter + " ");
  EXPECT_EQ(replayed.code, 1) << replayed.out;
  EXPECT_NE(replayed.out.find("verdict: render-error"), std::string::npos) << replayed.out;
  EXPECT_NE(replayed.out.find("refused: by design"), std::string::npos) << replayed.out;
  for (const std::string& line : read_lines(counter)) EXPECT_EQ(line, "batch 1");
  // --renderer-cmd overrides the recorded renderer, and a one-program reduction drops the protocol.
  const Ran one = run("reduce " + out + " --time 30 -o " + out + " --renderer-cmd " + plugin);
  ASSERT_EQ(one.code, 0) << one.out;
  EXPECT_EQ(read_text(out).find("renderer_protocol"), std::string::npos) << read_text(out);
  const Ran both = run("run " + out + " --renderer-cmd x --renderer-batch y");
  EXPECT_EQ(both.code, 2) << both.out;
}

// The SDK's test plug-in reaches a program with `meta front = yes` through its front end (level "front"),
// answering with the expect lines it was sent (the reference's: 3 * 5) and the file's got lines. --no-blame
// and --no-culprit leave a blame written by hand as it was.
TEST_F(Triage, TheFrontEndSaysWhetherUsersReachTheFinding) {
  const std::string plugin = source_path("tests/plugins/sdk_plugin.py");
  const std::string front = file("front.uop", std::string("meta front = yes\nmeta blame = by hand\n") + kMul + "got 1 = 8\n");
  const std::string kernel = file("kernel.uop", kMul);
  const Ran r = run("triage --no-blame --no-culprit --write --renderer-cmd " + plugin + " " + front + " " + kernel);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("  reachable: front (expect {0: [3, 5], 1: [15]} got {1: [8]})\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  reachable: kernel (no front-end form)\n"), std::string::npos) << r.out;
  const std::string text = read_text(front);
  EXPECT_NE(text.find("meta reachable = front (expect {0: [3, 5], 1: [15]} got {1: [8]})\n"), std::string::npos) << text;
  EXPECT_NE(text.find("meta blame = by hand\n"), std::string::npos) << text;
  EXPECT_NE(read_text(kernel).find("meta reachable = kernel (no front-end form)\n"), std::string::npos);
  // --no-reach asks nothing; a malformed answer is printed and writes nothing.
  const std::string bad = file("bad.uop", std::string("meta front = bad\n") + kMul);
  const Ran b = run("triage --no-blame --no-culprit --write --renderer-cmd " + plugin + " " + bad);
  EXPECT_EQ(b.code, 0) << b.out;
  EXPECT_NE(b.out.find("no reachability"), std::string::npos) << b.out;
  EXPECT_EQ(read_text(bad).find("meta reachable"), std::string::npos);
  const Ran none = run("triage --no-blame --no-culprit --no-reach --renderer-cmd " + plugin + " " + kernel);
  EXPECT_EQ(none.out.find("reachable:"), std::string::npos) << none.out;
}

// A renderer whose handshake lists sibling backends: triage runs the file on each, asks each front end,
// and records `meta backends`; --no-backends skips it.
TEST_F(Triage, TheFindingRunsOnEveryBackendTheTargetLists) {
  const std::string plugin = source_path("tests/plugins/sdk_plugin.py");
  const std::string front = file("front.uop", std::string("meta front = yes\n") + kMul);
  const std::string with = env + "SDK_PLUGIN_BACKENDS=1 ";
  const Ran r = run_uopfuzz("triage --no-blame --no-culprit --no-reach --write --renderer-cmd " + plugin + " " + front, with);
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string want = "empty: mismatch CONST i32 (as found), front form fails; exact: passes";
  EXPECT_NE(r.out.find("  backend empty: mismatch CONST i32 (as found), front form fails\n"), std::string::npos) << r.out;
  EXPECT_NE(read_text(front).find("meta backends = " + want + "\n"), std::string::npos) << read_text(front);
  const Ran skip = run_uopfuzz("triage --no-blame --no-culprit --no-reach --no-backends --renderer-cmd " + plugin + " " + front, with);
  EXPECT_EQ(skip.out.find("backend "), std::string::npos) << skip.out;
}

}  // namespace
}  // namespace uf::testing

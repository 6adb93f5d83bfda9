// The command line as a user meets it: exit codes, FILE:LINE messages, atomic output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/gen/policy.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

Ran run(const std::string& args) { return run_uopfuzz(args); }

class Cli : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-cli"};
  fs::path dir = tmp.path();
  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  std::string example(const std::string& name) { return example_path(name); }
};

// `--without`'s help lists every name the option takes, from the one table (fuzz/gen/without.cpp), in
// each subcommand that has it, and then the form OP:int.
TEST_F(Cli, WithoutHelpListsEveryName) {
  const std::vector<std::string> table = without_names();
  for (const char* sub : {"gen", "fuzz", "policy", "agree"}) {
    const Ran r = run(std::string(sub) + " --help");
    ASSERT_EQ(r.code, 0) << r.out;
    const size_t at = r.out.find("--without");
    ASSERT_NE(at, std::string::npos) << sub;
    const size_t of = r.out.find("of:", at);
    const size_t next = r.out.find(", or OP:int", of);
    ASSERT_NE(of, std::string::npos) << r.out.substr(at, 300);
    ASSERT_LT(next, r.out.find("\n  -", of)) << r.out.substr(at, 1000);  // before the next option
    std::istringstream listed(r.out.substr(of + 3, next - of - 3));
    std::vector<std::string> names;
    for (std::string w; listed >> w;) names.push_back(w);
    EXPECT_EQ(names, table) << sub;
  }
}

TEST_F(Cli, InterpPrintsExpectLines) {
  const Ran r = run("interp " + example("alloc_after.uop"));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "expect 0 = 1.0 2.0\nexpect 1 = 9.0\n");
}

TEST_F(Cli, InterpUndefinedExitsThree) {
  const std::string f = file("u.uop",
                             "uops 1\n%0 = BUFFER f32[1] slot=0\n%1 = BUFFER i32[1] slot=1\n%2 = CONST i32 0\n"
                             "%3 = INDEX f32 %0 %2\n%4 = LOAD f32 %3\n%5 = CAST i32 %4\n%6 = INDEX i32 %1 %2\n"
                             "%7 = STORE void %6 %5\n%8 = SINK void %7\ndata 0 = nan\n");
  const Ran r = run("interp " + f);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find(f + ":7: UNDEFINED at %5: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nan"), std::string::npos) << r.out;
}

TEST_F(Cli, CheckCatchesAWrongExpectLine) {
  std::string text = read_text(example("alloc_after.uop"));
  text.replace(text.find("expect 1 = 9.0"), 14, "expect 1 = 8.0");
  const Ran r = run("interp --check " + file("wrong.uop", text));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("file expects 8.0, reference gives 9.0"), std::string::npos) << r.out;
}

TEST_F(Cli, BadInputIsExitTwoWithLocation) {
  const std::string f = file("bad.uop", "uops 1\n%0 = BUFFER f32[1] slot=0\n%1 = CONST i32 0\n%2 = ADD f32 %0 %1\n");
  for (const char* cmd : {"fmt ", "interp "}) {
    const Ran r = run(cmd + f);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, f + ":4: ADD needs values, not memory (LOAD it first)\n");
  }
  const Ran missing = run("fmt " + (dir / "nope.uop").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("nope.uop: cannot read file"), std::string::npos) << missing.out;
  EXPECT_EQ(run("fmt " + dir.string()).code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
  EXPECT_EQ(run("fmt").code, 2);
}

// --f16/--bf16: soft or native, from the flag or the file's meta; anything else is a usage error.
TEST_F(Cli, NarrowFloatModes) {
  const std::string chain = example("f16_native_chain.uop");
  const Ran bad = run("render --f16 bogus " + chain);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("uopfuzz: --f16 'bogus': expected soft or native"), std::string::npos) << bad.out;
  EXPECT_EQ(run("run --bf16 half " + chain).code, 2);
  EXPECT_NE(run("render --f16 native " + chain).out.find("typedef _Float16 uf_h;"), std::string::npos);
  EXPECT_EQ(run("render " + chain).out.find("uf_h val"), std::string::npos);
  std::string text = read_text(chain);
  text.insert(text.find('\n') + 1, "meta f16 = native\n");
  EXPECT_EQ(run("run " + file("native.uop", text)).code, 0);
  text.replace(text.find("meta f16 = native"), 17, "meta f16 = sooft");
  EXPECT_EQ(run("run " + file("typo.uop", text)).code, 2);
}

// A file's meta render_timeout (what a render-error timeout holds for) must be a positive number of seconds.
TEST_F(Cli, ARecordedRenderTimeoutIsAPositiveNumber) {
  std::string text = read_text(example("chain.uop"));
  text.insert(text.find('\n') + 1, "meta render_timeout = 2.5\n");
  EXPECT_EQ(run("run " + file("timeout.uop", text)).code, 0);
  for (const char* bad : {"0", "-1", "soon", "inf"}) {
    std::string typo = text;
    typo.replace(typo.find("= 2.5"), 5, std::string("= ") + bad);
    const Ran r = run("run " + file("bad.uop", typo));
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.out.find(std::string("meta render_timeout '") + bad + "': expected a positive number of seconds"),
              std::string::npos)
        << r.out;
  }
}

TEST_F(Cli, FmtIsCanonicalAndWritesAtomically) {
  const std::string out = (dir / "out.uop").string();
  ASSERT_EQ(run("fmt " + example("dot_product.uop") + " -o " + out).code, 0);
  const Ran again = run("fmt " + out);
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(again.out, read_text(out));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename().string().rfind(".tmp", 0), std::string::npos);
  EXPECT_EQ(run("fmt " + example("dot_product.uop") + " -o " + (dir / "no/such/dir/x.uop").string()).code, 2);
}

// `uopfuzz policy` prints what `--policy` reads: the printed default changes nothing, byte for byte.
TEST_F(Cli, PolicyRoundTripsThroughGen) {
  const Ran printed = run("policy");
  ASSERT_EQ(printed.code, 0) << printed.out;
  const std::string p = file("p.json", printed.out);
  const Ran plain = run("gen --seed 5"), with = run("gen --seed 5 --policy " + p);
  ASSERT_EQ(plain.code, 0);
  EXPECT_EQ(with.code, 0);
  EXPECT_EQ(with.out, plain.out);
  // A real change is recorded: the program names the policy that made it.
  const Ran changed = run("gen --seed 5 --policy " + file("c.json", R"({"p_swarm": 0})"));
  EXPECT_EQ(changed.code, 0);
  EXPECT_NE(changed.out.find("meta policy = "), std::string::npos) << changed.out.substr(0, 400);
  // --without applies after --policy, and `policy --without` shows what it changed.
  const Ran without = run("policy --without alloc");
  EXPECT_NE(without.out.find("\"allow_alloc\": false"), std::string::npos);
  EXPECT_NE(printed.out.find("\"allow_alloc\": true"), std::string::npos);
}

// `policy --fit DIR`: the policy moved toward a target's kernels, a policy `gen` reads; a kernel that does
// not read is exit 2 with its FILE:LINE, and so is a directory without kernels.
TEST_F(Cli, PolicyFitsATargetsKernels) {
  const fs::path kernels = dir / "kernels";
  fs::create_directories(kernels);
  for (const char* k : {"loop_matvec.uop", "loop_padded_conv.uop"})
    fs::copy_file(source_path(std::string("tests/fuzz/campaign/plugins/") + k), kernels / k);
  const Ran fitted = run("policy --fit " + kernels.string());
  ASSERT_EQ(fitted.code, 0) << fitted.out;
  // stderr's one line (written before the policy), then the policy
  ASSERT_EQ(fitted.out.rfind("uopfuzz: policy fitted to 2 kernels of ", 0), 0u) << fitted.out;
  const std::string policy = fitted.out.substr(fitted.out.find('\n') + 1);
  const auto fit = nlohmann::json::parse(policy), plain = nlohmann::json::parse(run("policy").out);
  EXPECT_NE(fit["loop_read_weight"], plain["loop_read_weight"]);
  EXPECT_NE(fit["op_weight"], plain["op_weight"]);
  EXPECT_EQ(fit["p_swarm"], plain["p_swarm"]) << "only the fitted tables change";
  EXPECT_EQ(run("gen --seed 5 --policy " + file("fit.json", policy)).code, 0);

  file("kernels/bad.uop", "uops 2\n%0 = CONST i32 1\n%1 = FOO i32 %0\n");
  const Ran bad = run("policy --fit " + kernels.string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("bad.uop:3:"), std::string::npos) << bad.out;
  fs::create_directories(dir / "empty");
  const Ran empty = run("policy --fit " + (dir / "empty").string());
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.out.find("no .uop file"), std::string::npos) << empty.out;
  EXPECT_EQ(run("policy --fit " + kernels.string() + " --fit-weight 2").code, 2);
}

TEST_F(Cli, BadPolicyIsExitTwoNamingTheKey) {
  const std::string bad = file("bad.json", R"({"op_weight": {"MULACCC": 0}})");
  for (const std::string cmd : {"gen --seed 1 --policy ", "fuzz --count 1 --policy "}) {
    const Ran r = run(cmd + bad);
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_EQ(r.out.rfind(bad + ": op_weight: unknown name 'MULACCC'", 0), 0u) << r.out;
  }
  const Ran notjson = run("gen --seed 1 --policy " + file("x.json", "{"));
  EXPECT_EQ(notjson.code, 2);
  EXPECT_NE(notjson.out.find("x.json: not JSON"), std::string::npos) << notjson.out;
  EXPECT_EQ(run("gen --seed 1 --policy " + (dir / "none.json").string()).code, 2);
}

// A target without ALLOC: when a policy full of scratch arrays makes every program a render-error, the
// summary names the bucket and the --without that avoids it; with the default policy (a third of the
// programs fail) it says nothing.
TEST_F(Cli, DominantRenderErrorNamesTheWithout) {
  const std::string common = "fuzz --count 24 --jobs 1 -q --no-reduce --cflags -O0 --without loop --renderer-cmd " +
                             source_path("tests/cli/no_alloc_renderer.sh");
  const std::string scratch = file("scratch.json", R"({"step_weight": {"Scratch": 20, "Accumulate": 10}, "p_swarm": 0})");
  const Ran most = run_uopfuzz_isolated(common + " --corpus " + (dir / "c1").string() + " --policy " + scratch, dir / "cache");
  EXPECT_EQ(most.code, 1) << most.out;
  EXPECT_NE(most.out.find("uopfuzz: hint: most programs fail the same way: render-error ("), std::string::npos) << most.out;
  EXPECT_NE(most.out.find("; --without alloc would avoid it"), std::string::npos) << most.out;
  const std::string few = file("few.json", R"({"step_weight": {"Scratch": 0.3, "Accumulate": 0.2}})");
  const Ran some = run_uopfuzz_isolated(common + " --corpus " + (dir / "c2").string() + " --policy " + few, dir / "cache");
  EXPECT_NE(some.out.find("render-error"), std::string::npos) << some.out;
  EXPECT_EQ(some.out.find("hint:"), std::string::npos) << some.out;
}

}  // namespace
}  // namespace uf::testing

// Protocol 2 from the command line (docs/format.md section 5): naming the plug-in is enough (its handshake
// picks server mode and adds its --without names), a malformed handshake is a usage error naming the key,
// a campaign whose server hangs keeps its --time budget (a reduction too) and counts no render the
// budget cut short, a render timeout is reduced under a shorter one, and a reproducer saved in
// server mode records it (meta renderer_protocol, target, without) and replays through a server.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

std::string plugin() { return source_path("tests/codegen/plugins/server_faults.py"); }

// `uopfuzz ARGS` with a private cache and `env` ("KEY=VALUE ..."), as a user's shell would run it.
Ran run_with(const std::string& args, const fs::path& dir, const std::string& env = "") {
  return run_uopfuzz(args, env + " UOPFUZZ_CACHE_DIR=" + (dir / "cache").string() + " UOPFUZZ=" + uopfuzz_binary() + " ");
}

TEST(ServerCli, AMalformedHandshakeIsAUsageErrorNamingTheKey) {
  TempDir tmp{"uopfuzz-handshake"};
  const std::string render = "render " + example_path("chain.uop") + " --renderer-cmd " + plugin();
  const std::string rest = R"("language": "c", "target": {"name": "t", "version": "1"})";
  const struct {
    std::string describe, says;
  } cases[] = {
      {R"({"protocol": 2, "modes": ["server"], )" + rest + "}", "key 'without' is missing"},
      {R"({"protocol": 2, "modes": ["server"], )" + rest + R"(, "without": ["warp"]})", "'warp', which is no --without name"},
      {R"({"protocol": 3, "modes": ["server"], )" + rest + R"(, "without": []})", "speaks protocol 3"},
      {R"({"protocol": 2, "modes": "server", )" + rest + R"(, "without": []})", "key 'modes' must be a list"},
  };
  for (const auto& c : cases) {
    const Ran r = run_with(render, tmp.path(), "UOPFUZZ_DESCRIBE='" + c.describe + "'");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("server_faults.py"), std::string::npos) << r.out;
  }
  const Ran one = run_with(render + " --renderer-protocol server", tmp.path(), "UOPFUZZ_DESCRIBE=none");
  EXPECT_EQ(one.code, 2) << one.out;
  EXPECT_NE(one.out.find("no server mode"), std::string::npos) << one.out;
  const Ran ok = run_with(render, tmp.path(), "UOPFUZZ_DESCRIBE=none");  // protocol 1: one program per process
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("void kernel("), std::string::npos) << ok.out;
}

TEST(ServerCampaign, AServerThatHangsOnEveryFifthProgramKeepsTheBudget) {
  TempDir tmp{"uopfuzz-server-hang"};
  const fs::path dir = tmp.path();
  constexpr double kBudget = 20;
  const auto started = Clock::now();
  const Ran r = run_with("fuzz --seed 3 --time 20 -q --render-timeout 2 --renderer-cmd " + plugin() + " --corpus " + (dir / "corpus").string() +
                             " --json " + (dir / "s.json").string(),
                         dir, "UOPFUZZ_HANG_EVERY=5");
  EXPECT_LE(seconds_since(started), kBudget + 3) << r.out;
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.out;
  const auto s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_GT(s["render_errors"].get<int64_t>(), 0) << s.dump(2);
  EXPECT_EQ(s["target"], nlohmann::json::parse(
                             R"({"name": "server-faults", "version": "1.0", "protocol": 2, "mode": "server", "language": "c"})"));
  EXPECT_EQ(s["without"], nlohmann::json::parse(R"(["mulacc"])"));
  const auto events = read_lines(dir / "s.events.jsonl");
  ASSERT_FALSE(events.empty());
  const auto start = nlohmann::json::parse(events[0]);
  EXPECT_EQ(start["renderer_protocol"], "server");
  EXPECT_EQ(start["target"]["name"], "server-faults");
}

// A render the budget cuts short says nothing about the target: the server hangs on its fifth request
// (with the 60 s render timeout, until the budget's render stop), so of the first batch's valid programs 4
// are rendered and checked; the fifth, cut short, and the three never sent are neither counted nor saved.
TEST(ServerCampaign, ProgramsTheBudgetLeftUnrenderedAreNotFindings) {
  TempDir tmp{"uopfuzz-server-cut"};
  const fs::path dir = tmp.path();
  const Ran r = run_with("fuzz --seed 3 --time 12 -q --renderer-cmd " + plugin() + " --corpus " + (dir / "corpus").string() +
                             " --json " + (dir / "s.json").string(),
                         dir, "UOPFUZZ_HANG_EVERY=5");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_EQ(s["valid"].get<int64_t>(), 4) << s.dump(2);  // programs whose reference is UNDEFINED are not rendered
  EXPECT_EQ(s["render_errors"].get<int64_t>(), 0) << s.dump(2);
  EXPECT_TRUE(s["saved"].empty()) << s.dump(2);
  const std::string counted = " of " + std::to_string(s["programs"].get<int64_t>()) + " programs";
  EXPECT_NE(s["coverage"].get<std::string>().find(counted), std::string::npos) << s.dump(2);  // coverage counts alike
}

// A reduction keeps its --time budget too: a server that dies at every start backs off (up to 5 s a
// request), and without the budget bounding each request a reduction of 48-candidate batches ran for
// many minutes.
TEST(ServerCampaign, AReductionKeepsItsBudgetWhenTheServerCannotStart) {
  TempDir tmp{"uopfuzz-server-reduce"};
  const fs::path dir = tmp.path();
  constexpr double kBudget = 3, kFinalCheck = 5 + 2;  // the result's own check waits out one back-off
  const auto started = Clock::now();
  const Ran r = run_with(
      "reduce " + example_path("chain.uop") + " --time 3 --renderer-cmd " + plugin() + " -o " + (dir / "out.uop").string(), dir,
      "UOPFUZZ_FAULT_AT_START=1");
  EXPECT_LE(seconds_since(started), kBudget + kFinalCheck) << r.out;
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("fails as `render-error`"), std::string::npos) << r.out;
}

// `uopfuzz render-plugin` is a protocol-2 plug-in of the built-in renderer: a positive control of the
// whole protocol (handshake, server mode, one_unit), which must find nothing.
TEST(ServerCampaign, UopfuzzRenderPluginServesTheBuiltInRendererAndFindsNothing) {
  TempDir tmp{"uopfuzz-render-server"};
  const fs::path dir = tmp.path();
  const Ran r = run_with("fuzz --seed 5 --count 96 -q --renderer-cmd '" + uopfuzz_binary() + " render-plugin' --corpus " +
                             (dir / "corpus").string() + " --json " + (dir / "s.json").string(),
                         dir);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_EQ(s["programs"].get<int64_t>(), 96) << s.dump(2);
  EXPECT_EQ(s["target"]["name"], "uopfuzz-render-plugin") << s.dump(2);
  EXPECT_EQ(s["target"]["mode"], "server") << s.dump(2);
  EXPECT_TRUE(s["saved"].empty()) << s.dump(2);
}

TEST(ServerCampaign, AReproducerSavedInServerModeReplaysThroughAServer) {
  TempDir tmp{"uopfuzz-server-replay"};
  const fs::path dir = tmp.path();
  const std::string env = "UOPFUZZ_BREAK_MUL=1 UOPFUZZ_PLUGIN_COUNTER=" + (dir / "starts").string();
  const Ran r = run_with("fuzz --seed 1 --count 64 --no-reduce -q --without loop --renderer-cmd " + plugin() + " --corpus " +
                             (dir / "corpus").string() + " --json " + (dir / "s.json").string(),
                         dir, env);
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(read_lines(dir / "starts"), std::vector<std::string>{"server"});  // one worker, one server
  const auto s = nlohmann::json::parse(read_text(dir / "s.json"));
  ASSERT_FALSE(s["saved"].empty()) << s.dump(2);
  const std::string file = s["saved"][0].get<std::string>();
  const Program p = read_program(file);
  ASSERT_NE(p.meta_value("renderer_protocol"), nullptr);
  EXPECT_EQ(*p.meta_value("renderer_protocol"), "server");
  EXPECT_EQ(*p.meta_value("target"), "server-faults 1.0");
  EXPECT_EQ(*p.meta_value("without"), "loop,mulacc");
  fs::remove(dir / "starts");
  const Ran replay = run_with("replay " + file, dir, env);
  EXPECT_EQ(replay.code, 0) << replay.out;
  EXPECT_EQ(read_lines(dir / "starts"), std::vector<std::string>{"server"});
}

// A render timeout is checked and reduced under --reduce-render-timeout, not the whole --render-timeout
// (each candidate that keeps it costs that long), and its file records the timeout it holds for. The
// plug-in renders a program of 30 or more STOREs 1 s longer per STORE from the 30th on: one found at 3 s
// times out at 1 s too, and the reproducer replays under its recorded 1 s.
TEST(ServerCampaign, ARenderTimeoutIsReducedUnderTheShorterReduceRenderTimeout) {
  TempDir tmp{"uopfuzz-server-slow"};
  const fs::path dir = tmp.path();
  const std::string env = "UOPFUZZ_SLOW_FROM_STORES=30";
  const Ran r = run_with(
      "fuzz --seed 3 --count 8 -q --render-timeout 3 --reduce-render-timeout 1 --reduce-time 15 --no-culprit "
      "--renderer-cmd " +
          plugin() + " --corpus " + (dir / "corpus").string() + " --json " + (dir / "s.json").string(),
      dir, env);
  ASSERT_EQ(r.code, 1) << r.out;
  const auto s = nlohmann::json::parse(read_text(dir / "s.json"));
  ASSERT_EQ(s["saved"].size(), 1u) << s.dump(2);
  const std::string file = s["saved"][0].get<std::string>();
  const Program p = read_program(file);
  ASSERT_NE(p.meta_value("signature"), nullptr);
  EXPECT_EQ(*p.meta_value("signature"), "render-error timeout");
  ASSERT_NE(p.meta_value("render_timeout"), nullptr) << read_text(file);
  EXPECT_EQ(*p.meta_value("render_timeout"), "1");  // replaced by the reduction, which ran under 1 s
  const Ran replay = run_with("replay " + file, dir, env);
  EXPECT_EQ(replay.code, 0) << replay.out;
  EXPECT_NE(replay.out.find("timed out after"), std::string::npos) << replay.out;  // 1 s (60 s: no timeout)
}

}  // namespace
}  // namespace uf::testing

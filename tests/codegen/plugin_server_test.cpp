// Protocol 2 (docs/format.md section 5): the handshake, and the server mode on a pass-through plug-in
// (tests/codegen/plugins/server_faults.py): the same results as the built-in renderer from one process,
// and each fault (exit, signal, hang, garbage, wrong id, dying at start) a render-error of exactly that
// program, the next one rendered by a restarted server, never a wait past the deadline.
#include <gtest/gtest.h>

#include <cstdlib>

#include "codegen/compiled_path.h"
#include "codegen/plugin_describe.h"
#include "codegen/plugin_messages.h"
#include "codegen/plugin_server.h"
#include "core/error.h"
#include "tests/support/plugin_fixture.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

std::string plugin() { return source_path("tests/codegen/plugins/server_faults.py"); }

class PluginServerTest : public PluginFixture {
 protected:
  void TearDown() override {
    PluginFixture::TearDown();
    stop_plugin_servers();
    for (const char* v : {"UOPFUZZ_PLUGIN_COUNTER", "UOPFUZZ_FAULT_AT_START", "UOPFUZZ_DESCRIBE"}) ::unsetenv(v);
  }
  CompiledPathConfig config() const {
    CompiledPathConfig cfg;
    cfg.renderer_cmd = plugin();
    cfg.renderer_protocol = RendererProtocol::server;
    cfg.cflags = "-O1";
    cfg.render_timeout_s = 3;
    return cfg;
  }
};

TEST_F(PluginServerTest, OneServerGivesTheBuiltInRenderersResults) {
  ASSERT_EQ(programs.size(), 6u);
  const auto served = run_compiled(batch(), config());
  const auto builtin = run_compiled(batch(), CompiledPathConfig{});
  EXPECT_EQ(starts(), std::vector<std::string>{"server"});
  for (size_t i = 0; i < programs.size(); ++i) {
    ASSERT_EQ(served[i].status, KernelStatus::ok) << served[i].message;
    ASSERT_EQ(builtin[i].status, KernelStatus::ok) << builtin[i].message;
    for (const UOp* b : programs[i].buffers) {
      const Values& a = served[i].buffers.at(b->slot);
      const Values& c = builtin[i].buffers.at(b->slot);
      ASSERT_EQ(a.size(), c.size());
      for (size_t k = 0; k < a.size(); ++k) EXPECT_TRUE(same_value(b->dtype, a[k], c[k])) << i << " slot " << b->slot;
    }
  }
  EXPECT_EQ(render_source(programs[0], "k", config()), render_source(programs[0], "k", CompiledPathConfig{}));
  EXPECT_EQ(starts(), std::vector<std::string>{});  // the same server still
}

// one_unit (the handshake's promise that a batch's renders may share one translation unit): the same
// results as one file per render, a refused program still only its own render-error.
TEST_F(PluginServerTest, OneUnitGivesTheResultsOfOneFilePerRender) {
  programs[2].set_meta("fault", "refuse");
  CompiledPathConfig one = config();
  one.renderer_description = describe_plugin(plugin());
  ASSERT_TRUE(one.renderer_description.one_unit);
  const auto merged = run_compiled(batch(), one);
  const auto apart = run_compiled(batch(), config());
  for (size_t i = 0; i < programs.size(); ++i) {
    ASSERT_EQ(status_name(merged[i].status), status_name(apart[i].status)) << i << ": " << merged[i].message;
    if (i == 2) {
      EXPECT_EQ(merged[i].status, KernelStatus::render_error);
      continue;
    }
    ASSERT_EQ(merged[i].status, KernelStatus::ok) << merged[i].message;
    for (const UOp* b : programs[i].buffers)
      for (size_t k = 0; k < merged[i].buffers.at(b->slot).size(); ++k)
        EXPECT_TRUE(same_value(b->dtype, merged[i].buffers.at(b->slot)[k], apart[i].buffers.at(b->slot)[k])) << i;
  }
}

struct Fault {
  const char* name;
  const char* says;  // in the render-error's message
};

TEST_F(PluginServerTest, EachFaultCostsExactlyItsProgramAndTheServerRestarts) {
  for (const Fault& f : {Fault{"exit", "exit 3"}, Fault{"segv", "signal 11"}, Fault{"hang", "timed out after 3 s"},
                         Fault{"garbage", "protocol error: a line that is not a JSON object"},
                         Fault{"wrong-id", "protocol error: a reply to another request"}, Fault{"refuse", "refused as asked"}}) {
    SCOPED_TRACE(f.name);
    std::vector<Program> three(programs.begin(), programs.begin() + 3);
    three[1].set_meta("fault", f.name);
    const auto started = Clock::now();
    const auto out = run_compiled({&three[0], &three[1], &three[2]}, config());
    EXPECT_LT(seconds_since(started), 8.0);
    EXPECT_EQ(out[0].status, KernelStatus::ok) << out[0].message;
    EXPECT_EQ(out[2].status, KernelStatus::ok) << out[2].message;
    ASSERT_EQ(out[1].status, KernelStatus::render_error);
    EXPECT_NE(out[1].message.find(f.says), std::string::npos) << out[1].message;
    EXPECT_EQ(out[1].bucket, std::string(f.name) == "hang" ? "timeout" : "");  // a render too slow is its own bucket
    const bool killed = std::string(f.name) != "refuse";
    EXPECT_EQ(starts().size(), killed ? 2u : 1u);  // the one before (or still running) and a restarted one
    if (std::string(f.name) == "exit") {
      EXPECT_NE(out[1].message.find("exiting as asked"), std::string::npos) << out[1].message;
    }
    stop_plugin_servers();
    starts();
  }
}

// An error reply's `bucket` names the render error's cause; one that could not be a signature's word (a
// line break, too long) is a protocol error of that program alone.
TEST_F(PluginServerTest, ARefusalCarriesItsBucket) {
  std::vector<Program> three(programs.begin(), programs.begin() + 3);
  for (Program& p : three) p.set_meta("fault", "refuse");
  three[0].set_meta("bucket", "KeyError at late/regalloc.py:118");
  three[2].set_meta("bucket", std::string(161, 'x'));
  const auto out = run_compiled({&three[0], &three[1], &three[2]}, config());
  ASSERT_EQ(out[0].status, KernelStatus::render_error);
  EXPECT_EQ(out[0].bucket, "KeyError at late/regalloc.py:118");
  ASSERT_EQ(out[1].status, KernelStatus::render_error);
  EXPECT_EQ(out[1].bucket, "");
  ASSERT_EQ(out[2].status, KernelStatus::render_error);
  EXPECT_EQ(out[2].bucket, "");
  EXPECT_NE(out[2].message.find("protocol error: a reply whose 'bucket' is not one line"), std::string::npos) << out[2].message;
}

TEST_F(PluginServerTest, AServerThatDiesAtStartBacksOffWithinTheBudget) {
  ::setenv("UOPFUZZ_FAULT_AT_START", "1", 1);
  CompiledPathConfig cfg = config();
  const auto started = Clock::now();
  std::vector<const Program*> many;
  for (int k = 0; k < 5; ++k)
    for (const Program& p : programs) many.push_back(&p);
  cfg.render_stop_at = Clock::now() + std::chrono::seconds(4);
  const auto out = run_compiled(many, cfg);
  EXPECT_LT(seconds_since(started), 6.0);
  for (const KernelOutcome& o : out) ASSERT_EQ(o.status, KernelStatus::render_error);
  EXPECT_NE(out[0].message.find("exit 4"), std::string::npos) << out[0].message;
  EXPECT_NE(out[0].message.find("dying at start as asked"), std::string::npos) << out[0].message;
  const size_t n = starts().size();
  EXPECT_GE(n, 4u);
  EXPECT_LT(n, 20u) << "no back-off";  // 0.1 + 0.2 + ... s between starts after the third
}

TEST_F(PluginServerTest, AHangEndsWithTheBudgetNotTheTimeout) {
  CompiledPathConfig cfg = config();
  cfg.render_timeout_s = 60;
  cfg.render_stop_at = Clock::now() + std::chrono::seconds(2);
  programs[0].set_meta("fault", "hang");
  const auto started = Clock::now();
  const auto out = run_compiled({&programs[0], &programs[1]}, cfg);
  EXPECT_LT(seconds_since(started), 4.0);
  EXPECT_EQ(out[0].status, KernelStatus::render_error);
  EXPECT_EQ(out[1].status, KernelStatus::render_error);  // no time left for it: a render-error, never lost
  EXPECT_NE(out[1].message.find("no time left"), std::string::npos) << out[1].message;
}

TEST_F(PluginServerTest, TheHandshakeDescribesThePlugin) {
  const PluginDescription d = describe_plugin(plugin());
  EXPECT_EQ(d.protocol, 2);
  EXPECT_EQ(d.best_mode(), RendererProtocol::server);
  EXPECT_TRUE(d.serves(RendererProtocol::batch));
  EXPECT_EQ(d.target.text(), "server-faults 1.0");
  EXPECT_EQ(d.without, std::vector<std::string>{"mulacc"});
  EXPECT_TRUE(d.one_unit);
  ::setenv("UOPFUZZ_DESCRIBE", "none", 1);
  EXPECT_EQ(describe_plugin(plugin()).protocol, 1);  // no handshake: protocol 1
  EXPECT_EQ(describe_plugin("sh -c 'echo void kernel0'").protocol, 1);
  EXPECT_EQ(describe_plugin("sh -c 'echo void kernel0'").handshake_failure, "");  // exit 0: simply no handshake
  // A plug-in that cannot start says why; the user is told that, not only "protocol 1".
  const PluginDescription broken = describe_plugin("sh -c 'echo starting >&2; echo cannot import tinygrad >&2; exit 2' sh");
  EXPECT_EQ(broken.protocol, 1);
  EXPECT_EQ(broken.handshake_failure, "exit 2: cannot import tinygrad");
}

// A reply's coverage beyond switches: its features, then what of the program's opts line applied and
// what was skipped (docs/format.md, section 5), as features the summary counts.
TEST(PluginMessages, OptsRepliesBecomeFeatures) {
  const nlohmann::json j = {{"used", {"a.py:1"}},
                            {"features", {"threads"}},
                            {"opts_applied", {"UPCAST:0:4"}},
                            {"opts_skipped", {"PADTO:0:3: pad adds more than quadruple the work"}}};
  std::vector<std::string> used, features;
  EXPECT_EQ(read_used(j, used, features), "");
  EXPECT_EQ(used, std::vector<std::string>{"a.py:1"});
  EXPECT_EQ(features, (std::vector<std::string>{"threads", "opts:applied", "opts:skipped:PADTO"}));
  EXPECT_EQ(read_used({{"opts_skipped", "PADTO"}}, used, features), "a reply whose 'opts_skipped' is not a list of strings");
}

TEST_F(PluginServerTest, AMalformedHandshakeNamesTheKey) {
  auto error = [](const std::string& json) {
    try {
      parse_description(json, "p");
    } catch (const UserError& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  const std::string ok_rest = R"("language": "c", "target": {"name": "t", "version": "1"}, "without": []})";
  EXPECT_EQ(parse_description("not json", "p"), std::nullopt);
  EXPECT_TRUE(parse_description(R"({"protocol": 2, "modes": ["batch"], )" + ok_rest, "p"));
  EXPECT_FALSE(parse_description(R"({"protocol": 2, "modes": ["batch"], )" + ok_rest, "p")->one_unit);
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], "one_unit": "yes", )" + ok_rest).find("'one_unit'"), std::string::npos);
  // switches and exports: optional lists, their names checked, and only with the server mode
  const auto d = parse_description(
      R"({"protocol": 2, "modes": ["server"], "switches": ["a.py:1", "b.py:2#2"], "exports": ["tinygrad"], )" + ok_rest, "p");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->switches, (std::vector<std::string>{"a.py:1", "b.py:2#2"}));
  EXPECT_EQ(d->exports, std::vector<std::string>{"tinygrad"});
  for (const char* bad : {R"("switches": "a")", R"("switches": ["a b"])", R"("switches": ["a,b"])", R"("switches": [""])"})
    EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], )" + std::string(bad) + ", " + ok_rest).find("'switches'"),
              std::string::npos)
        << bad;
  for (const char* bad : {R"("exports": ["Tinygrad"])", R"("exports": ["a b"])", R"("exports": [1])"})
    EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], )" + std::string(bad) + ", " + ok_rest).find("'exports'"),
              std::string::npos)
        << bad;
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["batch"], "switches": ["a"], )" + ok_rest).find("needs the server mode"),
            std::string::npos);
  // opts: the optimization actions a target takes (docs/format.md, the opts line), capitalized words
  const auto o = parse_description(R"({"protocol": 2, "modes": ["batch"], "opts": ["UPCAST", "PADTO"], )" + ok_rest, "p");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->opts, (std::vector<std::string>{"UPCAST", "PADTO"}));
  for (const char* bad : {R"("opts": "UPCAST")", R"("opts": ["upcast"])", R"("opts": ["UPCAST:0"])", R"("opts": [""])"})
    EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], )" + std::string(bad) + ", " + ok_rest).find("'opts'"), std::string::npos)
        << bad;
  // approximate: the ops a target computes approximately, each one ops.def marks APPROX
  const auto a = parse_description(R"({"protocol": 2, "modes": ["batch"], "approximate": ["SIN", "EXP2"], )" + ok_rest, "p");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->approximate, (std::vector<Op>{Op::SIN, Op::EXP2}));
  for (const char* bad : {R"("approximate": "SIN")", R"("approximate": ["ADD"])", R"("approximate": ["sin"])"})
    EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], )" + std::string(bad) + ", " + ok_rest).find("'approximate'"),
              std::string::npos)
        << bad;
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], "approximate": ["TRUNC"], )" + ok_rest)
                .find("(an op that may be approximate: POW, RECIP, SQRT, EXP2, LOG2, SIN)"),
            std::string::npos);
  // reachable and switch_source (target coverage): optional, and they name switches only
  const std::string two = R"({"protocol": 2, "modes": ["server"], "switches": ["a.py:1", "b.py:2"], )";
  const auto c = parse_description(two + R"("reachable": ["b.py:2"], "switch_source": {"a.py:1": "def a(x):"}, )" + ok_rest, "p");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->reachable, std::vector<std::string>{"b.py:2"});
  EXPECT_EQ(c->switch_source.at("a.py:1"), "def a(x):");
  EXPECT_NE(error(two + R"("reachable": ["c.py:3"], )" + ok_rest).find("key 'reachable' names 'c.py:3', which is not one of its switches"),
            std::string::npos);
  EXPECT_NE(error(two + R"("reachable": "a.py:1", )" + ok_rest).find("'reachable' must be a list"), std::string::npos);
  EXPECT_NE(error(two + R"("switch_source": {"c.py:3": "x"}, )" + ok_rest).find("'switch_source' names 'c.py:3'"), std::string::npos);
  EXPECT_NE(error(two + R"("switch_source": {"a.py:1": 1}, )" + ok_rest).find("'switch_source' has a value for 'a.py:1'"),
            std::string::npos);
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["program"], "exports": ["x"], )" + ok_rest).find("needs the server mode"),
            std::string::npos);
  // reach: the front end's level, a lowercase word other than "kernel", with the server mode
  const auto r = parse_description(R"({"protocol": 2, "modes": ["server"], "reach": "tensor", )" + ok_rest, "p");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reach, "tensor");
  for (const char* bad : {R"("reach": "kernel")", R"("reach": "Tensor")", R"("reach": ["tensor"])", R"("reach": "")"})
    EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], )" + std::string(bad) + ", " + ok_rest).find("'reach'"),
              std::string::npos)
        << bad;
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["batch"], "reach": "tensor", )" + ok_rest).find("needs the server mode"),
            std::string::npos);
  EXPECT_NE(error(R"({"protocol": 3, "modes": ["server"], )" + ok_rest).find("protocol 3"), std::string::npos);
  EXPECT_NE(error(R"({"protocol": "2", "modes": ["server"], )" + ok_rest).find("'protocol'"), std::string::npos);
  EXPECT_NE(error(R"({"protocol": 2, "modes": [], )" + ok_rest).find("'modes'"), std::string::npos);
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["fast"], )" + ok_rest).find("'modes'"), std::string::npos);
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["server"], "language": "c", "target": {"name": "t"}, "without": []})")
                .find("'target.version'"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"protocol": 2, "modes": ["server"], "language": "ptx", "target": {"name": "t", "version": "1"}, "without": []})")
          .find("'ptx' (expected c, llvm-ir, x86-64 or outputs)"),
      std::string::npos);
  const std::string target = R"("target": {"name": "t", "version": "1"}, "without": []})";
  for (const auto& [name, language] : {std::pair{"llvm-ir", OutputLanguage::llvm_ir}, std::pair{"x86-64", OutputLanguage::x86_64},
                                       std::pair{"outputs", OutputLanguage::outputs}}) {
    const auto d = parse_description(R"({"protocol": 2, "modes": ["server"], "language": ")" + std::string(name) + "\", " + target, "p");
    ASSERT_TRUE(d) << name;
    EXPECT_EQ(d->language, language);
    EXPECT_EQ(language_name(d->language), name);
  }
  // An executing target is spoken to in run requests, which only the server mode has.
  EXPECT_NE(error(R"({"protocol": 2, "modes": ["server", "batch"], "language": "outputs", )" + target).find("'modes' must be [\"server\"]"),
            std::string::npos);
}

// What a target suggests for a campaign: a policy file, seed directories, its known findings, and its
// sibling backends for triage; each optional, each malformed one named.
TEST(PluginDescribe, SuggestionKeys) {
  const std::string head = R"({"protocol": 2, "modes": ["server"], "language": "c", "target": {"name": "t", "version": "1"}, "without": [], )";
  const auto d = parse_description(head + R"("policy": "p/x.json", "seeds": ["s/a", "s/b"], "known": "corpus/t", "cc": "clang", "command": "t --all",
      "backends": [{"name": "clang", "renderer": "t --backend clang", "cc": "clang"}, {"name": "py", "renderer": "t --py"}]})", "p");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->policy, "p/x.json");
  EXPECT_EQ(d->seeds, (std::vector<std::string>{"s/a", "s/b"}));
  EXPECT_EQ(d->known, "corpus/t");
  EXPECT_EQ(d->cc, "clang");
  EXPECT_EQ(d->cflags, "");
  EXPECT_EQ(d->command, "t --all");
  ASSERT_EQ(d->backends.size(), 2u);
  EXPECT_EQ(d->backends[0].renderer, "t --backend clang");
  EXPECT_EQ(d->backends[0].cc, "clang");
  EXPECT_EQ(d->backends[1].cc, "");
  const auto none = parse_description(head + R"("switches": []})", "p");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->policy.empty() && none->seeds.empty() && none->known.empty() && none->backends.empty());
  for (const auto& [bad, key] : {std::pair{R"("policy": 1})", "'policy'"}, {R"("policy": ""})", "'policy'"},
                                 {R"("seeds": "s"})", "'seeds'"}, {R"("cc": 1})", "'cc'"}, {R"("known": ["k"]})", "'known'"},
                                 {R"("backends": [{"name": "x"}]})", "'backends.renderer'"},
                                 {R"("backends": [{"name": "X", "renderer": "r"}]})", "'backends'"},
                                 {R"("backends": [{"name": "x", "renderer": "r", "cc": 1}]})", "'backends.cc'"}}) {
    try {
      parse_description(head + bad, "p");
      ADD_FAILURE() << bad << ": no error";
    } catch (const UserError& e) { EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what(); }
  }
}

}  // namespace
}  // namespace uf::testing

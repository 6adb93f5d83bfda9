// The batch renderer protocol (`--renderer-batch`): one plug-in process renders a whole batch, with the
// same verdicts as the one-program protocol, a render error staying its own program's, and a plug-in
// that dies on one program costing only that program. The example plug-in counts its own starts.
#include <gtest/gtest.h>

#include <cstdlib>

#include "codegen/compiled_path.h"
#include "tests/support/plugin_fixture.h"

namespace uf::testing {
namespace {

class PluginBatch : public PluginFixture {
 protected:
  CompiledPathConfig config(bool batch) const {
    CompiledPathConfig cfg;
    cfg.renderer_cmd = source_path("tests/fuzz/campaign/plugins/batch_passthru.py");
    cfg.renderer_protocol = batch ? RendererProtocol::batch : RendererProtocol::program;
    cfg.cflags = "-O1";
    return cfg;
  }
};

TEST_F(PluginBatch, OneProcessGivesTheVerdictsOfOneProcessPerProgram) {
  ASSERT_EQ(programs.size(), 6u);
  programs[3].set_meta("refuse", "not this one");
  const auto one = run_compiled(batch(), config(false));
  EXPECT_EQ(starts(), std::vector<std::string>(6, "one"));
  const auto many = run_compiled(batch(), config(true));
  EXPECT_EQ(starts(), std::vector<std::string>{"batch 6"});
  for (size_t i = 0; i < programs.size(); ++i) {
    EXPECT_EQ(status_name(one[i].status), status_name(many[i].status)) << i << ": " << many[i].message;
    if (i == 3) {
      EXPECT_EQ(many[i].status, KernelStatus::render_error);
      EXPECT_NE(many[i].message.find("refused: not this one"), std::string::npos) << many[i].message;
      EXPECT_NE(one[i].message.find("refused: not this one"), std::string::npos) << one[i].message;
    } else {
      ASSERT_EQ(many[i].status, KernelStatus::ok) << many[i].message;
      ASSERT_EQ(one[i].status, KernelStatus::ok) << one[i].message;
      for (const UOp* b : programs[i].buffers) {  // the same values, and right
        const Values& want = programs[i].expect.at(b->slot);
        ASSERT_EQ(many[i].buffers.at(b->slot).size(), want.size());
        ASSERT_EQ(one[i].buffers.at(b->slot).size(), want.size());
        for (size_t k = 0; k < want.size(); ++k) {
          EXPECT_TRUE(same_value(b->dtype, many[i].buffers.at(b->slot)[k], want[k])) << i << " slot " << b->slot;
          EXPECT_TRUE(same_value(b->dtype, one[i].buffers.at(b->slot)[k], want[k])) << i << " slot " << b->slot;
        }
      }
    }
  }
}

TEST_F(PluginBatch, APluginThatDiesOnOneProgramCostsOnlyThatProgram) {
  programs.resize(3);
  programs[1].set_meta("crash", "yes");
  const auto out = run_compiled(batch(), config(true));
  EXPECT_EQ(starts(), (std::vector<std::string>{"batch 3", "batch 1", "batch 1", "batch 1"}));
  EXPECT_EQ(out[0].status, KernelStatus::ok) << out[0].message;
  EXPECT_EQ(out[2].status, KernelStatus::ok) << out[2].message;
  ASSERT_EQ(out[1].status, KernelStatus::render_error);
  EXPECT_NE(out[1].message.find("exit 3"), std::string::npos) << out[1].message;
  EXPECT_NE(out[1].message.find("crashing as asked"), std::string::npos) << out[1].message;
}

TEST_F(PluginBatch, RenderSourceSpeaksTheBatchProtocolToo) {
  const std::string a = render_source(programs[0], "k", config(true));
  const std::string b = render_source(programs[0], "k", config(false));
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("void k("), std::string::npos);
  EXPECT_EQ(starts(), (std::vector<std::string>{"batch 1", "one"}));
}

// Equal outputs, value by value (NaN payloads, -0.0: same_value).
bool same_buffers(const Program& p, const KernelOutcome& a, const KernelOutcome& b) {
  for (const UOp* buf : p.buffers) {
    const Values &x = a.buffers.at(buf->slot), &y = b.buffers.at(buf->slot);
    if (x.size() != y.size()) return false;
    for (size_t k = 0; k < x.size(); ++k)
      if (!same_value(buf->dtype, x[k], y[k])) return false;
  }
  return true;
}

// A reduction's candidates that change data only: one render per graph, each run on its own data.
TEST_F(PluginBatch, ProgramsWithOneGraphShareOneRenderAndKeepTheirOwnData) {
  programs.resize(2);
  std::vector<Program> zeroed(programs);
  for (Program& p : zeroed) p.data.clear();  // every BUFFER starts as zeros
  const std::vector<const Program*> b = {&programs[0], &zeroed[0], &programs[1], &zeroed[1]};
  const auto shared = run_compiled(b, config(true));
  EXPECT_EQ(starts(), std::vector<std::string>{"batch 2"});
  bool data_matters = false;
  for (size_t i = 0; i < b.size(); ++i) {
    const KernelOutcome alone = run_compiled(*b[i], config(true));
    ASSERT_EQ(alone.status, KernelStatus::ok) << alone.message;
    ASSERT_EQ(shared[i].status, KernelStatus::ok) << shared[i].message;
    EXPECT_TRUE(same_buffers(*b[i], shared[i], alone)) << i;
    if (i % 2 == 1) data_matters |= !same_buffers(*b[i], shared[i], shared[i - 1]);
  }
  EXPECT_TRUE(data_matters) << "the zeroed copies compute what the originals do: the test shows nothing";
}

}  // namespace
}  // namespace uf::testing

// The plug-in path end to end, on a plug-in that wraps the built-in renderer: golden programs (those
// with f16 buffers first: the protocol's `_Float16*` and our `uint16_t*` share an ABI) rendered by a
// separate process, compiled as one translation unit each in ONE compiler call, and run: results equal
// the built-in path's and the expect lines.
#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/compiled_path.h"
#include "codegen/render/render.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

std::string plugin_cmd() { return std::string("'") + UOPFUZZ_RENDER_PLUGIN + "'"; }

TEST(CodegenPlugin, WrappingTheBuiltInRendererGivesTheSameResults) {
  std::vector<const Program*> batch;
  for (const GoldenProgram& g : golden_programs()) {
    if (g.undefined_at) continue;
    const Program& p = g.program;
    const bool half = std::any_of(p.buffers.begin(), p.buffers.end(), [](const UOp* b) { return b->dtype == DType::F16; });
    if (half || batch.size() < 12) batch.push_back(&p);
    if (batch.size() >= 24) break;
  }
  TempCache cache;
  CompiledPathConfig plug;
  plug.renderer_cmd = plugin_cmd();
  const auto via_plugin = run_compiled(batch, plug);
  const auto builtin = run_compiled(batch, CompiledPathConfig{});
  size_t halves = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    ASSERT_EQ(via_plugin[i].status, KernelStatus::ok) << via_plugin[i].message.substr(0, 3000);
    ASSERT_EQ(builtin[i].status, KernelStatus::ok) << builtin[i].message.substr(0, 3000);
    for (const UOp* b : batch[i]->buffers) {
      halves += b->dtype == DType::F16;
      const Values& a = via_plugin[i].buffers.at(b->slot);
      const Values& c = builtin[i].buffers.at(b->slot);
      const Values& want = batch[i]->expect.at(b->slot);
      ASSERT_EQ(a.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_TRUE(same_value(b->dtype, a[k], want[k])) << "plug-in, slot " << b->slot << "[" << k << "]";
        EXPECT_TRUE(same_value(b->dtype, c[k], want[k])) << "built-in, slot " << b->slot << "[" << k << "]";
      }
    }
  }
  EXPECT_GT(halves, 3u);
  EXPECT_EQ(render_source(*batch[0], "kernel", plug), render_c(*batch[0], "kernel"));
}

TEST(CodegenPlugin, RenderSourceReportsAFailingPlugin) {
  Builder b;
  const UOp* out = b.buffer(DType::I32, 1, 0);
  const Program p = b.finish({b.store(out, 0, b.ci(1))});
  CompiledPathConfig cfg;
  cfg.renderer_cmd = "sh -c 'echo broken >&2; exit 1' sh";
  try {
    render_source(p, "kernel", cfg);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exit 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace uf::testing

// The plug-in path end to end, on a plug-in that wraps the built-in renderer: golden programs (those
// with f16 buffers first: the protocol's `_Float16*` and our `uint16_t*` share an ABI) rendered by a
// separate process, compiled as one translation unit each in ONE compiler call, and run: results equal
// the built-in path's and the expect lines.
#include <algorithm>
#include <filesystem>

#include "codegen/render/render.h"
#include "test_util.h"

namespace uf::test {
namespace {

std::string plugin_cmd() { return std::string("'") + UOPFUZZ_RENDER_PLUGIN + "'"; }

TEST(CodegenPlugin, WrappingTheBuiltInRendererGivesTheSameResults) {
  const std::vector<std::string> files = golden_program_files();
  std::vector<Program> programs;
  for (const std::string& f : files) {
    Program p = read_program(f);
    const std::string* ref = p.meta_value("reference");
    if (ref && ref->rfind("UNDEFINED", 0) == 0) continue;
    const bool half = std::any_of(p.buffers.begin(), p.buffers.end(), [](const UOp* b) { return b->dtype == DType::F16; });
    if (half || programs.size() < 12) programs.push_back(std::move(p));
    if (programs.size() >= 24) break;
  }
  std::vector<const Program*> batch;
  for (const Program& p : programs) batch.push_back(&p);
  TempCache cache;
  CompiledPathConfig plug;
  plug.renderer_cmd = plugin_cmd();
  const auto via_plugin = run_compiled(batch, plug);
  const auto builtin = run_compiled(batch, CompiledPathConfig{});
  size_t halves = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    ASSERT_EQ(via_plugin[i].verdict, Verdict::ok) << via_plugin[i].message.substr(0, 3000);
    ASSERT_EQ(builtin[i].verdict, Verdict::ok) << builtin[i].message.substr(0, 3000);
    for (const UOp* b : programs[i].buffers) {
      halves += b->dtype == DType::F16;
      const Values& a = via_plugin[i].buffers.at(b->slot);
      const Values& c = builtin[i].buffers.at(b->slot);
      const Values& want = programs[i].expect.at(b->slot);
      ASSERT_EQ(a.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_TRUE(same_value(b->dtype, a[k], want[k])) << "plug-in, slot " << b->slot << "[" << k << "]";
        EXPECT_TRUE(same_value(b->dtype, c[k], want[k])) << "built-in, slot " << b->slot << "[" << k << "]";
      }
    }
  }
  EXPECT_GT(halves, 3u);
  EXPECT_EQ(render_source(programs[0], "kernel", plug), render_c(programs[0], "kernel"));
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
}  // namespace uf::test

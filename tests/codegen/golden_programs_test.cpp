// The golden programs (tests/golden/programs, expect lines from tinygrad's exec_alu) through the
// compiled path, in one batch per compiler configuration. Programs whose `meta reference` says
// UNDEFINED are run too (they must not crash) but never compared.
#include <gtest/gtest.h>

#include "codegen/compiled_path.h"
#include "codegen/runtime/process.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"

namespace uf::testing {
namespace {

void run_programs(const std::string& cc, const std::string& cflags) {
  if (find_executable(cc).empty()) FAIL() << "compiler '" << cc << "' is not installed: this test needs it";
  TempCache cache;
  const std::vector<GoldenProgram>& golden = golden_programs();
  ASSERT_EQ(golden.size(), 200u);
  std::vector<std::string> undefined;
  std::vector<const Program*> batch;
  for (const GoldenProgram& g : golden) {
    ASSERT_NO_THROW(verify(g.program)) << g.file;
    batch.push_back(&g.program);
    if (g.undefined_at) undefined.push_back(g.file);
  }
  EXPECT_EQ(undefined, (std::vector<std::string>{"p169.uop", "p171.uop"}));
  CompiledPathConfig cfg;
  cfg.cc = cc;
  cfg.cflags = cflags;
  const std::vector<KernelOutcome> out = run_compiled(batch, cfg);
  ASSERT_EQ(out.size(), golden.size());
  size_t compared = 0;
  for (size_t i = 0; i < golden.size(); ++i) {
    const GoldenProgram& g = golden[i];
    const Program& p = g.program;
    ASSERT_EQ(out[i].status, KernelStatus::ok) << g.file << ": " << status_name(out[i].status) << ": " << out[i].message;
    if (g.undefined_at) continue;
    ASSERT_EQ(p.expect.size(), p.buffers.size()) << g.file << ": every BUFFER needs an expect line";
    for (const auto& [slot, want] : p.expect) {
      const DType d = p.buffer(slot)->dtype;
      const Values& got = out[i].buffers.at(slot);
      ASSERT_EQ(got.size(), want.size()) << g.file;
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(same_value(d, want[k], got[k])) << g.file << " slot " << slot << "[" << k << "]: expect "
                                                    << format_scalar(d, want[k]) << ", got " << format_scalar(d, got[k]);
    }
    ++compared;
  }
  EXPECT_EQ(compared, 198u);
}

TEST(CodegenGoldenPrograms, GccDefaultFlags) { run_programs("gcc", kDefaultCFlags); }
TEST(CodegenGoldenPrograms, GccO0) { run_programs("gcc", "-O0"); }
TEST(CodegenGoldenPrograms, ClangO2) { run_programs("clang", "-O2 -march=native"); }

}  // namespace
}  // namespace uf::testing

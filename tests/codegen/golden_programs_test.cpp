// The golden programs (tests/golden/programs, expect lines from tinygrad's exec_alu) through the
// compiled path, in one batch per compiler configuration. Programs whose `meta reference` says
// UNDEFINED are run too (they must not crash) but never compared.
#include <algorithm>
#include <filesystem>

#include "codegen/runtime/process.h"
#include "test_util.h"

namespace uf::test {
namespace {

struct Golden {
  std::string file;
  Program p;
  bool undefined = false;
};

std::vector<Golden> read_golden_programs() {
  const std::vector<std::string> files = golden_program_files();
  std::vector<Golden> out;
  for (const std::string& f : files) {
    Golden g{std::filesystem::path(f).filename().string(), read_program(f)};
    verify(g.p);
    const std::string* ref = g.p.meta_value("reference");
    g.undefined = ref && ref->rfind("UNDEFINED", 0) == 0;
    out.push_back(std::move(g));
  }
  return out;
}

void run_programs(const std::string& cc, const std::string& cflags) {
  if (find_executable(cc).empty()) FAIL() << "compiler '" << cc << "' is not installed: this test needs it";
  TempCache cache;
  const std::vector<Golden> golden = read_golden_programs();
  ASSERT_EQ(golden.size(), 200u);
  std::vector<std::string> undefined;
  std::vector<const Program*> batch;
  for (const Golden& g : golden) {
    batch.push_back(&g.p);
    if (g.undefined) undefined.push_back(g.file);
  }
  EXPECT_EQ(undefined, (std::vector<std::string>{"p169.uop", "p171.uop"}));
  CompiledPathConfig cfg;
  cfg.cc = cc;
  cfg.cflags = cflags;
  const std::vector<KernelOutcome> out = run_compiled(batch, cfg);
  ASSERT_EQ(out.size(), golden.size());
  size_t compared = 0;
  for (size_t i = 0; i < golden.size(); ++i) {
    const Golden& g = golden[i];
    ASSERT_EQ(out[i].verdict, Verdict::ok) << g.file << ": " << verdict_name(out[i].verdict) << ": " << out[i].message;
    if (g.undefined) continue;
    ASSERT_EQ(g.p.expect.size(), g.p.buffers.size()) << g.file << ": every BUFFER needs an expect line";
    for (const auto& [slot, want] : g.p.expect) {
      const DType d = g.p.buffer(slot)->dtype;
      const Values& got = out[i].buffers.at(slot);
      ASSERT_EQ(got.size(), want.size()) << g.file;
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(same_value(d, want[k], got[k]))
            << g.file << " slot " << slot << "[" << k << "]: expect " << format_scalar(d, want[k]) << ", got "
            << format_scalar(d, got[k]);
    }
    ++compared;
  }
  EXPECT_EQ(compared, 198u);
}

TEST(CodegenGoldenPrograms, GccDefaultFlags) { run_programs("gcc", kDefaultCFlags); }
TEST(CodegenGoldenPrograms, GccO0) { run_programs("gcc", "-O0"); }
TEST(CodegenGoldenPrograms, ClangO2) { run_programs("clang", "-O2 -march=native"); }

}  // namespace
}  // namespace uf::test

// Vectors through the compiled path: the hand-written tests/programs/vector_*.uop and 200+ generated
// programs with vector ops must agree with the reference exactly (gcc -O3, and clang when installed).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "codegen/compiled_path.h"
#include "codegen/render/render.h"
#include "core/text.h"
#include "codegen/runtime/process.h"
#include "fuzz/gen/generator.h"
#include "interp/interp.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

bool has_vector(const Program& p) {
  for (const UOp* u : linearize(p))
    if (u->is_vector()) return true;
  return false;
}

void check_batch(const std::vector<Program>& programs, const std::string& cc) {
  if (find_executable(cc).empty()) GTEST_SKIP() << cc << " is not installed";
  TempCache cache;
  std::vector<const Program*> batch;
  std::vector<RefResult> refs;
  for (const Program& p : programs) {
    refs.push_back(interpret(p));
    if (!refs.back().undefined) batch.push_back(&p);
  }
  CompiledPathConfig cfg;
  cfg.cc = cc;
  const std::vector<KernelOutcome> out = run_compiled(batch, cfg);
  ASSERT_EQ(out.size(), batch.size());
  size_t b = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    if (refs[i].undefined) continue;
    const KernelOutcome& o = out[b++];
    ASSERT_EQ(o.status, KernelStatus::ok) << print_program(programs[i]) << o.message;
    for (const auto& [slot, want] : refs[i].buffers) {
      const DType d = programs[i].buffer(slot)->dtype;
      const Values& got = o.buffers.at(slot);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k)
        ASSERT_TRUE(same_value(d, want[k], got[k])) << "slot " << slot << " element " << k << "\n" << print_program(programs[i]);
    }
  }
}

std::vector<Program> hand_written() {
  std::vector<Program> out;
  for (const auto& e : std::filesystem::directory_iterator(source_path("tests/programs")))
    if (e.path().filename().string().rfind("vector_", 0) == 0) out.push_back(read_program(e.path().string()));
  return out;
}

TEST(VectorRender, HandWrittenProgramsAgree) {
  const std::vector<Program> ps = hand_written();
  ASSERT_GE(ps.size(), 3u);
  for (const Program& p : ps) {  // their expect lines are the reference's (tests/interp/vector_test.cpp)
    const RefResult r = interpret(p);
    ASSERT_FALSE(r.undefined);
    for (const auto& [slot, want] : p.expect)
      for (size_t k = 0; k < want.size(); ++k) EXPECT_TRUE(same_value(p.buffer(slot)->dtype, want[k], r.buffers.at(slot)[k]));
  }
  check_batch(ps, "gcc");
}

TEST(VectorRender, RendersVectorExtensions) {
  const std::string c = render_c(read_program(source_path("tests/programs/vector_add.uop")), "k");
  EXPECT_NE(c.find("uf_vf32x4 vec"), std::string::npos) << c;
  EXPECT_NE(c.find("memcpy("), std::string::npos) << c;
}

std::vector<Program> generated_with_vectors(size_t n) {
  std::vector<Program> out;
  for (uint64_t seed = 1; out.size() < n; ++seed) {
    Program p = generate(seed);
    if (has_vector(p)) out.push_back(std::move(p));
  }
  return out;
}

TEST(VectorRender, GeneratedProgramsAgreeGcc) { check_batch(generated_with_vectors(220), "gcc"); }
TEST(VectorRender, GeneratedProgramsAgreeClang) { check_batch(generated_with_vectors(220), "clang"); }

}  // namespace
}  // namespace uf::testing

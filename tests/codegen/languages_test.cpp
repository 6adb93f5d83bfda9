// The plug-in output languages and executing targets (codegen/languages, docs/format.md section 5),
// proven with test plug-ins on the SDK (tests/codegen/plugins): LLVM IR from clang, a flat x86-64 image
// from gcc, and a target that runs programs itself. Each is a positive control (its pass-through
// agrees with the reference on the example programs it can take) and, with one known bug switched on
// by its knob, is found by a campaign, signed, reduced to a few nodes, and replayed from the corpus.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

struct LanguageBug {
  std::string name, plugin, cc, knob, signature;
  std::vector<std::string> examples;  // what its pass-through runs clean (within its handshake's without)
};
void PrintTo(const LanguageBug& b, std::ostream* os) { *os << b.name; }

class Language : public ::testing::TestWithParam<LanguageBug> {
 protected:
  TempDir tmp{"uopfuzz-language"};
  fs::path dir = tmp.path();
  Ran run(const std::string& args) const { return run_uopfuzz_isolated(args, dir / "cache"); }
  std::string plugin(const std::string& env = "") const {
    return " --cc " + GetParam().cc + " --renderer-cmd '" + env + source_path("tests/codegen/plugins/" + GetParam().plugin) + "'";
  }
};

TEST_P(Language, ThePassThroughAgreesAndOneBugIsFoundReducedAndReplayed) {
  const LanguageBug& bug = GetParam();
  for (const std::string& example : bug.examples) {
    const Ran clean = run("run " + source_path("tests/programs/" + example) + plugin());
    EXPECT_EQ(clean.code, 0) << example << ":\n" << clean.out;
  }
  const fs::path corpus = dir / "corpus";
  const Ran found = run("fuzz -q --seed 1 --jobs 1 --count 48 --corpus " + corpus.string() + plugin("env " + bug.knob + " "));
  ASSERT_EQ(found.code, 1) << found.out;
  std::string saved;
  for (const auto& f : fs::directory_iterator(corpus))
    if (const Program p = read_program(f.path().string()); p.meta_value("signature") && *p.meta_value("signature") == bug.signature)
      saved = f.path().string();
  ASSERT_FALSE(saved.empty()) << "no `" << bug.signature << "` bucket:\n" << found.out;
  const Program p = read_program(saved);
  verify(p);
  EXPECT_EQ(*p.meta_value("reduced"), "yes") << read_text(saved);
  EXPECT_LE(program_cost(p).nodes, 8u) << read_text(saved);
  const Ran replay = run("run " + saved);  // meta renderer: the plug-in with its knob, spoken to as recorded
  EXPECT_EQ(replay.code, 1) << replay.out;
  EXPECT_NE(replay.out.find("(" + bug.signature + ")"), std::string::npos) << replay.out;
  EXPECT_EQ(run("run " + saved + plugin()).code, 0) << "without the bug it agrees:\n" << read_text(saved);
}

const std::vector<std::string> kExamples = {"chain.uop", "dot_product.uop", "loop_sum.uop", "loop_gated_load.uop", "vector_lanes.uop"};

INSTANTIATE_TEST_SUITE_P(
    Plugins, Language,
    ::testing::Values(LanguageBug{"llvmir", "llvm_ir.py", "clang", "UOPFUZZ_IR_BREAK=mul", "mismatch MUL i32", kExamples},
                      LanguageBug{"x86image", "x86_image.py", "gcc", "UOPFUZZ_X86_BREAK=rbx", "crash ABI", kExamples},
                      LanguageBug{"executing", "run_passthru.py", "gcc", "UOPFUZZ_RUN_BREAK=mul", "mismatch MUL i32", kExamples}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace uf::testing

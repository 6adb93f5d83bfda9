// Each reducer pass (fuzz/oracle/passes.def) on an input of its own, C-Vise style: the directory
// tests/fuzz/oracle/passes/<pass>/ holds input.uop and expected.txt, the candidates the pass offers for it
// (pass_candidates: the strictly cheaper ones), each printed canonically. A pass of the registry without
// its directory fails: adding a pass is adding its golden test. The input's `meta diverges = %N` gives the
// slice pass its divergence (the node a compiled run would find first). UOPFUZZ_UPDATE_GOLDEN=1 rewrites
// every expected.txt from what the passes offer now (then read the diff: it is the change's behaviour).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/program.h"
#include "core/text.h"
#include "fuzz/oracle/passes.h"
#include "fuzz/oracle/reduce.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// The divergence `meta diverges = %N` names, with the file's `meta signature`.
std::optional<Divergence> divergence_of(const Program& p) {
  const std::string* node = p.meta_value("diverges");
  if (!node) return std::nullopt;
  Divergence d;
  if (const std::string* s = p.meta_value("signature")) d.signature = *s;
  for (const UOp* u : linearize(p))
    if (p.node_name(u) == *node) d.node = u;
  EXPECT_NE(d.node, nullptr) << "meta diverges names no node: " << *node;
  return d;
}

std::string candidates_text(const Pass& pass, const Program& p) {
  const std::optional<Divergence> d = divergence_of(p);
  std::function<const Divergence*()> divergence;
  if (d) divergence = [&d] { return &*d; };
  std::string text;
  int k = 0;
  for (const Program& c : pass_candidates(pass, p, reference_values(p), divergence))
    text += "---- candidate " + std::to_string(++k) + "\n" + print_program(c);
  return text;
}

class PassGolden : public ::testing::TestWithParam<const Pass*> {};

// The row's function is named after the pass (`shorten-buffer`: shorten_buffer_steps) and defined in the
// file the row names: a reader goes from a pass's name to its code without searching.
TEST_P(PassGolden, FunctionIsNamedAfterThePassAndDefinedInItsFile) {
  const Pass& pass = *GetParam();
  std::string want(pass.name);
  for (char& c : want)
    if (c == '-') c = '_';
  EXPECT_EQ(pass.function, want + "_steps");
  const std::string code = read_text(source_path(std::string(pass.file)));
  EXPECT_NE(code.find("\nvoid " + std::string(pass.function) + "(const PassInput&"), std::string::npos)
      << pass.file << " does not define " << pass.function;
}

TEST_P(PassGolden, OffersItsExpectedCandidates) {
  const Pass& pass = *GetParam();
  const fs::path dir = fs::path(source_path("tests/fuzz/oracle/passes")) / std::string(pass.name);
  ASSERT_TRUE(fs::is_regular_file(dir / "input.uop")) << "pass " << pass.name << " has no golden test: add " << dir.string()
                                                      << "/input.uop (and expected.txt, UOPFUZZ_UPDATE_GOLDEN=1)";
  const Program p = read_program((dir / "input.uop").string());
  verify(p);
  const std::string text = candidates_text(pass, p);
  EXPECT_NE(text, "") << "the input gives the pass nothing to do: the test could not fail";
  if (std::getenv("UOPFUZZ_UPDATE_GOLDEN")) {
    std::ofstream(dir / "expected.txt") << text;
    return;
  }
  ASSERT_TRUE(fs::is_regular_file(dir / "expected.txt")) << "no " << (dir / "expected.txt").string();
  EXPECT_EQ(read_text(dir / "expected.txt"), text);
}

std::vector<const Pass*> every_pass() {
  std::vector<const Pass*> out;
  for (const Pass& p : all_passes()) out.push_back(&p);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, PassGolden, ::testing::ValuesIn(every_pass()), [](const auto& info) {
  std::string name(info.param->name);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
});

}  // namespace
}  // namespace uf::testing

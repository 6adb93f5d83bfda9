// The reducer against a deliberately broken renderer: small reproducers, same signature, and they replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/policy.h"
#include "fuzz/oracle/passes.h"
#include "fuzz/oracle/reduce.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/reduce.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

// The first generated programs that the broken renderer gets wrong (integer MUL rendered as ADD).
// Straight-line programs: in a loop MUL rendered as ADD breaks index arithmetic first, and values inside
// loops are not probed, so those findings sign by their STORE (the loop plug-ins' tests cover loops).
std::vector<Program> failing_programs(size_t want, const CompiledPathConfig& cfg) {
  GenPolicy straight_line;
  without(straight_line, "loop");
  std::vector<Program> found;
  for (uint64_t base = 1; found.size() < want && base < 200; base += 16) {
    std::vector<Program> batch;
    for (uint64_t s = base; s < base + 16; ++s) batch.push_back(generate(s, straight_line));
    std::vector<const Program*> ptrs;
    for (const Program& p : batch) ptrs.push_back(&p);
    const std::vector<Finding> r = check(ptrs, cfg, false);
    for (size_t i = 0; i < batch.size() && found.size() < want; ++i)
      if (r[i].defined() && r[i].observation.verdict == Verdict::mismatch) found.push_back(batch[i]);
  }
  return found;
}

// 1-minimal: the reducer says it finished (a whole round without progress), and indeed no program one
// step smaller (a node, store, BUFFER, element or data value less, or a simpler constant) fails the same way.
void expect_one_minimal(const ReduceResult& r, const std::string& sig, const CompiledPathConfig& cfg) {
  EXPECT_TRUE(r.complete) << print_program(r.program);
  std::vector<Program> smaller = shrink_candidates(r.program, reference_values(r.program));
  std::erase_if(smaller, [](const Program& q) { return !verifies(q); });
  ASSERT_FALSE(smaller.empty());
  std::vector<const Program*> batch;
  for (const Program& q : smaller) batch.push_back(&q);
  const std::vector<Finding> checked = check(batch, cfg);
  for (size_t i = 0; i < smaller.size(); ++i)
    EXPECT_FALSE(checked[i].defined() && checked[i].observation.signature == sig)
        << "still fails as " << sig << " one step smaller:\n"
        << print_program(smaller[i]);
}

// Every pass run has its row, in registry order, and the rows add up to the reduction's totals.
void expect_per_pass_totals(const ReduceResult& r, size_t passes_run) {
  ASSERT_EQ(r.passes.size(), passes_run);
  int tried = 0, accepted = 0;
  for (const PassStats& s : r.passes) {
    tried += s.tried;
    accepted += s.accepted;
    EXPECT_LE(s.accepted, s.tried) << s.name;
  }
  EXPECT_EQ(tried, r.candidates);
  EXPECT_EQ(accepted, r.steps);
}

TEST(Reduce, BrokenRendererFailuresShrinkToAFewNodes) {
  const CompiledPathConfig cfg = broken_renderer_config();
  const std::vector<Program> failing = failing_programs(2, cfg);
  ASSERT_EQ(failing.size(), 2u) << "the broken renderer should be caught quickly";
  for (const Program& p : failing) {
    const std::string sig = check({&p}, cfg).at(0).observation.signature;
    ASSERT_EQ(sig.rfind("mismatch MUL", 0), 0u) << sig;
    const ReduceResult r = reduce_and_check(p, sig, cfg);
    EXPECT_LE(program_cost(r.program).nodes, 12u) << print_program(r.program);
    EXPECT_LT(program_cost(r.program), program_cost(p));
    expect_per_pass_totals(r, all_passes().size());
    expect_one_minimal(r, sig, cfg);
  }
}

// `--passes sink,unused-buffers`: only those run (the -v table has their rows alone), and the result
// only drops stores and buffers: every node it keeps is the original's, so it is larger than a full
// reduction (at most 12 nodes above). An unknown name is a usage error naming the passes.
TEST(Reduce, OnlyTheChosenPassesRun) {
  const CompiledPathConfig cfg = broken_renderer_config();
  const std::vector<Program> failing = failing_programs(1, cfg);
  ASSERT_EQ(failing.size(), 1u);
  const Program& p = failing[0];
  const TempDir dir;
  std::ofstream(dir / "found.uop") << print_program(p);
  const std::string args = "reduce " + (dir / "found.uop").string() + " -o " + (dir / "reduced.uop").string() +
                           " --renderer-cmd " + broken_renderer() + " --cflags -O1 -v";
  const Ran ran = run_uopfuzz(args + " --passes unused-buffers,sink", "UOPFUZZ=" + uopfuzz_binary() + " ");
  ASSERT_EQ(ran.code, 0) << ran.out;
  for (const Pass& pass : all_passes()) {
    const bool chosen = pass.name == "sink" || pass.name == "unused-buffers";
    EXPECT_EQ(ran.out.find("reduce: " + std::string(pass.name) + " ") != std::string::npos, chosen) << pass.name << "\n"
                                                                                                    << ran.out;
  }
  // Dropping stores and buffers only removes nodes: no op is more frequent than in the original.
  const Program reduced = parse_program(read_text(dir / "reduced.uop"));
  std::map<Op, int> ops;
  for (const UOp* u : linearize(p)) ++ops[u->op];
  for (const UOp* u : linearize(reduced)) EXPECT_GE(--ops[u->op], 0) << name(u->op) << "\n" << print_program(reduced);
  EXPECT_GT(program_cost(reduced).nodes, 12u) << read_text(dir / "reduced.uop");
  EXPECT_LT(program_cost(reduced), program_cost(p));
  const Ran unknown = run_uopfuzz(args + " --passes sink,no-such-pass");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("unknown pass `no-such-pass`"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("slice, sink, unused-buffers"), std::string::npos) << unknown.out;
}

// A target that stops failing mid-reduction (tests/fuzz/oracle/flaky_renderer.sh: broken for its first
// 30 renders, a step's worth): the reduced program passes when checked again, so `reduce` writes the
// input unchanged, marked unreduced, and says why instead of a bare "not finished".
TEST(Reduce, AResultThatNoLongerFailsWhenCheckedAgainIsReportedAndTheInputKept) {
  const Program p = broken_renderer_mul_program();
  const TempDir dir;
  std::ofstream(dir / "found.uop") << print_program(p);
  const std::string env = "UOPFUZZ=" + uopfuzz_binary() + " FLAKY_BROKEN=30 FLAKY_COUNT=" + (dir / "count").string() + " ";
  const Ran ran = run_uopfuzz("reduce " + (dir / "found.uop").string() + " -o " + (dir / "reduced.uop").string() +
                                  " --cflags -O1 --renderer-cmd " + source_path("tests/fuzz/oracle/flaky_renderer.sh"),
                              env);
  ASSERT_EQ(ran.code, 0) << ran.out;
  EXPECT_NE(ran.out.find("step 1 "), std::string::npos) << "no step taken while the target failed:\n" << ran.out;
  EXPECT_NE(ran.out.find("reduce: the result passes when checked again, not `mismatch MUL i32`"), std::string::npos) << ran.out;
  const Program written = parse_program(read_text(dir / "reduced.uop"));
  EXPECT_EQ(program_cost(written).nodes, program_cost(p).nodes) << read_text(dir / "reduced.uop");
  ASSERT_NE(written.meta_value("reduced"), nullptr);
  EXPECT_EQ(*written.meta_value("reduced"), "no");
}

// A batch that ends past the reducer's time limit is not trusted (its late renders may have been cut):
// a round whose last batch did so is no proof of 1-minimality, even when it checked every candidate.
TEST(Reduce, ARoundTheTimeLimitEndedInIsNotFinished) {
  const CompiledPathConfig cfg = broken_renderer_config();
  const Program p = broken_renderer_mul_program();
  const std::string sig = check({&p}, cfg).at(0).observation.signature;
  ASSERT_EQ(sig, "mismatch MUL i32");
  ReduceOptions ro;
  ro.time_limit_s = 0.05;  // the batch alone takes longer: a process per render, then a compile
  const ReduceResult cut = reduce(p, sig, cfg, ro);
  EXPECT_FALSE(cut.complete);
  EXPECT_EQ(cut.steps, 0);
  EXPECT_EQ(cut.observation.signature, sig);
  const ReduceResult full = reduce(p, sig, cfg);
  EXPECT_TRUE(full.complete);
  EXPECT_LT(program_cost(full.program), program_cost(p));
}

// The literal pass offers a buffer's values at their simplest a half, then a quarter, ... at a time
// before one value at a time: a target that needs one of eight values takes a few steps, not seven.
TEST(Reduce, LiteralPassSimplifiesPartsOfABufferAtOnce) {
  const Program p = parse_program(
      "uops 1\n"
      "%0 = BUFFER i32[8] slot=0\n"
      "%1 = BUFFER i32[1] slot=1\n"
      "%2 = CONST i32 5\n"
      "%3 = INDEX i32 %0 %2\n"
      "%4 = LOAD i32 %3\n"
      "%5 = CONST i32 0\n"
      "%6 = INDEX i32 %1 %5\n"
      "%7 = STORE void %6 %4\n"
      "%8 = SINK void %7\n"
      "data 0 = 11 12 13 14 15 16 17 18\n");
  const std::vector<const Pass*> literal = passes_named({"literal"});
  std::vector<std::vector<int64_t>> offered;  // slot 0's values of each candidate that has them
  for (const Program& q : pass_candidates(*literal.at(0), p, reference_values(p)))
    if (q.data.contains(0)) {
      offered.emplace_back();
      for (Scalar s : q.data.at(0)) offered.back().push_back(s.i);
    }
  auto at = [&](const std::vector<int64_t>& v) { return std::find(offered.begin(), offered.end(), v) - offered.begin(); };
  const auto first_half = at({0, 0, 0, 0, 15, 16, 17, 18}), second_half = at({11, 12, 13, 14, 0, 0, 0, 0});
  const auto a_quarter = at({11, 12, 13, 14, 0, 0, 17, 18}), one_value = at({11, 12, 13, 14, 15, 0, 17, 18});
  const auto end = static_cast<std::ptrdiff_t>(offered.size());
  ASSERT_LT(first_half, end);
  ASSERT_LT(second_half, end);
  ASSERT_LT(a_quarter, end);
  ASSERT_LT(one_value, end);
  EXPECT_LT(second_half, a_quarter);
  EXPECT_LT(a_quarter, one_value);
}

// The docs name the registry's passes, in its order: docs/format.md's table of `reduce` (with the
// descriptions --list-passes prints) and docs/design.md's reducer section.
TEST(Reduce, DocsListTheRegistrysPasses) {
  std::vector<std::string> rows, names;
  for (const Pass& pass : all_passes()) {
    rows.push_back("| `" + std::string(pass.name) + "` | " + std::string(pass.description) + " |");
    names.push_back(std::string(pass.name));
  }
  const std::vector<std::string> format = read_lines(source_path("docs/format.md"));
  const auto table =
      std::find_if(format.begin(), format.end(), [](const std::string& l) { return l.starts_with("| pass | candidates"); });
  ASSERT_NE(table, format.end()) << "docs/format.md: the table of reduce passes";
  std::vector<std::string> documented;
  for (auto it = table + 2; it != format.end() && it->starts_with("| `"); ++it) documented.push_back(*it);
  EXPECT_EQ(documented, rows) << "docs/format.md lists:" << bulleted(documented) << "\nthe registry:" << bulleted(rows);

  const std::string design = read_text(source_path("docs/design.md"));
  const size_t from = design.find("in the order a round runs");
  ASSERT_NE(from, std::string::npos) << "docs/design.md: the reducer's list of passes";
  const std::string list = design.substr(from, design.find(". A round", from) - from);
  std::vector<std::string> listed;
  for (size_t open = list.find('`'); open != std::string::npos; open = list.find('`', list.find('`', open + 1) + 1))
    listed.push_back(list.substr(open + 1, list.find('`', open + 1) - open - 1));
  EXPECT_EQ(listed, names) << "docs/design.md lists:" << bulleted(listed);
}

TEST(Reduce, ShrinkStepsAreStrictlySmaller) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Program p = generate(seed);
    const ProgramCost cost = program_cost(p);
    for (const Program& q : shrink_candidates(p, {})) EXPECT_LT(program_cost(q), cost);
  }
}

}  // namespace
}  // namespace uf::testing

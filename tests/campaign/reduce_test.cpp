// The reducer against a deliberately broken renderer: small reproducers, same signature, and they replay.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/policy.h"
#include "fuzz/oracle/reduce.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

CompiledPathConfig broken() {
  ::setenv("UOPFUZZ", uopfuzz_binary().c_str(), 1);
  CompiledPathConfig cfg;
  cfg.renderer_cmd = broken_renderer();
  cfg.cflags = "-O1";
  return cfg;
}

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
        << "still fails as " << sig << " one step smaller:\n" << print_program(smaller[i]);
}

TEST(Reduce, BrokenRendererFailuresShrinkToAFewNodes) {
  const CompiledPathConfig cfg = broken();
  const std::vector<Program> failing = failing_programs(2, cfg);
  ASSERT_EQ(failing.size(), 2u) << "the broken renderer should be caught quickly";
  for (const Program& p : failing) {
    const std::string sig = check({&p}, cfg).at(0).observation.signature;
    ASSERT_EQ(sig.rfind("mismatch MUL", 0), 0u) << sig;
    ReduceOptions ro;
    ro.time_limit_s = 240;
    const ReduceResult r = reduce(p, sig, cfg, ro);
    EXPECT_EQ(r.observation.signature, sig);
    EXPECT_LE(program_cost(r.program).nodes, 12u) << print_program(r.program);
    EXPECT_LT(program_cost(r.program), program_cost(p));
    expect_one_minimal(r, sig, cfg);
    // The reproducer stands on its own: it verifies, parses back, and still fails the same way.
    verify(r.program);
    const Program back = parse_program(print_program(r.program));
    EXPECT_EQ(check({&back}, cfg).at(0).observation.signature, sig);
    // ...and agrees under the correct renderer.
    CompiledPathConfig good;
    good.cflags = cfg.cflags;
    EXPECT_EQ(check({&back}, good).at(0).observation.verdict, Verdict::ok);
  }
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

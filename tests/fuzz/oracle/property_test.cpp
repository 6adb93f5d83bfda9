// The regression gate's property: for generated programs, the reference interpreter and the compiled
// path agree.
//
// RapidCheck draws the program seeds. Its own shrinker is off: shrinking a seed only jumps to an
// unrelated program. Our reducer does the shrinking, and the failure message is the minimised
// reproducer, ready to be saved as a .uop file and replayed with `uopfuzz run`.
//
// CI runs a fixed seed and case count. For more, set UOPFUZZ_PROPERTY_CASES (cases of 16 programs,
// default 8) and UOPFUZZ_PROPERTY_SEED (default 20261129).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <sstream>

#include "core/text.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/reduce.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/paths.h"
#include "tests/support/reduce.h"

namespace uf::testing {
namespace {

constexpr size_t kProgramsPerCase = 16;  // one compiler call per case

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

struct PropertyRun {
  bool passed = false;
  std::string message;  // RapidCheck's report; on a failure, the reduced reproducer
  int64_t compared = 0;
};

PropertyRun reference_equals_compiled(const CompiledPathConfig& cfg, int cases, uint64_t seed, double reduce_s) {
  PropertyRun run;
  const auto property = [&] {
    // One drawn base seed and the programs after it: 16 different programs even at RapidCheck's first,
    // smallest case (16 drawn seeds would all be 0 there).
    const uint64_t base = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());
    std::vector<uint64_t> seeds;
    for (uint64_t k = 0; k < kProgramsPerCase; ++k) seeds.push_back(base * kProgramsPerCase + k);
    std::vector<Program> programs;
    for (uint64_t s : seeds) programs.push_back(generate(s));
    std::vector<const Program*> ptrs;
    for (const Program& p : programs) ptrs.push_back(&p);
    const std::vector<Finding> r = check(ptrs, cfg);
    for (size_t k = 0; k < programs.size(); ++k) {
      if (!r[k].defined()) continue;  // UNDEFINED under the reference: nothing to compare
      ++run.compared;
      const Observation& obs = r[k].observation;
      if (obs.verdict == Verdict::ok) continue;
      ReduceOptions ro;
      ro.time_limit_s = reduce_s;
      const ReduceResult red = reduce(programs[k], obs.signature, cfg, ro);
      const bool same = red.observation.signature == obs.signature;
      const FindingContext ctx{"property", cfg, cfg.cc};
      RC_FAIL("seed " + std::to_string(seeds[k]) + ": " + obs.signature + "\n" +
              reproducer_text(same ? red.program : programs[k], same ? red.observation : obs, ctx));
    }
  };
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  params.disableShrinking = true;
  rc::detail::TestMetadata meta;
  meta.id = meta.description = "reference == compiled";
  const auto result = rc::detail::checkTestable(property, meta, params);
  std::ostringstream os;
  rc::detail::printResultMessage(result, os);
  run.passed = result.template is<rc::detail::SuccessResult>();
  run.message = os.str();
  return run;
}

TEST(Property, ReferenceEqualsCompiled) {
  const int cases = static_cast<int>(env_or("UOPFUZZ_PROPERTY_CASES", 8));
  const PropertyRun run = reference_equals_compiled(CompiledPathConfig{}, cases, env_or("UOPFUZZ_PROPERTY_SEED", 20261129), 300);
  EXPECT_TRUE(run.passed) << run.message;
  EXPECT_GE(run.compared, static_cast<int64_t>(cases * kProgramsPerCase * 9 / 10)) << "too many UNDEFINED programs";
}

// The property can fail: against a renderer that gets integer MUL wrong, it reports a small reproducer
// that parses back and still fails alike.
TEST(Property, FailsWithAReducedReproducerAgainstABrokenRenderer) {
  const CompiledPathConfig broken = broken_renderer_config();
  const PropertyRun run = reference_equals_compiled(broken, 8, 1, 120);
  ASSERT_FALSE(run.passed);
  const size_t start = run.message.find("uops ");
  ASSERT_NE(start, std::string::npos) << run.message;
  const Program reproducer = parse_program(run.message.substr(start));
  EXPECT_LE(program_cost(reproducer).nodes, 12u) << run.message;
  EXPECT_EQ(check({&reproducer}, broken).at(0).observation.verdict, Verdict::mismatch);
}

}  // namespace
}  // namespace uf::testing

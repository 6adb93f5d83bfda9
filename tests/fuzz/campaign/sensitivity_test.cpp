// Narrow bugs, found: a renderer with one realistic bug that most values hide (f64 MULACC fused into an
// fma; TRUNC keeping -0.0) is found by a fixed-seed campaign of --jobs 2 within a 60 s budget, reduced
// to completion, and the saved file alone replays it. tools/sensitivity measures the same over seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/campaign.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// A one-bug plug-in (tests/fuzz/campaign/plugins/NAME), the node its bug is in, and the campaign that finds it.
struct NarrowBug {
  std::string plugin;
  Op op;
  std::optional<DType> dtype;  // nullopt: any
  int seed, count;
};

void expect_found_reduced_and_replayed_within_a_minute(const NarrowBug& bug) {
  TempDir tmp{"uopfuzz-sensitivity"};
  const fs::path dir = tmp.path();
  const std::string plugin = source_path("tests/fuzz/campaign/plugins/" + bug.plugin);
  nlohmann::json s;
  ASSERT_NO_FATAL_FAILURE(run_finding_campaign("--seed " + std::to_string(bug.seed) + " --count " + std::to_string(bug.count) +
                                                   " --time 60 --jobs 2 -q --renderer-cmd " + plugin,
                                               dir, &s));
  bool found = false;
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    verify(p);
    const std::vector<const UOp*> nodes = linearize(p);
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const UOp* u) { return u->op == bug.op && (!bug.dtype || u->dtype == *bug.dtype); }))
      continue;  // a bucket of another node the same bug broke (a CAST of its result, say)
    found = true;
    ASSERT_NE(p.meta_value("reduced"), nullptr) << path;
    EXPECT_EQ(*p.meta_value("reduced"), "yes") << path << "\n" << read_text(path.get<std::string>());
    EXPECT_LE(program_cost(p).nodes, 10u) << read_text(path.get<std::string>());
    const std::string* sig = p.meta_value("signature");
    ASSERT_NE(sig, nullptr);
    const Ran replay = run_uopfuzz_isolated("run " + path.get<std::string>(), dir / "cache");  // meta renderer: the plug-in
    EXPECT_EQ(replay.code, 1) << replay.out;
    EXPECT_NE(replay.out.find("verdict: mismatch (" + *sig + ")"), std::string::npos) << replay.out;
    EXPECT_EQ(run_uopfuzz_isolated("run --renderer-cmd builtin " + path.get<std::string>(), dir / "cache").code, 0) << path;
  }
  EXPECT_TRUE(found) << "no saved reproducer has a " << name(bug.op) << " " << (bug.dtype ? name(*bug.dtype) : "") << ":\n"
                     << s.dump(2);
}

// Seed 2, 48 programs: a MULACC of full-precision f64 constants (generator value kind Precise), observed.
TEST(Sensitivity, FusedMulaccIsFoundReducedAndReplayedWithinAMinute) {
  expect_found_reduced_and_replayed_within_a_minute({"fma_mulacc.py", Op::MULACC, DType::F64, 2, 48});
}

// Seed 3, 64 programs: a TRUNC of a value in (-1, 0) (value kind Fraction) whose zero is stored as it is.
TEST(Sensitivity, TruncKeepingNegativeZeroIsFoundReducedAndReplayedWithinAMinute) {
  expect_found_reduced_and_replayed_within_a_minute({"trunc_negative_zero.py", Op::TRUNC, std::nullopt, 3, 64});
}

}  // namespace
}  // namespace uf::testing

// `uopfuzz fuzz --inputs K`: each compiled kernel runs on K data sets. A data-dependent bug is found
// with many data sets where one per program misses it, the reproducer carries the data set that fails,
// and the summary's `runs` counts every data set compared.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "fuzz/campaign/campaign.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/oracle.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

class Inputs : public ::testing::Test {
 protected:
  TempCache cache;  // this process's compile cache, which the campaigns below share
  TempDir tmp{"uopfuzz-inputs"};
  Ran run(const std::string& args) const { return run_uopfuzz_isolated(args, cache.dir); }
  static nlohmann::json summary(const fs::path& f) { return nlohmann::json::parse(read_text(f)); }
};

TEST_F(Inputs, OutOfRangeIsAUsageError) {
  EXPECT_EQ(run("fuzz --count 1 --inputs 0 --corpus " + (tmp / "c").string()).code, 2);
  EXPECT_EQ(run("fuzz --count 1 --inputs 1025 --corpus " + (tmp / "c").string()).code, 2);
}

// One worker, 24 programs in one batch: the same programs and data sets checked here, in process, give
// the summary's `runs` and `undefined_inputs` as sums over the programs.
TEST_F(Inputs, RunsCountEveryComparedDataSet) {
  constexpr int kPrograms = 24, kInputs = 4;
  constexpr uint64_t kSeed = 3;
  const fs::path json = tmp / "s.json";
  const Ran r = run("fuzz --count " + std::to_string(kPrograms) + " --inputs " + std::to_string(kInputs) + " --seed " +
                    std::to_string(kSeed) + " -q --corpus " + (tmp / "c").string() + " --json " + json.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = summary(json);

  std::vector<Program> programs;
  std::vector<std::vector<DataSet>> extra(kPrograms);
  for (int i = 0; i < kPrograms; ++i) {
    const uint64_t seed = program_seed(kSeed, 0, static_cast<uint64_t>(i));
    programs.push_back(generate(seed));
    for (int k = 1; k < kInputs; ++k) extra[i].push_back(input_data(programs.back(), seed, static_cast<uint64_t>(k)));
  }
  std::vector<const Program*> batch;
  for (const Program& p : programs) batch.push_back(&p);
  int64_t runs = 0, undefined_inputs = 0, valid = 0, observed_runs = 0;
  const std::vector<Finding> found = check(batch, extra, CompiledPathConfig{});
  for (size_t i = 0; i < found.size(); ++i) {
    const Finding& f = found[i];
    runs += f.runs;
    undefined_inputs += f.undefined_inputs;
    valid += f.defined();
    if (programs[i].meta_value("observed") && f.defined()) observed_runs += f.runs;
  }
  EXPECT_EQ(s["inputs"], kInputs);
  EXPECT_EQ(s["valid"], valid);
  EXPECT_EQ(s["runs"], runs) << s.dump(2);
  EXPECT_EQ(s["undefined_inputs"], undefined_inputs) << s.dump(2);
  EXPECT_EQ(s["observed_runs"], observed_runs) << s.dump(2);
  EXPECT_GT(runs, 2 * valid);  // most extra data sets are defined
  EXPECT_TRUE(s.contains("runs_per_second"));
}

// The plug-in negates a float MAX whose first operand lies in a narrow range that generated data seldom
// reaches. On a fixed seed and program count, one data set per kernel misses it; 16 find it, and the
// reproducer (saved unreduced) holds the data set that failed: data set `meta input` of its program.
TEST_F(Inputs, DataDependentBugIsFoundWithManyDataSets) {
  const std::string common = " --count 96 --seed 3 --jobs 2 -q --without loop --no-reduce --renderer-cmd " +
                             source_path("tests/fuzz/campaign/plugins/max_data_range.py");
  const Ran once = run("fuzz --inputs 1 --corpus " + (tmp / "one").string() + common);
  ASSERT_EQ(once.code, 0) << once.out;

  const fs::path json = tmp / "s.json";
  const Ran many = run("fuzz --inputs 16 --corpus " + (tmp / "many").string() + " --json " + json.string() + common);
  ASSERT_EQ(many.code, 1) << many.out;
  const auto s = summary(json);
  ASSERT_FALSE(s["saved"].empty());
  bool extra_data_set = false;
  for (const auto& path : s["saved"]) {
    const std::string file = path.get<std::string>();
    const Program p = read_program(file);
    ASSERT_NE(p.meta_value("seed"), nullptr);
    if (const std::string* input = p.meta_value("input")) {
      extra_data_set = true;
      const uint64_t seed = std::stoull(*p.meta_value("seed"));
      Program rebuilt = p;
      GenPolicy straight_line;  // the campaign's policy: --without loop
      without(straight_line, "loop");
      rebuilt.data = input_data(generate(seed, straight_line), seed, std::stoull(*input), straight_line);
      EXPECT_EQ(print_program(rebuilt), print_program(p)) << file;  // its data lines are that data set
    }
    const Ran replay = run("run " + file);  // meta renderer: the plug-in
    EXPECT_EQ(replay.code, 1) << replay.out;
    EXPECT_NE(replay.out.find("verdict: mismatch"), std::string::npos) << replay.out;
    EXPECT_EQ(run("run --renderer-cmd builtin " + file).code, 0) << file;
  }
  EXPECT_TRUE(extra_data_set) << "every finding came from the generated data";
}

}  // namespace
}  // namespace uf::testing

// The golden ALU vectors through one compiler: cases grouped by (op, dtypes), 25 to a program, one batch.
#include "tests/support/golden_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <iterator>
#include <map>

#include "codegen/compiled_path.h"
#include "codegen/runtime/process.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

constexpr size_t kCasesPerProgram = 25;

// All cases of one (op, operand dtypes, result dtype), a chunk of them per program.
std::vector<std::vector<const AluCase*>> chunks(const std::vector<AluCase>& cases) {
  std::map<std::string, std::vector<const AluCase*>> groups;
  for (const AluCase& c : cases) {
    std::string key = name(c.op);
    for (DType d : c.operand_dtypes) key += std::string(" ") + name(d);
    key += std::string(">") + name(c.result_dtype);
    groups[key].push_back(&c);
  }
  std::vector<std::vector<const AluCase*>> out;
  for (auto& [key, g] : groups)
    for (size_t i = 0; i < g.size(); i += kCasesPerProgram)
      out.emplace_back(g.begin() + static_cast<std::ptrdiff_t>(i),
                       g.begin() + static_cast<std::ptrdiff_t>(std::min(g.size(), i + kCasesPerProgram)));
  return out;
}

}  // namespace

// The batch is compiled as two halves in parallel (two compiler calls): it halves the wall time on
// two cores, and exercises run_compiled from several threads at once.
void run_golden(const std::string& file, const std::string& cc, const std::string& cflags, bool loaded,
                const RenderOptions& render) {
  if (find_executable(cc).empty()) FAIL() << "compiler '" << cc << "' is not installed: this test needs it";
  TempCache cache;
  const std::vector<AluCase>& all = alu_golden(file).cases;
  ASSERT_GT(all.size(), 30000u);
  // --f16 native changes only what touches f16 (other programs render as in soft mode): just those cases.
  std::vector<AluCase> f16_cases;
  if (render.f16_native)
    std::copy_if(all.begin(), all.end(), std::back_inserter(f16_cases), [](const AluCase& c) {
      return c.result_dtype == DType::F16 ||
             std::find(c.operand_dtypes.begin(), c.operand_dtypes.end(), DType::F16) != c.operand_dtypes.end();
    });
  const std::vector<AluCase>& cases = render.f16_native ? f16_cases : all;
  ASSERT_FALSE(cases.empty());
  const auto parts = chunks(cases);
  std::vector<Program> programs;
  for (const auto& part : parts) programs.push_back(alu_program(part, loaded).program);
  CompiledPathConfig cfg;
  cfg.cc = cc;
  cfg.cflags = cflags;
  cfg.timeout_s = 60;
  cfg.render = render;
  std::vector<const Program*> halves[2];
  for (size_t i = 0; i < programs.size(); ++i) halves[i * 2 / programs.size()].push_back(&programs[i]);
  auto second = std::async(std::launch::async, [&] { return run_compiled(halves[1], cfg); });
  std::vector<KernelOutcome> out = run_compiled(halves[0], cfg);
  for (KernelOutcome& o : second.get()) out.push_back(std::move(o));
  ASSERT_EQ(out.size(), programs.size());

  size_t compared = 0, undefined = 0, wrong = 0;
  std::string report;
  for (size_t i = 0; i < programs.size(); ++i) {
    ASSERT_EQ(out[i].status, KernelStatus::ok) << status_name(out[i].status) << ": " << out[i].message.substr(0, 4000);
    const auto& cs = parts[i];
    const int64_t out_slot = static_cast<int64_t>(cs[0]->operands.size());
    const Values& got = out[i].buffers.at(out_slot);
    ASSERT_EQ(got.size(), cs.size());
    for (size_t k = 0; k < cs.size(); ++k) {
      const AluCase& c = *cs[k];
      if (!c.result) {
        ++undefined;
        continue;
      }
      ++compared;
      if (same_value(c.result_dtype, *c.result, got[k])) continue;
      if (++wrong <= 25)
        report +=
            "  " + file + ":" + std::to_string(c.line) + ": " + c.text + "   got " + format_scalar(c.result_dtype, got[k]) + "\n";
    }
  }
  const char* mode = render.f16_native ? " --f16 native" : "";
  EXPECT_EQ(wrong, 0u) << wrong << " of " << compared << " golden cases differ with " << cc << " " << cflags << mode
                       << (loaded ? " (operands loaded)" : " (operands constant)") << ":\n"
                       << report;
  EXPECT_EQ(compared + undefined, cases.size());
  EXPECT_GT(undefined, 0u);
  std::printf("%s: %zu golden cases compared, %zu UNDEFINED run uncompared (%s %s%s, operands %s)\n", file.c_str(), compared,
              undefined, cc.c_str(), cflags.c_str(), mode, loaded ? "loaded" : "constant");
}

}  // namespace uf::testing

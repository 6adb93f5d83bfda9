// The report in a real browser: headless Chromium (tests/support/browser.h) opens the page of a small
// campaign against the broken renderer, and the test checks what a reader sees: no console errors and
// nothing fetched, one heat-map cell per (op, dtype) pair, a bucket link that scrolls to its reproducer,
// no page-wide horizontal scrolling on a phone. It saves a screenshot into the build directory.
//
// Exit 77 (CTest SKIP_RETURN_CODE) when Chromium is not installed: reported as skipped, never passed.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "tests/support/browser.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

using nlohmann::json;
std::string g_chromium;

TEST(ReportInBrowser, ReadsAndNavigates) {
  TempDir tmp("uopfuzz-browser");
  const std::string env = "UOPFUZZ_CACHE_DIR=" + (tmp / "cache").string() + " UOPFUZZ=" + uopfuzz_binary() + " ";
  const Ran fuzz = run_uopfuzz("fuzz --count 16 --jobs 2 -q --no-reduce --without loop --renderer-cmd " + broken_renderer() +
                                   " --corpus " + (tmp / "corpus").string() + " --json " + (tmp / "run.json").string(),
                               env);
  ASSERT_EQ(fuzz.code, 1) << fuzz.out;
  const Ran rep = run_uopfuzz("report " + (tmp / "run.json").string() + " -o " + (tmp / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const json summary = json::parse(read_text(tmp / "run.json"));
  size_t pairs = 0;
  for (const auto& [op, by_dtype] : summary["coverage_counts"]["op_dtype"].items()) pairs += by_dtype.size();

  Browser b(g_chromium, tmp / "profile", 1024, 768);
  b.open("file://" + (tmp / "report.html").string());
  EXPECT_EQ(b.eval("performance.getEntriesByType('resource').length").get<int>(), 0) << "the report fetched something";
  EXPECT_EQ(b.eval("document.querySelectorAll('#heat-op-dtype rect.cell').length").get<size_t>(), pairs);
  EXPECT_EQ(b.eval("new Set([...document.querySelectorAll('#heat-op-dtype rect.cell')].map(r => r.dataset.row + ' ' + "
                   "r.dataset.col)).size")
                .get<size_t>(),
            pairs);
  EXPECT_GE(b.eval("document.querySelectorAll('#heat-op-dtype a.fail').length").get<int>(), 1);

  // Clicking a bucket's "show" link brings its reproducer to the top of the window.
  ASSERT_GE(b.eval("document.querySelectorAll('a.repro-link').length").get<int>(), 1);
  EXPECT_EQ(b.eval("window.scrollY").get<double>(), 0.0);
  const json where = b.eval(R"((async () => {
      const link = document.querySelector('a.repro-link');
      link.click();
      await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      const target = document.getElementById(link.getAttribute('href').slice(1));
      return {hash: location.hash, id: target.id, top: target.getBoundingClientRect().top, y: window.scrollY};
    })())");
  EXPECT_EQ(where["hash"].get<std::string>(), "#" + where["id"].get<std::string>());
  EXPECT_GT(where["y"].get<double>(), 0.0) << where.dump();
  EXPECT_LT(std::abs(where["top"].get<double>()), 2.0) << where.dump();

  b.eval("window.scrollTo(0, 0)");
  std::ofstream(UOPFUZZ_SCREENSHOT, std::ios::binary) << b.screenshot(4000);
  std::cout << "screenshot: " << UOPFUZZ_SCREENSHOT << "\n";

  // A phone: the page itself never scrolls sideways (wide charts and tables scroll in their boxes).
  b.resize(390, 800);
  EXPECT_LE(b.eval("document.documentElement.scrollWidth").get<int>(), 390);
  EXPECT_TRUE(b.errors().empty()) << ::testing::PrintToString(b.errors());
}

// A target that reports features (tests/fuzz/campaign/plugins/feature_target.py): the reader sees the
// target coverage section, its chart over time, one row per file with fired / reachable, and the never
// fired features listed with their source text.
TEST(ReportInBrowser, ShowsTargetCoverage) {
  TempDir tmp("uopfuzz-browser-target");
  const std::string env = "UOPFUZZ_CACHE_DIR=" + (tmp / "cache").string() + " UOPFUZZ=" + uopfuzz_binary() + " ";
  const Ran fuzz = run_uopfuzz("fuzz --count 16 -q --no-reduce --renderer-cmd " +
                                   source_path("tests/fuzz/campaign/plugins/feature_target.py") + " --corpus " +
                                   (tmp / "corpus").string() + " --json " + (tmp / "run.json").string(),
                               env);
  ASSERT_EQ(fuzz.code, 0) << fuzz.out;
  const Ran rep = run_uopfuzz("report " + (tmp / "run.json").string() + " -o " + (tmp / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const json c = json::parse(read_text(tmp / "run.json"))["target_coverage"];

  Browser b(g_chromium, tmp / "profile", 1024, 768);
  b.open("file://" + (tmp / "report.html").string());
  EXPECT_EQ(b.eval("document.querySelector('#target h2').textContent").get<std::string>(), "Target coverage");
  EXPECT_GE(b.eval("document.querySelectorAll('#chart-target path').length").get<int>(), 1);
  EXPECT_EQ(b.eval("document.querySelectorAll('#target-files tr').length").get<size_t>(), c["files"].size() + 1);
  const std::string head = b.eval("document.querySelector('#target-files tr').textContent").get<std::string>();
  EXPECT_NE(head.find(std::to_string(c["fired"].get<int>()) + " / " + std::to_string(c["reachable"].get<int>())),
            std::string::npos)
      << head;
  EXPECT_EQ(b.eval("document.querySelectorAll('#target-never li').length").get<size_t>(), c["never_fired"].size());
  EXPECT_NE(b.eval("document.querySelector('#target-never li').textContent").get<std::string>().find("  rule "), std::string::npos);
  b.resize(390, 800);
  EXPECT_LE(b.eval("document.documentElement.scrollWidth").get<int>(), 390);
  EXPECT_TRUE(b.errors().empty()) << ::testing::PrintToString(b.errors());
}

// A C compiler's optimization remarks as features (fuzz --remarks): no reachable set, so the chart
// counts every feature, the table has one row per compiler and pass, and nothing is listed as never fired.
TEST(ReportInBrowser, ShowsCompilerRemarks) {
  TempDir tmp("uopfuzz-browser-remarks");
  const std::string env = "UOPFUZZ_CACHE_DIR=" + (tmp / "cache").string() + " ";
  const Ran fuzz = run_uopfuzz("fuzz --count 24 --seed 3 -q --no-reduce --remarks --cc gcc --corpus " +
                                   (tmp / "corpus").string() + " --json " + (tmp / "run.json").string(),
                               env);
  ASSERT_TRUE(fuzz.code == 0 || fuzz.code == 1) << fuzz.out;
  const Ran rep = run_uopfuzz("report " + (tmp / "run.json").string() + " -o " + (tmp / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const json c = json::parse(read_text(tmp / "run.json"))["target_coverage"];
  ASSERT_GT(c["fired_any"].get<int>(), 0) << c.dump();
  std::set<std::string> passes;
  for (const auto& [name, _] : c["features"].items()) passes.insert(name.substr(0, name.find(": ")));

  Browser b(g_chromium, tmp / "profile", 1024, 768);
  b.open("file://" + (tmp / "report.html").string());
  EXPECT_EQ(b.eval("document.querySelector('#target h2').textContent").get<std::string>(), "Target coverage");
  EXPECT_GE(b.eval("document.querySelectorAll('#chart-target path').length").get<int>(), 1);
  EXPECT_NE(b.eval("document.querySelector('#chart-target').textContent").get<std::string>().find("(all features)"),
            std::string::npos);
  EXPECT_EQ(b.eval("document.querySelectorAll('#target-files tr').length").get<size_t>(), passes.size() + 1);
  EXPECT_NE(b.eval("document.querySelector('#target-files').textContent").get<std::string>().find("gcc optimized"),
            std::string::npos);
  const std::string head = b.eval("document.querySelector('#target-files tr').textContent").get<std::string>();
  EXPECT_NE(head.find(std::to_string(c["fired_any"].get<int>()) + " fired"), std::string::npos) << head;
  EXPECT_EQ(b.eval("document.querySelectorAll('#target-never').length").get<int>(), 0);
  EXPECT_TRUE(b.errors().empty()) << ::testing::PrintToString(b.errors());
}

}  // namespace
}  // namespace uf::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::optional<std::string> chromium = uf::testing::find_chromium();
  if (!chromium) {
    std::cout << "SKIPPED: chromium is not installed (tools/setup installs it; or set UOPFUZZ_CHROMIUM)\n";
    return 77;
  }
  uf::testing::g_chromium = *chromium;
  return RUN_ALL_TESTS();
}

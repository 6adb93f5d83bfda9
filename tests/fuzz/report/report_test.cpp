// `uopfuzz report`: a real campaign against the broken renderer gives a page with every part, built from
// the summary and the event log the campaign now writes; two crafted runs mark the second's new bucket
// and the one it lost; bad input is exit 2 with the file named.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "fuzz/campaign/corpus.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

// The text of the element that starts with `open` (e.g. `<svg id="x"`) up to `close`.
std::string element(const std::string& html, const std::string& open, const std::string& close) {
  const size_t a = html.find(open);
  if (a == std::string::npos) return "";
  const size_t b = html.find(close, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::string bucket_id(const std::string& sig) {
  const std::string f = Corpus::file_name(sig);
  return f.substr(0, f.size() - 4);
}

TEST(Report, CampaignAgainstTheBrokenRenderer) {
  TempDir tmp("uopfuzz-report");
  const std::string env = "UOPFUZZ_CACHE_DIR=" + (tmp / "cache").string() + " UOPFUZZ=" + uopfuzz_binary() + " ";
  const Ran fuzz = run_uopfuzz("fuzz --count 16 --jobs 2 -q --no-reduce --without loop --renderer-cmd " + broken_renderer() +
                                   " --corpus " + (tmp / "corpus").string() + " --json " + (tmp / "run.json").string(),
                               env);
  ASSERT_EQ(fuzz.code, 1) << fuzz.out;  // the broken renderer's MUL is found
  const json s = json::parse(read_text(tmp / "run.json"));

  // The summary: failing programs by bucket add up to the failures; one count per pair of the table.
  int64_t hits = 0;
  for (const auto& [sig, n] : s["bucket_hits"].items()) hits += n.get<int64_t>();
  EXPECT_EQ(hits, s["mismatching_programs"].get<int64_t>() + s["crashes"].get<int64_t>() + s["compile_errors"].get<int64_t>() +
                      s["render_errors"].get<int64_t>() + s["timeouts"].get<int64_t>());
  size_t pairs = 0;
  for (const auto& [op, by_dtype] : s["coverage_counts"]["op_dtype"].items()) pairs += by_dtype.size();
  const std::string coverage = s["coverage"];
  std::smatch m;
  ASSERT_TRUE(std::regex_search(coverage, m, std::regex("/([0-9]+) op×dtype pairs"))) << coverage;
  EXPECT_EQ(std::to_string(pairs), m.str(1)) << coverage;

  // The event log: start, samples, one saved line per reproducer (with its signature), end.
  const std::vector<std::string> lines = read_lines(tmp / "run.events.jsonl");
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(json::parse(lines.front())["event"], "start");
  EXPECT_EQ(json::parse(lines.back())["event"], "end");
  std::set<std::string> saved_sigs, samples;
  for (const std::string& l : lines) {
    const json e = json::parse(l);
    if (e["event"] == "saved") saved_sigs.insert(e["signature"].get<std::string>());
    if (e["event"] == "sample") samples.insert(l);
  }
  EXPECT_FALSE(samples.empty());
  EXPECT_EQ(saved_sigs.size(), s["saved"].size());
  EXPECT_EQ(saved_sigs, (s["signatures"].get<std::set<std::string>>()));

  const Ran rep = run_uopfuzz("report " + (tmp / "run.json").string() + " -o " + (tmp / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = read_text(tmp / "report.html");
  EXPECT_LT(html.size(), 1000000u);
  EXPECT_EQ(count(element(html, "<svg id=\"heat-op-dtype\"", "</svg>"), "<rect class=\"cell\""), pairs);
  EXPECT_EQ(count(element(html, "<svg id=\"heat-cast\"", "</svg>"), "<rect class=\"cell\""), 289u);
  EXPECT_NE(html.find("<svg id=\"chart-rate\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"chart-buckets\""), std::string::npos);
  // Self-contained: nothing to fetch, no script.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  for (const std::string& sig : saved_sigs) {
    const std::string id = bucket_id(sig);
    EXPECT_NE(html.find("<tr id=\"bucket-" + id + "\""), std::string::npos) << sig;
    EXPECT_NE(html.find("href=\"#repro-" + id + "\""), std::string::npos) << sig;
    const std::string repro = element(html, "<section class=\"repro\" id=\"repro-" + id + "\"", "</section>");
    EXPECT_NE(repro.find("<mark>got "), std::string::npos) << repro;
    EXPECT_NE(repro.find("void kernel("), std::string::npos) << repro;  // the rendered C
    // A `mismatch MUL u32` cell of the heat map is ringed and links to its bucket.
    const std::string op = sig.substr(9, sig.find(' ', 9) - 9), dt = sig.substr(sig.rfind(' ') + 1);
    // Its group: the op across dtypes (no culprit searched without reduction), listed with its buckets.
    const std::string group = element(html, "<tr id=\"group-mismatch-" + op + "\"", "</tr>");
    EXPECT_NE(group.find("href=\"#bucket-" + id + "\""), std::string::npos) << sig << "\n" << group;
    EXPECT_NE(html.find("<a class=\"fail\" href=\"#bucket-" + id + "\"><rect class=\"cell\" data-row=\"" + op + "\" data-col=\"" +
                        dt + "\""),
              std::string::npos)
        << sig;
  }
}

// A summary with the given signatures (and one pair count), and optionally its event log; `target` (the
// summary's) and `renderer` (the log's) when given.
void crafted_run(const fs::path& json_path, const std::vector<std::string>& sigs, int programs, bool events,
                 const json& target = nullptr, const std::string& renderer = "builtin") {
  json s = {{"programs", programs},
            {"runs", programs * 4},
            {"buckets", sigs.size()},
            {"signatures", sigs},
            {"saved", json::array()},
            {"seconds", 60.0},
            {"coverage_counts", {{"op_dtype", {{"MUL", {{"i32", 3}, {"i16", 0}}}}}, {"cast", {{"f32", {{"i32", 1}}}}}}}};
  if (!target.is_null()) s["target"] = target;
  write(json_path, s.dump());
  if (!events) return;
  std::string log = json({{"event", "start"},
                          {"t", 0},
                          {"time", "2026-11-23T02:17:00Z"},
                          {"cc", "gcc"},
                          {"cflags", "-O2"},
                          {"renderer", renderer}})
                        .dump() +
                    "\n";
  for (size_t i = 0; i < sigs.size(); ++i)
    log += json({{"event", "bucket"}, {"t", 10.0 * (i + 1)}, {"signature", sigs[i]}}).dump() + "\n";
  log += json({{"event", "sample"}, {"t", 60}, {"programs", programs}, {"buckets", sigs.size()}}).dump() + "\n";
  write(fs::path(json_path).replace_extension(".events.jsonl"), log);
}

TEST(Report, TwoRunsMarkTheSecondsNewBucketAndTheOneItLost) {
  TempDir tmp("uopfuzz-report");
  crafted_run(tmp / "mon.json", {"mismatch MUL i32", "crash SIGSEGV"}, 1000, true);
  crafted_run(tmp / "tue.json", {"mismatch MUL i32", "mismatch ADD i16"}, 1200, false);
  const Ran rep = run_uopfuzz("report " + (tmp / "mon.json").string() + " " + (tmp / "tue.json").string() + " -o " +
                              (tmp / "r.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = read_text(tmp / "r.html");
  EXPECT_NE(html.find("<tr id=\"bucket-" + bucket_id("mismatch ADD i16") + "\" class=\"new-bucket\">"), std::string::npos);
  EXPECT_NE(html.find("new in tue"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"new-bucket\""), 1u);  // MUL i32 and the crash were in the first run
  EXPECT_NE(html.find("<tr id=\"bucket-" + bucket_id("mismatch MUL i32") + "\">"), std::string::npos);
  // The changes table: tue added ADD i16 and lost the crash.
  const std::string tue = element(element(html, "<table id=\"run-changes\"", "</table>"), "<td>tue</td>", "</tr>");
  EXPECT_NE(tue.find(">mismatch ADD i16</a>"), std::string::npos) << tue;
  EXPECT_NE(tue.find(">crash SIGSEGV</a>"), std::string::npos) << tue;
  EXPECT_EQ(tue.find("MUL i32"), std::string::npos) << tue;
  EXPECT_NE(html.find("2026-11-23T02:17:10Z"), std::string::npos);  // MUL i32 first seen 10 s into mon
  EXPECT_NE(html.find("<svg id=\"chart-trend-programs\""), std::string::npos);
  EXPECT_NE(html.find("tue: no event log"), std::string::npos);
}

// `meta reachable` (uopfuzz triage) is shown per bucket and per group, and groups user code reaches come
// first, before groups whose keys sort earlier.
TEST(Report, GroupsUserCodeReachesComeFirst) {
  TempDir tmp("uopfuzz-report");
  crafted_run(tmp / "run.json", {"mismatch ADD i16", "mismatch NEG f32"}, 100, true);
  const auto reproducer = [&](const std::string& sig, const std::string& reachable) {
    write(tmp / "corpus" / Corpus::file_name(sig),
          "uops 1\nmeta signature = " + sig + "\nmeta reachable = " + reachable +
              "\n%0 = CONST i32 0\n%1 = BUFFER i32[1] slot=0\n%2 = INDEX i32 %1 %0\n%3 = STORE void %2 %0\n%4 = SINK void %3\n");
  };
  reproducer("mismatch ADD i16", "kernel (no Tensor form: line 3: ALLOC)");
  reproducer("mismatch NEG f32", "tensor (the Tensor form gives buf0[0] = 0.0, expected -0.0)");
  const Ran rep = run_uopfuzz("report " + (tmp / "run.json").string() + " --corpus " + (tmp / "corpus").string() + " -o " +
                              (tmp / "r.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = read_text(tmp / "r.html");
  const std::string groups = element(html, "<table id=\"group-table\"", "</table>");
  const size_t neg = groups.find(">mismatch NEG f32</code>"), add = groups.find(">mismatch ADD i16</code>");
  ASSERT_NE(neg, std::string::npos) << groups;
  ASSERT_NE(add, std::string::npos) << groups;
  EXPECT_LT(neg, add) << groups;  // "mismatch ADD" sorts first by key, but NEG is reached from Tensor code
  EXPECT_NE(groups.find("<td>tensor</td>"), std::string::npos) << groups;
  EXPECT_NE(groups.find("<td>kernel</td>"), std::string::npos) << groups;
  const std::string row = element(html, "<tr id=\"bucket-" + bucket_id("mismatch NEG f32") + "\"", "</tr>");
  EXPECT_NE(row.find("<td>tensor (the Tensor form gives buf0[0] = 0.0, expected -0.0)</td>"), std::string::npos) << row;
}

// A run whose target approximates ops gets their ULP histogram (the summary's approx_ulps), one row per
// op and dtype, one column per bin; a run without any gets no section.
TEST(Report, ApproximatedResultsByUlpBin) {
  TempDir tmp("uopfuzz-report");
  crafted_run(tmp / "plain.json", {}, 10, false);
  const Ran none = run_uopfuzz("report " + (tmp / "plain.json").string() + " -o " + (tmp / "none.html").string());
  ASSERT_EQ(none.code, 0) << none.out;
  EXPECT_EQ(read_text(tmp / "none.html").find("id=\"approximate\""), std::string::npos);
  crafted_run(tmp / "run.json", {"mismatch SIN f64 ulp 1e+06"}, 100, false);
  json s = json::parse(read_text(tmp / "run.json"));
  s["approx_ulps"] = {{"SIN f64", {{"<=0.5", 1}, {">256", 2}}}, {"EXP2 f32", {{"<=0.5", 283}}}};
  write(tmp / "run.json", s.dump());
  const Ran rep = run_uopfuzz("report " + (tmp / "run.json").string() + " -o " + (tmp / "r.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string section = element(read_text(tmp / "r.html"), "<section id=\"approximate\"", "</section>");
  EXPECT_NE(section.find("<th>&lt;=0.5</th><th>&lt;=1</th>"), std::string::npos) << section;
  EXPECT_NE(section.find("<td>run</td><td>EXP2 f32</td><td class=\"n\">283</td>"), std::string::npos) << section;
  EXPECT_NE(section.find("<td>SIN f64</td><td class=\"n\">1</td><td class=\"n\"></td><td class=\"n\"></td><td class=\"n\"></td>"
                         "<td class=\"n\"></td><td class=\"n\"></td><td class=\"n\">2</td><td class=\"n\"></td></tr>"),
            std::string::npos)
      << section;
}

// --baseline: the master run's bucket its pinned baseline (same target and configuration) lacks is a
// regression of the target over pinned..master; a run of another configuration (backend) has no baseline;
// one at the baseline's own version is compared without calling anything a regression.
TEST(Report, BaselineMarksATargetsRegressionWithTheVersionRange) {
  TempDir tmp("uopfuzz-report");
  const auto tinygrad = [](const std::string& version) {
    return json{{"name", "tinygrad"}, {"version", version}, {"protocol", 2}, {"mode", "server"}, {"language", "c"}};
  };
  const std::string pinned = "a9069c177a9d", master = "0f1e2d3c4b5a", clang = "tg.py --backend clang";
  crafted_run(tmp / "pinned/run-clang.json", {"mismatch MUL i32", "crash SIGSEGV"}, 100, true, tinygrad(pinned), clang);
  crafted_run(tmp / "master/run-clang.json", {"mismatch MUL i32", "mismatch MAX i16"}, 100, true, tinygrad(master), clang);
  crafted_run(tmp / "master/run-llvm.json", {"mismatch ADD i8"}, 100, true, tinygrad(master), "tg.py --backend llvm");
  crafted_run(tmp / "again/run-clang.json", {"mismatch CMPLT u8"}, 100, true, tinygrad(pinned), clang);
  const Ran rep = run_uopfuzz("report " + (tmp / "master/run-clang.json").string() + " " +
                              (tmp / "master/run-llvm.json").string() + " " + (tmp / "again/run-clang.json").string() +
                              " --baseline " + (tmp / "pinned/run-clang.json").string() + " -o " + (tmp / "r.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string range = pinned + ".." + master;
  EXPECT_NE(rep.out.find("report: tinygrad regression " + range + ": mismatch MAX i16 (master/run-clang)"), std::string::npos)
      << rep.out;
  EXPECT_NE(rep.out.find("report: run-llvm: no --baseline run"), std::string::npos) << rep.out;
  const std::string html = read_text(tmp / "r.html");
  const std::string max = element(html, "<tr id=\"bucket-" + bucket_id("mismatch MAX i16") + "\"", "</tr>");
  EXPECT_NE(max.find("class=\"new-bucket regression\""), std::string::npos) << max;
  EXPECT_NE(max.find("<span class=\"tag reg\">tinygrad regression " + range + "</span>"), std::string::npos) << max;
  EXPECT_EQ(count(html, "<span class=\"tag reg\">"), 1u);  // not ADD i8 (no baseline), not CMPLT u8 (same version)
  EXPECT_NE(html.find("pinned/run-clang <span class=\"tag\">baseline</span>"), std::string::npos);
  const std::string table = element(html, "<table id=\"regression-table\"", "</table>");
  const std::string row = element(table, "<td>master/run-clang</td>", "</tr>");
  EXPECT_NE(row.find("<code>" + range + "</code>"), std::string::npos) << row;
  EXPECT_NE(row.find(">mismatch MAX i16</code></a>"), std::string::npos) << row;
  EXPECT_NE(row.find(">crash SIGSEGV</code></a>"), std::string::npos) << row;  // not seen at master
  EXPECT_NE(element(table, "<td>run-llvm</td>", "</tr>").find("none of its configuration"), std::string::npos) << table;
  EXPECT_NE(element(table, "<td>again/run-clang</td>", "</tr>").find("same version <code>" + pinned + "</code>"),
            std::string::npos)
      << table;
}

TEST(Report, BadInputIsExit2WithTheFile) {
  TempDir tmp("uopfuzz-report");
  Ran r = run_uopfuzz("report " + (tmp / "missing.json").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find((tmp / "missing.json").string() + ": cannot read file"), std::string::npos) << r.out;
  write(tmp / "bad.json", "{\"programs\": ");
  r = run_uopfuzz("report " + (tmp / "bad.json").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find((tmp / "bad.json").string() + ": not a JSON summary"), std::string::npos) << r.out;
  crafted_run(tmp / "ok.json", {}, 10, true);
  write(tmp / "ok.events.jsonl", "{\"event\":\"start\",\"t\":0}\n[1,2\n{\"event\":\"end\",\"t\":1}\n");
  r = run_uopfuzz("report " + (tmp / "ok.json").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find((tmp / "ok.events.jsonl").string() + ":2: not a JSON event"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace uf::testing

// Known findings (fuzz --known, fuzz/campaign/known.h) against the renderer with five bugs, each a switch
// (tests/fuzz/campaign/plugins/five_bugs.py). The known directory holds three findings: bug 1 and bug 3
// open, bug 4 fixed. The fixed-seed campaign of FiveBugs's 120 programs then files bug 3's SIGFPE under the
// known group before any reduction (its file as found, `meta known`, no culprit); bug 1's constant, which
// its first program shows only together with bug 5, once its reduction and culprit name bug 1; bugs 2, 4
// and 5 are new groups (bug 4's file is fixed: not a known bug). The blind stream (--guide none), as in
// FiveBugs: the same programs whatever the switches report. Then when a culprit is a fingerprint (known.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
#include "fuzz/campaign/known.h"
#include "tests/support/campaign.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

TEST(KnownFindings, AKnownBugIsCountedNotReduced) {
  TempDir tmp{"uopfuzz-known"};
  nlohmann::json s;
  ASSERT_NO_FATAL_FAILURE(run_finding_campaign(
      "--seed 35 --count 120 --jobs 2 -q --guide none --reduce-time 600 --known " + source_path("tests/fuzz/campaign/plugins/five_bugs_known") +
          " --renderer-protocol server --renderer-cmd " + source_path("tests/fuzz/campaign/plugins/five_bugs.py"),
      tmp.path(), &s));
  EXPECT_EQ(s["known"]["findings"], 2) << s["known"].dump(2);  // the fixed one is not a known bug
  std::map<std::string, std::string> known;  // signature -> known file
  for (const auto& [sig, k] : s["known"]["buckets"].items()) known[sig] = k["file"].get<std::string>();
  const std::map<std::string, std::string> want = {{"crash SIGFPE", "unguarded-i32-division.uop"},
                                                   {"mismatch CONST f64", "f64-constant-through-float.uop"}};
  EXPECT_EQ(known, want) << s.dump(2);
  EXPECT_EQ(s["known"]["groups"].size(), 2u);
  const std::string events = read_text((tmp.path() / "s.events.jsonl").string());  // the event log has them too
  EXPECT_NE(events.find(R"("event":"known","file":"unguarded-i32-division.uop")"), std::string::npos) << events.substr(0, 2000);
  for (const auto& [group, members] : s["groups"].items())
    EXPECT_TRUE(group == "five_bugs switch bug2" || group == "five_bugs switch bug4" || group == "five_bugs switch bug5") << group;
  EXPECT_EQ(s["groups"].size(), 3u) << s["groups"].dump(2);
  for (const auto& path : s["saved"]) {
    const Program p = read_program(path.get<std::string>());
    const std::string sig = *p.meta_value("signature");
    const std::string* k = p.meta_value("known");
    EXPECT_EQ(k != nullptr, known.count(sig) > 0) << sig;
    if (sig == "crash SIGFPE") {  // known before its reduction: left as found
      EXPECT_EQ(*p.meta_value("reduced"), "no");
      EXPECT_EQ(p.meta_value("culprit"), nullptr);
    } else {
      EXPECT_EQ(*p.meta_value("reduced"), "yes") << sig;
    }
  }
}

// A one-switch culprit is a fingerprint by itself only when its switch is narrow: one that takes effect in
// nearly every program (tinygrad's `_substitute`) off passes nearly any finding, so there the bucket must
// also look like the known one. After a reduction the culprit's switches match whichever backend named them.
TEST(KnownFindings, ANarrowRuleIsAFingerprintABroadOneNeedsTheLook) {
  const KnownFinding narrow{"noop-store.uop", "tinygrad switch s.py:452", "mismatch STORE bool", {{"s.py:452"}}};
  const KnownFinding broad{"padto.uop", "tinygrad switch ops.py:1754", "mismatch LOAD f32", {{"ops.py:1754"}}};
  const KnownFinding either{"fold.uop", "tinygrad switches a.py:1 or b.py:2", "mismatch CAST u8>u32", {{"a.py:1"}, {"b.py:2"}}};
  TargetCoverage seen;
  EXPECT_FALSE(may_be(narrow, "mismatch LOAD i16", seen));  // no programs seen: how narrow is not known
  EXPECT_TRUE(may_be(narrow, "mismatch STORE u8", seen));   // the look of the known one
  EXPECT_TRUE(may_be(either, "crash SIGSEGV", seen));  // two switch sets: two fingerprints
  for (int i = 0; i < 100; ++i)
    seen.add(i < 8 ? std::vector<std::string>{"s.py:452", "ops.py:1754", "a.py:1"} : std::vector<std::string>{"ops.py:1754", "a.py:1"}, 0, "p");
  EXPECT_TRUE(may_be(narrow, "mismatch LOAD i16", seen));   // 8 of 100 programs
  EXPECT_FALSE(may_be(broad, "mismatch STORE i32", seen));  // 100 of 100
  EXPECT_TRUE(may_be(broad, "mismatch LOAD i8", seen));
  const std::vector<KnownFinding> known{narrow, broad, either};
  const KnownFinding* k = known_by_culprit(known, "tinygrad-x86 switch s.py:452 (passes with it off)", "mismatch LOAD i16", seen);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->file, "noop-store.uop");
  k = known_by_culprit(known, "tinygrad-llvm switches b.py:2 or a.py:1 (each alone off makes it pass)", "mismatch ADD f32", seen);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->file, "fold.uop");
  EXPECT_EQ(known_by_culprit(known, "tinygrad switches a.py:1 b.py:2 (together off make it pass)", "mismatch ADD f32", seen), nullptr);
  EXPECT_EQ(known_by_culprit(known, "tinygrad switch ops.py:1754 (passes with it off)", "mismatch STORE i32", seen), nullptr);
  EXPECT_EQ(known_by_culprit(known, "none (no switch)", "mismatch STORE i32", seen), nullptr);
}

}  // namespace
}  // namespace uf::testing

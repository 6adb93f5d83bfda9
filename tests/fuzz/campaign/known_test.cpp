// Known findings (fuzz --known, fuzz/campaign/known.h) against the renderer with five bugs, each a switch
// (tests/fuzz/campaign/plugins/five_bugs.py). The known directory holds three findings: bug 1 and bug 3
// open, bug 4 fixed. The fixed-seed campaign of FiveBugs's 120 programs then files bug 3's SIGFPE under the
// known group before any reduction (its file as found, `meta known`, no culprit); bug 1's constant, which
// its first program shows only together with bug 5, once its reduction and culprit name bug 1; bugs 2, 4
// and 5 are new groups (bug 4's file is fixed: not a known bug). The blind stream (--guide none), as in
// FiveBugs: the same programs whatever the switches report.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.h"
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

}  // namespace
}  // namespace uf::testing

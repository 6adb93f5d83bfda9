// Fault safety of `uopfuzz fuzz` under signals, run as a user would run it.
//  - kill -9 of the whole process group at random moments (and at the moment a save is in flight):
//    the corpus holds only whole reproducers, and the next run resumes without saving a bucket twice
//    or touching the files already there;
//  - SIGINT to the group (a terminal's Ctrl-C) and SIGTERM to the parent alone (a service manager):
//    every process stops within a few seconds and the JSON summary says `interrupted`.
// The deliberately broken renderer (tests/fuzz/campaign/plugins/mul_as_add.py, a protocol 2 server: a
// plug-in process lives beside the workers and must go with them) makes the campaign find, reduce and
// save reproducers all the time.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/corpus_dir.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

class Signals : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-faults"};
  fs::path dir = tmp.path();
  fs::path corpus = dir / "corpus";
  std::vector<std::string> env{"UOPFUZZ_CACHE_DIR=" + (dir / "cache").string()};
  void TearDown() override {
    if (!HasFailure()) return;
    tmp.keep();
    std::cerr << "kept " << dir << " for inspection\n";
  }
  std::vector<std::string> campaign(const std::string& json, const std::string& limit) const {
    std::istringstream words(limit);
    std::vector<std::string> a{"fuzz"};
    for (std::string w; words >> w;) a.push_back(w);
    const std::vector<std::string> rest{
        "--jobs", "2", "--seed", "7", "--cflags", "-O1", "--reduce-time", "10", "--renderer-cmd",
        source_path("tests/fuzz/campaign/plugins/mul_as_add.py"), "--corpus", corpus.string(), "--json", json};
    a.insert(a.end(), rest.begin(), rest.end());
    return a;
  }
  std::pair<UopfuzzProc, bool> start_until(int round, const std::string& moment, std::mt19937& rng) const;
  static nlohmann::json read_json(const fs::path& f) {
    std::ifstream in(f);
    return nlohmann::json::parse(in);
  }
};

bool any_temporary(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(".tmp", 0) == 0) return true;
  return false;
}

size_t visible_files(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) n += e.path().filename().string().front() != '.';
  return n;
}

// Waits (up to `limit_s`) until `ready()` or the campaign ends; true when ready.
template <class F>
bool await(const UopfuzzProc& p, F ready, double limit_s, std::chrono::microseconds step = std::chrono::microseconds(200)) {
  const auto t0 = Clock::now();
  while (!ready()) {
    if (seconds_since(t0) > limit_s || wait_for(p, 0) != -1) return false;
    std::this_thread::sleep_for(step);
  }
  return true;
}

// Starts the campaign of round `round` and waits for `moment`: during start-up or the first batch
// ("early"); while a save is in flight, its temporary file existing ("mid-save"); right after a save
// landed ("after-save"); at a random time once busy ("random"). Returns it, and whether the moment came.
std::pair<UopfuzzProc, bool> Signals::start_until(int round, const std::string& moment, std::mt19937& rng) const {
  auto ms = [&](int lo, int hi) { return std::chrono::milliseconds(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  fs::create_directories(corpus);
  const size_t before = visible_files(corpus);
  UopfuzzProc p = start_uopfuzz(campaign((dir / ("s" + std::to_string(round) + ".json")).string(), "--time 300 -q"),
                                dir / ("log" + std::to_string(round)), env);
  bool reached = true;
  if (moment == "early")
    std::this_thread::sleep_for(ms(50, 3000));
  else if (moment == "mid-save")
    reached = await(
        p, [&] { return any_temporary(corpus); }, 180);
  else if (moment == "after-save")
    reached = await(
        p, [&] { return visible_files(corpus) > before; }, 180);
  else {
    reached = await(
        p, [&] { return fs::exists(dir / "cache"); }, 60);
    std::this_thread::sleep_for(ms(100, 8000));
  }
  return {p, reached};
}

// Every reproducer seen so far (`kept`) is still in the corpus, unchanged.
void expect_kept(const std::map<std::string, std::string>& kept, const CorpusState& s) {
  for (const auto& [name, text] : kept) {
    ASSERT_TRUE(s.files.count(name)) << name << " vanished";
    EXPECT_EQ(s.files.at(name), text) << name << " changed";
  }
}

TEST_F(Signals, KillNineAtAnyMomentLeavesWholeFilesAndTheNextRunResumes) {
  const unsigned seed = std::random_device{}();
  std::cerr << "kill moments drawn with seed " << seed << "\n";
  std::mt19937 rng(seed);
  std::map<std::string, std::string> kept;  // every reproducer seen so far: must never change or vanish
  const char* moments[] = {"early", "mid-save", "after-save", "random", "mid-save", "after-save"};
  std::map<std::string, int> hit;
  for (int round = 0; round < 6; ++round) {
    const std::string moment = moments[round];
    SCOPED_TRACE("round " + std::to_string(round) + " (" + moment + ")");
    const auto [p, reached] = start_until(round, moment, rng);
    hit[moment] += reached;
    kill_group(p);
    ASSERT_TRUE(group_gone(p.pid, 5)) << "processes of the killed campaign are still running";
    const CorpusState s = inspect_corpus(corpus);
    EXPECT_TRUE(s.problems.empty()) << bulleted(s.problems);
    ASSERT_NO_FATAL_FAILURE(expect_kept(kept, s));
    for (const auto& [name, text] : s.files) kept[name] = text;
  }
  // Resume: the same campaign, run to the end, saves no bucket that is already there.
  std::set<std::string> before;
  for (const auto& [name, sig] : inspect_corpus(corpus).signature_of) before.insert(sig);
  // Unreduced: what is checked is which buckets it saves, and reducing the new ones would take minutes.
  const auto [status, out] =
      run_logged(campaign((dir / "final.json").string(), "--count 64 -q --no-reduce"), dir / "final.log", env);
  ASSERT_TRUE(exited_with(status, 0) || exited_with(status, 1)) << out;
  const CorpusState s = inspect_corpus(corpus);
  EXPECT_TRUE(s.problems.empty()) << bulleted(s.problems);
  EXPECT_TRUE(s.temporaries.empty()) << "left behind:" << bulleted(s.temporaries);
  ASSERT_NO_FATAL_FAILURE(expect_kept(kept, s));
  const nlohmann::json summary = read_json(dir / "final.json");
  for (const auto& path : summary["saved"]) {
    const std::string name = fs::path(path.get<std::string>()).filename().string();
    ASSERT_TRUE(s.signature_of.count(name)) << name;
    EXPECT_FALSE(before.count(s.signature_of.at(name))) << "bucket saved again: " << s.signature_of.at(name);
  }
  // The moments that matter most must have happened, or the test proved little.
  EXPECT_GE(hit["mid-save"], 1) << "never killed during a save";
  EXPECT_GE(hit["after-save"], 1) << "never killed right after a save";
  EXPECT_FALSE(kept.empty());
  std::cerr << kept.size() << " reproducers survived 6 kills (" << hit["mid-save"] << " during a save, " << hit["after-save"]
            << " right after one); " << s.files.size() << " after the resumed run\n";
}

// The first reproducer the campaign saved, from its event log: (path, signature), or empty strings.
std::pair<std::string, std::string> first_saved(const fs::path& events) {
  std::ifstream in(events);
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line, nullptr, false);
    if (!e.is_discarded() && e.value("event", "") == "saved") return {e.value("path", ""), e.value("signature", "")};
  }
  return {};
}

// A failure found is never lost: killed with kill -9 six seconds after it first saved a finding (by
// then reducing it: --reduce-time is 10 s), the campaign leaves that finding in the corpus, whole, and
// it still fails the same way.
TEST_F(Signals, KillNineMidReductionOfTheFirstFailureKeepsIt) {
  fs::create_directories(corpus);
  const fs::path json = dir / "k.json", events = dir / "k.events.jsonl";
  // The first save comes after the first batch of 64 programs a worker: seconds on an idle machine.
  // The waits are limits, not delays: generous, so that a loaded machine is no failure.
  UopfuzzProc p = start_uopfuzz(campaign(json.string(), "--time 600 -q"), dir / "klog", env);
  std::pair<std::string, std::string> first;
  ASSERT_TRUE(await(
      p, [&] { return !(first = first_saved(events)).first.empty(); }, 300, std::chrono::milliseconds(50)))
      << "no finding saved:\n"
      << read_text(dir / "klog");
  std::this_thread::sleep_for(std::chrono::seconds(6));
  kill_group(p);
  ASSERT_TRUE(group_gone(p.pid, 5)) << "processes of the killed campaign are still running";
  const CorpusState s = inspect_corpus(corpus);
  EXPECT_TRUE(s.problems.empty()) << bulleted(s.problems);
  const std::string name = fs::path(first.first).filename().string();
  ASSERT_TRUE(s.signature_of.count(name)) << name << " is not in the corpus";
  EXPECT_EQ(s.signature_of.at(name), first.second);
  const Ran replay = run_uopfuzz_isolated("run " + first.first, dir / "cache");
  EXPECT_EQ(replay.code, 1) << replay.out;
  EXPECT_NE(replay.out.find("(" + first.second + ")"), std::string::npos) << replay.out;
}

// The last progress line's numbers: programs reported by the workers, and buckets seen.
std::pair<long, long> progress(const fs::path& log) {
  const std::string text = read_text(log);
  const size_t at = text.rfind("uopfuzz: ");
  if (at == std::string::npos) return {0, 0};
  long programs = 0, buckets = 0;
  const std::string line = text.substr(at, text.find('\n', at) - at);
  std::sscanf(line.c_str(), "uopfuzz: %*fs %ld programs", &programs);
  if (const size_t b = line.find("buckets "); b != std::string::npos) buckets = std::atol(line.c_str() + b + 8);
  return {programs, buckets};
}

// Once the campaign is busy (programs reported; with `want_bucket`, a failure found and being reduced),
// one signal: everything stops within `limit_s`, the exit is orderly and the summary is written.
void interrupt_test(const fs::path& dir, const std::vector<std::string>& args, const std::vector<std::string>& env, int sig,
                    bool whole_group, bool want_bucket, double limit_s) {
  UopfuzzProc p = start_uopfuzz(args, dir / "log", env);
  const auto t_start = Clock::now();
  for (;;) {
    const auto [programs, buckets] = progress(dir / "log");
    if (programs > 0 && (!want_bucket || buckets > 0)) break;
    ASSERT_EQ(wait_for(p, 0), -1) << "the campaign ended before the signal:\n" << read_text(dir / "log");
    if (seconds_since(t_start) > 300) {  // a limit, not a delay: the first batch is slow on a loaded machine
      kill_group(p);
      FAIL() << "the campaign never got busy:\n" << read_text(dir / "log");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto t0 = Clock::now();
  ::kill(whole_group ? -p.pid : p.pid, sig);
  const int status = wait_for(p, 20);
  const double took = seconds_since(t0);
  if (status == -1) kill_group(p);
  ASSERT_NE(status, -1) << "still running 20 s after the signal";
  EXPECT_LT(took, limit_s) << "the exit took " << took << " s";
  std::cerr << "exited " << took << " s after the signal\n";
  EXPECT_TRUE(exited_with(status, 0) || exited_with(status, 1)) << "status " << status << "\n" << read_text(dir / "log");
  EXPECT_TRUE(group_gone(p.pid, 3)) << "a worker outlived the campaign";
  std::vector<std::string> left;
  EXPECT_TRUE(none_left(dir.string(), 5, &left)) << "still running after the campaign:" << bulleted(left);
  const nlohmann::json s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_EQ(s["interrupted"], true) << s.dump(2);
  EXPECT_GT(s["programs"].get<int>(), 0) << "the work done before the signal is missing from the summary";
  if (want_bucket) { EXPECT_GT(s["buckets"].get<int>(), 0) << s.dump(2); }
  // Our own signal must not become a finding: no bucket blames a kernel for it.
  for (const auto& b : s["signatures"]) {
    const std::string name = b.get<std::string>();
    for (const char* own : {"SIGINT", "signal 2", "signal 15", "SIGKILL"}) EXPECT_EQ(name.find(own), std::string::npos) << name;
  }
  const CorpusState c = inspect_corpus(dir / "corpus");
  EXPECT_TRUE(c.problems.empty()) << bulleted(c.problems);
}

// A terminal's Ctrl-C reaches the whole foreground group; between batches the workers stop at once.
TEST_F(Signals, CtrlCStopsTheWholeGroupAndWritesTheSummary) {
  interrupt_test(dir,
                 {"fuzz", "--time", "600", "--jobs", "2", "--seed", "3", "--cflags", "-O1", "--corpus", corpus.string(), "--json",
                  (dir / "s.json").string()},
                 env, SIGINT, true, false, 4.0);
}

// A service manager's SIGTERM reaches the parent alone, here while a worker is reducing a failure (which
// does not poll for a stop): the parent kills the workers after its 5 s grace.
TEST_F(Signals, SigtermToTheParentStopsTheWorkersAndWritesTheSummary) {
  std::vector<std::string> args = campaign((dir / "s.json").string(), "--time 600");
  interrupt_test(dir, args, env, SIGTERM, false, true, 7.5);
}

}  // namespace
}  // namespace uf::testing

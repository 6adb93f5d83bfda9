// Coverage guidance (fuzz/campaign/guide.h) and target coverage (target_coverage.h), without a target:
// features are handed to the guide as a render would report them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "core/text.h"
#include "fuzz/campaign/guide.h"
#include "fuzz/campaign/target_coverage.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/mutate.h"
#include "tests/support/files.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

Guide::Options options(GuideMode mode, const std::string& dir = "", int worker = 0) {
  Guide::Options o;
  o.mode = mode;
  o.seeds_dir = dir;
  o.campaign_seed = 7;
  o.worker = worker;
  return o;
}

TEST(Guide, NoneIsTheBlindStreamByteForByte) {
  Guide g(options(GuideMode::none));
  for (uint64_t i = 0; i < 50; ++i) {
    Guide::Pick p = g.next(GenPolicy{});
    ASSERT_EQ(print_program(p.program), print_program(generate(program_seed(7, 0, i))));
    g.learn(p, {"f.py:" + std::to_string(i)});  // features are counted, never kept
  }
  EXPECT_TRUE(g.seeds().empty());
  EXPECT_EQ(g.derived(), 0);
}

// Until a program reaches something, a guided campaign draws exactly the blind stream; a program that
// reaches a new feature becomes a seed (in memory and as a file), later programs derive from seeds,
// and a derived program is valid, marked `meta derived`, and rebuilt from its recorded choices.
TEST(Guide, KeepsProgramsThatReachNewFeaturesAndDerivesFromThem) {
  TempDir tmp{"uopfuzz-guide"};
  const std::string dir = (tmp.path() / "seeds").string();
  Guide g(options(GuideMode::coverage, dir));
  Guide::Pick first = g.next(GenPolicy{});
  EXPECT_EQ(print_program(first.program), print_program(generate(program_seed(7, 0, 0))));
  EXPECT_FALSE(fs::exists(dir));  // nothing reached yet: no directory made
  EXPECT_EQ(g.learn(first, {"a.py:1", "a.py:2"}), (std::vector<std::string>{"a.py:1", "a.py:2"}));
  ASSERT_EQ(g.seeds().size(), 1u);
  EXPECT_EQ(g.learn(first, {"a.py:1"}), std::vector<std::string>{});  // nothing new: not kept again
  EXPECT_EQ(g.seeds().size(), 1u);
  const Seed& kept = read_seed(dir + "/" + g.seeds()[0].name);
  EXPECT_EQ(kept.features, (std::vector<std::string>{"a.py:1", "a.py:2"}));
  Program replayed = generate(kept.choices, GenPolicy{});
  Program original = first.program;
  replayed.meta.clear();
  original.meta.clear();
  EXPECT_EQ(print_program(replayed), print_program(original));

  int derived = 0;
  for (int i = 0; i < 200; ++i) {
    Guide::Pick p = g.next(GenPolicy{});
    verify(p.program);
    if (p.seed >= 0) {
      ++derived;
      ASSERT_NE(p.program.meta_value("derived"), nullptr);
      EXPECT_EQ(*p.program.meta_value("derived"), kept.name);
      Program again = generate(Choices{p.choices.seed + 1, p.draws}, GenPolicy{});  // its full choices rebuild it
      again.meta = p.program.meta;
      EXPECT_EQ(print_program(again), print_program(p.program));
    }
    g.learn(p, {"a.py:1"});
  }
  EXPECT_EQ(g.derived(), derived);
  EXPECT_GE(derived, 20);  // the bandit keeps trying seeds (at least kMinShare of programs)
  EXPECT_LE(derived, 180);  // ... and fresh programs
}

// Two workers share seeds through the directory, and a new campaign starts from them.
TEST(Guide, SeedsAreSharedThroughTheirDirectory) {
  TempDir tmp{"uopfuzz-guide-sync"};
  const std::string dir = (tmp.path() / "seeds").string();
  Guide a(options(GuideMode::coverage, dir, 0)), b(options(GuideMode::coverage, dir, 1));
  Guide::Pick p = a.next(GenPolicy{});
  a.learn(p, {"x.py:10"});
  EXPECT_TRUE(b.seeds().empty());
  b.sync();
  ASSERT_EQ(b.seeds().size(), 1u);
  Guide::Pick q = b.next(GenPolicy{});
  EXPECT_TRUE(b.learn(q, {"x.py:10"}).empty());  // known from a's seed: not new to b
  Guide later(options(GuideMode::coverage, dir, 0));
  EXPECT_EQ(later.seeds().size(), 1u);
  std::ofstream(dir + "/junk.seed") << "{not json";
  later.sync();  // a file that is not a seed is passed over
  EXPECT_EQ(later.seeds().size(), 1u);
}

// A `.uop` file among the seeds: checked once as it is, then mutated as a program (fuzz/gen/mutate.h);
// what a mutant of it keeps is a program seed too.
TEST(Guide, AProgramFileIsASeedMutatedAsAProgram) {
  TempDir tmp{"uopfuzz-guide-program"};
  const std::string dir = (tmp.path() / "seeds").string();
  fs::create_directories(dir);
  const Program kernel = generate(99);
  std::ofstream(dir + "/kernel.uop") << print_program(kernel);
  Guide g(options(GuideMode::coverage, dir));
  ASSERT_EQ(g.seeds().size(), 1u);
  EXPECT_FALSE(g.seeds()[0].has_choices);
  Guide::Pick first = g.next(GenPolicy{});
  for (int fresh = 0; !first.as_is && fresh < 20; ++fresh) {  // fresh programs go on beside it
    EXPECT_EQ(first.seed, -1);
    g.learn(first, {});
    first = g.next(GenPolicy{});
  }
  ASSERT_TRUE(first.as_is);
  Program plain = first.program;
  plain.meta.clear();
  Program original = kernel;
  original.meta.clear();
  EXPECT_EQ(print_program(plain), print_program(original));
  g.learn(first, {"k.py:1"});
  EXPECT_EQ(g.seeds()[0].features, std::vector<std::string>{"k.py:1"});
  EXPECT_EQ(g.seeds().size(), 1u);  // already a seed: not kept again
  EXPECT_EQ(g.derived(), 0);        // checked as it is: not derived
  int mutants = 0;
  for (int i = 0; i < 100 && mutants < 5; ++i) {
    Guide::Pick p = g.next(GenPolicy{});
    verify(p.program);
    if (p.from == "kernel.uop") {
      ++mutants;
      EXPECT_NE(bare_text(p.program), bare_text(kernel));
      EXPECT_FALSE(p.program.opts) << "no opts line under a policy without p_opts";
      EXPECT_EQ(*p.program.meta_value("derived"), "kernel.uop");
      g.learn(p, {"k.py:" + std::to_string(100 + i)});  // something new: kept, as a program seed
      const Seed kept = read_seed(dir + "/" + g.seeds().back().name);
      EXPECT_FALSE(kept.has_choices);
      EXPECT_EQ(kept.program, print_program(p.program));
    } else {
      g.learn(p, {});
    }
  }
  EXPECT_EQ(mutants, 5);
}

// A program seed recorded without an opts line (a target's kernel as its own heuristic saw it) is checked
// and mutated with a drawn optimization sequence, as generated programs get one (policy p_opts), each valid.
TEST(Guide, AProgramSeedAndItsMutantsGetAnOptimizationSequence) {
  GenPolicy with_opts;
  with_opts.p_opts = 1;
  Program kernel;
  for (uint64_t s = 1; !kernel.sink; ++s) {  // a program with a RANGE some action fits
    ASSERT_LT(s, 300u);
    Program q = generate(s);
    Rng rng(s);
    draw_opts(q, with_opts, rng);
    if (q.opts) kernel = generate(s);
  }
  ASSERT_FALSE(kernel.opts);
  TempDir tmp{"uopfuzz-guide-opts"};
  const std::string dir = (tmp.path() / "seeds").string();
  fs::create_directories(dir);
  std::ofstream(dir + "/kernel.uop") << print_program(kernel);
  Guide g(options(GuideMode::coverage, dir));
  int mutants = 0, with_line = 0, as_is = 0;
  for (int i = 0; i < 300 && mutants < 10; ++i) {
    Guide::Pick p = g.next(with_opts);
    verify(p.program);  // checks the opts line against the RANGEs too
    if (p.as_is) {
      ++as_is;
      EXPECT_TRUE(p.program.opts) << "checked as it is, with a drawn sequence";
      Program plain = p.program;
      plain.opts.reset();
      EXPECT_EQ(bare_text(plain), bare_text(kernel));
    } else if (p.from == "kernel.uop") {
      ++mutants;
      with_line += p.program.opts.has_value();
    }
    g.learn(p, {});
  }
  EXPECT_EQ(as_is, 1);
  EXPECT_EQ(mutants, 10);
  EXPECT_GE(with_line, 8) << "a mutation rarely removes every RANGE an action fits";
}

// Program seeds keep to the target: a kernel with an op the campaign's --without names is passed over, and
// mutants never bring one in. Each program seed is checked as it is by one worker only.
TEST(Guide, ProgramSeedsKeepToTheWithoutSetAndAreSplitBetweenWorkers) {
  TempDir tmp{"uopfuzz-guide-without"};
  const std::string dir = (tmp.path() / "seeds").string();
  fs::create_directories(dir);
  const std::string sin_kernel = "uops 1\n%0 = BUFFER f32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX f32 %0 %1\n"
                                 "%3 = LOAD f32 %2\n%4 = SIN f32 %3\n%5 = STORE void %2 %4\n%6 = SINK void %5\n";
  std::ofstream(dir + "/sin.uop") << sin_kernel;
  GenPolicy no_sin;
  without(no_sin, "sin");  // the campaign's policy: fresh programs keep to it too
  for (int k = 0; k < 6; ++k) std::ofstream(dir + "/k" + std::to_string(k) + ".uop") << print_program(generate(40 + k, no_sin));
  Guide::Options o = options(GuideMode::coverage, dir);
  o.without = {"sin"};
  Guide lone(o);
  EXPECT_EQ(lone.seeds().size(), 6u);  // sin.uop is not for this target
  for (int i = 0; i < 200; ++i) {
    Guide::Pick p = lone.next(no_sin);
    EXPECT_EQ(without_violation(p.program, {"sin"}), "") << print_program(p.program);
    lone.learn(p, {});
  }
  std::set<std::string> as_is;
  for (int w = 0; w < 2; ++w) {
    Guide::Options ow = options(GuideMode::coverage, dir, w);
    ow.workers = 2;
    Guide g(ow);
    for (int i = 0; i < 60; ++i) {  // as-is checks share the programs with the fresh stream
      Guide::Pick p = g.next(GenPolicy{});
      g.learn(p, {});
      if (p.as_is) {
        EXPECT_TRUE(as_is.insert(p.from).second) << p.from << " checked twice";
      }
    }
  }
  EXPECT_EQ(as_is.size(), 7u);  // every one by one worker (sin.uop too: no --without here)
}

// AFL's speed factor: of two seeds that reached as much, the one the target renders 100 times slower
// is derived from far less (its children would be as slow to check and to reduce).
TEST(Guide, SlowSeedsAreDerivedFromLess) {
  Guide g(options(GuideMode::coverage));
  Guide::Pick slow = g.next(GenPolicy{}), fast = g.next(GenPolicy{});
  g.learn(slow, {"a.py:1"}, 10.0);
  g.learn(fast, {"b.py:1"}, 0.1);
  ASSERT_EQ(g.seeds().size(), 2u);
  EXPECT_EQ(g.seeds()[0].seconds, 10.0);
  std::map<int, int> picked;
  for (int i = 0; i < 400; ++i) {
    Guide::Pick p = g.next(GenPolicy{});
    if (p.seed >= 0) ++picked[p.seed];
    g.learn(p, {}, 1.0);  // the target's typical program: 1 s
  }
  EXPECT_GT(picked[1], 5 * picked[0]) << picked[0] << " from the slow seed, " << picked[1] << " from the fast";
  EXPECT_GT(picked[0], 0);  // weighed down, never out
}

// Program seeds are checked as they are smallest first: the cheapest to render come first.
TEST(Guide, ProgramSeedsAreCheckedSmallestFirst) {
  TempDir tmp{"uopfuzz-guide-order"};
  const std::string dir = (tmp.path() / "seeds").string();
  fs::create_directories(dir);
  std::vector<size_t> sizes;
  for (int k = 0; k < 5; ++k) {
    const std::string text = print_program(generate(60 + k));
    std::ofstream(dir + "/k" + std::to_string(k) + ".uop") << text;
  }
  Guide g(options(GuideMode::coverage, dir));
  for (int i = 0; i < 200 && sizes.size() < 5; ++i) {
    Guide::Pick p = g.next(GenPolicy{});
    if (p.as_is) sizes.push_back(g.seeds()[static_cast<size_t>(p.seed)].program.size());
    g.learn(p, {});
  }
  ASSERT_EQ(sizes.size(), 5u);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_NE(sizes.front(), sizes.back());  // the test's programs differ in size
}

// A directory of many kernels does not hold derivation off until each is checked: derived turns go
// half to checking them, half to deriving from seeds already checked (never from one still waiting).
TEST(Guide, DerivesWhileProgramSeedsWaitToBeChecked) {
  TempDir tmp{"uopfuzz-guide-many"};
  const std::string dir = (tmp.path() / "seeds").string();
  fs::create_directories(dir);
  for (int k = 0; k < 100; ++k) std::ofstream(dir + "/k" + std::to_string(k) + ".uop") << print_program(generate(200 + k));
  Guide g(options(GuideMode::coverage, dir));
  std::set<std::string> checked;
  int as_is = 0, derived = 0, fresh = 0;
  for (int i = 0; i < 100; ++i) {
    Guide::Pick p = g.next(GenPolicy{});
    if (p.as_is) {
      ++as_is;
      checked.insert(p.from);
    } else if (p.seed >= 0) {
      ++derived;
      EXPECT_TRUE(checked.count(p.from) || p.from.ends_with(".seed")) << p.from << " derived from before its check";
    } else {
      ++fresh;
    }
    g.learn(p, {"f.py:" + std::to_string(i)});  // each program reaches something new: every arm pays
  }
  EXPECT_GT(derived, 10) << as_is << " checked as they are, " << fresh << " fresh";
  EXPECT_GT(as_is, 10);
  EXPECT_LT(as_is, 100);  // still some waiting: derivation did not wait for them
  EXPECT_GT(fresh, 10);
}

TEST(Guide, ASeedFileRoundTripsAndABadOneIsAUserError) {
  TempDir tmp{"uopfuzz-seed-file"};
  Seed s;
  s.choices = Choices{42, {0, 1, ~uint64_t{0}, 0x0123456789abcdefull}};
  s.features = {"a.py:1", "b.py:2#2"};
  s.program = "uops 1\n";
  s.seconds = 2.5;
  const fs::path path = tmp.path() / "s.seed";
  std::ofstream(path) << seed_text(s);
  const Seed back = read_seed(path.string());
  EXPECT_EQ(back.choices.seed, 42u);
  EXPECT_EQ(back.choices.draws, s.choices.draws);
  EXPECT_EQ(back.features, s.features);
  EXPECT_EQ(back.name, "s.seed");
  EXPECT_EQ(back.seconds, 2.5);
  std::ofstream(path) << R"({"format": 1, "seed": 1, "draws": "not base64!", "features": []})";
  EXPECT_THROW(read_seed(path.string()), UserError);
  EXPECT_THROW(read_seed((tmp.path() / "missing.seed").string()), UserError);
}

TEST(Guide, TargetRulesAreFileLineListsOrASummary) {
  const std::vector<TargetRule> r = parse_target_rules("uop/symbolic.py:165,codegen/x.py:9#2");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].file, "uop/symbolic.py");
  EXPECT_EQ(r[0].line, 165);
  EXPECT_EQ(r[1].line, 9);
  for (const char* bad : {"symbolic.py", "x.py:0", ":3", "x.py:3a", ""}) EXPECT_THROW(parse_target_rules(bad), UserError) << bad;
  TempDir tmp{"uopfuzz-target-rules"};
  const fs::path summary = tmp.path() / "s.json";
  std::ofstream(summary) << R"({"target_coverage": {"never_fired": ["a.py:3  def f(x):", "b.py:4"]}})";
  const std::vector<TargetRule> from = parse_target_rules(summary.string());
  ASSERT_EQ(from.size(), 2u);
  EXPECT_EQ(from[0].file, "a.py");
  EXPECT_EQ(from[1].line, 4);
}

TEST(TargetCoverage, CountsFeaturesAndTheFirstProgramThatFiredEach) {
  TargetCoverage a, b;
  EXPECT_EQ(a.add({"x.py:1", "y.py:2"}, 1.0, "seed 1"), (std::vector<std::string>{"x.py:1", "y.py:2"}));
  EXPECT_EQ(a.add({"x.py:1"}, 2.0, "seed 2"), std::vector<std::string>{});
  EXPECT_TRUE(a.add({}, 3.0, "seed 3").empty());  // a render that reported nothing
  b.add({"x.py:1"}, 0.5, "seed 9");
  a.merge(b);
  EXPECT_EQ(a.programs, 3);
  EXPECT_EQ(a.features["x.py:1"].programs, 3);
  EXPECT_EQ(a.features["x.py:1"].first_program, "seed 9");  // the earlier one
  EXPECT_EQ(a.features["y.py:2"].first_program, "seed 1");
  EXPECT_EQ(nlohmann::json(a).get<TargetCoverage>().features.size(), 2u);

  PluginDescription d;
  d.switches = {"x.py:1", "y.py:2", "y.py:5", "front.py:1"};
  d.reachable = {"x.py:1", "y.py:2", "y.py:5"};
  d.switch_source = {{"y.py:5", "lambda x: x+0"}};
  const nlohmann::json j = target_coverage_json(a, d);
  EXPECT_EQ(j["known"], 4);
  EXPECT_EQ(j["reachable"], 3);
  EXPECT_EQ(j["fired"], 2);
  EXPECT_EQ(j["files"]["y.py"], nlohmann::json::parse(R"({"reachable": 2, "fired": 1})"));
  EXPECT_EQ(j["never_fired"], nlohmann::json::parse(R"(["y.py:5  lambda x: x+0"])"));
  EXPECT_EQ(j["features"]["x.py:1"]["first_program"], "seed 9");
  EXPECT_EQ(target_coverage_text(a, d), "fired 2 of 3 reachable switches (2 of 4 known) in 3 programs");
  EXPECT_EQ(target_coverage_json(TargetCoverage{}, PluginDescription{}), nlohmann::json::object());
}

TEST(TargetCoverage, FeaturesThatAreNoSwitchesAreCountedByKind) {
  TargetCoverage c;
  c.add({"x.py:1", "line:codegen/opt/postrange.py:120", "line:codegen/opt/postrange.py:121", "insn:VPEXTRW",
         "threads", "opt:UPCAST:WEAK"}, 1.0, "seed 1");
  c.add({"line:codegen/opt/heuristic.py:9", "insn:VMOVUPS", "threads"}, 2.0, "seed 2");
  PluginDescription d;
  d.switches = {"x.py:1"};
  EXPECT_EQ(target_coverage_json(c, d)["kinds"], nlohmann::json::parse(R"({"insn": 2, "line:codegen/opt/heuristic.py": 1,
    "line:codegen/opt/postrange.py": 2, "opt": 1, "threads": 1})"));
  EXPECT_EQ(target_coverage_text(c, d), "fired 1 of 1 reachable switches (1 of 1 known) in 2 programs; other features: insn 2, "
            "line:codegen/opt/heuristic.py 1, line:codegen/opt/postrange.py 2, opt 1, threads 1");
}

}  // namespace
}  // namespace uf::testing

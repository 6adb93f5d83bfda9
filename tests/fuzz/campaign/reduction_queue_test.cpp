// The campaign's shared reduction queue: claims exclusive across worker processes, and a worker with
// nothing left to generate reducing a finding another worker saved.
#include "fuzz/campaign/reduction_queue.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "codegen/runtime/fd.h"
#include "core/text.h"
#include "fuzz/campaign/campaign.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/campaign/protocol.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/reduce.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

TEST(ReductionQueue, EachFindingIsClaimedByExactlyOneProcess) {
  ReductionQueue q(2);
  std::set<std::string> pushed;
  for (int i = 0; i < 300; ++i) {
    pushed.insert("finding-" + std::to_string(i) + ".uop");
    ASSERT_TRUE(q.push("finding-" + std::to_string(i) + ".uop"));
  }
  EXPECT_EQ(q.outstanding(), 300);
  std::optional<Pipe> pipe = Pipe::open();
  ASSERT_TRUE(pipe);
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // a worker: claims until none is left, telling the parent what it got
      while (const std::optional<ReductionQueue::Claim> c = q.claim()) {
        const std::string line = c->name() + "\n";
        if (::write(pipe->write_end.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(3);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  pipe->write_end.reset();
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(pipe->read_end.get(), buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::multiset<std::string> claimed;
  for (size_t at = 0, nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1) claimed.insert(out.substr(at, nl - at));
  EXPECT_EQ(claimed.size(), pushed.size()) << "a finding claimed twice or not at all";
  EXPECT_EQ(std::set<std::string>(claimed.begin(), claimed.end()), pushed);
  EXPECT_EQ(q.outstanding(), 0);
  EXPECT_FALSE(q.claim());
}

TEST(ReductionQueue, ClaimsInTheOrderQueuedAndRefusesWhatItCannotHold) {
  ReductionQueue q(1);
  EXPECT_FALSE(q.push(std::string(ReductionQueue::kNameMax, 'a')));
  ASSERT_TRUE(q.push("a.uop"));
  ASSERT_TRUE(q.push("b.uop"));
  {
    const std::optional<ReductionQueue::Claim> a = q.claim();
    ASSERT_TRUE(a);
    EXPECT_EQ(a->name(), "a.uop");
    EXPECT_EQ(q.outstanding(), 2);  // claimed, not finished
  }
  EXPECT_EQ(q.outstanding(), 1);
  EXPECT_EQ(q.claim()->name(), "b.uop");
  EXPECT_EQ(q.outstanding(), 0);
  for (size_t i = 2; i < ReductionQueue::kCapacity; ++i) ASSERT_TRUE(q.push("x.uop"));
  EXPECT_FALSE(q.push("one-too-many.uop"));
}

// A reduction cut by its limit goes back to the queue: after every new finding, and when it made no
// progress (stalled) only when stalled reductions are asked for.
TEST(ReductionQueue, ResumesComeAfterNewFindingsAndStalledOnesOnlyWhenAskedFor) {
  ReductionQueue q(1);
  ASSERT_TRUE(q.push("stalled.uop", ReductionQueue::Kind::stalled));
  EXPECT_FALSE(q.claim());
  ASSERT_TRUE(q.push("cut.uop", ReductionQueue::Kind::resume));
  ASSERT_TRUE(q.push("new.uop"));
  EXPECT_EQ(q.outstanding(), 3);
  EXPECT_EQ(q.claim()->name(), "new.uop");
  EXPECT_EQ(q.claim()->name(), "cut.uop");
  EXPECT_FALSE(q.claim());
  EXPECT_EQ(q.claim(ReductionQueue::Take::any)->name(), "stalled.uop");
  EXPECT_FALSE(q.claim(ReductionQueue::Take::any));
  EXPECT_EQ(q.outstanding(), 0);
}

// A timeout's reduction costs a render timeout a kept candidate: it waits behind the cheap ones, but
// not, as a stalled one does, for generation to end.
TEST(ReductionQueue, CostlyNewFindingsComeAfterNewFindingsAndResumes) {
  ReductionQueue q(1);
  ASSERT_TRUE(q.push("stalled.uop", ReductionQueue::Kind::stalled));
  ASSERT_TRUE(q.push("timeout.uop", ReductionQueue::Kind::found_slow));
  ASSERT_TRUE(q.push("cut.uop", ReductionQueue::Kind::resume));
  ASSERT_TRUE(q.push("new.uop"));
  EXPECT_EQ(q.claim()->name(), "new.uop");
  EXPECT_EQ(q.claim()->name(), "cut.uop");
  EXPECT_EQ(q.claim()->name(), "timeout.uop");
  EXPECT_FALSE(q.claim());
  EXPECT_EQ(q.claim(ReductionQueue::Take::any)->name(), "stalled.uop");
  EXPECT_EQ(q.outstanding(), 0);
}

// A finding that looks like one queued before (the same signature but for dtypes) is likely the same bug:
// the new looks and the resumes go first, so a crowded campaign reduces one of each look before the rest.
TEST(ReductionQueue, FindingsOfALookSeenBeforeWaitForTheNewLooks) {
  ReductionQueue q(1);
  ASSERT_TRUE(q.push("timeout.uop", ReductionQueue::Kind::found_slow));
  ASSERT_TRUE(q.push("cast-again.uop", ReductionQueue::Kind::found_again));
  ASSERT_TRUE(q.push("cut.uop", ReductionQueue::Kind::resume));
  ASSERT_TRUE(q.push("new.uop"));
  EXPECT_EQ(q.waiting_again(), 1);
  EXPECT_EQ(q.claim()->name(), "new.uop");
  EXPECT_EQ(q.claim()->name(), "cut.uop");
  {
    const auto claim = q.claim();
    EXPECT_EQ(claim->name(), "cast-again.uop");
    EXPECT_EQ(q.waiting_again(), 0);  // being reduced: no longer waiting
    EXPECT_EQ(q.outstanding(), 2);
  }
  EXPECT_EQ(q.claim()->name(), "timeout.uop");
  EXPECT_EQ(q.outstanding(), 0);
}

TEST(ReductionQueue, GeneratingUntilEveryWorkerHasStopped) {
  ReductionQueue q(3);
  EXPECT_TRUE(q.generating());
  q.stop_generating(0);
  q.stop_generating(2);
  q.stop_generating(2);  // said by the worker and again by the parent when it ended
  EXPECT_TRUE(q.generating());
  q.stop_generating(1);
  EXPECT_FALSE(q.generating());
  EXPECT_THROW(ReductionQueue(0), UserError);
  EXPECT_THROW(ReductionQueue(ReductionQueue::kMaxWorkers + 1), UserError);
}

// broken_renderer_mul_program, saved to o's corpus as found by worker 0: its path.
std::string saved_finding(const CampaignOptions& o, Program& p) {
  p = broken_renderer_mul_program();
  const Finding f = check({&p}, o.cfg).at(0);
  EXPECT_EQ(f.observation.verdict, Verdict::mismatch) << f.observation.signature;
  Program found = p;
  found.set_meta("reduced", "no");
  const std::optional<std::string> path = Corpus(o.corpus_dir).save(found, f.observation, FindingContext{"0", o.cfg, ""});
  EXPECT_TRUE(path);
  return path.value_or("");
}

CampaignOptions two_workers(const TempDir& tmp) {
  CampaignOptions o;
  o.count = 1;  // worker 1 has no program of its own
  o.jobs = 2;
  o.corpus_dir = (tmp.path() / "corpus").string();
  o.cfg = broken_renderer_config();
  o.culprit = false;
  return o;
}

void expect_reduced_as_found_by_worker_0(const std::string& path, const Program& found) {
  const Program reduced = read_program(path);
  ASSERT_NE(reduced.meta_value("reduced"), nullptr);
  EXPECT_EQ(*reduced.meta_value("reduced"), "yes");
  ASSERT_NE(reduced.meta_value("worker"), nullptr);
  EXPECT_EQ(*reduced.meta_value("worker"), "0");
  EXPECT_LT(program_cost(reduced).nodes, program_cost(found).nodes);
}

// Worker 1 reduces the finding worker 0 saved and queued, and the file keeps the worker that found it.
TEST(ReductionQueue, AnIdleWorkerReducesAnotherWorkersFinding) {
  TempDir tmp{"uopfuzz-queue"};
  const CampaignOptions o = two_workers(tmp);
  Program p;
  const std::string path = saved_finding(o, p);
  ReductionQueue q(2);
  ASSERT_TRUE(q.push(fs::path(path).filename()));
  q.stop_generating(0);  // worker 0 found it and has ended
  std::optional<Pipe> reports = Pipe::open();
  ASSERT_TRUE(reports);
  run_worker(o, 1, reports->write_end.get(), q);
  expect_reduced_as_found_by_worker_0(path, p);
  EXPECT_EQ(q.outstanding(), 0);
}

// A finding that does not fail again when checked alone (here: found with the broken renderer, checked
// with the built-in one) is not reduced; its file keeps the failure as found and says why.
TEST(ReductionQueue, AFindingThatNoLongerFailsIsMarkedFlakyAndKeptAsFound) {
  TempDir tmp{"uopfuzz-queue"};
  CampaignOptions o = two_workers(tmp);
  Program p;
  const std::string path = saved_finding(o, p);
  const Program as_found = read_program(path);
  o.cfg = CompiledPathConfig{};
  ReductionQueue q(2);
  ASSERT_TRUE(q.push(fs::path(path).filename()));
  q.stop_generating(0);
  std::optional<Pipe> reports = Pipe::open();
  ASSERT_TRUE(reports);
  run_worker(o, 1, reports->write_end.get(), q);
  const Program kept = read_program(path);
  ASSERT_NE(kept.meta_value("flaky"), nullptr);
  EXPECT_EQ(*kept.meta_value("flaky"), "did not fail again when checked alone (got ok), so it is not reduced");
  EXPECT_EQ(*kept.meta_value("reduced"), "no");
  EXPECT_EQ(*kept.meta_value("signature"), *as_found.meta_value("signature"));
  auto got_lines = [](const Program& q) {
    std::string out, text = print_program(q);
    for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
      if (text.compare(at, 4, "got ") == 0) out += text.substr(at, nl - at + 1);
    return out;
  };
  EXPECT_FALSE(got_lines(as_found).empty());
  EXPECT_EQ(got_lines(kept), got_lines(as_found));  // the failure as found
  EXPECT_EQ(program_cost(kept).nodes, program_cost(as_found).nodes);
  EXPECT_EQ(q.outstanding(), 0);
}

// While worker 0 generates, worker 1's reduction is cut by a --reduce-time too short for a step and
// queued as stalled; once worker 0 stops, the time left is the reduction's and it finishes.
TEST(ReductionQueue, AReductionCutByItsLimitIsResumedOnceNoWorkerGenerates) {
  TempDir tmp{"uopfuzz-queue"};
  CampaignOptions o = two_workers(tmp);
  o.time_s = 60;
  o.reduce_time_s = 0.001;
  Program p;
  const std::string path = saved_finding(o, p);
  ReductionQueue q(2);
  ASSERT_TRUE(q.push(fs::path(path).filename()));
  std::optional<Pipe> reports = Pipe::open();
  ASSERT_TRUE(reports);
  std::string log;
  std::thread drain([&, fd = reports->read_end.get()] {
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) log.append(buf, static_cast<size_t>(n));
  });
  std::thread worker_0_stops([&q] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    q.stop_generating(0);
  });
  run_worker(o, 1, reports->write_end.get(), q);
  worker_0_stops.join();
  reports->write_end.reset();
  drain.join();
  expect_reduced_as_found_by_worker_0(path, p);
  EXPECT_EQ(q.outstanding(), 0);
  std::vector<bool> complete;  // of each reduction reported, in order
  for (size_t at = 0, nl; (nl = log.find('\n', at)) != std::string::npos; at = nl + 1)
    if (const std::optional<Report> r = decode(std::string_view(log).substr(at, nl - at)))
      if (const auto* reduced = std::get_if<ReducedReport>(&*r)) complete.push_back(reduced->complete);
  ASSERT_GE(complete.size(), 2u) << "the first reduction was not cut and resumed:\n" << log;
  EXPECT_FALSE(complete.front());
  EXPECT_TRUE(complete.back());
}

}  // namespace
}  // namespace uf::testing

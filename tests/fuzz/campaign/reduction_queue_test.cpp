// The campaign's shared reduction queue: claims exclusive across worker processes, and a worker with
// nothing left to generate reducing a finding another worker saved.
#include "fuzz/campaign/reduction_queue.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "codegen/runtime/fd.h"
#include "core/text.h"
#include "fuzz/campaign/campaign.h"
#include "fuzz/campaign/corpus.h"
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
      while (const std::optional<std::string> name = q.claim()) {
        const std::string line = *name + "\n";
        if (::write(pipe->write_end.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(3);
        q.finish();
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
  EXPECT_EQ(q.claim(), "a.uop");
  EXPECT_EQ(q.outstanding(), 2);  // claimed, not finished
  q.finish();
  EXPECT_EQ(q.claim(), "b.uop");
  q.finish();
  for (size_t i = 2; i < ReductionQueue::kCapacity; ++i) ASSERT_TRUE(q.push("x.uop"));
  EXPECT_FALSE(q.push("one-too-many.uop"));
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

// Worker 1 has no program of its own (--count 1 over two jobs): it reduces the finding worker 0 saved
// and queued, and the file keeps the worker that found it.
TEST(ReductionQueue, AnIdleWorkerReducesAnotherWorkersFinding) {
  TempDir tmp{"uopfuzz-queue"};
  CampaignOptions o;
  o.count = 1;
  o.jobs = 2;
  o.corpus_dir = (tmp.path() / "corpus").string();
  o.cfg = broken_renderer_config();
  o.culprit = false;
  const Program p = parse_program(
      "uops 1\n"
      "%0 = BUFFER i32[3] slot=0\n"
      "%1 = BUFFER i32[1] slot=1\n"
      "%2 = CONST i32 0\n"
      "%3 = INDEX i32 %0 %2\n"
      "%4 = LOAD i32 %3\n"
      "%5 = CONST i32 1\n"
      "%6 = INDEX i32 %0 %5\n"
      "%7 = LOAD i32 %6\n"
      "%8 = CONST i32 2\n"
      "%9 = INDEX i32 %0 %8\n"
      "%10 = LOAD i32 %9\n"
      "%11 = MUL i32 %4 %7\n"
      "%12 = ADD i32 %11 %10\n"
      "%13 = INDEX i32 %1 %2\n"
      "%14 = STORE void %13 %12\n"
      "%15 = SINK void %14\n"
      "data 0 = 3 5 7\n");
  const Finding f = check({&p}, o.cfg).at(0);
  ASSERT_EQ(f.observation.verdict, Verdict::mismatch) << f.observation.signature;
  Corpus corpus(o.corpus_dir);
  Program found = p;
  found.set_meta("reduced", "no");
  const std::optional<std::string> path = corpus.save(found, f.observation, FindingContext{"0", o.cfg, ""});
  ASSERT_TRUE(path);

  ReductionQueue q(2);
  ASSERT_TRUE(q.push(fs::path(*path).filename()));
  q.stop_generating(0);  // worker 0 found it and has ended
  std::optional<Pipe> reports = Pipe::open();
  ASSERT_TRUE(reports);
  run_worker(o, 1, reports->write_end.get(), q);

  const Program reduced = read_program(*path);
  ASSERT_NE(reduced.meta_value("reduced"), nullptr);
  EXPECT_EQ(*reduced.meta_value("reduced"), "yes");
  ASSERT_NE(reduced.meta_value("worker"), nullptr);
  EXPECT_EQ(*reduced.meta_value("worker"), "0");
  EXPECT_EQ(*reduced.meta_value("signature"), f.observation.signature);
  EXPECT_LT(program_cost(reduced).nodes, program_cost(p).nodes);
  EXPECT_EQ(q.outstanding(), 0);
}

}  // namespace
}  // namespace uf::testing

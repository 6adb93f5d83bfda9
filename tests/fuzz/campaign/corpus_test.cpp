// The corpus store: atomic, deduplicated writes; resumable campaigns; clear errors.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <csignal>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fuzz/campaign/corpus.h"
#include "tests/support/files.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

class CorpusTest : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-corpus"};  // removed afterwards, a read-only `dir` included
  fs::path dir = tmp / "corpus";  // not yet existing: Corpus creates it
  static Program tiny() {
    return parse_program(
        "uops 1\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = CONST i32 7\n"
        "%4 = STORE void %2 %3\n%5 = SINK void %4\n");
  }
  static Observation failure(const std::string& sig) {
    Observation o;
    o.verdict = Verdict::mismatch;
    o.signature = sig;
    o.expect[0] = {Scalar::of_int(7)};
    o.got[0] = {Scalar::of_int(8)};
    return o;
  }
  FindingContext ctx{"0", {}, "gcc 12"};
};

TEST_F(CorpusTest, SavesOneReadableFilePerBucket) {
  Corpus c(dir.string());
  const auto path = c.save(tiny(), failure("mismatch MUL i32"), ctx);
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(fs::path(*path).filename().string().rfind("mismatch-mul-i32-", 0), 0u) << *path;
  EXPECT_FALSE(c.save(tiny(), failure("mismatch MUL i32"), ctx).has_value());  // same bucket: not again
  EXPECT_TRUE(c.save(tiny(), failure("mismatch ADD i8"), ctx).has_value());
  // The file is a program with its story: it parses, and records expect/got and meta.
  const Program back = read_program(*path);
  ASSERT_NE(back.meta_value("signature"), nullptr);
  EXPECT_EQ(*back.meta_value("signature"), "mismatch MUL i32");
  EXPECT_EQ(*back.meta_value("status"), "open");
  EXPECT_EQ(*back.meta_value("cc_version"), "gcc 12");
  EXPECT_EQ(back.got.at(0).at(0).i, 8);
  EXPECT_EQ(back.expect.at(0).at(0).i, 7);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_NE(e.path().filename().string().front(), '.') << "temporary file left behind";
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

// A finding made under --f16 native replays in it: the mode is a meta line; soft (the default) adds none,
// and a stale line from an earlier mode does not survive.
TEST_F(CorpusTest, RecordsNativeNarrowFloatModes) {
  EXPECT_EQ(reproducer_text(tiny(), failure("mismatch MUL i32"), ctx).find("meta f16"), std::string::npos);
  FindingContext native = ctx;
  native.cfg.render.f16_native = true;
  const Program p = parse_program(reproducer_text(tiny(), failure("mismatch MUL i32"), native));
  ASSERT_NE(p.meta_value("f16"), nullptr);
  EXPECT_EQ(*p.meta_value("f16"), "native");
  EXPECT_EQ(p.meta_value("bf16"), nullptr);
  EXPECT_EQ(parse_program(reproducer_text(p, failure("mismatch MUL i32"), ctx)).meta_value("f16"), nullptr);
}

TEST_F(CorpusTest, ALaterCampaignResumesWithoutDuplicates) {
  { Corpus(dir.string()).save(tiny(), failure("crash SIGFPE"), ctx); }
  Corpus again(dir.string());
  EXPECT_TRUE(again.has("crash SIGFPE"));
  EXPECT_FALSE(again.save(tiny(), failure("crash SIGFPE"), ctx).has_value());
}

TEST_F(CorpusTest, ConcurrentWorkersSaveABucketOnce) {
  fs::create_directories(dir);
  std::vector<pid_t> kids;
  for (int i = 0; i < 6; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      Corpus c(dir.string());  // each worker started before any save: none knows the bucket
      ::usleep(1000 * (i % 3));
      _exit(c.save(tiny(), failure("timeout"), ctx).has_value() ? 0 : 1);
    }
    kids.push_back(pid);
  }
  int winners = 0;
  for (pid_t k : kids) {
    int status;
    waitpid(k, &status, 0);
    winners += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  EXPECT_EQ(winners, 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
}

TEST_F(CorpusTest, UnwritableDirectoryIsAClearError) {
  if (::geteuid() == 0) {
    // root ignores permission bits: use a path under a regular file instead, which no one can create.
    fs::create_directories(dir);
    std::ofstream(dir / "file") << "x";
    EXPECT_THROW(Corpus((dir / "file" / "corpus").string()), UserError);
    return;
  }
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(Corpus(dir.string()), UserError);
}

TEST_F(CorpusTest, AFullDiskLosesNothing) {
  // The save must report the failed write and leave no partial or temporary file.
  // A file size limit in a child makes every write past 10 bytes fail, as a full disk would.
  const fs::path full_dir = dir / "full";
  fs::create_directories(full_dir);
  const pid_t pid = fork();
  if (pid == 0) {
    struct rlimit lim {
      10, 10
    };
    setrlimit(RLIMIT_FSIZE, &lim);
    signal(SIGXFSZ, SIG_IGN);
    try {
      Corpus(full_dir.string()).save(tiny(), failure("mismatch SUB i8"), ctx);
      _exit(3);  // no error: wrong
    } catch (const UserError& e) { _exit(std::string(e.what()).find("cannot write") != std::string::npos ? 0 : 4); }
  }
  int status;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(fs::is_empty(full_dir)) << "a partial or temporary file was left behind";
}

}  // namespace
}  // namespace uf::testing

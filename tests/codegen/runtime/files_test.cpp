// The one home of file I/O (codegen/runtime/files.h): whole files round-trip, an atomic replace that
// fails leaves the old file and no temporary, temporaries remove themselves.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "codegen/runtime/fd.h"
#include "codegen/runtime/files.h"

namespace uf::test {
namespace {

namespace fs = std::filesystem;

class CodegenFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::optional<TempDir> d = TempDir::create((fs::temp_directory_path() / "uopfuzz-files-test-XXXXXX").string());
    ASSERT_TRUE(d) << std::strerror(errno);
    dir.emplace(std::move(*d));
  }
  std::string at(const std::string& name) const { return dir->path() + "/" + name; }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir->path()), fs::directory_iterator{}));
  }
  std::optional<TempDir> dir;
};

// Every byte value and more than one read(2) buffer's worth.
std::string sample_bytes() {
  std::string s;
  for (int i = 0; i < 200000; ++i) s += static_cast<char>(i * 7 % 256);
  return s;
}

TEST_F(CodegenFiles, AWholeFileRoundTrips) {
  const std::string data = sample_bytes();
  ASSERT_FALSE(write_file(at("a"), data));
  EXPECT_EQ(read_file(at("a")), data);
  ASSERT_FALSE(write_file(at("a"), "short"));  // truncated, not overwritten in place
  EXPECT_EQ(read_file(at("a")), "short");
  ASSERT_FALSE(write_file(at("empty"), ""));
  EXPECT_EQ(read_file(at("empty")), "");
}

TEST_F(CodegenFiles, ReadFileStopsPastItsLimitAndSaysWhenThereIsNoFile) {
  ASSERT_FALSE(write_file(at("a"), sample_bytes()));
  const std::optional<std::string> head = read_file(at("a"), 1000);
  ASSERT_TRUE(head);
  EXPECT_GT(head->size(), 1000u);  // the caller tells "too large" by the size
  EXPECT_LT(head->size(), sample_bytes().size());
  EXPECT_FALSE(read_file(at("missing")));
  EXPECT_EQ(errno, ENOENT);
  EXPECT_FALSE(read_file(dir->path()));  // a directory opens but does not read
}

TEST_F(CodegenFiles, DescriptorLoopsMoveEverythingThroughAPipe) {
  std::optional<Pipe> p = Pipe::open();
  ASSERT_TRUE(p);
  const std::string data(50000, 'x');  // below the pipe's capacity: no reader needed while writing
  ASSERT_TRUE(write_all(p->write_end.get(), data));
  p->write_end.reset();
  std::string got = "kept:";
  ASSERT_TRUE(read_all(p->read_end.get(), got));
  EXPECT_EQ(got, "kept:" + data);
}

TEST_F(CodegenFiles, ExclusiveCreationRefusesAnExistingFile) {
  ASSERT_FALSE(write_file(at("a"), "old"));
  const FileError e = write_file(at("a"), "new", {.exclusive = true});
  EXPECT_EQ(e.step, FileError::Step::create);
  EXPECT_EQ(e.error, EEXIST);
  EXPECT_EQ(e.message(), "cannot create " + at("a") + ": " + std::strerror(EEXIST));
  EXPECT_EQ(read_file(at("a")), "old");
}

TEST_F(CodegenFiles, ReplaceFileSwapsTheWholeFileAndLeavesNoTemporary) {
  ASSERT_FALSE(write_file(at("a"), "old"));
  ASSERT_FALSE(replace_file(at("a"), "new", {.sync = true}));
  EXPECT_EQ(read_file(at("a")), "new");
  ASSERT_FALSE(replace_file(at("b"), "fresh"));  // no old file: created
  EXPECT_EQ(read_file(at("b")), "fresh");
  EXPECT_EQ(entries(), 2u);
}

TEST_F(CodegenFiles, AFailedReplaceLeavesTheOldFileAndNoTemporary) {
  ASSERT_FALSE(write_file(at("a"), "the old text"));
  // A file size limit in a child makes every write past 10 bytes fail, as a full disk would.
  const pid_t pid = ::fork();
  if (pid == 0) {
    struct rlimit lim {
      10, 10
    };
    ::setrlimit(RLIMIT_FSIZE, &lim);
    std::signal(SIGXFSZ, SIG_IGN);
    const FileError e = replace_file(at("a"), std::string(1000, 'n'));
    ::_exit(e.step == FileError::Step::write && e.error == EFBIG ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(read_file(at("a")), "the old text");
  EXPECT_EQ(entries(), 1u) << "a temporary was left behind";

  // A rename that cannot happen (the target is a non-empty directory): the temporary goes too.
  fs::create_directories(at("d/inner"));
  const FileError e = replace_file(at("d"), "x");
  EXPECT_EQ(e.step, FileError::Step::rename);
  EXPECT_EQ(e.path, at("d"));
  EXPECT_EQ(entries(), 2u);
}

TEST_F(CodegenFiles, CreateFileAtomicallyKeepsTheFirstWriter) {
  ASSERT_FALSE(create_file_atomically(at("a"), "first"));
  const FileError e = create_file_atomically(at("a"), "second", {.mode = 0644, .sync = true});
  EXPECT_EQ(e.step, FileError::Step::link);
  EXPECT_EQ(e.error, EEXIST);
  EXPECT_EQ(read_file(at("a")), "first");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(CodegenFiles, StaleTemporariesOfDeadWritersAreRemovedLiveOnesKept) {
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const std::string stale = at(".tmp-" + std::to_string(dead) + "-x.uop");
  const std::string live = at(".tmp-" + std::to_string(::getpid()) + "-x.uop");
  ASSERT_FALSE(write_file(stale, "s"));
  ASSERT_FALSE(write_file(live, "l"));
  remove_stale_temporaries(dir->path());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
}

TEST_F(CodegenFiles, TempDirIsRemovedWithItsContentsOnScopeExit) {
  std::string path;
  {
    std::optional<TempDir> t = TempDir::create(at("t-XXXXXX"));
    ASSERT_TRUE(t);
    path = t->path();
    EXPECT_EQ(path.find("XXXXXX"), std::string::npos);
    fs::create_directories(path + "/sub/deeper");
    ASSERT_FALSE(write_file(path + "/sub/deeper/f", "contents"));
    const TempDir moved = std::move(*t);  // moved-from owners remove nothing
    t.reset();
    EXPECT_TRUE(fs::exists(path + "/sub/deeper/f"));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(TempDir::create(at("missing/t-XXXXXX")));
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(CodegenFiles, RemovedOnExitUnlinksUnlessReleased) {
  ASSERT_FALSE(write_file(at("gone"), "g"));
  ASSERT_FALSE(write_file(at("kept"), "k"));
  {
    const RemovedOnExit gone(at("gone"));
    RemovedOnExit kept(at("kept"));
    kept.release();
  }
  EXPECT_FALSE(fs::exists(at("gone")));
  EXPECT_TRUE(fs::exists(at("kept")));
}

}  // namespace
}  // namespace uf::test

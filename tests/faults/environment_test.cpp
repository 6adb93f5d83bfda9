// Fault safety of uopfuzz against a hostile environment, run as a user would run it: a full disk, an
// unwritable corpus directory, corrupt compile-cache entries, a missing compiler. Each must be a clear
// message and a non-zero exit (2), never a crash, and nothing already saved may be lost.
//
// A real full disk is a tiny tmpfs, mounted in a mount namespace private to this test process (each
// TEST runs in its own process under CTest), so it needs CAP_SYS_ADMIN (root here). Without it those
// tests are reported as skipped, never as passed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/runtime/compiler.h"
#include "fuzz/campaign/corpus.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

class Environment : public ::testing::Test {
 protected:
  TempDir tmp{"uopfuzz-env"};  // removed after TearDown, read-only directories included
  fs::path dir = tmp.path();
  fs::path cache = dir / "cache";
  std::vector<fs::path> mounts;
  const std::string program = example_path("dot_product.uop");

  void TearDown() override {
    for (const fs::path& m : mounts) ::umount2(m.c_str(), MNT_DETACH);
  }
  std::vector<std::string> env() const { return {"UOPFUZZ_CACHE_DIR=" + cache.string()}; }

  // A tmpfs of `size` bytes at `where`, private to this process and its children; false if not permitted.
  bool mount_tmpfs(const fs::path& where, const std::string& size, unsigned long flags = 0) {
    static bool unshared = false;
    if (!unshared) {
      if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
      unshared = true;
    }
    fs::create_directories(where);
    if (::mount("tmpfs", where.c_str(), "tmpfs", flags, ("size=" + size).c_str()) != 0) return false;
    mounts.push_back(where);
    return true;
  }

  // Writes until the file system is full; returns the filler's size.
  static uintmax_t fill(const fs::path& where) {
    const int fd = ::open((where / "filler").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const std::string block(512, 'x');
    while (::write(fd, block.data(), block.size()) > 0) {}
    ::close(fd);
    return fs::file_size(where / "filler");
  }

  // An old reproducer, as an earlier campaign saved it.
  static std::string save_old_reproducer(const fs::path& corpus) {
    Program p = parse_program(
        "uops 1\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n"
        "%3 = CONST i32 7\n%4 = STORE void %2 %3\n%5 = SINK void %4\n");
    Observation o;
    o.verdict = Verdict::mismatch;
    o.signature = "mismatch STORE i32";
    o.expect[0] = {Scalar::of_int(7)};
    o.got[0] = {Scalar::of_int(8)};
    return *Corpus(corpus.string()).save(std::move(p), o, {"0", {}, "gcc"});
  }

  std::vector<std::string> broken_campaign(const fs::path& corpus, const fs::path& json) const {
    return {"fuzz",     "--count",       "48",     "--jobs",        "2",  "--seed",         "7",
            "-q",       "--cflags",      "-O1",    "--reduce-time", "20", "--renderer-cmd", broken_renderer(),
            "--corpus", corpus.string(), "--json", json.string()};
  }
};

// A clear failure: exit 2 with a message containing `what`, not a signal, not an internal error.
#define EXPECT_CLEAR_FAILURE(ran, what)                                                           \
  do {                                                                                            \
    EXPECT_TRUE(exited_with((ran).first, 2)) << "status " << (ran).first << "\n" << (ran).second; \
    EXPECT_NE((ran).second.find(what), std::string::npos) << (ran).second;                        \
    EXPECT_EQ((ran).second.find("internal error"), std::string::npos) << (ran).second;            \
  } while (0)

TEST_F(Environment, FullDiskUnderTheCorpusLosesNothing) {
  const fs::path corpus = dir / "corpus";
  if (!mount_tmpfs(corpus, "64k")) GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)";
  const std::string old = save_old_reproducer(corpus);
  const std::string old_text = read_text(old);
  const uintmax_t filler = fill(corpus);
  const auto ran = run_logged(broken_campaign(corpus, dir / "s.json"), dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "No space left on device");
  // The summary still reaches its file (on another disk), naming the error.
  const nlohmann::json s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_FALSE(s["errors"].empty()) << s.dump(2);
  EXPECT_TRUE(s["saved"].empty()) << s.dump(2);
  EXPECT_GT(s["programs"].get<int>(), 0) << "the batches checked before the error are missing from the summary";
  // Nothing half-written, nothing lost: the reproducer that could not be saved is in the log.
  EXPECT_NE(ran.second.find("could not save `mismatch"), std::string::npos) << ran.second;
  EXPECT_NE(ran.second.find("the reproducer follows\nuops "), std::string::npos) << ran.second;
  EXPECT_EQ(read_text(old), old_text);
  EXPECT_EQ(fs::file_size(corpus / "filler"), filler);
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    ++entries;
    EXPECT_TRUE(e.path() == old || e.path().filename() == "filler") << "left behind: " << e.path();
  }
  EXPECT_EQ(entries, 2u);
}

TEST_F(Environment, FullDiskUnderTheSummaryStillReportsIt) {
  const fs::path out = dir / "out";
  if (!mount_tmpfs(out, "16k")) GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)";
  fill(out);
  const auto ran =
      run_logged({"fuzz", "--count", "8", "-q", "--corpus", (dir / "corpus").string(), "--json", (out / "s.json").string()},
                 dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "cannot write");
  EXPECT_NE(ran.second.find("8 programs"), std::string::npos) << "the summary must still be printed:\n" << ran.second;
  for (const auto& e : fs::directory_iterator(out)) EXPECT_EQ(e.path().filename(), "filler") << "left behind: " << e.path();
}

// Room in the cache for the C source but not for the linked object: `ld: final link failed: No space
// left on device` is a setup error (exit 2), not a compile-error finding.
TEST_F(Environment, FullDiskUnderTheCacheIsNotACompileError) {
  if (!mount_tmpfs(cache, "256k")) GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)";
  ASSERT_EQ(::chmod(cache.c_str(), 0700), 0);  // the cache refuses a directory others may write
  fill(cache);
  fs::resize_file(cache / "filler", fs::file_size(cache / "filler") - 20480);  // room for k0.c, not for the .so
  const auto ran = run_logged({"run", program}, dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "No space left on device");
  EXPECT_EQ(ran.second.find("verdict: compile-error"), std::string::npos) << ran.second;
  // The failed build left nothing behind but the filler.
  for (const auto& e : fs::directory_iterator(cache)) EXPECT_EQ(e.path().filename(), "filler") << "left behind: " << e.path();
}

// The same in a campaign: it stops with a clear error and saves no compile-error reproducer.
TEST_F(Environment, FullDiskUnderTheCacheStopsACampaignWithoutFalseFindings) {
  if (!mount_tmpfs(cache, "256k")) GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)";
  ASSERT_EQ(::chmod(cache.c_str(), 0700), 0);
  fill(cache);
  fs::resize_file(cache / "filler", fs::file_size(cache / "filler") - 20480);
  const fs::path corpus = dir / "corpus";
  // One program: its translation unit fits, so the compiler itself runs out of space (a larger batch
  // would fail earlier, writing its source, which is a clear error as well).
  // Seed 2: its first program is defined, so it reaches the compiler.
  const auto ran = run_logged({"fuzz", "--count", "1", "--seed", "2", "--jobs", "1", "-q", "--corpus", corpus.string(), "--json",
                               (dir / "s.json").string()},
                              dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "No space left on device");
  EXPECT_TRUE(!fs::exists(corpus) || fs::is_empty(corpus)) << "a full disk is not a finding";
  const nlohmann::json s = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_EQ(s["compile_errors"].get<int>(), 0) << s.dump(2);
}

// Compilers whose environment fails them in ways a tmpfs cannot show: stand-ins that answer --version
// and then fail like gcc does on a full quota, when the OOM killer takes cc1, when ld is missing, or
// that are killed by a signal themselves. Each is a clear setup error, in `run` and in a campaign.
TEST_F(Environment, CompilerFailuresOfTheMachineAreNotFindings) {
  const std::vector<std::pair<std::string, std::string>> fakes{
      {"quota", "echo \"/usr/bin/ld: final link failed: Disk quota exceeded\" >&2; exit 1"},
      {"oom", "echo \"gcc: fatal error: Killed signal terminated program cc1\" >&2; exit 1"},
      {"no-ld",
       "echo \"collect2: fatal error: cannot find 'ld'\" >&2; echo \"gcc: fatal error: cannot execute 'as': "
       "execvp: No such file or directory\" >&2; exit 1"},
      {"killed", "kill -9 $$"}};
  for (const auto& [name, body] : fakes) {
    SCOPED_TRACE(name);
    const fs::path cc = dir / ("cc-" + name);
    std::ofstream(cc) << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fakecc 1.0'; exit 0; fi\n" << body << "\n";
    fs::permissions(cc, fs::perms::owner_all);
    auto ran = run_logged({"run", program, "--cc", cc.string()}, dir / "log", env());
    EXPECT_CLEAR_FAILURE(ran, "not of the program");
    EXPECT_EQ(ran.second.find("verdict: compile-error"), std::string::npos) << ran.second;
    const fs::path corpus = dir / ("corpus-" + name);
    ran = run_logged({"fuzz", "--count", "8", "--jobs", "2", "-q", "--cc", cc.string(), "--corpus", corpus.string()}, dir / "log",
                     env());
    EXPECT_CLEAR_FAILURE(ran, "not of the program");
    EXPECT_TRUE(!fs::exists(corpus) || fs::is_empty(corpus)) << "not a finding";
  }
  // A genuine compile error stays one: a compiler that rejects the code, and one that crashes on it (an
  // internal compiler error; clang's driver then says "unable to execute command" of its cc1, as clang-16
  // did on tinygrad's LLVM IR in session 35).
  const std::vector<std::pair<std::string, std::string>> findings{
      {"rejects", "echo \"k0.c:3:1: error: expected ';' before '}' token\" >&2; exit 1"},
      {"ice", "echo \"PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\" >&2; "
              "echo \"Stack dump:\" >&2; echo \"clang: error: unable to execute command: Segmentation fault\" >&2; "
              "echo \"clang: error: clang frontend command failed due to signal (use -v to see invocation)\" >&2; exit 1"}};
  for (const auto& [name, body] : findings) {
    SCOPED_TRACE(name);
    const fs::path cc = dir / ("cc-" + name);
    std::ofstream(cc) << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fakecc 1.0'; exit 0; fi\n" << body << "\n";
    fs::permissions(cc, fs::perms::owner_all);
    const auto ran = run_logged({"run", program, "--cc", cc.string()}, dir / "log", env());
    EXPECT_TRUE(exited_with(ran.first, 1)) << ran.second;
    EXPECT_NE(ran.second.find("verdict: compile-error"), std::string::npos) << ran.second;
  }
}

// Shared objects in a cache on a noexec file system cannot be loaded: a clear setup error, not a
// compile error.
TEST_F(Environment, NoexecCacheIsAClearError) {
  if (!mount_tmpfs(cache, "8m", MS_NOEXEC)) GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)";
  ASSERT_EQ(::chmod(cache.c_str(), 0700), 0);
  const auto ran = run_logged({"run", program}, dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "noexec");
  EXPECT_EQ(ran.second.find("verdict: compile-error"), std::string::npos) << ran.second;
}

TEST_F(Environment, CorpusUnderARegularFileIsAClearError) {
  std::ofstream(dir / "file") << "x";
  const auto ran = run_logged(broken_campaign(dir / "file" / "corpus", dir / "s.json"), dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "cannot create corpus directory");
}

TEST_F(Environment, ReadOnlyCorpusIsAClearErrorAndKeepsItsFiles) {
  // Root ignores permission bits, so as root the directory is a tmpfs remounted read-only.
  const fs::path corpus = dir / "ro";
  if (::geteuid() == 0) {
    if (!mount_tmpfs(corpus, "1m")) GTEST_SKIP() << "root without CAP_SYS_ADMIN: cannot make a directory read-only";
  } else {
    fs::create_directories(corpus);
  }
  const std::string old = save_old_reproducer(corpus);
  const std::string old_text = read_text(old);
  if (::geteuid() == 0) {
    ASSERT_EQ(::mount(nullptr, corpus.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0) << std::strerror(errno);
  } else {
    fs::permissions(corpus, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const auto ran = run_logged(broken_campaign(corpus, dir / "s.json"), dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "not writable");
  EXPECT_EQ(read_text(old), old_text);
  EXPECT_EQ(std::distance(fs::directory_iterator(corpus), fs::directory_iterator{}), 1);
}

TEST_F(Environment, UnreadableCorpusFilesDoNotStopACampaign) {
  const fs::path corpus = dir / "corpus";
  fs::create_directories(corpus);
  const std::string old = save_old_reproducer(corpus);
  const std::string truncated = read_text(old).substr(0, 40);
  std::ofstream(corpus / "garbage.uop") << "\x01\x02 not a program\n";
  std::ofstream(corpus / "truncated.uop") << truncated;
  const auto ran = run_logged({"fuzz", "--count", "16", "-q", "--corpus", corpus.string(), "--json", (dir / "s.json").string()},
                              dir / "log", env());
  EXPECT_TRUE(exited_with(ran.first, 0)) << ran.second;
  EXPECT_EQ(read_text(corpus / "truncated.uop"), truncated);
  EXPECT_TRUE(fs::exists(corpus / "garbage.uop"));
}

// Every way an entry can be damaged: it is detected, rebuilt, and the result is still right.
TEST_F(Environment, CorruptCacheEntriesAreRebuilt) {
  auto entries = [&] {
    std::vector<fs::path> v;
    for (const auto& e : fs::directory_iterator(cache))
      if (e.path().extension() == ".so") v.push_back(e.path());
    return v;
  };
  auto ran = run_logged({"run", program}, dir / "log", env());
  ASSERT_TRUE(exited_with(ran.first, 0)) << ran.second;
  const auto first = entries();
  ASSERT_EQ(first.size(), 1u);
  const fs::path entry = first[0];
  const std::string good = read_text(entry);
  ASSERT_TRUE(verify_cache_entry(entry.string()));
  const std::vector<std::pair<std::string, std::string>> damage{{"truncated to half", good.substr(0, good.size() / 2)},
                                                                {"empty", ""},
                                                                {"a flipped byte in the code",
                                                                 [&] {
                                                                   std::string s = good;
                                                                   s[s.size() / 3] ^= 0x40;
                                                                   return s;
                                                                 }()},
                                                                {"a flipped byte in the trailer",
                                                                 [&] {
                                                                   std::string s = good;
                                                                   s[s.size() - 5] ^= 0x01;
                                                                   return s;
                                                                 }()},
                                                                {"garbage", std::string(4096, '\xcc')},
                                                                {"junk appended", good + "junk"}};
  for (const auto& [what, bytes] : damage) {
    SCOPED_TRACE(what);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    ASSERT_FALSE(verify_cache_entry(entry.string()));
    ran = run_logged({"run", program}, dir / "log", env());
    EXPECT_TRUE(exited_with(ran.first, 0)) << ran.second;
    EXPECT_NE(ran.second.find("verdict: ok"), std::string::npos) << ran.second;
    EXPECT_TRUE(verify_cache_entry(entry.string())) << "not rebuilt";
    EXPECT_EQ(entries().size(), 1u);
  }
}

TEST_F(Environment, UnusableCacheDirectoryIsAClearError) {
  std::ofstream(dir / "file") << "x";
  auto ran = run_logged({"run", program}, dir / "log", {"UOPFUZZ_CACHE_DIR=" + (dir / "file" / "cache").string()});
  EXPECT_CLEAR_FAILURE(ran, (dir / "file").string());
  fs::create_directories(dir / "shared");
  fs::permissions(dir / "shared", fs::perms::all);  // writable by others: refused
  ran = run_logged({"run", program}, dir / "log", {"UOPFUZZ_CACHE_DIR=" + (dir / "shared").string()});
  EXPECT_CLEAR_FAILURE(ran, (dir / "shared").string());
}

TEST_F(Environment, MissingCompilerIsAClearError) {
  EXPECT_CLEAR_FAILURE(run_logged({"run", program, "--cc", "/nonexistent/cc"}, dir / "log", env()), "/nonexistent/cc");
  EXPECT_CLEAR_FAILURE(run_logged({"run", program, "--cc", "no-such-compiler-here"}, dir / "log", env()),
                       "no-such-compiler-here");
  EXPECT_CLEAR_FAILURE(run_logged({"run", program, "--cc", "/bin/false"}, dir / "log", env()), "/bin/false");
  EXPECT_CLEAR_FAILURE(run_logged({"run", program}, dir / "log", {"UOPFUZZ_CACHE_DIR=" + cache.string(), "PATH=/nonexistent"}),
                       "gcc");
}

TEST_F(Environment, MissingCompilerStopsACampaignWithoutFalseFindings) {
  const fs::path corpus = dir / "corpus";
  const auto ran = run_logged({"fuzz", "--count", "16", "--jobs", "2", "-q", "--cc", "/nonexistent/cc", "--corpus",
                               corpus.string(), "--json", (dir / "s.json").string()},
                              dir / "log", env());
  EXPECT_CLEAR_FAILURE(ran, "/nonexistent/cc");
  EXPECT_TRUE(!fs::exists(corpus) || fs::is_empty(corpus)) << "a missing compiler is not a finding";
}

}  // namespace
}  // namespace uf::testing

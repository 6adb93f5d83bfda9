// The compiler runtime: the content-addressed cache (concurrency, corruption, permissions, keys),
// compile errors and missing compilers, and the helpers under it (command splitting).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "codegen/compiled_path.h"
#include "codegen/runtime/process.h"
#include "codegen/runtime/fp_flags.h"
#include "codegen/runtime/sandbox.h"
#include "tests/support/files.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

std::string unique_source(const char* body) {  // a nonce keeps every test's key fresh
  static std::mt19937_64 rng(std::random_device{}());
  return "/* nonce " + std::to_string(rng()) + " */\n#include <stdint.h>\n" + body;
}

int32_t run_inc(const std::string& so) {
  std::vector<KernelCall> calls{{"inc", {to_native(DType::I32, {Scalar::of_int(41)})}}};
  const auto r = run_sandboxed(so, calls, 10);
  return r[0].status == RunStatus::ok ? static_cast<int32_t>(from_native(calls[0].buffers[0])[0].i) : -1;
}

TEST(CodegenCache, DirectoryIsCreatedPrivate) {
  TempCache cache;
  ASSERT_FALSE(fs::exists(cache.dir));
  const CompileResult r = compile_shared({unique_source("void inc(int32_t* a) { a[0] += 1; }\n")});
  ASSERT_TRUE(r.ok) << r.message;
  struct stat st;
  ASSERT_EQ(::stat(cache.dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(fs::path(r.so_path).parent_path(), fs::path(cache.dir));
}

TEST(CodegenCache, RefusesADirectoryOthersCanWrite) {
  TempCache cache;
  fs::create_directories(cache.dir);
  ::chmod(cache.dir.c_str(), 0777);
  EXPECT_THROW(compile_shared({unique_source("int x;\n")}), UserError);
  ::chmod(cache.dir.c_str(), 0700);
  EXPECT_TRUE(compile_shared({unique_source("int x;\n")}).ok);
}

TEST(CodegenCache, HitsAndKeys) {
  TempCache cache;
  const std::string src = unique_source("void inc(int32_t* a) { a[0] += 1; }\n");
  const CompileResult a = compile_shared({src});
  ASSERT_TRUE(a.ok) << a.message;
  EXPECT_FALSE(a.cached);
  const CompileResult b = compile_shared({src});
  EXPECT_TRUE(b.cached);
  EXPECT_EQ(a.so_path, b.so_path);
  CompileOptions o0;
  o0.cflags = "-O0";
  const CompileResult c = compile_shared({src}, o0);  // other flags: another entry
  EXPECT_FALSE(c.cached);
  EXPECT_NE(c.so_path, a.so_path);
  const CompileResult d = compile_shared({src, "int other;\n"});  // another unit: another entry
  EXPECT_NE(d.so_path, a.so_path);
  EXPECT_EQ(run_inc(a.so_path), 42);
  EXPECT_EQ(run_inc(c.so_path), 42);
}

TEST(CodegenCache, TruncatedOrCorruptEntriesAreRebuilt) {
  TempCache cache;
  const std::string src = unique_source("void inc(int32_t* a) { a[0] += 1; }\n");
  const CompileResult first = compile_shared({src});
  ASSERT_TRUE(first.ok) << first.message;
  ASSERT_TRUE(verify_cache_entry(first.so_path));
  const auto size = fs::file_size(first.so_path);
  fs::resize_file(first.so_path, size / 2);  // a half-written file, as a crash mid-copy would leave
  EXPECT_FALSE(verify_cache_entry(first.so_path));
  const CompileResult again = compile_shared({src});
  ASSERT_TRUE(again.ok);
  EXPECT_FALSE(again.cached);
  EXPECT_EQ(again.so_path, first.so_path);
  EXPECT_EQ(fs::file_size(again.so_path), size);
  EXPECT_EQ(run_inc(again.so_path), 42);
  {  // one flipped byte in the middle: same size, wrong content
    std::fstream f(first.so_path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 3));
    f.put('\x5a');
  }
  EXPECT_FALSE(verify_cache_entry(first.so_path));
  const CompileResult third = compile_shared({src});
  EXPECT_FALSE(third.cached);
  EXPECT_TRUE(verify_cache_entry(third.so_path));
  EXPECT_EQ(run_inc(third.so_path), 42);
}

TEST(CodegenCache, ConcurrentProcessesAgree) {
  TempCache cache;
  const std::string src = unique_source("void inc(int32_t* a) { a[0] += 1; }\n");
  constexpr int kProcs = 6;
  int go[2], report[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(report), 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcs; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(go[1]);
      char c;
      if (::read(go[0], &c, 1) != 1) ::_exit(3);  // all start together
      int code = 1;
      std::string line = "?";
      try {
        const CompileResult r = compile_shared({src});
        if (r.ok) {
          code = 0;
          line = r.so_path;
        }
      } catch (...) { code = 2; }
      line += "\n";
      if (::write(report[1], line.data(), line.size()) < 0) code = 4;
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  ::close(go[0]);
  ::close(report[1]);
  const std::string start(kProcs, 'g');
  ASSERT_EQ(::write(go[1], start.data(), start.size()), kProcs);
  ::close(go[1]);
  for (pid_t pid : pids) {
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
  }
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) all.append(buf, static_cast<size_t>(n));
  ::close(report[0]);
  std::istringstream lines(all);
  std::set<std::string> paths;
  int count = 0;
  for (std::string l; std::getline(lines, l); ++count) paths.insert(l);
  EXPECT_EQ(count, kProcs);
  ASSERT_EQ(paths.size(), 1u) << all;
  EXPECT_TRUE(verify_cache_entry(*paths.begin()));
  EXPECT_EQ(run_inc(*paths.begin()), 42);
  for (const auto& e : fs::directory_iterator(cache.dir))  // no temporary directory left behind
    EXPECT_EQ(e.path().extension(), ".so") << e.path();
}

TEST(CodegenCompiler, ErrorsCarryStderrAndNumberedSource) {
  TempCache cache;
  const CompileResult r = compile_shared({"void k(float* a) {\n  a[0] = 1.0f\n}\n"});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("expected"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("   2   a[0] = 1.0f"), std::string::npos) << r.message;
}

TEST(CodegenCompiler, MissingCompilerIsAClearError) {
  TempCache cache;
  CompileOptions o;
  o.cc = "no-such-cc-uopfuzz";
  try {
    compile_shared({"int x;\n"}, o);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) { EXPECT_NE(std::string(e.what()).find("no-such-cc-uopfuzz"), std::string::npos) << e.what(); }
  CompiledPathConfig cfg;  // the same through the fuzzer's entry point
  cfg.cc = "no-such-cc-uopfuzz";
  Builder b;
  const UOp* out = b.buffer(DType::I32, 1, 0);
  const Program p = b.finish({b.store(out, 0, b.ci(1))});
  EXPECT_THROW(run_compiled(p, cfg), UserError);
}

TEST(CodegenCompiler, BadFlagsDoNotBlameEveryProgram) {
  TempCache cache;
  CompiledPathConfig cfg;
  cfg.cflags = "-O2 --no-such-flag-uopfuzz";
  std::vector<Program> ps;
  for (int i = 0; i < 4; ++i) {
    Builder b;
    const UOp* out = b.buffer(DType::I32, 1, 0);
    ps.push_back(b.finish({b.store(out, 0, b.ci(i))}));
  }
  const auto out = run_compiled({&ps[0], &ps[1], &ps[2], &ps[3]}, cfg);
  for (const KernelOutcome& o : out) {
    EXPECT_EQ(o.status, KernelStatus::compile_error);
    EXPECT_NE(o.message.find("empty translation unit"), std::string::npos) << o.message;
  }
}

TEST(CodegenCompiler, FlagsThatChangeIeeeSemanticsAreNamed) {
  auto names = [](const std::string& cflags) {
    std::vector<std::string> out;
    for (const IeeeFlag& f : ieee_changing_flags(cflags)) out.push_back(f.flag);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(kDefaultCFlags), V{});
  EXPECT_EQ(names("-O3 -march=native -funroll-loops -ffp-contract=off -fno-fast-math"), V{});
  EXPECT_EQ(names("-O2 -ffast-math"), V{"-ffast-math"});
  EXPECT_EQ(names("-Ofast -fno-signed-zeros '-mrecip=all' -ffp-contract=fast"),
            (V{"-Ofast", "-fno-signed-zeros", "-mrecip=all", "-ffp-contract=fast"}));
  EXPECT_EQ(names("-ffinite-math-only -fassociative-math -mfpmath=387"),
            (V{"-ffinite-math-only", "-fassociative-math", "-mfpmath=387"}));
}

TEST(CodegenProcess, SplitCommandLikeAShell) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_command("  a  b\tc "), (V{"a", "b", "c"}));
  EXPECT_EQ(split_command("sh 'my plug-in.sh' --x"), (V{"sh", "my plug-in.sh", "--x"}));
  EXPECT_EQ(split_command(R"(a "b c" d\ e "q\"x" '$HOME' "\$y")"), (V{"a", "b c", "d e", "q\"x", "$HOME", "$y"}));
  EXPECT_EQ(split_command(R"(x''y "" '')"), (V{"xy", "", ""}));
  EXPECT_EQ(split_command(""), V{});
  EXPECT_THROW(split_command("a 'b"), UserError);
  EXPECT_THROW(split_command("a \"b"), UserError);
}

TEST(CodegenProcess, TimeoutKillsTheWholeGroup) {
  ProcessOptions o;
  o.timeout_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({"sh", "-c", "sleep 30 & sleep 30; echo never"}, o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
}

TEST(CodegenProcess, OutputIsBounded) {
  ProcessOptions o;
  o.max_stdout = 1000;
  const ProcessResult r = run_process({"sh", "-c", "yes"}, o);
  EXPECT_TRUE(r.output_overflow);
  EXPECT_LE(r.out.size(), 1000u);
  const ProcessResult e = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_EQ(e.out, "out\n");
  EXPECT_EQ(e.err, "err\n");
}

TEST(CodegenProcess, EnvironmentOverrides) {
  ::setenv("UOPFUZZ_TEST_A", "harness", 1);
  ::setenv("UOPFUZZ_TEST_B", "kept", 1);
  ProcessOptions o;
  o.env = {"UOPFUZZ_TEST_A=child", "UOPFUZZ_TEST_C=new"};
  const ProcessResult r =
      run_process({"sh", "-c", "echo $UOPFUZZ_TEST_A $UOPFUZZ_TEST_B $UOPFUZZ_TEST_C; env | grep -c '^UOPFUZZ_TEST_A='"}, o);
  EXPECT_EQ(r.out, "child kept new\n1\n");
  ::unsetenv("UOPFUZZ_TEST_A");
  ::unsetenv("UOPFUZZ_TEST_B");
}

}  // namespace
}  // namespace uf::testing

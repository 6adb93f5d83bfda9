// The sandboxed runner and the failure classes of the compiled path, driven by a fake renderer plug-in
// (plugins/behave.sh) whose kernels exit, print junk, crash with each signal, loop forever, lack
// their symbol or write wild, mixed with good kernels in ONE batch that must still produce results.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "codegen/compiled_path.h"
#include "codegen/runtime/native.h"
#include "codegen/runtime/sandbox.h"
#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

using Clock = std::chrono::steady_clock;

Program behaving(const std::string& behaviour) {
  Builder b;
  const UOp* out = b.buffer(DType::F32, 1, 0);
  b.p.set_meta("behaviour", behaviour);
  return b.finish({b.store(out, 0, b.cf(0.0f))});
}

std::string behave_cmd() { return "sh '" + source_path("tests/codegen/plugins/behave.sh") + "'"; }

TEST(CodegenSandbox, EveryFailureIsClassifiedAndTheBatchGoesOn) {
  TempCache cache;
  const std::vector<std::string> kinds = {"ok",    "segv", "ok",    "fpe",     "ok", "loop",  "ok",   "ill",
                                          "abort", "ok",   "exit1", "garbage", "ok", "nosym", "wild", "ok"};
  std::vector<Program> programs;
  for (const std::string& k : kinds) programs.push_back(behaving(k));
  std::vector<const Program*> batch;
  for (const Program& p : programs) batch.push_back(&p);
  CompiledPathConfig cfg;
  cfg.renderer_cmd = behave_cmd();
  cfg.timeout_s = 2.0;
  const auto t0 = Clock::now();
  const std::vector<KernelOutcome> out = run_compiled(batch, cfg);
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_EQ(out.size(), kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    const std::string& k = kinds[i];
    const KernelOutcome& o = out[i];
    SCOPED_TRACE(k + ": " + status_name(o.status) + ": " + o.message.substr(0, 500));
    if (k == "ok") {
      ASSERT_EQ(o.status, KernelStatus::ok);
      EXPECT_EQ(o.buffers.at(0)[0].f, 42.0);
    } else if (k == "segv" || k == "wild") {
      EXPECT_EQ(o.status, KernelStatus::crash);
      EXPECT_EQ(o.signal, SIGSEGV);
    } else if (k == "fpe") {
      EXPECT_EQ(o.status, KernelStatus::crash);
      EXPECT_EQ(o.signal, SIGFPE);
    } else if (k == "ill") {
      EXPECT_EQ(o.status, KernelStatus::crash);
      EXPECT_EQ(o.signal, SIGILL);
    } else if (k == "abort") {
      EXPECT_EQ(o.status, KernelStatus::crash);
      EXPECT_EQ(o.signal, SIGABRT);
    } else if (k == "loop") {
      EXPECT_EQ(o.status, KernelStatus::timeout);
    } else if (k == "exit1") {
      EXPECT_EQ(o.status, KernelStatus::render_error);
      EXPECT_NE(o.message.find("refusing on purpose"), std::string::npos);  // the plug-in's stderr
    } else if (k == "garbage") {
      EXPECT_EQ(o.status, KernelStatus::compile_error);
      EXPECT_NE(o.message.find("error"), std::string::npos);                      // the compiler's stderr
      EXPECT_NE(o.message.find("   1 this is not C at all"), std::string::npos);  // the numbered source
    } else if (k == "nosym") {
      EXPECT_EQ(o.status, KernelStatus::compile_error);
      EXPECT_NE(o.message.find("not found"), std::string::npos);
    }
    if (o.status != KernelStatus::ok) { EXPECT_TRUE(o.buffers.empty()); }
  }
  // One timeout of 2 s, plus compiling and bisecting around the junk unit: nothing waits for long
  // (the bound is loose because the compiles share the machine).
  EXPECT_LT(secs, 60.0);
}

TEST(CodegenSandbox, HangingRendererTimesOut) {
  TempCache cache;
  const Program p = behaving("hang");
  CompiledPathConfig cfg;
  cfg.renderer_cmd = behave_cmd();
  cfg.render_timeout_s = 1.0;
  const auto t0 = Clock::now();
  const KernelOutcome o = run_compiled(p, cfg);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(o.status, KernelStatus::render_error);
  EXPECT_NE(o.message.find("timed out"), std::string::npos) << o.message;
  EXPECT_EQ(o.bucket, "timeout");  // its signature: `render-error timeout`
}

// A compiler that hangs (clang on some of tinygrad's IR at -O2): its own timeout makes it a compile
// error, a finding; past the budget's end it is cut within 2 s and is no finding (out of time).
TEST(CodegenSandbox, HangingCompilerEndsWithTheBudget) {
  TempCache cache;
  const Program p = behaving("ok");
  CompiledPathConfig cfg;
  cfg.cc = source_path("tests/codegen/plugins/hanging_cc.sh");
  cfg.compile_timeout_s = 1.0;
  auto t0 = Clock::now();
  const KernelOutcome timed_out = run_compiled(p, cfg);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(timed_out.status, KernelStatus::compile_error);
  EXPECT_FALSE(timed_out.out_of_time);

  cfg.compile_timeout_s = 300;
  cfg.render_stop_at = Clock::now() + std::chrono::milliseconds(500);
  t0 = Clock::now();
  const KernelOutcome cut = run_compiled(p, cfg);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(cut.status, KernelStatus::compile_error);
  EXPECT_TRUE(cut.out_of_time) << cut.message;
}

TEST(CodegenSandbox, MissingRendererIsARenderError) {
  TempCache cache;
  CompiledPathConfig cfg;
  cfg.renderer_cmd = "/nonexistent/renderer --flag";
  const KernelOutcome o = run_compiled(behaving("ok"), cfg);
  EXPECT_EQ(o.status, KernelStatus::render_error);
  EXPECT_NE(o.message.find("not found"), std::string::npos) << o.message;
}

// The runner itself, on a hand-written object: results copied back only for kernels that finished,
// exact arity up to 16 buffers and padded beyond, a missing symbol, a crash in the middle.
TEST(CodegenSandbox, RunnerDirectly) {
  TempCache cache;
  std::string src =
      "#include <stdint.h>\n"
      "void inc(int32_t* a) { a[0] += 1; }\n"
      "void crash(int32_t* a) { a[0] = 99; volatile int* volatile p = 0; *p = 1; }\n"
      "void many(";
  for (int i = 0; i < 20; ++i) src += std::string(i ? ", " : "") + "int32_t* d" + std::to_string(i);
  src += ") { d19[0] = 19; d0[0] = 7; }\n";
  const CompileResult c = compile_shared({src});
  ASSERT_TRUE(c.ok) << c.message;
  auto one = [](int32_t v) { return to_native(DType::I32, {Scalar::of_int(v)}); };
  std::vector<KernelCall> calls;
  calls.push_back({"inc", {one(1)}});
  calls.push_back({"crash", {one(1)}});
  calls.push_back({"absent", {one(1)}});
  std::vector<NativeBuffer> twenty;
  for (int i = 0; i < 20; ++i) twenty.push_back(one(-1));
  calls.push_back({"many", twenty});
  calls.push_back({"inc", {one(41)}});
  const std::vector<RunResult> r = run_sandboxed(c.so_path, calls, 5.0);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].status, RunStatus::ok);
  EXPECT_EQ(from_native(calls[0].buffers[0])[0].i, 2);
  EXPECT_EQ(r[1].status, RunStatus::crash);
  EXPECT_EQ(r[1].signal, SIGSEGV);
  EXPECT_EQ(from_native(calls[1].buffers[0])[0].i, 1) << "a crashed kernel's buffers are not copied back";
  EXPECT_EQ(r[2].status, RunStatus::load_error);
  EXPECT_EQ(r[3].status, RunStatus::ok) << r[3].message;
  EXPECT_EQ(from_native(calls[3].buffers[19])[0].i, 19);
  EXPECT_EQ(from_native(calls[3].buffers[0])[0].i, 7);
  EXPECT_EQ(from_native(calls[3].buffers[5])[0].i, -1);
  EXPECT_EQ(r[4].status, RunStatus::ok);
  EXPECT_EQ(from_native(calls[4].buffers[0])[0].i, 42);
}

TEST(CodegenSandbox, SpinningKernelStopsAtItsTimeout) {
  TempCache cache;
  const CompileResult c =
      compile_shared({"#include <stdint.h>\n"
                      "void spin(int32_t* a) { volatile int32_t x = 0; for (;;) x++; }\n"
                      "void inc(int32_t* a) { a[0] += 1; }\n"});
  ASSERT_TRUE(c.ok) << c.message;
  std::vector<KernelCall> calls{{"spin", {to_native(DType::I32, {Scalar::of_int(0)})}},
                                {"inc", {to_native(DType::I32, {Scalar::of_int(9)})}}};
  const auto t0 = Clock::now();
  const auto r = run_sandboxed(c.so_path, calls, 0.5);
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(r[0].status, RunStatus::timeout) << r[0].message;
  EXPECT_EQ(r[1].status, RunStatus::ok) << r[1].message;
  EXPECT_EQ(from_native(calls[1].buffers[0])[0].i, 10);
  EXPECT_GE(secs, 0.5);
  EXPECT_LT(secs, 3.0);
}

TEST(CodegenSandbox, UnloadableObjectIsReportedNotFatal) {
  TempCache cache;
  const std::string junk = cache.dir + "/../junk.so";
  { std::ofstream(junk) << "not an ELF file"; }
  std::vector<KernelCall> calls{{"k", {}}, {"k", {}}};
  const auto r = run_sandboxed(junk, calls, 5.0);
  ASSERT_EQ(r.size(), 2u);
  for (const RunResult& x : r) {
    EXPECT_EQ(x.status, RunStatus::load_error);
    EXPECT_NE(x.message.find("cannot load"), std::string::npos) << x.message;
  }
}

TEST(CodegenSandbox, BuffersAreCheckedAgainstTheProgram) {
  Builder b;
  const UOp* x = b.buffer(DType::F16, 3, 0);
  const UOp* y = b.buffer(DType::I64, 2, 4);
  const Program p = b.finish({b.store(y, 0, b.op(Op::CAST, {b.load(x, 0)}, DType::I64))});
  std::vector<NativeBuffer> bufs = program_buffers(p);
  EXPECT_EQ(check_buffers(p, bufs), "");
  bufs[1] = to_native(DType::I32, Values(2, Scalar::zero()));
  EXPECT_NE(check_buffers(p, bufs).find("slot 4: kernel wants i64[2], got i32[2]"), std::string::npos);
  bufs[1] = to_native(DType::I64, Values(3, Scalar::zero()));
  EXPECT_NE(check_buffers(p, bufs).find("wants i64[2], got i64[3]"), std::string::npos);
  bufs.pop_back();
  EXPECT_NE(check_buffers(p, bufs).find("takes 2 buffers, got 1"), std::string::npos);
}

TEST(CodegenSandbox, NativeBytesRoundTrip) {
  for (DType d : kValueDTypes) {
    Values v;
    for (double x : std::initializer_list<double>{0.0, 1.0, -1.0, 2.5, -0.0, 65504.0, 1e-7, 3.0e38, 1e300}) {
      if (is_float(d))
        v.push_back(normalize(d, Scalar::of_float(x)));
      else
        v.push_back(normalize(d, Scalar::of_int(static_cast<int64_t>(std::fmod(x, 1e18)))));
    }
    if (is_float(d)) v.push_back(normalize(d, Scalar::of_float(-INFINITY)));  // NaN where there is no inf
    v.push_back(normalize(d, Scalar::of_int(-129)));
    const NativeBuffer n = to_native(d, v);
    EXPECT_EQ(n.bytes.size(), v.size() * static_cast<size_t>(bytes(d)));
    const Values back = from_native(n);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(same_value(d, v[i], back[i])) << name(d) << " #" << i;
  }
  // f16 is stored as binary16 bits, little-endian.
  const NativeBuffer h = to_native(DType::F16, {Scalar::of_float(1.0), Scalar::of_float(-2.0)});
  EXPECT_EQ(h.bytes, (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0xc0}));
  // bf16 and the fp8s are their storage bits: bf16 1.0 is 0x3f80; 1.0 is 0x38 in e4m3, 0x3c in e5m2.
  EXPECT_EQ(to_native(DType::BF16, {Scalar::of_float(1.0)}).bytes, (std::vector<uint8_t>{0x80, 0x3f}));
  EXPECT_EQ(to_native(DType::FP8E4M3, {Scalar::of_float(1.0)}).bytes, (std::vector<uint8_t>{0x38}));
  EXPECT_EQ(to_native(DType::FP8E5M2, {Scalar::of_float(-1.0)}).bytes, (std::vector<uint8_t>{0xbc}));
}

}  // namespace
}  // namespace uf::testing

namespace uf::testing {
namespace {

// checked_call: kernels with stack arguments get an aligned stack; one that returns with a callee-saved
// register or MXCSR changed is a crash naming it, and the batch goes on.
TEST(CodegenSandbox, AKernelThatBreaksTheAbiIsACrashNamingIt) {
  TempCache cache;
  std::string src =
      "#include <stdint.h>\n#include <xmmintrin.h>\n"
      "void rbx(int32_t* a) { a[0] = 1; __asm__ volatile(\"xorl %%ebx, %%ebx\" ::: \"memory\"); }\n"
      "void r15(int32_t* a) { a[0] = 1; __asm__ volatile(\"movq $7, %%r15\" ::: \"memory\"); }\n"
      "void ftz(int32_t* a) { a[0] = 1; _mm_setcsr(_mm_getcsr() | 0x8040); }\n"
      "void inc(int32_t* a) { a[0] += 1; }\n";
  for (int n : {7, 8}) {  // one and two stack arguments: the padding differs
    src += "void args" + std::to_string(n) + "(";
    for (int i = 0; i < n; ++i) src += std::string(i ? ", " : "") + "int32_t* d" + std::to_string(i);
    src += ") { d" + std::to_string(n - 1) + "[0] = " + std::to_string(n) +
           "; d0[0] = (int32_t)((uintptr_t)__builtin_frame_address(0) % 16); }\n";
  }
  const CompileResult c = compile_shared({src});
  ASSERT_TRUE(c.ok) << c.message;
  auto one = [](int32_t v) { return to_native(DType::I32, {Scalar::of_int(v)}); };
  std::vector<KernelCall> calls;
  for (const char* k : {"rbx", "inc", "r15", "ftz", "inc"}) calls.push_back({k, {one(0)}});
  for (int n : {7, 8}) calls.push_back({"args" + std::to_string(n), std::vector<NativeBuffer>(static_cast<size_t>(n), one(-1))});
  const std::vector<RunResult> r = run_sandboxed(c.so_path, calls, 5.0);
  ASSERT_EQ(r.size(), calls.size());
  const std::pair<size_t, const char*> broken[] = {{0, "callee-saved register rbx changed from 0xb0b0b0b0b0b0b01 to 0x0"},
                                                   {2, "callee-saved register r15 changed"},
                                                   {3, "MXCSR's control bits changed from 0x1f80 to 0x9fc0"}};
  for (const auto& [k, what] : broken) {
    EXPECT_EQ(r[k].status, RunStatus::crash) << calls[k].symbol;
    EXPECT_EQ(r[k].signal, 0);
    EXPECT_NE(r[k].message.find(what), std::string::npos) << r[k].message;
  }
  for (size_t k : {1, 4}) {
    EXPECT_EQ(r[k].status, RunStatus::ok) << r[k].message;
    EXPECT_EQ(from_native(calls[k].buffers[0])[0].i, 1);
  }
  for (size_t k : {5, 6}) {
    const int n = static_cast<int>(calls[k].buffers.size());
    ASSERT_EQ(r[k].status, RunStatus::ok) << r[k].message;
    EXPECT_EQ(from_native(calls[k].buffers.back())[0].i, n);
    EXPECT_EQ(from_native(calls[k].buffers[0])[0].i, 0) << "the frame of a kernel with " << n << " arguments is 16-byte aligned";
  }
}

}  // namespace
}  // namespace uf::testing

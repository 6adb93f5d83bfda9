// The forked batch runner (see sandbox.h).
#include "codegen/runtime/sandbox.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fenv.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <iterator>
#include <optional>
#include <utility>

#include "codegen/runtime/checked_call.h"
#include "codegen/runtime/fd.h"
#include "codegen/runtime/files.h"
#include "core/error.h"

namespace uf {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kLoadFailedExit = 86;
constexpr int kBrokeAbiExit = 87;  // checked_call found the kernel broke the ABI: the message says how
constexpr int kProgressFd = 3;
enum : int32_t { kPending = 0, kDone = 1, kMissing = 2, kFailed = 3 };

// Shared with the child: what it is doing and what it could not load.
struct Control {
  int64_t current;  // index of the running kernel; -1 while loading the object
  char message[2048];
};

size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

struct Layout {
  std::vector<size_t> region_off, region_len;   // per call, page aligned
  std::vector<std::vector<size_t>> buffer_off;  // per call, per buffer (64-byte aligned)
  size_t total = 0;
};

Layout plan(const std::vector<KernelCall>& calls, size_t page) {
  Layout l;
  for (const KernelCall& c : calls) {
    size_t len = 0;
    std::vector<size_t> offs;
    for (const NativeBuffer& b : c.buffers) {
      len = round_up(len, 64);
      offs.push_back(l.total + len);
      len += std::max<size_t>(b.bytes.size(), 1);
    }
    len = round_up(len, page);
    l.region_off.push_back(l.total);
    l.region_len.push_back(len);
    l.buffer_off.push_back(std::move(offs));
    l.total += len;
  }
  return l;
}

void close_other_fds() {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, kProgressFd + 1, ~0U, 0) == 0) return;
#endif
  for (int fd = kProgressFd + 1; fd < 65536; ++fd) ::close(fd);
}

std::string describe_exit(int wstatus, bool timed_out, double timeout_s) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", timeout_s);
  if (timed_out) return std::string("no result within ") + secs + " s";
  if (WIFSIGNALED(wstatus)) {
    const int s = WTERMSIG(wstatus);
    return "killed by signal " + std::to_string(s) + " (" + strsignal(s) + ")";
  }
  if (WIFEXITED(wstatus)) return "exited with status " + std::to_string(WEXITSTATUS(wstatus)) + " inside the kernel";
  return "ended abnormally";
}

// One batch, ready before the fork: the child only reads this, so it allocates nothing of ours.
struct Batch {
  const char* so_path = nullptr;
  Layout layout;
  SharedMemory data_memory, control_memory;
  uint8_t* data = nullptr;    // the kernels' buffers, at layout's offsets
  Control* ctl = nullptr;     // what the child is doing
  int32_t* status = nullptr;  // per kernel: kPending, kDone, kMissing or kFailed
  std::vector<const char*> symbols;
  std::vector<size_t> buffer_count;           // per kernel: its pointer arguments
  std::vector<std::vector<void*>> arg_lists;  // per kernel: its buffers' addresses, at least 6 (null padded)

  size_t size() const { return symbols.size(); }
  bool too_many(size_t k) const { return buffer_count[k] > kMaxKernelBuffers; }
  int32_t status_of(size_t k) const { return __atomic_load_n(&status[k], __ATOMIC_SEQ_CST); }
  void set_status(size_t k, int32_t s) const { __atomic_store_n(&status[k], s, __ATOMIC_SEQ_CST); }
};

// In the child, before any kernel: a process group of its own, death with the harness, default
// signals and floating point, no core dumps, the progress pipe on kProgressFd and no other descriptor.
void isolate_child(int progress_fd, pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGPIPE, SIGXCPU, SIGXFSZ, SIGALRM})
    ::signal(s, SIG_DFL);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::fesetenv(FE_DFL_ENV);  // whatever the harness did to rounding or FTZ/DAZ stays out of the kernels
  if (progress_fd != kProgressFd) {
    ::dup2(progress_fd, kProgressFd);
    ::close(progress_fd);
  }
  close_other_fds();
}

// The child: never returns, never throws, allocates nothing of ours.
[[noreturn]] void child_main(const Batch& b, size_t start, int progress_fd, pid_t parent) {
  isolate_child(progress_fd, parent);
  const Layout& l = b.layout;
  if (l.total) ::mprotect(b.data, l.total, PROT_NONE);

  void* h = ::dlopen(b.so_path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    std::strncpy(b.ctl->message, e ? e : "dlopen failed", sizeof b.ctl->message - 1);
    ::_exit(kLoadFailedExit);
  }
  const char tick = 'k';
  for (size_t k = start; k < b.size(); ++k) {
    void* fn = ::dlsym(h, b.symbols[k]);
    if (!fn || b.too_many(k)) {
      b.set_status(k, kMissing);
    } else {
      if (l.region_len[k]) ::mprotect(b.data + l.region_off[k], l.region_len[k], PROT_READ | PROT_WRITE);
      __atomic_store_n(&b.ctl->current, static_cast<int64_t>(k), __ATOMIC_SEQ_CST);
      const std::string broke = checked_call(fn, b.arg_lists[k].data(), b.buffer_count[k]);
      if (!broke.empty()) {
        std::strncpy(b.ctl->message, broke.c_str(), sizeof b.ctl->message - 1);
        ::_exit(kBrokeAbiExit);
      }
      b.set_status(k, kDone);
      if (l.region_len[k]) ::mprotect(b.data + l.region_off[k], l.region_len[k], PROT_NONE);
    }
    write_all(kProgressFd, std::string_view(&tick, 1));
  }
  ::_exit(0);
}

SharedMemory map_shared(size_t bytes) {
  std::optional<SharedMemory> m = SharedMemory::map(bytes);
  if (!m) throw UserError(std::string("sandbox: cannot map shared memory: ") + strerror(errno));
  return std::move(*m);
}

// Maps the shared memory, copies the inputs in and picks each kernel's caller.
void prepare(Batch& b, const std::string& so_path, const std::vector<KernelCall>& calls) {
  const size_t n = calls.size();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  b.so_path = so_path.c_str();
  b.layout = plan(calls, page);
  b.data_memory = map_shared(std::max(b.layout.total, page));
  b.control_memory = map_shared(round_up(sizeof(Control) + n * sizeof(int32_t), page));
  b.data = static_cast<uint8_t*>(b.data_memory.data());
  b.ctl = static_cast<Control*>(b.control_memory.data());
  b.status = reinterpret_cast<int32_t*>(static_cast<uint8_t*>(b.control_memory.data()) + sizeof(Control));
  b.symbols.resize(n);
  b.buffer_count.resize(n);
  b.arg_lists.resize(n);
  for (size_t k = 0; k < n; ++k) {
    b.symbols[k] = calls[k].symbol.c_str();
    b.buffer_count[k] = calls[k].buffers.size();
    b.arg_lists[k].assign(std::max<size_t>(calls[k].buffers.size(), 6), nullptr);
    for (size_t i = 0; i < calls[k].buffers.size(); ++i) {
      uint8_t* p = b.data + b.layout.buffer_off[k][i];
      std::memcpy(p, calls[k].buffers[i].bytes.data(), calls[k].buffers[i].bytes.size());
      if (i < b.arg_lists[k].size()) b.arg_lists[k][i] = p;
    }
  }
}

struct RoundEnd {
  bool timed_out = false;
  int wstatus = 0;
};

// Waits for the child of a round, restarting the clock at each finished kernel it reports.
RoundEnd wait_for_round(ChildProcessGroup& child, int progress_fd, double timeout_s) {
  const auto budget = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  auto deadline = Clock::now() + budget;
  RoundEnd end;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      child.kill_and_reap(end.wstatus);
      end.timed_out = true;
      return end;
    }
    pollfd p{progress_fd, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 20)));
    char buf[4096];
    while (::read(progress_fd, buf, sizeof buf) > 0)  // progress: the next kernel's clock starts now
      deadline = Clock::now() + budget;
    switch (child.try_reap(end.wstatus)) {
      case ChildProcessGroup::Wait::ended: return end;
      case ChildProcessGroup::Wait::not_waitable:  // not ours to wait for (SIGCHLD ignored)
        end.wstatus = 0;
        child.release();
        return end;
      case ChildProcessGroup::Wait::running: break;
    }
  }
}

// Runs the kernels from `start` on in a new child, until it ends or times out.
RoundEnd run_round(const Batch& b, size_t start, double timeout_s, pid_t self) {
  __atomic_store_n(&b.ctl->current, int64_t{-1}, __ATOMIC_SEQ_CST);
  std::optional<Pipe> progress = Pipe::open();
  if (!progress) throw UserError(std::string("sandbox: pipe: ") + strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw UserError(std::string("sandbox: fork: ") + strerror(errno));
  if (pid == 0) {
    progress->read_end.reset();
    child_main(b, start, progress->write_end.get(), self);
  }
  progress->write_end.reset();
  ChildProcessGroup child(pid);
  set_nonblocking(progress->read_end.get());
  return wait_for_round(child, progress->read_end.get(), timeout_s);
}

// The round's child ended before any of its kernels ran: the object did not load, or loading crashed
// or hung (constructors run at load).
RunResult loading_failure(const Batch& b, const RoundEnd& end, double timeout_s) {
  const bool load_failed = !end.timed_out && WIFEXITED(end.wstatus) && WEXITSTATUS(end.wstatus) == kLoadFailedExit;
  RunResult r;
  r.status = load_failed ? RunStatus::load_error : end.timed_out ? RunStatus::timeout : RunStatus::crash;
  r.signal = !end.timed_out && WIFSIGNALED(end.wstatus) ? WTERMSIG(end.wstatus) : 0;
  r.message = load_failed ? std::string("cannot load the shared object: ") + b.ctl->message
                          : "while loading the shared object: " + describe_exit(end.wstatus, end.timed_out, timeout_s);
  return r;
}

// Results of the round that started at `start`; the index the next round starts at, or the batch size
// when none is needed.
size_t account_for_round(const Batch& b, const std::vector<KernelCall>& calls, const RoundEnd& end, size_t start,
                         double timeout_s, std::vector<RunResult>& results) {
  const size_t n = b.size();
  for (size_t k = start; k < n; ++k)
    if (b.status_of(k) == kMissing)
      results[k] = {RunStatus::load_error, 0,
                    !b.too_many(k) ? "the compiled code does not define '" + calls[k].symbol + "' (symbol not found)"
                                   : "too many buffers (" + std::to_string(calls[k].buffers.size()) + ")"};
  bool settled = !end.timed_out;
  for (size_t k = start; k < n && settled; ++k) settled = b.status_of(k) != kPending;
  if (settled) return n;  // every kernel of this round finished (or had no symbol)
  const int64_t cur = __atomic_load_n(&b.ctl->current, __ATOMIC_SEQ_CST);
  if (cur < static_cast<int64_t>(start)) {  // ended before any kernel of this round ran
    const RunResult r = loading_failure(b, end, timeout_s);
    for (size_t k = start; k < n; ++k)
      if (b.status_of(k) == kPending) results[k] = r;
    return n;
  }
  const size_t k = static_cast<size_t>(cur);  // the kernel that was running
  results[k].status = end.timed_out ? RunStatus::timeout : RunStatus::crash;
  results[k].signal = !end.timed_out && WIFSIGNALED(end.wstatus) ? WTERMSIG(end.wstatus) : 0;
  const bool broke_abi = !end.timed_out && WIFEXITED(end.wstatus) && WEXITSTATUS(end.wstatus) == kBrokeAbiExit;
  results[k].message = broke_abi ? std::string(b.ctl->message) : describe_exit(end.wstatus, end.timed_out, timeout_s);
  b.set_status(k, kFailed);
  return k + 1;
}

// The final buffers of every kernel that finished; a kernel that neither finished nor failed is a crash.
void collect_results(const Batch& b, std::vector<KernelCall>& calls, std::vector<RunResult>& results) {
  for (size_t k = 0; k < b.size(); ++k) {
    if (b.status_of(k) != kDone || results[k].status != RunStatus::ok) continue;
    for (size_t i = 0; i < calls[k].buffers.size(); ++i) {
      std::vector<uint8_t>& bytes = calls[k].buffers[i].bytes;
      std::memcpy(bytes.data(), b.data + b.layout.buffer_off[k][i], bytes.size());
    }
  }
  for (size_t k = 0; k < b.size(); ++k)
    if (results[k].status == RunStatus::ok && b.status_of(k) != kDone)
      results[k] = {RunStatus::crash, 0, "the kernel did not finish (the sandbox child ended early)"};
}

}  // namespace

std::vector<RunResult> run_sandboxed(const std::string& so_path, std::vector<KernelCall>& calls, double timeout_s) {
  std::vector<RunResult> results(calls.size());
  if (calls.empty()) return results;
  Batch b;
  prepare(b, so_path, calls);
  const pid_t self = ::getpid();
  for (size_t start = 0; start < b.size();)
    start = account_for_round(b, calls, run_round(b, start, timeout_s, self), start, timeout_s, results);
  collect_results(b, calls, results);
  return results;
}

}  // namespace uf

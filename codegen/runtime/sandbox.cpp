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
#include <utility>

#include "core/error.h"

namespace uf {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kLoadFailedExit = 86;
constexpr int kProgressFd = 3;
enum : int32_t { kPending = 0, kDone = 1, kMissing = 2, kFailed = 3 };

// Shared with the child: what it is doing and what it could not load.
struct Control {
  int64_t current;    // index of the running kernel; -1 while loading the object
  char message[2048];
};

// ---- calling a kernel with n pointer arguments ----
using Caller = void (*)(void* fn, void* const* args);

template <size_t... I>
void call_with(void* fn, void* const* args, std::index_sequence<I...>) {
  using F = void (*)(decltype((void)I, static_cast<void*>(nullptr))...);
  reinterpret_cast<F>(fn)(args[I]...);
}
template <size_t N>
void call_n(void* fn, void* const* args) { call_with(fn, args, std::make_index_sequence<N>{}); }

template <size_t... N>
constexpr auto caller_table(std::index_sequence<N...>) {
  return std::array<Caller, sizeof...(N)>{&call_n<N>...};
}
const auto kExactCallers = caller_table(std::make_index_sequence<17>{});  // 0..16 arguments
constexpr size_t kPaddedArity[] = {32, 64, 128, 256, 512, 1024};
const Caller kPaddedCallers[] = {&call_n<32>, &call_n<64>, &call_n<128>, &call_n<256>, &call_n<512>, &call_n<1024>};

size_t call_arity(size_t n) {
  if (n <= 16) return n;
  for (size_t a : kPaddedArity)
    if (n <= a) return a;
  return 0;
}

Caller caller_for(size_t arity) {
  if (arity <= 16) return kExactCallers[arity];
  for (size_t i = 0; i < std::size(kPaddedArity); ++i)
    if (kPaddedArity[i] == arity) return kPaddedCallers[i];
  return nullptr;
}

size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

struct Layout {
  std::vector<size_t> region_off, region_len;          // per call, page aligned
  std::vector<std::vector<size_t>> buffer_off;         // per call, per buffer (64-byte aligned)
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

// The child: never returns, never throws, allocates nothing of ours.
[[noreturn]] void child_main(const char* so_path, const std::vector<const char*>& symbols,
                             const std::vector<Caller>& callers, const std::vector<void* const*>& args,
                             const Layout& l, uint8_t* data, Control* ctl, int32_t* status, size_t start,
                             int progress_fd, pid_t parent) {
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
  if (l.total) ::mprotect(data, l.total, PROT_NONE);

  void* h = ::dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    std::strncpy(ctl->message, e ? e : "dlopen failed", sizeof ctl->message - 1);
    ::_exit(kLoadFailedExit);
  }
  const char tick = 'k';
  for (size_t k = start; k < symbols.size(); ++k) {
    void* fn = ::dlsym(h, symbols[k]);
    if (!fn || !callers[k]) {
      __atomic_store_n(&status[k], kMissing, __ATOMIC_SEQ_CST);
    } else {
      if (l.region_len[k]) ::mprotect(data + l.region_off[k], l.region_len[k], PROT_READ | PROT_WRITE);
      __atomic_store_n(&ctl->current, static_cast<int64_t>(k), __ATOMIC_SEQ_CST);
      callers[k](fn, args[k]);
      __atomic_store_n(&status[k], kDone, __ATOMIC_SEQ_CST);
      if (l.region_len[k]) ::mprotect(data + l.region_off[k], l.region_len[k], PROT_NONE);
    }
    while (::write(kProgressFd, &tick, 1) < 0 && errno == EINTR) {}
  }
  ::_exit(0);
}

struct Mapping {
  void* p = MAP_FAILED;
  size_t n = 0;
  Mapping(size_t bytes) : n(bytes) {
    p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw UserError(std::string("sandbox: cannot map shared memory: ") + strerror(errno));
  }
  ~Mapping() { if (p != MAP_FAILED) ::munmap(p, n); }
};

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

}  // namespace

std::vector<RunResult> run_sandboxed(const std::string& so_path, std::vector<KernelCall>& calls, double timeout_s) {
  const size_t n = calls.size();
  std::vector<RunResult> results(n);
  if (n == 0) return results;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const Layout l = plan(calls, page);
  Mapping data(std::max(l.total, page));
  Mapping control(round_up(sizeof(Control) + n * sizeof(int32_t), page));
  auto* base = static_cast<uint8_t*>(data.p);
  auto* ctl = static_cast<Control*>(control.p);
  auto* status = reinterpret_cast<int32_t*>(static_cast<uint8_t*>(control.p) + sizeof(Control));

  // Everything the child needs is prepared here, before the fork.
  std::vector<const char*> symbols(n);
  std::vector<Caller> callers(n);
  std::vector<std::vector<void*>> argv(n);
  std::vector<void* const*> args(n);
  for (size_t k = 0; k < n; ++k) {
    symbols[k] = calls[k].symbol.c_str();
    const size_t arity = call_arity(calls[k].buffers.size());
    callers[k] = calls[k].buffers.size() <= kMaxKernelBuffers ? caller_for(arity) : nullptr;
    argv[k].assign(std::max<size_t>(arity, 1), nullptr);
    for (size_t b = 0; b < calls[k].buffers.size(); ++b) {
      uint8_t* p = base + l.buffer_off[k][b];
      std::memcpy(p, calls[k].buffers[b].bytes.data(), calls[k].buffers[b].bytes.size());
      if (b < argv[k].size()) argv[k][b] = p;
    }
    args[k] = argv[k].data();
  }

  const pid_t self = ::getpid();
  size_t start = 0;
  while (start < n) {
    __atomic_store_n(&ctl->current, int64_t{-1}, __ATOMIC_SEQ_CST);
    int pfd[2];
    if (::pipe2(pfd, O_CLOEXEC) != 0) throw UserError(std::string("sandbox: pipe: ") + strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(pfd[0]); ::close(pfd[1]);
      throw UserError(std::string("sandbox: fork: ") + strerror(errno));
    }
    if (pid == 0) {
      ::close(pfd[0]);
      child_main(so_path.c_str(), symbols, callers, args, l, base, ctl, status, start, pfd[1], self);
    }
    ::close(pfd[1]);
    ::fcntl(pfd[0], F_SETFL, O_NONBLOCK);

    const auto budget = std::chrono::duration<double>(timeout_s);
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(budget);
    bool timed_out = false, reaped = false;
    int wstatus = 0;
    while (!reaped) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
        timed_out = true;
        break;
      }
      pollfd p{pfd[0], POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 20)));
      char buf[4096];
      ssize_t got;
      while ((got = ::read(pfd[0], buf, sizeof buf)) > 0)  // progress: the next kernel's clock starts now
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(budget);
      const pid_t w = ::waitpid(pid, &wstatus, WNOHANG);
      if (w == pid) reaped = true;
      else if (w < 0 && errno != EINTR) { wstatus = 0; reaped = true; }  // not ours to wait for (SIGCHLD ignored)
    }
    ::close(pfd[0]);

    for (size_t k = start; k < n; ++k) {
      const int32_t s = __atomic_load_n(&status[k], __ATOMIC_SEQ_CST);
      if (s == kMissing)
        results[k] = {RunStatus::load_error, 0,
                      callers[k] ? "the compiled code does not define '" + calls[k].symbol + "' (symbol not found)"
                                 : "too many buffers (" + std::to_string(calls[k].buffers.size()) + ")"};
    }
    auto pending = [&](size_t k) { return __atomic_load_n(&status[k], __ATOMIC_SEQ_CST) == kPending; };
    bool settled = !timed_out;
    for (size_t k = start; k < n && settled; ++k) settled = !pending(k);
    if (settled) break;  // every kernel of this round finished (or had no symbol)
    const int64_t cur = __atomic_load_n(&ctl->current, __ATOMIC_SEQ_CST);
    if (cur < static_cast<int64_t>(start)) {  // ended before any kernel of this round ran: loading failed
      const bool load_failed = !timed_out && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kLoadFailedExit;
      RunResult r;
      r.status = load_failed ? RunStatus::load_error : timed_out ? RunStatus::timeout : RunStatus::crash;
      r.signal = !timed_out && WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
      r.message = load_failed ? std::string("cannot load the shared object: ") + ctl->message
                              : "while loading the shared object: " + describe_exit(wstatus, timed_out, timeout_s);
      for (size_t k = start; k < n; ++k)
        if (pending(k)) results[k] = r;
      break;
    }
    const size_t k = static_cast<size_t>(cur);  // the kernel that was running
    results[k].status = timed_out ? RunStatus::timeout : RunStatus::crash;
    results[k].signal = !timed_out && WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    results[k].message = describe_exit(wstatus, timed_out, timeout_s);
    __atomic_store_n(&status[k], kFailed, __ATOMIC_SEQ_CST);
    start = k + 1;
  }

  for (size_t k = 0; k < n; ++k) {
    if (__atomic_load_n(&status[k], __ATOMIC_SEQ_CST) != kDone || results[k].status != RunStatus::ok) continue;
    for (size_t b = 0; b < calls[k].buffers.size(); ++b)
      std::memcpy(calls[k].buffers[b].bytes.data(), base + l.buffer_off[k][b], calls[k].buffers[b].bytes.size());
  }
  for (size_t k = 0; k < n; ++k)
    if (results[k].status == RunStatus::ok && __atomic_load_n(&status[k], __ATOMIC_SEQ_CST) != kDone)
      results[k] = {RunStatus::crash, 0, "the kernel did not finish (the sandbox child ended early)"};
  return results;
}

}  // namespace uf

// posix_spawn with pipes, poll and a deadline (see process.h).
#include "codegen/runtime/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "codegen/runtime/fd.h"
#include "core/error.h"

extern char** environ;

namespace uf {

namespace {

using Clock = std::chrono::steady_clock;

bool executable_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// realpath(3) of p, or p itself when it cannot be resolved.
std::string resolved_or_same(const std::string& p) {
  const std::unique_ptr<char, decltype(&std::free)> real(::realpath(p.c_str(), nullptr), &std::free);
  return real ? std::string(real.get()) : p;
}

// Reads what is available from fd into `into` (keeping at most `cap` bytes); false at EOF.
bool drain(int fd, std::string& into, size_t cap, bool& overflow) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      const size_t room = cap > into.size() ? cap - into.size() : 0;
      into.append(buf, std::min(room, static_cast<size_t>(n)));
      if (static_cast<size_t>(n) > room) overflow = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

}  // namespace

std::string ProcessResult::describe() const {
  if (!started) return message;
  if (timed_out) return "timed out (" + message + ")";
  if (output_overflow) return "output too large (" + message + ")";
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

std::string find_executable(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) { return executable_file(name) ? resolved_or_same(name) : ""; }
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string cand = dir + "/" + name;
    if (executable_file(cand)) return resolved_or_same(cand);
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> split_command(std::string_view cmd) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < cmd.size(); ++i) {
    const char c = cmd[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) {
        words.push_back(cur);
        cur.clear();
        in_word = false;
      }
    } else if (c == '\'') {
      const size_t end = cmd.find('\'', i + 1);
      if (end == std::string_view::npos) throw UserError("unbalanced ' in command: " + std::string(cmd));
      cur.append(cmd.substr(i + 1, end - i - 1));
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < cmd.size() && cmd[j] != '"'; ++j) {
        if (cmd[j] == '\\' && j + 1 < cmd.size() && std::strchr("\"\\$`\n", cmd[j + 1])) ++j;
        cur += cmd[j];
      }
      if (j >= cmd.size()) throw UserError("unbalanced \" in command: " + std::string(cmd));
      i = j;
      in_word = true;
    } else if (c == '\\') {
      if (i + 1 < cmd.size()) cur += cmd[++i];
      in_word = true;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

namespace {

volatile sig_atomic_t g_cancelled = 0;

// posix_spawn's two option objects, destroyed on every path.
template <class T, int (*Init)(T*), int (*Destroy)(T*)>
class SpawnObject {
 public:
  SpawnObject() { Init(&object_); }
  ~SpawnObject() { Destroy(&object_); }
  SpawnObject(const SpawnObject&) = delete;
  SpawnObject& operator=(const SpawnObject&) = delete;
  T* get() { return &object_; }

 private:
  T object_;
};
using SpawnFileActions = SpawnObject<posix_spawn_file_actions_t, posix_spawn_file_actions_init, posix_spawn_file_actions_destroy>;
using SpawnAttributes = SpawnObject<posix_spawnattr_t, posix_spawnattr_init, posix_spawnattr_destroy>;

// stdin from /dev/null, stdout and stderr into the given pipes.
void redirect_standard_streams(SpawnFileActions& fa, int out_fd, int err_fd) {
  posix_spawn_file_actions_addopen(fa.get(), 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(fa.get(), out_fd, 1);
  posix_spawn_file_actions_adddup2(fa.get(), err_fd, 2);
}

// stdin and stdout from and into the given pipe ends, stderr into a file of its own (truncated).
void redirect_to_pipes(SpawnFileActions& fa, int in_fd, int out_fd, int err_fd) {
  posix_spawn_file_actions_adddup2(fa.get(), in_fd, 0);
  posix_spawn_file_actions_adddup2(fa.get(), out_fd, 1);
  posix_spawn_file_actions_adddup2(fa.get(), err_fd, 2);
}

// No blocked signals, default dispositions for those the harness handles, and a process group of its own.
void isolate_signals_and_group(SpawnAttributes& attr) {
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGALRM}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(attr.get(), &none);
  posix_spawnattr_setsigdefault(attr.get(), &defaults);
  posix_spawnattr_setpgroup(attr.get(), 0);  // its own group: a timeout kills everything it started
  posix_spawnattr_setflags(attr.get(), POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

// argv for exec: pointers into `words`, null-terminated.
std::vector<char*> exec_argv(const std::vector<std::string>& words) {
  std::vector<char*> args;
  for (const std::string& a : words) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

// environ with the keys of `overrides` ("KEY=VALUE") replaced by them, null-terminated.
std::vector<char*> exec_environment(const std::vector<std::string>& overrides) {
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : overrides) replaced = replaced || std::string_view(o).substr(0, o.find('=')) == key;
    if (!replaced) envp.push_back(*e);
  }
  for (const std::string& o : overrides) envp.push_back(const_cast<char*>(o.c_str()));
  envp.push_back(nullptr);
  return envp;
}

// Starts `exe` with its standard streams as `fa` says; posix_spawn's error number.
int spawn(const std::string& exe, const std::vector<std::string>& argv, const ProcessOptions& opt, SpawnFileActions& fa,
          pid_t& pid) {
  SpawnAttributes attr;
  isolate_signals_and_group(attr);
  std::vector<char*> args = exec_argv(argv);
  std::vector<char*> envp = exec_environment(opt.env);
  return posix_spawn(&pid, exe.c_str(), fa.get(), attr.get(), args.data(), envp.data());
}

// The deadline passed or stdout grew too large: the group is killed, and `r` says which.
void stop_at_limit(ChildProcessGroup& child, const ProcessOptions& opt, ProcessResult& r, int& status) {
  r.timed_out = !r.output_overflow;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", opt.timeout_s);
  r.message = r.timed_out ? std::string("after ") + secs + " s" : "more than " + std::to_string(opt.max_stdout) + " bytes";
  child.kill_and_reap(status);
}

// Reads stdout and stderr into `r` until both are closed and the child has ended, or a limit stops it;
// returns its wait status.
int collect_output(ChildProcessGroup& child, int out_fd, int err_fd, const std::string& name, const ProcessOptions& opt,
                   ProcessResult& r) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(opt.timeout_s);
  bool out_open = true, err_open = true, err_overflow = false;
  int status = 0;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (g_cancelled) {  // the caller is stopping: nothing it started may outlive it
      child.kill_and_reap(status);
      throw Interrupted("interrupted while running " + name);
    }
    if (left <= 0 || r.output_overflow) {
      stop_at_limit(child, opt, r, status);
      return status;
    }
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {out_fd, POLLIN, 0};
    if (err_open) fds[n++] = {err_fd, POLLIN, 0};
    if (n > 0) {
      ::poll(fds, n, static_cast<int>(std::min<long long>(left, 50)));
      if (out_open) out_open = drain(out_fd, r.out, opt.max_stdout, r.output_overflow);
      if (err_open) err_open = drain(err_fd, r.err, opt.max_stderr, err_overflow);
    } else {
      ::usleep(1000);
    }
    // Both closed: the child is (nearly always) done.
    if (!out_open && !err_open && child.try_reap(status) == ChildProcessGroup::Wait::ended) return status;
  }
}

}  // namespace

void cancel_processes() { g_cancelled = 1; }

bool processes_cancelled() { return g_cancelled != 0; }

std::optional<PipedProcess> spawn_piped(const std::vector<std::string>& argv, int stderr_fd, const ProcessOptions& opt,
                                        std::string& message) {
  if (g_cancelled) throw Interrupted("interrupted before starting " + (argv.empty() ? std::string("a process") : argv[0]));
  if (argv.empty()) {
    message = "empty command";
    return std::nullopt;
  }
  const std::string exe = find_executable(argv[0]);
  if (exe.empty()) {
    message = "'" + argv[0] + "': command not found (or not executable)";
    return std::nullopt;
  }
  std::optional<Pipe> in = Pipe::open();
  std::optional<Pipe> out = in ? Pipe::open() : std::nullopt;
  if (!in || !out) {
    message = std::string("pipe: ") + strerror(errno);
    return std::nullopt;
  }
  pid_t pid = -1;
  SpawnFileActions fa;
  redirect_to_pipes(fa, in->read_end.get(), out->write_end.get(), stderr_fd);
  const int rc = spawn(exe, argv, opt, fa, pid);
  if (rc != 0) {
    message = "cannot run '" + exe + "': " + strerror(rc);
    return std::nullopt;
  }
  set_nonblocking(in->write_end.get());
  set_nonblocking(out->read_end.get());
  // The child's ends close here: its exit is then EOF on stdout, and our closing stdin is its EOF.
  return PipedProcess{ChildProcessGroup(pid), std::move(in->write_end), std::move(out->read_end)};
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt) {
  if (g_cancelled) throw Interrupted("interrupted before running " + (argv.empty() ? std::string("a process") : argv[0]));
  ProcessResult r;
  if (argv.empty()) {
    r.message = "empty command";
    return r;
  }
  const std::string exe = find_executable(argv[0]);
  if (exe.empty()) {
    r.message = "'" + argv[0] + "': command not found (or not executable)";
    return r;
  }

  std::optional<Pipe> out = Pipe::open();
  std::optional<Pipe> err = out ? Pipe::open() : std::nullopt;
  if (!out || !err) {
    r.message = std::string("pipe: ") + strerror(errno);
    return r;
  }
  pid_t pid = -1;
  SpawnFileActions fa;
  redirect_standard_streams(fa, out->write_end.get(), err->write_end.get());
  const int rc = spawn(exe, argv, opt, fa, pid);
  out->write_end.reset();  // the child has its own copies; ours would keep the pipes from reaching EOF
  err->write_end.reset();
  if (rc != 0) {
    r.message = "cannot run '" + exe + "': " + strerror(rc);
    return r;
  }
  r.started = true;
  ChildProcessGroup child(pid);
  set_nonblocking(out->read_end.get());
  set_nonblocking(err->read_end.get());
  const int status = collect_output(child, out->read_end.get(), err->read_end.get(), argv[0], opt, r);
  if (!r.timed_out && !r.output_overflow) {
    if (WIFEXITED(status))
      r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace uf

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

#include "core/error.h"

extern char** environ;

namespace uf {

namespace {

using Clock = std::chrono::steady_clock;

bool executable_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
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
  if (name.find('/') != std::string::npos) {
    if (!executable_file(name)) return "";
    char* real = ::realpath(name.c_str(), nullptr);
    std::string r = real ? real : name;
    std::free(real);
    return r;
  }
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string cand = dir + "/" + name;
    if (executable_file(cand)) {
      char* real = ::realpath(cand.c_str(), nullptr);
      std::string r = real ? real : cand;
      std::free(real);
      return r;
    }
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

std::vector<std::string> split_command(std::string_view cmd) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < cmd.size(); ++i) {
    const char c = cmd[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) { words.push_back(cur); cur.clear(); in_word = false; }
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

// The child and everything in its process group (it leads one).
void kill_and_reap(pid_t pid, int& status) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
}
}  // namespace

void cancel_processes() { g_cancelled = 1; }

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt) {
  if (g_cancelled) throw Interrupted("interrupted before running " + (argv.empty() ? std::string("a process") : argv[0]));
  ProcessResult r;
  if (argv.empty()) { r.message = "empty command"; return r; }
  const std::string exe = find_executable(argv[0]);
  if (exe.empty()) { r.message = "'" + argv[0] + "': command not found (or not executable)"; return r; }

  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) { r.message = std::string("pipe: ") + strerror(errno); return r; }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]); ::close(out[1]);
    r.message = std::string("pipe: ") + strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGALRM}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout kills everything it started
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;  // environ with opt.env's keys replaced
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : opt.env) replaced = replaced || std::string_view(o).substr(0, o.find('=')) == key;
    if (!replaced) envp.push_back(*e);
  }
  for (const std::string& o : opt.env) envp.push_back(const_cast<char*>(o.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(out[0]); ::close(err[0]);
    r.message = "cannot run '" + exe + "': " + strerror(rc);
    return r;
  }
  r.started = true;
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);

  const auto deadline = Clock::now() + std::chrono::duration<double>(opt.timeout_s);
  bool out_open = true, err_open = true, err_overflow = false;
  int status = 0;
  bool reaped = false;
  while (!reaped) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (g_cancelled) {  // the caller is stopping: nothing it started may outlive it
      kill_and_reap(pid, status);
      ::close(out[0]);
      ::close(err[0]);
      throw Interrupted("interrupted while running " + argv[0]);
    }
    if (left <= 0 || r.output_overflow) {
      r.timed_out = !r.output_overflow;
      char secs[32];
      std::snprintf(secs, sizeof secs, "%g", opt.timeout_s);
      r.message = r.timed_out ? std::string("after ") + secs + " s"
                              : "more than " + std::to_string(opt.max_stdout) + " bytes";
      kill_and_reap(pid, status);
      break;
    }
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {out[0], POLLIN, 0};
    if (err_open) fds[n++] = {err[0], POLLIN, 0};
    if (n > 0) {
      ::poll(fds, n, static_cast<int>(std::min<long long>(left, 50)));
      if (out_open) out_open = drain(out[0], r.out, opt.max_stdout, r.output_overflow);
      if (err_open) err_open = drain(err[0], r.err, opt.max_stderr, err_overflow);
    } else {
      ::usleep(1000);
    }
    if (!out_open && !err_open) {  // both closed: the child is (nearly always) done
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      reaped = w == pid;
    }
  }
  ::close(out[0]);
  ::close(err[0]);
  if (!r.timed_out && !r.output_overflow) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace uf

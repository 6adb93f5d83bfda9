#include "tests/support/uopfuzz.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>

#include "tests/support/files.h"
#include "tests/support/paths.h"

namespace uf::testing {

namespace fs = std::filesystem;

Ran run_uopfuzz(const std::string& args, const std::string& env) {
  const std::string cmd = env + uopfuzz_binary() + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

Ran run_uopfuzz_isolated(const std::string& args, const fs::path& cache) {
  return run_uopfuzz(args, "UOPFUZZ_CACHE_DIR=" + cache.string() + " UOPFUZZ=" + uopfuzz_binary() + " ");
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

UopfuzzProc start_uopfuzz(const std::vector<std::string>& args, const fs::path& log, const std::vector<std::string>& env) {
  const std::string binary = uopfuzz_binary();
  UopfuzzProc p{-1, log, Clock::now()};
  p.pid = ::fork();
  if (p.pid == 0) {
    ::setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::setenv("UOPFUZZ", binary.c_str(), 1);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::setpgid(p.pid, p.pid);  // also here, so a signal sent right after start reaches the group
  return p;
}

int wait_for(const UopfuzzProc& p, double timeout_s) {
  const auto t0 = Clock::now();
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(p.pid, &status, WNOHANG);
    if (r == p.pid) return status;
    if (r < 0) return -2;
    if (seconds_since(t0) > timeout_s) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void kill_group(const UopfuzzProc& p, int sig) {
  ::kill(-p.pid, sig);
  int status;
  ::waitpid(p.pid, &status, 0);
}

bool group_gone(pid_t pgid, double timeout_s) {
  const auto t0 = Clock::now();
  while (::kill(-pgid, 0) == 0 || errno != ESRCH) {
    if (seconds_since(t0) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<std::string> processes_mentioning(const std::string& needle) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(::getpid())) continue;
    std::string cmd = read_text(e.path() / "cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(needle) != std::string::npos) out.push_back(pid + ": " + cmd.substr(0, 200));
  }
  return out;
}

bool none_left(const std::string& needle, double timeout_s, std::vector<std::string>* left) {
  const auto t0 = Clock::now();
  while (!(*left = processes_mentioning(needle)).empty()) {
    if (seconds_since(t0) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

std::pair<int, std::string> run_logged(const std::vector<std::string>& args, const fs::path& log,
                                       const std::vector<std::string>& env, double timeout_s) {
  UopfuzzProc p = start_uopfuzz(args, log, env);
  int status = wait_for(p, timeout_s);
  if (status == -1) kill_group(p);
  return {status, read_text(log)};
}

bool exited_with(int status, int code) { return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == code; }

}  // namespace uf::testing

// Helpers of the fault-safety tests: run the real uopfuzz binary as a user would (fork/exec in its own
// process group, output to a log file), deliver signals, and inspect a corpus directory.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/text.h"

namespace uf::faults {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A running uopfuzz, leader of its own process group (so the whole campaign can be signalled at once).
struct Proc {
  pid_t pid = -1;
  fs::path log;
  Clock::time_point started;
};

// Starts UOPFUZZ_BINARY with `args`, extra environment `env` (KEY=VALUE), stdout+stderr to `log`.
// UOPFUZZ (for the broken renderer plug-in) always points at the binary.
inline Proc start(const std::vector<std::string>& args, const fs::path& log, const std::vector<std::string>& env = {}) {
  Proc p{-1, log, Clock::now()};
  p.pid = ::fork();
  if (p.pid == 0) {
    ::setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { ::dup2(fd, 1); ::dup2(fd, 2); ::close(fd); }
    ::setenv("UOPFUZZ", UOPFUZZ_BINARY, 1);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv{const_cast<char*>(UOPFUZZ_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(UOPFUZZ_BINARY, argv.data());
    ::_exit(127);
  }
  ::setpgid(p.pid, p.pid);  // also here, so a signal sent right after start reaches the group
  return p;
}

// Waits up to `timeout_s`; returns the wait status, or -1 on timeout (the process is left running).
inline int wait_for(const Proc& p, double timeout_s) {
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

// Kills the whole group and reaps the leader (for cleanup and for kill -9 at a chosen moment).
inline void kill_group(const Proc& p, int sig = SIGKILL) {
  ::kill(-p.pid, sig);
  int status;
  ::waitpid(p.pid, &status, 0);
}

// True once no process of the group is left (the workers and sandboxed children included).
inline bool group_gone(pid_t pgid, double timeout_s) {
  const auto t0 = Clock::now();
  while (::kill(-pgid, 0) == 0 || errno != ESRCH) {
    if (seconds_since(t0) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// Live processes whose command line mentions `needle` (a test's private directory): what a campaign
// started (compilers, renderers, sandboxed kernels) and left running.
inline std::vector<std::string> processes_mentioning(const std::string& needle) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(::getpid())) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : cmd) if (c == '\0') c = ' ';
    if (cmd.find(needle) != std::string::npos) out.push_back(pid + ": " + cmd.substr(0, 200));
  }
  return out;
}

inline bool none_left(const std::string& needle, double timeout_s, std::vector<std::string>* left) {
  const auto t0 = Clock::now();
  while (!(*left = processes_mentioning(needle)).empty()) {
    if (seconds_since(t0) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Runs to completion (bounded); returns {wait status, output}.
inline std::pair<int, std::string> run(const std::vector<std::string>& args, const fs::path& log,
                                       const std::vector<std::string>& env = {}, double timeout_s = 240) {
  Proc p = start(args, log, env);
  int status = wait_for(p, timeout_s);
  if (status == -1) {
    kill_group(p);
    status = -1;
  }
  std::ifstream in(log);
  std::stringstream out;
  out << in.rdbuf();
  return {status, out.str()};
}

inline bool exited_with(int status, int code) { return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == code; }

inline std::string slurp(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What a corpus directory holds: whole reproducers (name -> content), temporary files, and problems
// (a visible file that is not a reproducer that reads, verifies and names its bucket).
struct CorpusState {
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> signature_of;  // file -> signature
  std::vector<std::string> temporaries;
  std::vector<std::string> problems;
};

inline CorpusState inspect(const fs::path& dir) {
  CorpusState s;
  std::set<std::string> signatures;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.front() == '.') {
      s.temporaries.push_back(name);
      continue;
    }
    if (!e.is_regular_file() || e.path().extension() != ".uop") {
      s.problems.push_back(name + ": not a .uop file");
      continue;
    }
    const std::string text = slurp(e.path());
    try {
      Program p = parse_program(text, name);
      verify(p);
      const std::string* sig = p.meta_value("signature");
      if (!sig) {
        s.problems.push_back(name + ": no meta signature");
      } else {
        if (!signatures.insert(*sig).second) s.problems.push_back(name + ": bucket `" + *sig + "` saved twice");
        s.signature_of[name] = *sig;
      }
    } catch (const UserError& err) {
      s.problems.push_back(name + ": " + err.what() + " (partial or corrupt)");
    }
    s.files[name] = text;
  }
  return s;
}

inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "\n  " + x;
  return s;
}

}  // namespace uf::faults

// Running the uopfuzz binary as a user would: through the shell with its output captured, or
// fork/exec'd as the leader of its own process group (so a whole campaign can be signalled at once)
// with its output in a log file.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace uf::testing {

struct Ran {
  int code;         // exit code, or 128 + signal
  std::string out;  // stdout and stderr together
};

// `uopfuzz ARGS` through the shell; `env` is prepended to the command line (e.g. "UOPFUZZ_CACHE_DIR=/tmp/x ").
Ran run_uopfuzz(const std::string& args, const std::string& env = "");
// The same with a private compile cache in `cache` (results never depend on what an earlier run cached)
// and UOPFUZZ pointing at the binary (what renderer plug-ins call).
Ran run_uopfuzz_isolated(const std::string& args, const std::filesystem::path& cache);

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t);

// A running uopfuzz, leader of its own process group.
struct UopfuzzProc {
  pid_t pid = -1;
  std::filesystem::path log;
  Clock::time_point started;
};

// Starts uopfuzz with `args`, extra environment `env` (KEY=VALUE), stdout+stderr to `log`. UOPFUZZ (for
// renderer plug-ins such as the broken renderer) always points at the binary.
UopfuzzProc start_uopfuzz(const std::vector<std::string>& args, const std::filesystem::path& log,
                          const std::vector<std::string>& env = {});
// Waits up to `timeout_s`; returns the wait status, or -1 on timeout (the process is left running).
int wait_for(const UopfuzzProc& p, double timeout_s);
// Kills the whole group and reaps the leader (for cleanup and for kill -9 at a chosen moment).
void kill_group(const UopfuzzProc& p, int sig = SIGKILL);
// True once no process of the group is left (the workers and sandboxed children included).
bool group_gone(pid_t pgid, double timeout_s);
// Live processes whose command line mentions `needle` (a test's private directory): what a campaign
// started (compilers, renderers, sandboxed kernels) and left running.
std::vector<std::string> processes_mentioning(const std::string& needle);
// True once none is left (within `timeout_s`); `left` lists them otherwise.
bool none_left(const std::string& needle, double timeout_s, std::vector<std::string>* left);
// Runs to completion (killed after `timeout_s`); returns {wait status (-1: timed out), output}.
std::pair<int, std::string> run_logged(const std::vector<std::string>& args, const std::filesystem::path& log,
                                       const std::vector<std::string>& env = {}, double timeout_s = 240);
bool exited_with(int status, int code);

}  // namespace uf::testing

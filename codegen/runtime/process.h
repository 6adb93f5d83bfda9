// Child processes for the compiler and for renderer plug-ins: no shell, bounded output, a deadline.
//
// run_process starts argv[0] (searched in PATH when it has no '/') in its own process group, with
// stdin from /dev/null, and collects stdout and stderr. When the deadline passes, or stdout grows
// past its bound, the whole group is killed (SIGKILL), so a hanging or runaway child, and anything it
// started, can never hang the harness. stderr beyond its bound is read and dropped.
//
// spawn_piped starts a long-lived child the same way but leaves its stdin and stdout as pipes to the
// caller, who speaks to it (a plug-in server, codegen/plugin_server.h) and bounds every wait itself.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/runtime/fd.h"

namespace uf {

struct ProcessOptions {
  double timeout_s = 60;
  size_t max_stdout = size_t{64} << 20;
  size_t max_stderr = size_t{1} << 20;
  // "KEY=VALUE" entries set in the child's environment (replacing the harness's value of KEY); the
  // rest of the environment is inherited.
  std::vector<std::string> env;
};

struct ProcessResult {
  bool started = false;          // false: it could not be started (`message` says why)
  bool timed_out = false;        // killed at the deadline
  bool output_overflow = false;  // killed because stdout passed max_stdout
  int exit_code = -1;            // when it exited by itself
  int signal = 0;                // when a signal ended it (other than our own kill)
  std::string out, err, message;
  bool ok() const { return started && !timed_out && !output_overflow && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit 1", "killed by signal 11", "timed out after ..."
};

// Throws Interrupted once cancel_processes() was called (then the child has been killed and reaped).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt = {});

// A child with pipes to its stdin and from its stdout (both ends ours non-blocking and close-on-exec);
// destroying it kills and reaps its process group.
struct PipedProcess {
  ChildProcessGroup group;
  UniqueFd to_stdin, from_stdout;
};
// Starts argv as run_process does (PATH search, own process group, opt.env; opt's limits are the
// caller's to keep), with stderr the open file `stderr_fd` (the caller's: it may be unlinked, so that
// nothing is left behind however the caller ends). nullopt, with `message` saying why, when it cannot be
// started. Throws Interrupted once cancel_processes() was called.
std::optional<PipedProcess> spawn_piped(const std::vector<std::string>& argv, int stderr_fd, const ProcessOptions& opt,
                                        std::string& message);

// For a process that is stopping (a campaign worker on SIGTERM; async-signal-safe): the child of a
// run_process in flight is killed within 50 ms, and every run_process from then on throws Interrupted.
// Children run in their own process groups, so without this a worker killed later would leave its
// compiler running.
void cancel_processes();
// Whether cancel_processes() was called: a caller waiting on a spawn_piped child stops then too.
bool processes_cancelled();
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Splits a command line the way a POSIX shell splits words, without running one: blanks separate
// words; '...' is literal; "..." keeps blanks and honours \" \\ \$ \`; a backslash outside quotes
// escapes the next character. No expansion of any kind. Throws UserError on an unbalanced quote.
std::vector<std::string> split_command(std::string_view cmd);
// The inverse, for scripts uopfuzz writes: `s` as one shell word ('...', with ' as '\'').
std::string shell_quote(std::string_view s);

// The absolute path of `name` (searched in PATH when it has no '/'), or "" if there is no such
// executable file.
std::string find_executable(const std::string& name);

}  // namespace uf

// Protocol 2's server mode (docs/format.md section 5): one long-lived `CMD... --uopfuzz-serve` process
// per uopfuzz process, spoken to in JSON lines, one request at a time, each with a deadline.
//
// A process that exits, is killed by a signal, misses the deadline or prints anything but the reply to
// the request in flight is killed with its process group: that program is a render failure (the message
// says which, with the last kServerStderrTail bytes of the plug-in's stderr), and the next request starts
// a new process. After kBackoffAfter consecutive failed starts (processes that died before their first
// reply) each further start waits 0.1 s, 0.2 s, ... up to 5 s, never past the request's deadline.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/plugin.h"
#include "codegen/plugin_run.h"
#include "codegen/runtime/native.h"
#include "codegen/runtime/files.h"
#include "codegen/runtime/process.h"

namespace uf {

inline constexpr size_t kServerStderrTail = 4096;
inline constexpr int kBackoffAfter = 3;
inline constexpr double kBackoffStepS = 0.1, kBackoffMaxS = 5, kServerStopGraceS = 1;

class PluginServer {
 public:
  using Clock = std::chrono::steady_clock;
  // Throws UserError for an unusable command line.
  explicit PluginServer(std::string cmd);
  ~PluginServer() { stop(); }
  PluginServer(const PluginServer&) = delete;
  PluginServer& operator=(const PluginServer&) = delete;

  // One request: the translation unit defining `fn_name`, or why not, with the handshake's switches
  // named in `off` switched off (and in the result those that took effect, when the plug-in says).
  // Never waits past `deadline`. Throws Interrupted (the process killed) once cancel_processes() was called.
  PluginResult render(const Program& p, const std::string& fn_name, Clock::time_point deadline,
                      const std::vector<std::string>& off = {});
  // An "export" request: `p` (with its data and expect lines) in one of the handshake's `exports` formats.
  PluginResult export_program(const Program& p, const std::string& format, Clock::time_point deadline);
  // A "reach" request (handshake "reach"): `p`, a finding with its expect and got lines, through the
  // target's front end. The result's `source` is the level ("kernel" or the handshake's), `message` why.
  PluginResult reach(const Program& p, const std::string& level, Clock::time_point deadline);
  // A "run" request to an executing target (handshake language "outputs"): `p` on each data set of
  // `inputs` (its buffers in p.buffers order). A reply that is not exactly one outcome per data set,
  // each with every buffer at its size, is a protocol error: the process is killed, the result a failure.
  PluginRunResult run(const Program& p, const std::string& fn_name, const std::vector<std::vector<NativeBuffer>>& inputs,
                      Clock::time_point deadline, const std::vector<std::string>& off = {});
  // Closes the process's stdin and gives it kServerStopGraceS to exit before its group is killed.
  void stop();
  // Lets go of a process inherited over fork(2) without touching it: it is the parent's to stop.
  void abandon();
  int starts() const { return starts_; }  // processes started so far
  // The mean time of the replies so far (0 before the first): what a batch of this target waits for.
  double mean_reply_seconds() const { return replies_ ? reply_seconds_ / static_cast<double>(replies_) : 0; }

 private:
  enum class Read { line, eof, timeout, too_long };
  bool start(Clock::time_point deadline, std::string& why);
  bool send(const std::string& line, Clock::time_point deadline, std::string& why);
  Read read_line(std::string& line, Clock::time_point deadline);
  std::string exit_description(Clock::time_point deadline);
  PluginResult fault(const std::string& what_for, const std::string& what);
  // Sends `request` (its id set here) and reads the JSON object that replies to it; nullopt, with the
  // process killed and `failed` saying why, when there is none. `what_for` names it in messages.
  std::optional<nlohmann::json> exchange(nlohmann::json request, const std::string& what_for, Clock::time_point deadline,
                                         PluginResult& failed);
  // A render or export request: its reply's `source` or `error`.
  PluginResult request(nlohmann::json request, const std::string& what_for, Clock::time_point deadline);
  std::string stderr_tail() const;

  std::string cmd_;
  std::vector<std::string> argv_;
  UniqueFd stderr_;  // the servers' stderr: a temporary file unlinked at once, so none is ever left behind
  std::optional<PipedProcess> child_;
  std::string pending_;  // bytes of stdout read past the last reply line
  uint64_t next_id_ = 1;
  int failed_starts_ = 0;  // consecutive processes that died before their first reply
  bool replied_ = false;   // the current process has answered a request
  int starts_ = 0;
  int64_t replies_ = 0;
  double reply_seconds_ = 0;
};

// This process's server for `cmd`, started on first use. A process forked after that (a campaign worker)
// gets a server of its own, never its parent's.
PluginServer& plugin_server(const std::string& cmd);
// Stops this process's servers (a worker before it exits: _exit runs no destructors).
void stop_plugin_servers();

}  // namespace uf

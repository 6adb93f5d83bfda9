// The plug-in server client (see plugin_server.h).
#include "codegen/plugin_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "codegen/plugin_messages.h"
#include "core/error.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace uf {

namespace {

using Clock = PluginServer::Clock;
constexpr long long kPollSliceMs = 50;  // how often a wait looks at cancel_processes()

long long ms_until(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
}

// SIGPIPE blocked while it lives, and one it raised discarded: a write to a server that died is EPIPE
// for us to report, not the end of uopfuzz.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    const timespec zero{};
    while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {}
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_, old_;
};

// Sleeps until `until`, in slices, throwing Interrupted when cancelled meanwhile.
void sleep_until(Clock::time_point until) {
  for (long long left; (left = ms_until(until)) > 0;) {
    if (processes_cancelled()) throw Interrupted("interrupted while waiting to restart a renderer");
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(left, kPollSliceMs)));
  }
}

// Waits (without blocking past `until`) for the child to end by itself; true, with its status, if it did.
bool reaped_by(ChildProcessGroup& child, Clock::time_point until, int& status) {
  for (;;) {
    const ChildProcessGroup::Wait w = child.try_reap(status);
    if (w != ChildProcessGroup::Wait::running) return w == ChildProcessGroup::Wait::ended;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

PluginServer::PluginServer(std::string cmd) : cmd_(std::move(cmd)), argv_(split_command(cmd_)) {
  if (argv_.empty()) throw UserError("the renderer command is empty");
  argv_.push_back("--uopfuzz-serve");
}

bool PluginServer::start(Clock::time_point deadline, std::string& why) {
  if (failed_starts_ >= kBackoffAfter) {  // a plug-in that dies at start must not spin the machine
    const double wait = std::min(kBackoffStepS * (failed_starts_ - kBackoffAfter + 1), kBackoffMaxS);
    const Clock::time_point until =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
    sleep_until(std::min(until, deadline));
    if (Clock::now() >= deadline) {
      why = "not restarted before the deadline: it failed to start " + std::to_string(failed_starts_) + " times in a row";
      return false;
    }
  }
  if (!stderr_) {  // appended to by each process in turn; emptied at each start
    const char* tmpdir = std::getenv("TMPDIR");
    std::string path = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/uopfuzz-server-XXXXXX.err";
    UniqueFd fd(::mkostemps(path.data(), 4, O_APPEND | O_CLOEXEC));
    if (!fd) throw UserError("cannot create a temporary file " + path + ": " + strerror(errno));
    ::unlink(path.c_str());
    stderr_ = std::move(fd);
  }
  if (::ftruncate(stderr_.get(), 0) != 0) throw UserError(std::string("cannot empty a temporary file: ") + strerror(errno));
  ++starts_;
  replied_ = false;
  pending_.clear();
  std::optional<PipedProcess> started = spawn_piped(argv_, stderr_.get(), ProcessOptions{}, why);
  if (!started) {
    ++failed_starts_;
    return false;
  }
  child_.emplace(std::move(*started));
  return true;
}

bool PluginServer::send(const std::string& line, Clock::time_point deadline, std::string& why) {
  const SigpipeBlocked blocked;
  for (size_t done = 0; done < line.size();) {
    if (processes_cancelled()) throw Interrupted("interrupted while writing to renderer " + cmd_);
    const long long left = ms_until(deadline);
    if (left <= 0) {
      why = "timed out writing the request";
      return false;
    }
    pollfd fd{child_->to_stdin.get(), POLLOUT, 0};
    ::poll(&fd, 1, static_cast<int>(std::min(left, kPollSliceMs)));
    const ssize_t n = ::write(child_->to_stdin.get(), line.data() + done, line.size() - done);
    if (n > 0)
      done += static_cast<size_t>(n);
    else if (n < 0 && errno != EAGAIN && errno != EINTR)
      return false;  // it closed its stdin: `why` stays ""
  }
  return true;
}

PluginServer::Read PluginServer::read_line(std::string& line, Clock::time_point deadline) {
  for (;;) {
    const size_t nl = pending_.find('\n');
    if (nl != std::string::npos) {
      line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Read::line;
    }
    if (pending_.size() > kMaxPluginOutput) return Read::too_long;
    if (processes_cancelled()) {
      child_.reset();  // killed with its group before we go
      throw Interrupted("interrupted while waiting for renderer " + cmd_);
    }
    const long long left = ms_until(deadline);
    if (left <= 0) return Read::timeout;
    pollfd fd{child_->from_stdout.get(), POLLIN, 0};
    ::poll(&fd, 1, static_cast<int>(std::min(left, kPollSliceMs)));
    char buf[65536];
    const ssize_t n = ::read(child_->from_stdout.get(), buf, sizeof buf);
    if (n > 0)
      pending_.append(buf, static_cast<size_t>(n));
    else if (n == 0)
      return Read::eof;
    else if (errno != EAGAIN && errno != EINTR)
      return Read::eof;
  }
}

// After EOF on its stdout: how the process ended (it is reaped, or killed if it lingers a moment).
std::string PluginServer::exit_description(Clock::time_point deadline) {
  const Clock::time_point until = std::min(deadline, Clock::now() + std::chrono::milliseconds(500));
  int status = 0;
  ProcessResult r;
  r.started = true;
  if (!reaped_by(child_->group, until, status)) return "closed its stdout";  // killed with its group by fault()
  if (WIFEXITED(status))
    r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.signal = WTERMSIG(status);
  return r.describe();
}

std::string PluginServer::stderr_tail() const {
  if (!stderr_) return "";
  const off_t size = ::lseek(stderr_.get(), 0, SEEK_END);  // O_APPEND: where we read is no matter to the writer
  ::lseek(stderr_.get(), std::max<off_t>(0, size - static_cast<off_t>(kServerStderrTail)), SEEK_SET);
  std::string tail;
  read_all(stderr_.get(), tail, kServerStderrTail);
  return tail;
}

PluginResult PluginServer::fault(const std::string& what_for, const std::string& what) {
  child_.reset();  // kills and reaps the group (a no-op when it ended already)
  if (!replied_) ++failed_starts_;
  PluginResult r;
  r.message = "renderer '" + cmd_ + "' (server) " + what + " while " + what_for;
  const std::string tail = stderr_tail();
  if (!tail.empty()) r.message += ":\n" + tail;
  return r;
}

std::optional<nlohmann::json> PluginServer::exchange(nlohmann::json request, const std::string& what_for,
                                                     Clock::time_point deadline, PluginResult& failed) {
  if (Clock::now() >= deadline) {
    failed = PluginResult{};
    failed.message = "renderer '" + cmd_ + "' (server): no time left for " + what_for;
    return std::nullopt;
  }
  std::string why;
  if (!child_ && !start(deadline, why)) {
    failed = fault(what_for, why);
    return std::nullopt;
  }
  const Clock::time_point sent = Clock::now();
  const uint64_t id = next_id_++;
  request["id"] = id;
  if (!send(request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", deadline, why)) {
    failed = fault(what_for, why.empty() ? exit_description(deadline) : why);
    return std::nullopt;
  }
  std::string line;
  switch (read_line(line, deadline)) {
    case Read::eof: failed = fault(what_for, exit_description(deadline)); return std::nullopt;
    case Read::timeout:
      failed = fault(what_for, "timed out after " + seconds_text(std::chrono::duration<double>(deadline - sent).count()) + " s");
      failed.bucket = std::string(kTimeoutBucket);
      return std::nullopt;
    case Read::too_long:
      failed = fault(what_for, "protocol error: a reply line over " + std::to_string(kMaxPluginOutput) + " bytes");
      return std::nullopt;
    case Read::line: break;
  }
  nlohmann::json reply;
  if (const std::string bad = check_id(line, id, reply); !bad.empty()) {
    failed = fault(what_for, "protocol error: " + bad);
    return std::nullopt;
  }
  replied_ = true;
  failed_starts_ = 0;
  ++replies_;
  reply_seconds_ += std::chrono::duration<double>(Clock::now() - sent).count();
  return reply;
}

PluginResult PluginServer::request(nlohmann::json request, const std::string& what_for, Clock::time_point deadline) {
  PluginResult r;
  const std::optional<nlohmann::json> reply = exchange(std::move(request), what_for, deadline, r);
  if (!reply) return r;
  if (const std::string bad = check_reply(*reply, r); !bad.empty()) return fault(what_for, "protocol error: " + bad);
  if (!r.ok) r.message = "renderer '" + cmd_ + "' (server), " + what_for + ":\n" + r.message;
  return r;
}

PluginRunResult PluginServer::run(const Program& p, const std::string& fn_name, const std::vector<std::vector<NativeBuffer>>& inputs,
                                  Clock::time_point deadline, const std::vector<std::string>& off) {
  nlohmann::json req = {{"kind", "run"}, {"function", fn_name}, {"program", print_program(p)}, {"inputs", run_inputs(p, inputs)}};
  if (!off.empty()) req["off"] = off;
  const std::string what_for = "running " + fn_name;
  PluginResult failed;
  PluginRunResult r;
  const std::optional<nlohmann::json> reply = exchange(std::move(req), what_for, deadline, failed);
  if (!reply) {
    r.message = std::move(failed.message);
    r.bucket = std::move(failed.bucket);
    return r;
  }
  const auto protocol_error = [&](const std::string& bad) {
    r = {};
    r.message = fault(what_for, "protocol error: " + bad).message;
    return r;
  };
  bool has_outputs = false;
  if (std::string bad = check_one_of(*reply, "outputs", has_outputs); !bad.empty()) return protocol_error(bad);
  if (std::string bad = read_used(*reply, r.used, r.features); !bad.empty()) return protocol_error(bad);
  if (!has_outputs) {
    if (std::string bad = read_bucket(*reply, r.bucket); !bad.empty()) return protocol_error(bad);
    r.message = "renderer '" + cmd_ + "' (server), " + what_for + ":\n" + (*reply)["error"].get<std::string>();
    return r;
  }
  const nlohmann::json& outputs = (*reply)["outputs"];
  if (!outputs.is_array() || outputs.size() != inputs.size())
    return protocol_error("a reply whose 'outputs' is not a list of " + std::to_string(inputs.size()) + " entries");
  for (size_t k = 0; k < inputs.size(); ++k) {
    PluginRunOutcome o;
    if (std::string bad = check_outcome(outputs[k], p, inputs[k], o); !bad.empty()) return protocol_error(bad);
    r.outcomes.push_back(std::move(o));
  }
  r.ok = true;
  return r;
}

PluginResult PluginServer::render(const Program& p, const std::string& fn_name, Clock::time_point deadline,
                                  const std::vector<std::string>& off) {
  nlohmann::json req = {{"kind", "render"}, {"function", fn_name}, {"program", print_program(p)}};
  if (!off.empty()) req["off"] = off;
  return request(std::move(req), "rendering " + fn_name, deadline);
}

PluginResult PluginServer::export_program(const Program& p, const std::string& format, Clock::time_point deadline) {
  return request({{"kind", "export"}, {"format", format}, {"program", print_program(p)}}, "exporting as " + format, deadline);
}

PluginResult PluginServer::reach(const Program& p, const std::string& level, Clock::time_point deadline) {
  const std::string what_for = "checking whether its " + level + " front end reaches it";
  PluginResult r;
  const std::optional<nlohmann::json> reply = exchange({{"kind", "reach"}, {"program", print_program(p)}}, what_for, deadline, r);
  if (!reply) return r;
  if (const std::string bad = check_reach(*reply, level, r); !bad.empty()) return fault(what_for, "protocol error: " + bad);
  if (!r.ok) r.message = "renderer '" + cmd_ + "' (server), " + what_for + ":\n" + r.message;
  return r;
}

void PluginServer::stop() {
  if (!child_) return;
  child_->to_stdin.reset();  // EOF: a well-behaved server ends by itself
  const Clock::time_point until = Clock::now() + std::chrono::milliseconds(static_cast<int>(kServerStopGraceS * 1000));
  int status = 0;
  reaped_by(child_->group, until, status);
  child_.reset();  // kills what is left of the group
}

void PluginServer::abandon() {
  if (child_) child_->group.release();
  child_.reset();
}

namespace {

// The servers of this process, by command; `owner` tells a forked child it inherited them.
struct ServerRegistry {
  pid_t owner = 0;
  std::map<std::string, std::unique_ptr<PluginServer>> servers;
};

ServerRegistry& registry() {
  static ServerRegistry r;
  if (r.owner != ::getpid()) {
    for (auto& [cmd, server] : r.servers) server->abandon();
    r.servers.clear();
    r.owner = ::getpid();
  }
  return r;
}

}  // namespace

PluginServer& plugin_server(const std::string& cmd) {
  std::unique_ptr<PluginServer>& s = registry().servers[cmd];
  if (!s) s = std::make_unique<PluginServer>(cmd);
  return *s;
}

void stop_plugin_servers() {
  for (auto& [cmd, server] : registry().servers) server->stop();
}

}  // namespace uf

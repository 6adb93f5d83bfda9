// Atomic, deduplicated corpus writes.
#include "fuzz/campaign/corpus.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/timestamp.h"

namespace uf {

namespace fs = std::filesystem;

namespace {

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

[[noreturn]] void write_failed(const std::string& what) {
  throw UserError(what + ": " + std::strerror(errno));
}

// Writes all of `text` to a new file and syncs it; throws UserError (removing the file) on failure.
void write_synced(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) write_failed("cannot create " + path);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      errno = err ? err : ENOSPC;
      write_failed("cannot write " + path);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    errno = err;
    write_failed("cannot write " + path);
  }
}

// A writer killed between creating its temporary file and unlinking it (kill -9, a crash) leaves
// `.tmp-PID-NAME` behind. Remove those whose writer is gone; a live writer's PID still answers.
void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(".tmp-", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 5, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(e.path(), ec);
  }
}

}  // namespace

std::string Corpus::file_name(const std::string& signature) {
  std::string slug;
  for (char c : signature) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::isalnum(static_cast<unsigned char>(l))) slug += l;
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(signature));
  return slug.substr(0, 60) + "-" + hash + ".uop";
}

std::set<std::string> read_signatures(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".uop" || e.path().filename().string().front() == '.') continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {  // the reader's meta rule: CRLF and blanks trimmed
      const MetaLine m = parse_meta_line(line);
      if (m.is_meta && !m.error && m.key == "signature" && !m.value.empty()) out.insert(m.value);
    }
  }
  if (ec) throw UserError(dir + ": cannot read corpus directory (" + ec.message() + ")");
  return out;
}

Corpus::Corpus(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) throw UserError(dir_ + ": cannot create corpus directory (" + (ec ? ec.message() : "not a directory") + ")");
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) throw UserError(dir_ + ": corpus directory is not writable");
  remove_stale_temporaries(dir_);
  known_ = read_signatures(dir_);
}

std::string reproducer_text(Program p, const Observation& failure, const FindingContext& ctx) {
  auto set = [&](const std::string& k, const std::string& v) { if (!v.empty()) p.set_meta(k, v); };
  set("found", utc_timestamp());
  set("worker", ctx.worker);
  set("signature", failure.signature);
  set("class", verdict_name(failure.verdict));
  set("status", "open");
  set("cc", ctx.cfg.cc);
  set("cc_version", ctx.compiler_version);
  set("cflags", ctx.cfg.cflags);
  set("renderer", ctx.cfg.renderer_cmd.empty() ? "builtin" : ctx.cfg.renderer_cmd);
  // The protocol belongs with the command: a program reduced under another renderer drops a stale one.
  if (ctx.cfg.renderer_batch) p.set_meta("renderer_protocol", "batch");
  else std::erase_if(p.meta, [](const auto& kv) { return kv.first == "renderer_protocol"; });
  // A native mode is recorded so the finding replays in it; soft (the default) leaves no line.
  std::erase_if(p.meta, [](const auto& kv) { return kv.first == "f16" || kv.first == "bf16"; });
  if (ctx.cfg.renderer_cmd.empty() && ctx.cfg.render.f16_native) p.set_meta("f16", "native");
  if (ctx.cfg.renderer_cmd.empty() && ctx.cfg.render.bf16_native) p.set_meta("bf16", "native");
  if (failure.signal) set("signal", std::to_string(failure.signal));
  p.expect = failure.expect;
  p.got = failure.got;
  return print_program(p);
}

void Corpus::replace(const std::string& path, Program reproducer, const Observation& failure, const FindingContext& ctx) {
  const fs::path target(path);
  const std::string tmp = (target.parent_path() / (".tmp-" + std::to_string(::getpid()) + "-" + target.filename().string())).string();
  ::unlink(tmp.c_str());
  write_synced(tmp, reproducer_text(std::move(reproducer), failure, ctx));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    write_failed("cannot replace " + path);
  }
  if (const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::optional<std::string> Corpus::save(Program reproducer, const Observation& failure, const FindingContext& ctx) {
  if (has(failure.signature)) return std::nullopt;
  const std::string final_path = (fs::path(dir_) / file_name(failure.signature)).string();
  const std::string tmp = (fs::path(dir_) / (".tmp-" + std::to_string(::getpid()) + "-" + file_name(failure.signature))).string();
  ::unlink(tmp.c_str());
  write_synced(tmp, reproducer_text(std::move(reproducer), failure, ctx));
  const int linked = ::link(tmp.c_str(), final_path.c_str());
  const int err = errno;
  ::unlink(tmp.c_str());
  known_.insert(failure.signature);
  if (linked != 0) {
    if (err == EEXIST) return std::nullopt;  // another worker saved this bucket first
    errno = err;
    write_failed("cannot save " + final_path);
  }
  if (const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);  // make the new name durable
    ::close(dfd);
  }
  return final_path;
}

}  // namespace uf

// File I/O in one place (see files.h).
#include "codegen/runtime/files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "codegen/runtime/fd.h"
#include "core/error.h"

namespace uf {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTemporaryPrefix = ".tmp-";

FileError failed(FileError::Step step, const std::string& path, int error) { return FileError{step, path, error}; }

std::string temporary_for(const fs::path& target, const std::string& dir) {
  const fs::path where = dir.empty() ? target.parent_path() : fs::path(dir);
  return (where / (kTemporaryPrefix + std::to_string(::getpid()) + "-" + target.filename().string())).string();
}

// fsync of a directory makes the names just created or renamed in it durable; failure is not an error
// (some file systems cannot sync a directory).
void sync_directory(const fs::path& dir) {
  const UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd) ::fsync(fd.get());
}

// The temporary written, then renamed or linked to `path`; the temporary is gone whatever happens.
FileError publish(const std::string& path, std::string_view data, FileOptions opts, FileError::Step step) {
  const fs::path target(path);
  const RemovedOnExit tmp(temporary_for(target, opts.temporary_dir));
  ::unlink(tmp.path().c_str());  // ours from an earlier, killed write with a reused PID
  opts.exclusive = true;
  if (FileError e = write_file(tmp.path(), data, opts)) return e;
  const int moved =
      step == FileError::Step::rename ? ::rename(tmp.path().c_str(), path.c_str()) : ::link(tmp.path().c_str(), path.c_str());
  if (moved != 0) return failed(step, path, errno);
  if (opts.sync) sync_directory(target.parent_path());
  return {};
}

}  // namespace

bool write_all(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = ENOSPC;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, std::string& out, size_t limit) {
  const size_t start = out.size();
  char buf[65536];
  while (out.size() - start <= limit) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return true;
}

std::optional<std::string> read_file(const std::string& path, size_t limit) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  std::string text;
  struct stat st;
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    text.reserve(std::min<size_t>(static_cast<size_t>(st.st_size), limit) + 1);  // +1: the end is seen in place
  if (!read_all(fd.get(), text, limit)) return std::nullopt;
  return text;
}

std::string FileError::reason() const { return std::strerror(error); }

std::string FileError::message() const {
  static constexpr const char* kVerbs[] = {"", "create", "write", "replace", "link"};
  return std::string("cannot ") + kVerbs[static_cast<int>(step)] + " " + path + ": " + reason();
}

FileError write_file(const std::string& path, std::string_view data, const FileOptions& opts) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (opts.exclusive ? O_EXCL : O_TRUNC);
  UniqueFd fd(::open(path.c_str(), flags, opts.mode));
  if (!fd) return failed(FileError::Step::create, path, errno);
  RemovedOnExit half_written(path);
  if (!write_all(fd.get(), data) || (opts.sync && ::fsync(fd.get()) != 0)) {
    const int error = errno;
    fd.reset();  // close may change errno
    return failed(FileError::Step::write, path, error);
  }
  if (fd.close() != 0) return failed(FileError::Step::write, path, errno);  // NFS and quotas report here
  half_written.release();
  return {};
}

FileError replace_file(const std::string& path, std::string_view data, FileOptions opts) {
  return publish(path, data, opts, FileError::Step::rename);
}

void replace_user_file(const std::string& path, std::string_view data) {
  if (const FileError e = replace_file(path, data)) throw UserError(path + ": cannot write (" + e.reason() + ")");
}

FileError create_file_atomically(const std::string& path, std::string_view data, FileOptions opts) {
  return publish(path, data, opts, FileError::Step::link);
}

void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  const std::string prefix = kTemporaryPrefix;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(e.path(), ec);
  }
}

RemovedOnExit::~RemovedOnExit() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

std::optional<TempDir> TempDir::create(std::string pattern) {
  if (!::mkdtemp(pattern.data())) return std::nullopt;
  return TempDir(std::move(pattern));
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace uf

// The one home of file I/O: whole-descriptor reads and writes that survive EINTR and short transfers,
// whole files read and written, a file replaced atomically, and temporary files and directories that
// remove themselves. The calls return what failed (errno, or a FileError) and the caller words the
// message in its own error tier, naming the file; replace_user_file alone throws (a file the user named).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace uf {

// Writes all of `data` to `fd`, again after EINTR and short writes. false with errno set on failure
// (ENOSPC when write(2) wrote nothing and said nothing). Async-signal-safe: forked children use it.
bool write_all(int fd, std::string_view data);
// Appends what `fd` holds up to its end to `out`, again after EINTR; stops early once more than `limit`
// bytes were appended (the caller tells "too large" by the size). false with errno set on a read error.
bool read_all(int fd, std::string& out, size_t limit = SIZE_MAX);

// A whole file, or its first bytes beyond `limit` (see read_all); nullopt with errno set when it cannot
// be opened or read.
std::optional<std::string> read_file(const std::string& path, size_t limit = SIZE_MAX);

struct FileOptions {
  mode_t mode = 0666;      // before the umask, as std::ofstream creates files
  bool exclusive = false;  // fail (EEXIST) when the file exists, instead of truncating it
  bool sync = false;       // fsync the file before closing, and its directory after a rename or link
  // Where replace_file puts its temporary (on the file system of the target); "" is beside the target.
  std::string temporary_dir = "";
};

// What a file operation failed at (its step, the file that step concerned, errno); false when it did not.
struct FileError {
  enum class Step { none, create, write, rename, link };
  Step step = Step::none;
  std::string path;
  int error = 0;

  explicit operator bool() const { return step != Step::none; }
  std::string reason() const;  // strerror(error)
  // "cannot create PATH: reason"; "write", "replace" (the rename) and "link" likewise.
  std::string message() const;
};

// Writes `data` as the file `path` (created, or truncated unless opts.exclusive). A file that could not be
// written whole is removed: no half file stays behind. A failed close(2) is a failed write (NFS, quotas).
FileError write_file(const std::string& path, std::string_view data, const FileOptions& opts = {});

// Writes `data` to the temporary `.tmp-PID-NAME` beside `path`, then renames it to `path` in one step: readers see the
// old file or the whole new one, never a part. The temporary is gone whatever fails.
FileError replace_file(const std::string& path, std::string_view data, FileOptions opts = {});
// replace_file for a file the user named (an output, a corpus file): UserError "PATH: cannot write (reason)".
void replace_user_file(const std::string& path, std::string_view data);
// The same as replace_file, but hard-links the temporary to `path` instead, so an existing `path` stays: step `link`
// with EEXIST then (another writer was first).
FileError create_file_atomically(const std::string& path, std::string_view data, FileOptions opts = {});
// A writer killed between creating its temporary and renaming it (kill -9, a crash) leaves
// `.tmp-PID-NAME` behind: removes those in `dir` whose writer is gone (a live writer's PID answers).
void remove_stale_temporaries(const std::string& dir);

// A path unlinked when its owner goes (unless released): a temporary file on every way out of a scope.
class RemovedOnExit {
 public:
  explicit RemovedOnExit(std::string path) : path_(std::move(path)) {}
  RemovedOnExit(RemovedOnExit&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  RemovedOnExit& operator=(RemovedOnExit&&) = delete;
  RemovedOnExit(const RemovedOnExit&) = delete;
  RemovedOnExit& operator=(const RemovedOnExit&) = delete;
  ~RemovedOnExit();

  const std::string& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::string path_;
};

// A directory of our own made by mkdtemp(3), removed with everything in it when its owner goes.
class TempDir {
 public:
  // `pattern` ends in XXXXXX; nullopt with errno set when mkdtemp fails.
  static std::optional<TempDir> create(std::string pattern);
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace uf

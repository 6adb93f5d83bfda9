// Owning handles for the OS resources the runtime opens: file descriptors, pipes, shared memory
// mappings and child process groups. Each is released exactly once, on every way out of a scope
// (early returns and exceptions included), so no error path has to remember what to close. All are
// move-only. A forked child that ends with _exit runs no destructors, so its copies never release
// the parent's resources.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <utility>

namespace uf {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }
  int release() { return std::exchange(fd_, -1); }
  // Closes the descriptor held (ignoring close's result) and takes `fd`.
  void reset(int fd = -1);
  // Closes now and returns close(2)'s result (errno set on -1): a written file may report a failed
  // write only here (NFS, quotas).
  int close();

 private:
  int fd_ = -1;
};

// Both ends close-on-exec, so no process started elsewhere inherits them (a dup2 onto a child's
// stdout clears the flag on that copy only).
struct Pipe {
  UniqueFd read_end, write_end;
  // nullopt when pipe2 fails; errno says why.
  static std::optional<Pipe> open();
};

// O_NONBLOCK on, for a reader that polls; false (errno set) on failure.
bool set_nonblocking(int fd);

// An anonymous MAP_SHARED read-write mapping with no swap reservation: memory a forked child writes
// and its parent reads afterwards.
class SharedMemory {
 public:
  // nullopt when mmap fails; errno says why.
  static std::optional<SharedMemory> map(size_t bytes);
  SharedMemory() = default;  // no mapping
  SharedMemory(SharedMemory&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(o.size_) {}
  SharedMemory& operator=(SharedMemory&& o) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  SharedMemory(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
};

// A child process that leads its own process group. Until it is reaped, destroying the handle kills
// the whole group (SIGKILL) and reaps the child, so no way out of the caller leaves anything it
// started running, or a zombie.
class ChildProcessGroup {
 public:
  explicit ChildProcessGroup(pid_t pid) : pid_(pid) {}
  ChildProcessGroup(ChildProcessGroup&& o) noexcept : pid_(std::exchange(o.pid_, -1)) {}
  ChildProcessGroup& operator=(ChildProcessGroup&&) = delete;
  ChildProcessGroup(const ChildProcessGroup&) = delete;
  ChildProcessGroup& operator=(const ChildProcessGroup&) = delete;
  ~ChildProcessGroup();

  pid_t pid() const { return pid_; }
  // SIGKILL to the group and to the child, then a blocking wait; its wait status in `status`.
  void kill_and_reap(int& status);
  enum class Wait { running, ended, not_waitable };
  // A waitpid that does not block. `ended`: `status` is set and the handle is spent. `not_waitable`:
  // waitpid failed (ECHILD when SIGCHLD is ignored); the handle still owns the child.
  Wait try_reap(int& status);
  // Gives the child up without killing it (one that cannot be waited for: SIGCHLD ignored).
  void release() { pid_ = -1; }

 private:
  pid_t pid_;
};

}  // namespace uf

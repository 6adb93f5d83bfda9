// Owning file descriptors: each is closed exactly once, on every way out of a scope (early returns and
// exceptions included), so no error path has to remember what to close. Move-only. A forked child that
// ends with _exit runs no destructors, so its copies never close the parent's descriptors.
#pragma once
#include <fcntl.h>
#include <unistd.h>

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
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Both ends close-on-exec, so no process started elsewhere inherits them.
struct Pipe {
  UniqueFd read_end, write_end;
  // nullopt when pipe2 fails; errno says why.
  static std::optional<Pipe> open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
  }
};

}  // namespace uf

// Owning OS handles (see fd.h).
#include "codegen/runtime/fd.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace uf {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

int UniqueFd::close() { return ::close(release()); }

std::optional<Pipe> Pipe::open() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

bool set_nonblocking(int fd) { return ::fcntl(fd, F_SETFL, O_NONBLOCK) == 0; }

std::optional<SharedMemory> SharedMemory::map(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return std::nullopt;
  return SharedMemory(p, bytes);
}

SharedMemory& SharedMemory::operator=(SharedMemory&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = o.size_;
  }
  return *this;
}

SharedMemory::~SharedMemory() {
  if (data_) ::munmap(data_, size_);
}

ChildProcessGroup::~ChildProcessGroup() {
  int status = 0;
  kill_and_reap(status);
}

void ChildProcessGroup::kill_and_reap(int& status) {
  if (pid_ <= 0) return;  // kill(-(-1)) would signal every process we may signal
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  pid_ = -1;
}

ChildProcessGroup::Wait ChildProcessGroup::try_reap(int& status) {
  if (pid_ <= 0) return Wait::not_waitable;  // waitpid(-1) would reap some other child
  const pid_t w = ::waitpid(pid_, &status, WNOHANG);
  if (w == pid_) {
    pid_ = -1;
    return Wait::ended;
  }
  return w < 0 && errno != EINTR ? Wait::not_waitable : Wait::running;
}

}  // namespace uf

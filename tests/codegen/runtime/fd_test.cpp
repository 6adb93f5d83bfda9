// The runtime's owning OS handles: each resource is released once, when its owner goes, and not before.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "codegen/runtime/fd.h"

namespace uf::test {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(CodegenFd, UniqueFdClosesOnceWhenItsLastOwnerGoes) {
  int raw = -1;
  {
    UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(a);
    raw = a.get();
    UniqueFd b(std::move(a));
    EXPECT_FALSE(a);
    EXPECT_EQ(b.get(), raw);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));

  UniqueFd c(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  raw = c.release();  // given up: still open, and ours to close
  EXPECT_FALSE(c);
  EXPECT_TRUE(is_open(raw));
  UniqueFd d(raw);
  EXPECT_EQ(d.close(), 0);
  EXPECT_FALSE(d);
  EXPECT_FALSE(is_open(raw));
}

TEST(CodegenFd, PipeEndsAreCloseOnExecAndConnected) {
  std::optional<Pipe> p = Pipe::open();
  ASSERT_TRUE(p) << std::strerror(errno);
  EXPECT_TRUE(::fcntl(p->read_end.get(), F_GETFD) & FD_CLOEXEC);
  EXPECT_TRUE(::fcntl(p->write_end.get(), F_GETFD) & FD_CLOEXEC);
  ASSERT_EQ(::write(p->write_end.get(), "x", 1), 1);
  p->write_end.reset();
  char buf[2];
  EXPECT_EQ(::read(p->read_end.get(), buf, sizeof buf), 1);
  EXPECT_EQ(::read(p->read_end.get(), buf, sizeof buf), 0);  // the only writer is gone: EOF
  ASSERT_TRUE(set_nonblocking(p->read_end.get()));
  EXPECT_TRUE(::fcntl(p->read_end.get(), F_GETFL) & O_NONBLOCK);
}

TEST(CodegenFd, SharedMemorySeesAForkedChildsWrites) {
  std::optional<SharedMemory> m = SharedMemory::map(4096);
  ASSERT_TRUE(m) << std::strerror(errno);
  auto* word = static_cast<int*>(m->data());
  *word = 1;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    *word = 42;
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_EQ(*word, 42);
  SharedMemory moved(std::move(*m));
  EXPECT_EQ(m->data(), nullptr);
  EXPECT_EQ(moved.data(), word);
  EXPECT_EQ(moved.size(), 4096u);
}

// A group leader whose own child holds a pipe open: dropping the handle must kill both, so the pipe
// reaches EOF, and leave no zombie.
TEST(CodegenFd, DroppingAChildProcessGroupKillsTheWholeGroup) {
  std::optional<Pipe> p = Pipe::open();
  ASSERT_TRUE(p);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::fork() == 0 && ::write(p->write_end.get(), "r", 1) == 1) ::pause();  // the grandchild: holds the pipe
    ::pause();
    ::_exit(0);
  }
  ::setpgid(pid, pid);  // either side may set it first; then kill(-pid) reaches the grandchild
  p->write_end.reset();
  char c;
  ASSERT_EQ(::read(p->read_end.get(), &c, 1), 1);  // the grandchild is running
  {
    ChildProcessGroup child(pid);
    int status = 0;
    EXPECT_EQ(child.try_reap(status), ChildProcessGroup::Wait::running);
  }
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);  // reaped already
  EXPECT_EQ(errno, ECHILD);
  pollfd pf{p->read_end.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&pf, 1, 10000), 1) << "the grandchild still holds the pipe";
  EXPECT_EQ(::read(p->read_end.get(), &c, 1), 0);
}

}  // namespace
}  // namespace uf::test

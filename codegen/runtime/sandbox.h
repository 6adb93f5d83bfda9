// Running compiled kernels isolated from the harness.
//
// run_sandboxed runs a batch of kernels from one shared object in a forked child. Buffers live in a
// MAP_SHARED anonymous mapping made before the fork, so the child's writes are the results; each
// kernel's buffers sit in their own page-aligned region, and the child keeps every region but the
// running kernel's PROT_NONE, so a wild write faults instead of corrupting another kernel's data.
// The child restores default signal dispositions and the default floating-point environment, has no
// core dumps, dies with the harness (PR_SET_PDEATHSIG), and dlopens the object itself: nothing of the
// object (constructors included) ever runs in the harness.
//
// The child reports progress (a byte per finished kernel; the index of the running one in shared
// memory). When kernel k kills the child (SIGSEGV, SIGFPE, SIGILL, SIGBUS, abort, exit) it is a
// `crash` with the signal; when k runs past the timeout (measured from the end of the previous kernel)
// the child's process group is killed and k is a `timeout`. Either way the kernels after k run in a
// new child, so one bad kernel costs only itself. A kernel whose symbol is missing, or a batch whose
// object does not load, is `load_error` with the dynamic loader's message.
//
// Kernels are called as `void f(void*, ..., void*)` with one pointer per buffer (at most
// kMaxKernelBuffers), through checked_call: a kernel that returns with a callee-saved register, the
// stack pointer or MXCSR's control bits changed is a `crash` (signal 0) whose message names it.
#pragma once
#include <string>
#include <vector>

#include "codegen/runtime/native.h"

namespace uf {

inline constexpr size_t kMaxKernelBuffers = 1024;

enum class RunStatus { ok, crash, timeout, load_error };

struct KernelCall {
  std::string symbol;
  std::vector<NativeBuffer> buffers;  // in: initial contents; out (when ok): final contents
};

struct RunResult {
  RunStatus status = RunStatus::ok;
  int signal = 0;       // crash: the signal that ended the child (0 if it exited)
  std::string message;  // crash/timeout/load_error: what happened
};

// One result per call, in order. Throws UserError only when the sandbox itself cannot be set up
// (no memory for the mapping, fork failing).
std::vector<RunResult> run_sandboxed(const std::string& so_path, std::vector<KernelCall>& calls, double timeout_s);

}  // namespace uf

#!/usr/bin/env python3
# A protocol-2 executing target (language outputs, docs/format.md section 5), on the SDK, for uopfuzz's own
# tests: it runs each program itself, as uopfuzz's compiled path would, so its outputs agree with the
# reference. A run request's program is uopfuzz's own C (uopfuzz_render) compiled once ($CC, default gcc,
# -O3 -march=native -ffp-contract=off -fno-fast-math -shared -fPIC, cached by the C's hash in a private
# temporary directory); each data set runs in a forked child that loads it with ctypes, calls the kernel
# with one pointer per BUFFER (ascending slot) and writes every buffer back through a pipe. A child killed
# by a signal is a `crash`, one still running after $UOPFUZZ_RUN_TIMEOUT seconds (default 10) is killed and
# a `timeout`, and C that does not compile is a `compile-error` of every data set.
#   $UOPFUZZ_RUN_BREAK=mul: in the C, scalar 32-bit integer MUL becomes ADD (broken_c.py): a value bug.
#   $UOPFUZZ_RUN_BREAK=crash: the kernel begins with a store through a null pointer: every run crashes.
import atexit
import ctypes
import hashlib
import os
import re
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, RunFailure, buffer_sizes, compile_c, tool_version, uopfuzz_render  # noqa: E402
from broken_c import int32_mul_as_add  # noqa: E402  (beside this file)

CC = os.environ.get("CC") or "gcc"
CFLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-lm"]
CACHE = tempfile.mkdtemp(prefix="run_passthru-")
atexit.register(shutil.rmtree, CACHE, True)


def run(program, function, inputs):
  c = uopfuzz_render(program, function)
  knob = os.environ.get("UOPFUZZ_RUN_BREAK")
  if knob == "mul": c = int32_mul_as_add(c)
  if knob == "crash": c = null_store_first(c, function)
  try: library = shared_object(c)
  except RenderError as e: return [RunFailure("compile-error", str(e))] * len(inputs)
  timeout = float(os.environ.get("UOPFUZZ_RUN_TIMEOUT", "10"))
  return [run_one(library, function, buffer_sizes(program), data, timeout) for data in inputs]


def null_store_first(c, function):
  broken, found = re.subn(rf"^(void {function}\(.*\)\s*\{{)$", r"\1\n  *(volatile char *)0 = 0;  /* a known bug */", c, count=1, flags=re.M)
  if not found: raise RenderError(f"no 'void {function}(...) {{' line in uopfuzz's C")
  return broken


def shared_object(c):
  """The kernel's shared object, compiled once per C text; RenderError with the compiler's message."""
  path = os.path.join(CACHE, hashlib.sha256(c.encode()).hexdigest() + ".so")
  return path if os.path.exists(path) else compile_c(c, CFLAGS, path, cc=CC)


def run_one(library, function, sizes, data, timeout):
  """{slot: bytes} after one run of the kernel on `data`, or its RunFailure."""
  read_end, write_end = os.pipe()
  pid = os.fork()
  if pid == 0:  # the child: whatever the kernel does, it happens here
    os.close(read_end)
    code = 0
    try: child(library, function, sizes, data, write_end)
    except BaseException:
      traceback.print_exc()
      code = 70
    os._exit(code)  # never the parent's atexit or its buffered replies
  os.close(write_end)
  output = read_until(read_end, time.monotonic() + timeout)
  os.close(read_end)
  if output is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return RunFailure("timeout", f"still running after {timeout:g} s")
  status = os.waitpid(pid, 0)[1]
  if os.WIFSIGNALED(status): return RunFailure("crash", f"killed by {signal.Signals(os.WTERMSIG(status)).name}")
  if os.WEXITSTATUS(status) != 0 or len(output) != sum(sizes.values()):
    raise RuntimeError(f"the run's child exited with status {os.WEXITSTATUS(status)} after {len(output)} bytes (its stderr says why)")
  outputs, at = {}, 0
  for slot in sorted(sizes):
    outputs[slot], at = output[at:at + sizes[slot]], at + sizes[slot]
  return outputs


def child(library, function, sizes, data, pipe):
  kernel = getattr(ctypes.CDLL(library), function)
  kernel.restype, kernel.argtypes = None, [ctypes.c_void_p] * len(sizes)
  # 8-byte words, so every buffer is aligned for any element type
  buffers = [(ctypes.c_uint64 * ((sizes[s] + 7) // 8)).from_buffer_copy(data[s].ljust(-(-sizes[s] // 8) * 8, b"\0")) for s in sorted(sizes)]
  kernel(*(ctypes.addressof(b) for b in buffers))
  with os.fdopen(pipe, "wb") as out:
    for slot, buffer in zip(sorted(sizes), buffers): out.write(ctypes.string_at(buffer, sizes[slot]))


def read_until(fd, deadline):
  """Everything written to the pipe `fd` until its end, or None if it has not ended by the deadline."""
  chunks = []
  while True:
    left = deadline - time.monotonic()
    if left <= 0 or not select.select([fd], [], [], left)[0]: return None
    chunk = os.read(fd, 1 << 16)
    if not chunk: return b"".join(chunks)
    chunks.append(chunk)


if __name__ == "__main__":
  Plugin(name="run-passthru", version=lambda: tool_version(CC), language="outputs", run=run).main()

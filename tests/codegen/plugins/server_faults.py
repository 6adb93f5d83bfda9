#!/usr/bin/env python3
# A protocol-2 plug-in for the server tests (tests/codegen/plugin_server_test.cpp), on the SDK: uopfuzz's own
# renderer (`$UOPFUZZ render`), so its kernels agree with the built-in path, except where asked to fail.
#   meta fault = F on a program, in server mode: exit (exit 3), segv (SIGSEGV), hang, garbage (a line that
#     is not JSON before the reply), wrong-id (the reply's id is off by one), refuse (an `error` reply; its
#     `bucket` the program's `meta bucket`, when it has one).
#   $UOPFUZZ_FAULT_AT_START=1: every server process exits at once, before reading a request.
#   $UOPFUZZ_HANG_EVERY=N: each server process hangs on its N-th, 2N-th, ... request.
#   $UOPFUZZ_RENDER_SECONDS=S: every render takes S seconds more (a slow target).
#   $UOPFUZZ_SLOW_FROM_STORES=K: a program with K or more STOREs renders 1 s longer per STORE from the K-th
#     on (a render whose cost grows with the program, as tinygrad's exponential one: docs/findings.md).
#   $UOPFUZZ_DESCRIBE=TEXT: the handshake prints TEXT instead; =none: no handshake (protocol 1).
#   $UOPFUZZ_BREAK_MUL=1: integer multiplication rendered as addition (as tests/fuzz/campaign/broken_renderer.sh).
#   $UOPFUZZ_PLUGIN_COUNTER=FILE: each start appends its mode ("server", "one", "batch") to FILE.
import json
import os
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, uopfuzz_render  # noqa: E402

requests = 0


def render(program, function):
  global requests
  requests += 1
  every = int(os.environ.get("UOPFUZZ_HANG_EVERY", "0"))
  fault = program.meta_value("fault")
  if fault == "exit":
    sys.stderr.write("server_faults: exiting as asked\n")
    sys.stderr.flush()
    os._exit(3)
  if fault == "segv":
    os.kill(os.getpid(), signal.SIGSEGV)
  if fault == "hang" or (every and requests % every == 0):
    time.sleep(1000)
  if fault == "garbage":
    sys.__stdout__.write("this is not JSON\n")
    sys.__stdout__.flush()
  if fault == "refuse":
    raise RenderError("refused as asked", program.meta_value("bucket"))
  time.sleep(float(os.environ.get("UOPFUZZ_RENDER_SECONDS", "0")))
  slow_from = int(os.environ.get("UOPFUZZ_SLOW_FROM_STORES", "0"))
  stores = sum(1 for n in program.nodes if n.op.name == "STORE")
  if slow_from and stores >= slow_from:
    time.sleep(stores - slow_from + 1)
  source = uopfuzz_render(program, function)
  if os.environ.get("UOPFUZZ_BREAK_MUL"):
    prelude, marker, rest = source.partition("end of prelude")
    source = prelude + marker + rest.replace("uf_mul_", "uf_add_")
  return source


class FaultyPlugin(Plugin):
  def answer(self, line):
    reply = super().answer(line)
    if "meta fault = wrong-id" in json.loads(line).get("program", ""):
      reply["id"] += 1
    return reply


if __name__ == "__main__":
  args = sys.argv[1:]
  counter = os.environ.get("UOPFUZZ_PLUGIN_COUNTER")
  if counter and args != ["--uopfuzz-describe"]:
    with open(counter, "a") as f:
      f.write({"--uopfuzz-serve": "server"}.get(args[0] if args else "", "one" if len(args) == 2 else "batch") + "\n")
  if args == ["--uopfuzz-serve"] and os.environ.get("UOPFUZZ_FAULT_AT_START"):
    sys.stderr.write("server_faults: dying at start as asked\n")
    sys.exit(4)
  describe = os.environ.get("UOPFUZZ_DESCRIBE")
  if args == ["--uopfuzz-describe"] and describe:
    if describe == "none": sys.exit(2)
    print(describe)
    sys.exit(0)
  FaultyPlugin(name="server-faults", version="1.0", without=["mulacc"], render=render, one_unit=True).main()

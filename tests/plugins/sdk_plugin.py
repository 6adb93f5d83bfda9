#!/usr/bin/env python3
# A protocol-2 plug-in on the Python SDK (plugins/uopfuzz_plugin.py) for the SDK's own test
# (sdk_test.py): it renders every program as an empty kernel with the right parameters, so the C compiles
# but computes nothing. A program's meta lines steer it: `meta refuse = WHY` is a RenderError,
# `meta raise = WHAT` an unexpected exception, `meta print = TEXT` prints TEXT to stdout while rendering,
# `meta crash = yes` ends the process (exit 3).
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError  # noqa: E402


def render(program, function):
  if program.meta_value("crash") == "yes": os._exit(3)
  if program.meta_value("refuse"): raise RenderError("refused: " + program.meta_value("refuse"))
  if program.meta_value("raise"): raise RuntimeError(program.meta_value("raise"))
  if program.meta_value("print"): print(program.meta_value("print"))
  params = ", ".join(f"{b.dtype.ctype}* p{i}" for i, b in enumerate(program.buffers)) or "void"
  ops = " ".join(n.op.name for n in program.nodes)
  return f"#include <stdbool.h>\n#include <stdint.h>\nvoid {function}({params}) {{ /* {ops} */ }}\n"


Plugin(name="sdk-test", version="1.0", without=["mulacc"], render=render).main()

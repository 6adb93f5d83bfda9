#!/usr/bin/env python3
# A protocol-2 plug-in on the Python SDK (plugins/uopfuzz_plugin.py) for the SDK's own test
# (sdk_test.py): it renders every program as an empty kernel with the right parameters, so the C compiles
# but computes nothing. A program's meta lines steer it: `meta refuse = WHY` is a RenderError,
# `meta raise = WHAT` an unexpected exception, `meta print = TEXT` prints TEXT to stdout while rendering,
# `meta crash = yes` ends the process (exit 3), `meta use = NAME ...` reports those switches (the ones not
# switched off) as used. The C's comment lists the switches that were off. Its switches come from a
# function that says so on stderr (only the handshake and an `off` need them); it exports to `ops` (the
# op names, then the data and expect values read) and `broken` (a RenderError).
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, Rendered, RenderError  # noqa: E402

SWITCHES = ["sym.py:10", "sym.py:10#2", "late.py:7"]


def switches():
  print("sdk_plugin: switches listed", file=sys.stderr)
  return SWITCHES


def render(program, function, off):
  if program.meta_value("crash") == "yes": os._exit(3)
  if program.meta_value("refuse"): raise RenderError("refused: " + program.meta_value("refuse"))
  if program.meta_value("raise"): raise RuntimeError(program.meta_value("raise"))
  if program.meta_value("print"): print(program.meta_value("print"))
  params = ", ".join(f"{b.dtype.ctype}* p{i}" for i, b in enumerate(program.buffers)) or "void"
  ops = " ".join(n.op.name for n in program.nodes)
  source = f"#include <stdbool.h>\n#include <stdint.h>\nvoid {function}({params}) {{ /* {ops}; off: {' '.join(sorted(off))} */ }}\n"
  use = program.meta_value("use")
  return source if use is None else Rendered(source, [n for n in use.split() if n not in off])


def export_ops(program):
  return " ".join(n.op.name for n in program.nodes) + f"\ndata {program.data}\nexpect {program.expect}\n"


def export_broken(program):
  raise RenderError("cannot export this")


Plugin(name="sdk-test", version="1.0", without=["mulacc"], render=render, switches=switches,
       exports={"ops": export_ops, "broken": export_broken}).main()

#!/usr/bin/env python3
# A protocol-2 plug-in on the Python SDK (plugins/uopfuzz_plugin.py) for the SDK's own tests (sdk_test.py,
# sdk_language_test.py): it renders every program as an empty kernel with the right parameters, so the C
# compiles but computes nothing. A program's meta lines steer it: `meta refuse = WHY` is a RenderError, `meta
# raise = WHAT` an unexpected exception, `meta print = TEXT` prints TEXT to stdout while rendering, `meta crash
# = yes` ends the process (exit 3), `meta use = NAME ...` reports those switches (the ones not switched off) as
# used (a refusal's too), `meta bucket = B` gives a refusal that bucket. The C's comment lists the switches that
# were off. Its switches come from a function that says so on stderr (only the handshake and an `off` need
# them), and so do the two of them a program can reach (`reachable`, a function too); each has a line of source
# (`switch_source`, a dict). It exports to `ops` (the op names, then the data and expect values read) and
# `broken` (a RenderError). Its front end (`reach`, level `front`) reaches a program with `meta front = yes`
# (`meta front = bad`: a malformed answer). $SDK_PLUGIN_LANGUAGE=x86-64: the render is bytes instead, `ret` then
# every byte value 0..255 (so that a text layer anywhere would show). =outputs: it runs programs instead (run()
# below). `meta wrong = type` makes a render return the other type (bytes for C, str for machine code).
# $SDK_PLUGIN_BACKENDS=1: its handshake lists two sibling backends for triage, itself (`empty`) and uopfuzz's
# own renderer (`exact`).
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, Ran, Rendered, RenderError, RunFailure, buffer_bytes, buffer_values  # noqa: E402

SWITCHES = ["sym.py:10", "sym.py:10#2", "late.py:7"]


def switches():
  print("sdk_plugin: switches listed", file=sys.stderr)
  return SWITCHES


def reachable():
  print("sdk_plugin: reachable listed", file=sys.stderr)
  return ["sym.py:10", "late.py:7"]


SWITCH_SOURCE = {"sym.py:10": "(UPat.var('x') + 0, lambda x: x),", "sym.py:10#2": "(UPat.var('x') * 1, lambda x: x),",
                 "late.py:7": "def fold_late(x):"}


def render(program, function, off):
  if program.meta_value("crash") == "yes": os._exit(3)
  if program.meta_value("refuse"):  # with `meta use`, what took effect before it refused
    used = with_used(program, off, [], lambda _, u: u)
    raise RenderError("refused: " + program.meta_value("refuse"), program.meta_value("bucket"), used)
  if program.meta_value("raise"): raise RuntimeError(program.meta_value("raise"))
  if program.meta_value("print"): print(program.meta_value("print"))
  params = ", ".join(f"{b.dtype.ctype}* p{i}" for i, b in enumerate(program.buffers)) or "void"
  ops = " ".join(n.op.name for n in program.nodes)
  source = f"#include <stdbool.h>\n#include <stdint.h>\nvoid {function}({params}) {{ /* {ops}; off: {' '.join(sorted(off))} */ }}\n"
  if LANGUAGE == "x86-64": source = b"\xc3" + bytes(range(256))
  if program.meta_value("wrong") == "type": source = source.encode() if isinstance(source, str) else "text"
  return with_used(program, off, source, Rendered)


def with_used(program, off, out, wrap):
  use = program.meta_value("use")
  return out if use is None else wrap(out, [n for n in use.split() if n not in off])


def run(program, function, inputs, off):
  """Each data set's integer BUFFERs plus one (the others as they were), or as `meta fail = CLASS` (every data
  set that failure; with `meta signal = N`, its signal) or `meta wrong = count|slot|size|class|type|keys` (a
  wrong return) say."""
  render(program, function, off)  # refuse, raise, print, crash
  fail, wrong = program.meta_value("fail"), program.meta_value("wrong")
  signal = program.meta_value("signal")
  if fail: return [RunFailure(fail, f"{fail} as asked", *([json.loads(signal)] if signal else []))] * len(inputs)
  outputs = [{b.slot: plus_one(b.dtype, data[b.slot]) for b in program.buffers} for data in inputs]
  first = outputs[0]
  if wrong == "count": outputs.pop()
  if wrong == "slot": first.pop(program.buffers[0].slot)
  if wrong == "size": first[program.buffers[0].slot] += b"\0"
  if wrong == "class": outputs[-1] = RunFailure("segfault", "no such class")
  if wrong == "type": outputs = "not a list"
  if wrong == "keys": outputs[0] = {str(s): b for s, b in first.items()}
  return with_used(program, off, outputs, Ran)


def plus_one(dtype, data):
  return buffer_bytes(dtype, [v + 1 for v in buffer_values(dtype, data)]) if dtype.is_int else data


def export_ops(program):
  return " ".join(n.op.name for n in program.nodes) + f"\ndata {program.data}\nexpect {program.expect}\n"


def export_broken(program):
  raise RenderError("cannot export this")


def reach(program):
  """`meta front = yes`: reached by the front end, as its expect and got lines say; `meta front = bad`: a
  malformed answer (two lines of detail); else kernel."""
  front = program.meta_value("front")
  if front == "bad": return "front", "two\nlines"
  if front == "yes": return "front", f"expect {program.expect} got {program.got}"
  return "kernel", "no front-end form"


LANGUAGE = os.environ.get("SDK_PLUGIN_LANGUAGE", "c")
BACKENDS = [{"name": "empty", "renderer": os.path.abspath(__file__)},
            {"name": "exact", "renderer": f"{os.environ.get('UOPFUZZ', 'uopfuzz')} render-plugin"}]
Plugin(name="sdk-test", version="1.0", without=["mulacc"], language=LANGUAGE, switches=switches,
       backends=BACKENDS if os.environ.get("SDK_PLUGIN_BACKENDS") else None,
       reachable=reachable, switch_source=SWITCH_SOURCE,
       exports={"ops": export_ops, "broken": export_broken}, reach=reach, reach_level="front",
       **({"run": run} if LANGUAGE == "outputs" else {"render": render})).main()

# tg_peer.py: a pytest plug-in (`pytest -p tg_peer`) that counts the tinygrad rewrite rules firing in the
# pytest process, by the tinygrad adapter's switch names (tg_switches.py), for tools/tinygrad-peer-coverage:
# tinygrad's own test suite as a peer of a uopfuzz campaign. The adapter's hooks go in when pytest starts,
# for the backend UOPFUZZ_PEER_BACKEND names (clang, llvm, x86, python: its own instruction and text rules
# are no switches, as in the plug-in's handshake); at the session's end the counts, {name: count}, go to the
# JSON file UOPFUZZ_PEER_OUT: "fired" counts every firing in the process, "fired_in_kernel" only those inside
# tinygrad's kernel pipeline (do_to_program, what a uopfuzz render runs; the scheduler's own symbolic
# rewrites are outside it). Rules that fire in a process the tests start are not seen. The lines of tinygrad's
# optimizer and of the backend's renderer the tests execute are recorded too, as the adapter's `line:` features
# are (tg_lines.py; the pytest process's main thread): "lines" over the session, "lines_in_kernel" inside
# do_to_program, {file: [line, ...]}, and "line_totals" {file: executable lines}; UOPFUZZ_PEER_LINES=off leaves
# them out (on Python 3.11 they make the run two to three times as slow). With UOPFUZZ_PEER_RECORD=DIR the kernels the
# tests build are recorded there as `.uop` seeds (tg_record.py).
import collections
import importlib
import json
import os

import tg_lines
import tg_switches

RECORDER = None
IN_KERNEL = collections.Counter()  # the firings inside do_to_program
LINES = None  # the tg_lines.Recorder of the session, or None (UOPFUZZ_PEER_LINES=off)
LINES_IN_KERNEL = set()  # the (file, line)s executed inside do_to_program


def count_kernel_pipeline():
  """tinygrad's do_to_program counts its firings in IN_KERNEL too (tg_switches.FIRED is swapped while it runs)."""
  import tinygrad.codegen as codegen
  original = codegen.do_to_program

  def counted(ast, renderer):
    outside = tg_switches.FIRED
    inside = tg_switches.FIRED = collections.Counter()
    try: return lowered(original, ast, renderer)
    finally:
      tg_switches.FIRED = outside
      outside.update(inside)
      IN_KERNEL.update(inside)
  codegen.do_to_program = counted


def lowered(fn, *args):
  """fn(*args), its lines also in LINES_IN_KERNEL: recorded apart (as the adapter records a lowering), then
  joined to the session's."""
  if LINES is None: return fn(*args)
  outside = LINES.hits
  try: return LINES.lowering(fn, *args)[0]
  finally:
    LINES_IN_KERNEL.update(LINES.hits)
    outside.update(LINES.hits)
    LINES.hits = outside


def pytest_configure(config):
  global RECORDER, LINES
  backend = os.environ.get("UOPFUZZ_PEER_BACKEND", "x86")
  tg_switches.setup(importlib.import_module(f"backend_{backend}"))
  tg_switches.FIRED = collections.Counter()
  count_kernel_pipeline()
  if os.environ.get("UOPFUZZ_PEER_LINES", "on") == "on" and tg_lines.AVAILABLE:
    LINES = tg_lines.Recorder(backend)
    LINES.start()  # till the session's end
  if os.environ.get("UOPFUZZ_PEER_RECORD"):
    import tg_record
    RECORDER = tg_record.Recorder(os.environ["UOPFUZZ_PEER_RECORD"])
    RECORDER.install()


def line_keys():
  """The JSON's keys of the lines: none when they were not recorded."""
  if LINES is None: return {}
  LINES.stop()
  return {"lines": tg_lines.by_file(LINES.hits), "lines_in_kernel": tg_lines.by_file(LINES_IN_KERNEL),
          "line_totals": tg_lines.totals(os.environ.get("UOPFUZZ_PEER_BACKEND", "x86"))}


def pytest_sessionfinish(session, exitstatus):
  if RECORDER is not None: RECORDER.finish()
  with open(os.environ["UOPFUZZ_PEER_OUT"], "w", encoding="utf-8") as f:
    json.dump({"fired": dict(sorted(tg_switches.FIRED.items())), "fired_in_kernel": dict(sorted(IN_KERNEL.items())),
               "exitstatus": int(exitstatus), **line_keys()}, f)

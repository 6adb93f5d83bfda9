# tg_peer.py: a pytest plug-in (`pytest -p tg_peer`) that counts the tinygrad rewrite rules firing in the
# pytest process, by the tinygrad adapter's switch names (tg_switches.py), for tools/tinygrad-peer-coverage:
# tinygrad's own test suite as a peer of a uopfuzz campaign. The adapter's hooks go in when pytest starts,
# for the backend UOPFUZZ_PEER_BACKEND names (clang, llvm, x86, python: its own instruction and text rules
# are no switches, as in the plug-in's handshake); at the session's end the counts, {name: count}, go to the
# JSON file UOPFUZZ_PEER_OUT. Rules that fire in a process the tests start are not seen. With
# UOPFUZZ_PEER_RECORD=DIR the kernels the tests build are recorded there as `.uop` seeds (tg_record.py).
import collections
import importlib
import json
import os

import tg_switches

RECORDER = None


def pytest_configure(config):
  global RECORDER
  tg_switches.setup(importlib.import_module(f"backend_{os.environ.get('UOPFUZZ_PEER_BACKEND', 'x86')}"))
  tg_switches.FIRED = collections.Counter()
  if os.environ.get("UOPFUZZ_PEER_RECORD"):
    import tg_record
    RECORDER = tg_record.Recorder(os.environ["UOPFUZZ_PEER_RECORD"])
    RECORDER.install()


def pytest_sessionfinish(session, exitstatus):
  if RECORDER is not None: RECORDER.finish()
  with open(os.environ["UOPFUZZ_PEER_OUT"], "w", encoding="utf-8") as f:
    json.dump({"fired": dict(sorted(tg_switches.FIRED.items())), "exitstatus": int(exitstatus)}, f)

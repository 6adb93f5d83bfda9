#!/usr/bin/env python3
# opts_test.py: RANGE kinds and the `opts` line through the tinygrad adapter (plugins/tinygrad/README.md,
# "Optimizations"), on every backend, each render run as uopfuzz would run it (native_run.py): the handshake's
# `opts`; a `kind=global` loop with `opts UPCAST:0:4` vectorized and right; `THREAD:0:2` run once per core_id
# (skipped and said on python, which has no threads), on a kernel that skips a BUFFER or whose BUFFER tinygrad
# drops too, and skipped where a store outside the range would run again; a refused opt in opts_skipped
# while the render goes on; tinygrad's heuristic reported without an opts line, nothing applied with an empty
# one; UNROLL of an int REDUCE (--reduce int); PADTO of loads (built in the index form) and of an explicit gated load (skipped);
# tinygrad's PADTO gap on a reduction of its own index (190 for 136); the export's opts_to_apply; a global loop
# with ALLOC scratch inside (LOOP, its UPCAST skipped and said; WEAK and upcast with --reduce int).
# Run by CTest from the repository root; exit 77 without tinygrad or clang (llvm needs clang-16).
import json, os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

sys.path.insert(0, "plugins")
from adapter_client import ADAPTER, NEST_FILE, OUTSIDE_STORE, TMP, Adapter, global_loop, own_index_sum, vectorized  # noqa: E402

BACKENDS = ["clang", "x86", "python"] + ["llvm"] * bool(shutil.which("clang-16"))


def handshake(backend):
  r = subprocess.run([ADAPTER, "--backend", backend, "--uopfuzz-describe"], capture_output=True, text=True, timeout=120)
  return json.loads(r.stdout).get("opts", []) if r.returncode == 0 else []


for b in BACKENDS:
  names = handshake(b)
  threads, local = b != "python", b == "python"
  check({"UPCAST", "UNROLL", "PADTO"} <= set(names) and ("THREAD" in names) == threads and ("LOCAL" in names) == local
        and ("SWAP" in names) == local and "TC" not in names and ("NOLOCALS" in names) != local, f"{b}: handshake opts {names}")

for b in BACKENDS:
  a = Adapter(b)
  reply, v, why = a.ask(global_loop("opts UPCAST:0:4"))
  features = reply.get("features", [])
  check(v == "ok" and reply.get("opts_applied") == ["UPCAST:0:4"] and vectorized(b, features), f"{b}: UPCAST:0:4 {v} {why} {reply.get('opts_applied')} {features[:6]}")
  reply, v, why = a.ask(global_loop("opts THREAD:0:2"))
  if b == "python":
    ok = reply.get("opts_skipped") == ["THREAD:0:2: target does not support threads"] and "grid" in reply.get("features", [])
  else: ok = reply.get("opts_applied") == ["THREAD:0:2"] and "threads" in reply.get("features", []) and "opt:THREAD:WEAK" in reply["features"]
  check(v == "ok" and ok, f"{b}: THREAD:0:2 {v} {why} applied {reply.get('opts_applied')} skipped {reply.get('opts_skipped')}")
  # a threaded kernel that takes stack arguments and skips a BUFFER (x86: the stub's stack slots, in and out)
  reply, v, why = a.ask(global_loop("opts THREAD:0:2 UPCAST:0:2", buffers=9, spare=1))
  check(v == "ok" and reply.get("opts_applied") == (["THREAD:0:2", "UPCAST:0:2"] if b != "python" else ["UPCAST:0:2"]),
        f"{b}: THREAD:0:2 UPCAST:0:2 over 9 BUFFERs and a spare: {v} {why} {reply.get('opts_applied')}")
  # a kernel that skips a BUFFER: its PARAMs are numbered 0..n-1 all the same (tg_params), so tinygrad numbers
  # core_id after them, and each BUFFER reaches the kernel's parameter of its slot (the first one skipped too)
  for kw in (dict(buffers=9, unused=(3,)), dict(buffers=4, unused=(0,), spare=1)):
    reply, v, why = a.ask(global_loop("opts THREAD:0:2", **kw))
    check(v == "ok" and reply.get("opts_applied") == ([] if b == "python" else ["THREAD:0:2"]) and (b == "python" or "threads" in reply["features"]),
          f"{b}: THREAD:0:2 on a kernel that skips a BUFFER ({kw}) applies (python: no threads) and agrees: {v} {why} {reply.get('opts_skipped')}")
  # a BUFFER whose every load tinygrad folds away before its optimizer is numbered last, so the rest stay 0..m-1 and
  # core_id does not get a BUFFER's slot (tinygrad's bug: its linearizer would fail): THREAD applies
  reply, v, why = a.ask(global_loop("opts THREAD:0:2", buffers=4, dead=(0,)))
  check(v == "ok" and reply.get("opts_applied") == ([] if b == "python" else ["THREAD:0:2"]),
        f"{b}: THREAD:0:2 with a BUFFER tinygrad drops applies (python: no threads): {v} {why} {reply.get('opts_skipped')}")
  reply, v, why = a.ask(OUTSIDE_STORE)
  check(v == "ok" and reply.get("opts_applied") == [] and (b == "python" or "a store outside this range" in reply["opts_skipped"][0]),
        f"{b}: THREAD:0:2 beside a store outside the range that reads what the kernel writes is skipped: {v} {why} {reply.get('opts_skipped')}")
  reply, v, why = a.ask(global_loop("opts UPCAST:0:3 UNROLL:0:2 UPCAST:0:4"))
  skipped = reply.get("opts_skipped", [])
  check(v == "ok" and reply.get("opts_applied") == ["UPCAST:0:4"] and len(skipped) == 2 and skipped[0].startswith("UPCAST:0:3: 3 can't divide")
        and skipped[1].startswith("UNROLL:0:2: "), f"{b}: refused opts skipped and said {v} {why} {skipped}")
  reply, v, why = a.ask(global_loop(None))
  check(v == "ok" and reply.get("opts_applied", [None])[:1] == ["UPCAST:0:4"], f"{b}: the heuristic's opts reported {v} {reply.get('opts_applied')}")
  reply, v, why = a.ask(global_loop("opts"))
  check(v == "ok" and reply.get("opts_applied") == [] and reply.get("opts_skipped") == [], f"{b}: an empty opts line applies nothing {v} {reply.get('opts_applied')}")
  reply, v, why = a.ask(global_loop("opts PADTO:0:5 UPCAST:0:4", buffers=3))
  check(v == "ok" and reply.get("opts_applied") == ["PADTO:0:5", "UPCAST:0:4"], f"{b}: PADTO of loads (index form) {v} {why} {reply.get('opts_applied')}")
  reply, v, why = a.ask(global_loop("opts PADTO:0:5", gate=True))
  check(v == "ok" and reply.get("opts_applied") == [] and "explicit LOAD" in " ".join(reply.get("opts_skipped", [])),
        f"{b}: PADTO of a gated load skipped {v} {why} {reply.get('opts_skipped')}")
  if b == "x86":
    export = a.request(kind="export", format="tinygrad", program=global_loop("opts UPCAST:0:3 UPCAST:0:4"))
    path = os.path.join(TMP, "exported.py")
    with open(path, "w") as f: f.write(export.get("source", ""))
    r = subprocess.run([sys.executable, "-B", path], capture_output=True, text=True, timeout=300)
    check("opts_to_apply=(Opt(op=OptOps.UPCAST, axis=0, arg=4),)" in export.get("source", "") and "# skipped (tinygrad refused it): UPCAST:0:3" in
          export["source"] and r.returncode == 0, f"{b}: export with opts_to_apply runs: {r.stderr.strip()[-300:]}")
  a.close()

# an integer reduction as tinygrad's REDUCE (--reduce int): UNROLL applies; PADTO adds the padded iterations'
# own index (tinygrad masks only INDEXes): 0 + ... + 19 = 190, a tinygrad soundness gap, not the adapter's
for b in BACKENDS:
  a = Adapter(b, "--reduce", "int")
  reply, v, why = a.ask(own_index_sum("opts UNROLL:0:0"))
  check(v == "ok" and reply.get("opts_applied") == ["UNROLL:0:0"] and "opt:UNROLL:REDUCE" in reply.get("features", []), f"{b}: UNROLL:0:0 of a REDUCE {v} {why}")
  reply, v, why = a.ask(own_index_sum("opts PADTO:0:4"))
  check(v == "mismatch" and why.startswith("p0[0] = 190 expected 136"), f"{b}: PADTO:0:4 of a reduction of its own index gives 190 (tinygrad's gap): {v} {why}")
  a.close()

# a kind=global loop with an ALLOC accumulator written first in each iteration (our private scratch): tinygrad
# gets it as LOOP (its lanes would share the register buffer), the UPCAST on it skipped with the adapter's
# reason; with --reduce int the accumulator is a REDUCE, no ALLOC: WEAK, upcast and unrolled (10 26 42)
with open(NEST_FILE) as f: NEST = f.read()
for b in BACKENDS:
  for reduce in ("loop", "int"):
    a = Adapter(b, "--reduce", reduce)
    reply, v, why = a.ask(NEST)
    skipped = reply.get("opts_skipped", [])
    ok = (reply.get("opts_applied") == [] and skipped[:1] and skipped[0].startswith("UPCAST:0:3: a register accumulator inside this range")
          if reduce == "loop" else reply.get("opts_applied") == ["UPCAST:0:3", "UNROLL:1:2"] and vectorized(b, reply.get("features", [])))
    check(v == "ok" and bool(ok), f"{b} --reduce {reduce}: a global loop with ALLOC scratch {v} {why} applied {reply.get('opts_applied')} skipped {skipped}")
    a.close()
shutil.rmtree(TMP, ignore_errors=True)
finish()

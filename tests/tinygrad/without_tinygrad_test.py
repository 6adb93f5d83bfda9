#!/usr/bin/env python3
"""Without tinygrad importable, the adapter refuses at once, exit 2, saying what to do, for every backend and
for its handshake: a setup problem is no render error. It must not mistake plugins/tinygrad itself (a
directory on its own sys.path) for tinygrad. Needs no tinygrad, so it runs everywhere."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADAPTER = os.path.join(ROOT, "plugins", "tinygrad", "uopfuzz_tinygrad.py")
env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "UOPFUZZ_TINYGRAD")}
failed = []
for backend in ("clang", "llvm", "x86", "python"):
  for args in (["--uopfuzz-describe"], [os.path.join(ROOT, "tests", "programs", "alloc_after.uop"), "kernel"]):
    r = subprocess.run([sys.executable, ADAPTER, "--backend", backend, *args], cwd="/", env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ok = r.returncode == 2 and "cannot import tinygrad" in r.stderr and "PYTHONPATH" in r.stderr and not r.stdout
    print(f"--backend {backend} {' '.join(args[:1])}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    if not ok: failed.append(backend)
sys.exit(f"not refused as a setup problem: {failed}" if failed else 0)

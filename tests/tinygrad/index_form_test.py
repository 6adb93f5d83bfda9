#!/usr/bin/env python3
# The tinygrad adapter's `--index weak` (plugins/tinygrad/README.md, "Index arithmetic"): loop variables and
# index arithmetic built in tinygrad's weakint, as its own front end builds kernels. Every example program
# that fits the x86 backend gives the same verdict as with `--index i32` (the lift keeps our meaning), the
# lifted form fires index rules (symbolic, div-and-mod) the i32 form does not, and a bad form is exit 2.
import glob, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

UOPFUZZ = os.environ["UOPFUZZ"]
ADAPTER = "plugins/tinygrad/uopfuzz_tinygrad.py"


def verdict(path, index):
  r = subprocess.run([UOPFUZZ, "run", path, "--renderer-cmd", f"{ADAPTER} --backend x86 --index {index}"],
                     capture_output=True, text=True, timeout=240)
  return next((l.split(":", 1)[1].split()[0] for l in r.stdout.splitlines() if l.startswith("verdict:")), f"exit {r.returncode}")


def used(path, index):
  server = subprocess.Popen([ADAPTER, "--backend", "x86", "--index", index, "--uopfuzz-serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
  with open(path) as f: server.stdin.write(json.dumps({"id": 1, "kind": "render", "function": "k", "program": f.read()}) + "\n")
  server.stdin.close()
  reply = json.loads(server.stdout.readline())
  server.wait(timeout=60)
  return set(reply.get("used", []))


for path in sorted(glob.glob("tests/programs/loop_*.uop")) + ["tests/programs/divmod_fast.uop"]:
  a, b = verdict(path, "i32"), verdict(path, "weak")
  check(a == b, f"{os.path.basename(path)}: --index weak gives {b}, as --index i32 gives {a}")
weak, narrow = used("tests/programs/loop_nest_divmod.uop", "weak"), used("tests/programs/loop_nest_divmod.uop", "i32")
new = sorted(weak - narrow)
check(any(n.startswith(("uop/symbolic.py", "uop/divandmod.py")) for n in new),
      f"loop_nest_divmod: weakint indices fire index rules the i32 form does not: {new[:8]}")
bad = subprocess.run([ADAPTER, "--index", "wide", "--uopfuzz-describe"], capture_output=True, text=True, timeout=60)
check(bad.returncode == 2 and "unknown index 'wide'" in bad.stderr, f"--index wide: exit {bad.returncode}, {bad.stderr.strip()}")
finish()

# The standalone Tensor reproducers of corpus/tinygrad/standalone/ fail as docs/findings.md says: the
# where-closure SIGFPE (where-closure-sigfpe-tensor.py) is killed by SIGFPE on CPU:X86 and CPU:LLVM and prints
# [0, 7, 3, 2] on CPU:CLANG and PYTHON; Tensor.arange(17).sum() under PADTO:0:32 (padto-arange-sum-tensor.py)
# prints 496, not 136, on all four.
import os, shutil, signal, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402

SCRIPT = os.path.join("corpus", "tinygrad", "standalone", "where-closure-sigfpe-tensor.py")
WANT = {"CPU:X86": -signal.SIGFPE, "CPU:LLVM": -signal.SIGFPE, "CPU:CLANG": 0, "PYTHON": 0}
for dev, code in WANT.items():
  if dev == "CPU:LLVM" and not shutil.which("clang-16"):
    print(f"skip {dev}: no LLVM 16 here")
    continue
  r = subprocess.run([sys.executable, "-B", SCRIPT], env={**os.environ, "DEV": dev}, capture_output=True, text=True, timeout=600)
  check(r.returncode == code and (code != 0 or r.stdout.strip() == "[0, 7, 3, 2]"),
        f"{dev}: exit {r.returncode} (want {code}), stdout {r.stdout.strip()!r} {r.stderr.strip()[-200:]!r}")
PADTO_SCRIPT = os.path.join("corpus", "tinygrad", "standalone", "padto-arange-sum-tensor.py")
for dev in WANT:
  if dev == "CPU:LLVM" and not shutil.which("clang-16"): continue
  r = subprocess.run([sys.executable, "-B", PADTO_SCRIPT], env={**os.environ, "DEV": dev}, capture_output=True, text=True, timeout=600)
  check(r.returncode == 1 and r.stdout.strip() == "496", f"{dev} arange(17).sum() under PADTO:0:32: exit {r.returncode}, stdout "
        f"{r.stdout.strip()!r} {r.stderr.strip()[-200:]!r}")
finish()

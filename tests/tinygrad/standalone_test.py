# The standalone Tensor reproducer of the where-closure SIGFPE (corpus/tinygrad/standalone/
# where-closure-sigfpe-tensor.py) fails as docs/findings.md says: killed by SIGFPE on CPU:X86 and CPU:LLVM,
# [0, 7, 3, 2] on CPU:CLANG and PYTHON.
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
finish()

"""What the tinygrad tests share: tinygrad importable (from UOPFUZZ_TINYGRAD, put on PYTHONPATH for the
processes a test starts too) and clang found, else exit 77, CTest's skip; and one check/finish pair that
prints each check and exits 1 when any failed."""
import os, shutil, sys

if os.environ.get("UOPFUZZ_TINYGRAD"):
  sys.path.insert(0, os.environ["UOPFUZZ_TINYGRAD"])
  os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ["UOPFUZZ_TINYGRAD"], os.environ.get("PYTHONPATH")]))
try:
  import tinygrad  # noqa: F401
except ImportError:
  print("SKIPPED: tinygrad is not importable (put a tinygrad checkout on PYTHONPATH, or set UOPFUZZ_TINYGRAD)")
  sys.exit(77)
if not shutil.which("clang"):
  print("SKIPPED: clang not found (tinygrad's CPU device compiles with clang)")
  sys.exit(77)
sys.dont_write_bytecode = True

failures = []


def check(ok, what):
  print(("ok   " if ok else "FAIL ") + what)
  if not ok: failures.append(what)


def finish():
  print(f"{len(failures)} failures")
  sys.exit(1 if failures else 0)

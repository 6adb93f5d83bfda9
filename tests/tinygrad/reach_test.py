#!/usr/bin/env python3
# Whether users reach a tinygrad finding (the adapter's `reach`, level `tensor`: plugins/tinygrad/tg_tensor.py,
# through `uopfuzz triage` and `export --as tinygrad-tensor`). Every file of corpus/tinygrad/ carries the
# `meta reachable` that triage gives it now; the NEG (x86) and cast-range (python) findings are reached from
# Tensor code, whose exported tests fail with DEV unset (the test picks its renderer) and, for NEG, pass on
# the backends that are right (CPU:CLANG, CPU:LLVM), cast-range's on CPU:X86 too; the regalloc finding is kernel-only. A Tensor form that
# computes the expected values is `kernel`, as is one that fails otherwise than the finding's got lines say.
# Run from the repository root with tinygrad on PYTHONPATH (or UOPFUZZ_TINYGRAD); exit 77 without it.
import glob, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

UOPFUZZ = os.environ["UOPFUZZ"]
X86 = "corpus/tinygrad/x86/"
NEG, CAST_RANGE = X86 + "neg-float-as-zero-minus-loses-sign.uop", "corpus/tinygrad/python/cast-range-clamps-not-wraps.uop"
REGALLOC = X86 + "regalloc-no-register-for-bool-sub.uop"
UPCAST = X86 + "upcast-of-narrowing-cast-keeps-wide-value.uop"  # an optimizer finding: its opts line's reach
tmp = tempfile.mkdtemp()


def meta_reachable(path):
  with open(path) as f: return next((l[len("meta reachable = "):].rstrip("\n") for l in f if l.startswith("meta reachable = ")), None)


def triage_reach(path):
  """What `uopfuzz triage` says now of the file's reachability (written to a copy: the corpus is not touched)."""
  r = subprocess.run([UOPFUZZ, "triage", "--no-blame", "--no-culprit", "--no-backends", path], capture_output=True, text=True, timeout=600)
  line = next((l.strip() for l in r.stdout.splitlines() if l.strip().startswith("reachable: ")), None)
  return line[len("reachable: "):] if line else f"nothing (exit {r.returncode}): {r.stderr[-300:]}"


def run_test(source, name):
  path = os.path.join(tmp, f"test_{name}.py")
  with open(path, "w") as f: f.write(source)
  env = {k: v for k, v in os.environ.items() if k != "DEV"}
  r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300, cwd=tmp, env=env)
  return r.returncode, r.stdout + r.stderr


files = sorted(glob.glob("corpus/tinygrad/*.uop") + glob.glob("corpus/tinygrad/*/*.uop"))
for f in files:
  recorded, now = meta_reachable(f), triage_reach(f)
  check(recorded is not None and recorded.split(" ")[0] in ("tensor", "kernel"), f"{f}: meta reachable = {recorded}")
  check(recorded == now, f"{f}: triage now says the same: {now}")

check((meta_reachable(NEG) or "").startswith("tensor (the Tensor form gives buf0[0] = 0.0, expected -0.0"), f"{NEG}: tensor")
check((meta_reachable(CAST_RANGE) or "").startswith("tensor (the Tensor form gives buf4[0] = 0, expected 1"), f"{CAST_RANGE}: tensor")
check((meta_reachable(REGALLOC) or "").startswith("kernel (no Tensor form"), f"{REGALLOC}: kernel")
check((meta_reachable(UPCAST) or "").endswith("tinygrad's heuristic picks no opt for the kernel, not this sequence; "
                                              "BEAM's actions hold each step (BEAM=N may pick it))"), f"{UPCAST}: heuristic and BEAM")

# the Tensor tests: fail under tinygrad's defaults (DEV unset), pass where the backend is right
for f, right, wrong in ((NEG, ("CPU:CLANG", "CPU:LLVM"), ()), (CAST_RANGE, (), ("CPU:X86",))):
  r = subprocess.run([UOPFUZZ, "export", f, "--as", "tinygrad-tensor"], capture_output=True, text=True, timeout=300)
  check(r.returncode == 0 and "from tinygrad import Tensor" in r.stdout, f"{f}: export --as tinygrad-tensor (exit {r.returncode}) {r.stderr[-200:]}")
  if r.returncode != 0: continue
  code, out = run_test(r.stdout, os.path.basename(f)[:-4].replace("-", "_"))
  check(code == 1 and "FAILED (failures=1)" in out and " expected " in out, f"{f}: its Tensor test fails with DEV unset: {out[-300:]}")
  dev = next(l.split("DEV='")[1].split("'")[0] for l in r.stdout.splitlines() if "with Context(DEV=" in l)
  for other in right:
    code, out = run_test(r.stdout.replace(f"DEV='{dev}'", f"DEV='{other}'"), "right")
    check(code == 0 and "OK" in out, f"{f}: its Tensor test passes on {other}: {out[-300:]}")
  for other in wrong:  # a front-end bug: every backend gets it
    code, out = run_test(r.stdout.replace(f"DEV='{dev}'", f"DEV='{other}'"), "wrong")
    check(code == 1 and "FAILED (failures=1)" in out, f"{f}: its Tensor test fails on {other} too: {out[-300:]}")

# kernel when the Tensor form computes right, or fails but not as the got lines say
with open(NEG) as src: neg = src.read()
for name, text, want in (("right data", neg.replace("data 1 = 0.0", "data 1 = 1.5").replace("expect 0 = -0.0", "expect 0 = -1.5")
                          .replace("expect 1 = 0.0", "expect 1 = 1.5").replace("got 0 = 0.0\n", ""), "kernel (the Tensor form computes the expected values)"),
                         ("other got", neg.replace("got 0 = 0.0", "got 0 = 7.0"), "kernel (the Tensor form differs, but not as the kernel does (buf0[0]))")):
  path = os.path.join(tmp, name.replace(" ", "_") + ".uop")
  with open(path, "w") as f: f.write(text)
  got = triage_reach(path)
  check(got == want, f"{name}: {got}")
finish()

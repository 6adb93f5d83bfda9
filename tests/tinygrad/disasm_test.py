#!/usr/bin/env python3
# The evidence of an x86 encoder bug (plugins/tinygrad/tg_disasm.py): each instruction X86Renderer encodes,
# beside binutils' objdump decoding of the same bytes. The two encoder findings of corpus/tinygrad/x86/ show
# the same defect (a CMP with an immediate shorter than its operand: objdump reads more bytes than tinygrad
# wrote), the NEG finding decodes as encoded, and the two files' culprit (written from this evidence) makes
# them one group (`uopfuzz corpus merge`). Run from the repository root with tinygrad on PYTHONPATH (or
# UOPFUZZ_TINYGRAD); exit 77 without it or without objdump.
import os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

if not shutil.which("objdump"):
  print("SKIPPED: objdump not found (binutils)")
  sys.exit(77)
X86 = "corpus/tinygrad/x86/"
ENCODER = ("cmp16-imm-without-operand-size-prefix.uop", "floordiv-u8-chain-gives-255.uop")


def disasm(name):
  r = subprocess.run([sys.executable, "-B", "plugins/tinygrad/tg_disasm.py", X86 + name], capture_output=True, text=True, timeout=300)
  return r.returncode, r.stdout + r.stderr


for name in ENCODER:
  code, out = disasm(name)
  m = re.search(r"first wrong encoding at 0x[0-9a-f]+: tinygrad meant `(cmp \w+, 0)` as (\d) bytes \(([0-9a-f ]+)\); objdump reads (\d) bytes there: `cmp ", out)
  check(code == 1 and m is not None, f"{name}: the first wrong encoding is a compare with an immediate: {out.splitlines()[-1] if out else ''}")
  if m:
    check(int(m[4]) > int(m[2]) and "81" in m[3].split()[:4], f"{name}: `81 /7 imm` read longer than written ({m[2]} -> {m[4]} bytes)")
code, out = disasm("neg-float-as-zero-minus-loses-sign.uop")
check(code == 0 and "every instruction decodes as tinygrad encoded it" in out, f"NEG decodes as encoded: {out.splitlines()[-1] if out else ''}")

# one cause, one group, though one shows as a crash and the other as a mismatch
with tempfile.TemporaryDirectory() as tmp:
  for name in ENCODER: shutil.copy(X86 + name, tmp)
  r = subprocess.run([os.environ["UOPFUZZ"], "corpus", "merge", tmp, "-o", os.path.join(tmp, "merged")], capture_output=True, text=True, timeout=120)
  groups = [l for l in (r.stdout + r.stderr).splitlines() if l.startswith("corpus merge: group ")]
  check(r.returncode == 0 and len(groups) == 1 and "tinygrad-x86 encoder: CMPi" in groups[0] and "2 buckets" in groups[0],
        f"the two encoder findings are one group: {groups or r.stdout[-300:] + r.stderr[-300:]}")
finish()

#!/usr/bin/env python3
# `uopfuzz agree` on tinygrad's four CPU backends (docs/semantics.md, "Approximate ops: backends agree"):
# SIN f32 of -13.25 alone, where CPU:CLANG's C adds xsin's Cody-Waite parts in another order (bug 17,
# renderer/cstyle.py:65) and llvm and x86 agree with each other; python, which computes SIN with Python's
# math, is not compared on it. At 0.5 all three agree. EXP2 f16 of -23 is compared on clang and x86 (llvm
# and python take no f16) and both flush it alike (bug 19): they agree, wrong together, the budget's to say.
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

ADAPTER = "plugins/tinygrad/uopfuzz_tinygrad.py --backend x86"


def one_op(op, dtype, x):
  return (f"uops 1\n%0 = BUFFER {dtype}[1] slot=0\n%1 = BUFFER {dtype}[1] slot=1\n%2 = CONST i32 0\n%3 = INDEX {dtype} %0 %2\n"
          f"%4 = LOAD {dtype} %3\n%5 = {op} {dtype} %4\n%6 = INDEX {dtype} %1 %2\n%7 = STORE void %6 %5\n%8 = SINK void %7\n"
          f"data 0 = {x}\ndata 1 = 0.0\n")


def agree(text):
  with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f: f.write(text)
  try: return subprocess.run([os.environ["UOPFUZZ"], "agree", f.name, "--renderer-cmd", ADAPTER], capture_output=True, text=True, timeout=600)
  finally: os.unlink(f.name)


r = agree(one_op("SIN", "f32", "-13.25"))
check(r.returncode == 1 and "disagree SIN f32 clang llvm=x86: 1 results" in r.stdout, f"SIN f32(-13.25): exit {r.returncode}\n{r.stdout}{r.stderr}")
check("clang -0.6316106915473938 (ulp 2.5); llvm and x86 -0.63161098957061768 (ulp 0.016)" in r.stdout, "the values and their errors")
r = agree(one_op("SIN", "f32", "0.5"))
check(r.returncode == 0 and "compared 1 (SIN f32 1), disagreements 0" in r.stdout, f"SIN f32(0.5): exit {r.returncode}\n{r.stdout}{r.stderr}")
r = agree(one_op("EXP2", "f16", "-23.0"))
check(r.returncode == 0 and "compared 1 (EXP2 f16 1), disagreements 0" in r.stdout and "llvm left out" in r.stdout,
      f"EXP2 f16(-23): exit {r.returncode}\n{r.stdout}{r.stderr}")
finish()

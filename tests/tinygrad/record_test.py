#!/usr/bin/env python3
# plugins/tinygrad/tg_record.py: the kernels a tinygrad program builds, recorded as `.uop` seeds. A small
# Tensor program (a sum over an axis, a max, a pad, a masked cast, integer arithmetic) is recorded on
# tinygrad's PYTHON device; every kernel it builds is either a file uopfuzz reads or counted as skipped; the
# shapes that matter come through (an accumulator loop for a reduction, a gated load for a pad, several
# RANGEs); and the lifted kernels compute what tinygrad computed: our reference interpreter, given the
# tensors' values as data, gives tinygrad's results. A missing script is exit 2.
import glob, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

UOPFUZZ = os.environ["UOPFUZZ"]
RECORD = "plugins/tinygrad/tg_record.py"
A, B, C = [[1.5, -2.0, 3.0], [4.0, 5.25, -6.0]], [1.0, 2.0, 3.0], [7, -3, 12, 5, -8, 100]
SCRIPT = f"""
import json
from tinygrad import Tensor, dtypes
a, b, c = Tensor({A}), Tensor({B}), Tensor({C}, dtype=dtypes.int32)
out = {{"sum": (a + b).sum(axis=1).tolist(), "max": (a * 2).max().tolist(), "pad": a.pad(((1, 1), (0, 2))).tolist(),
        "where": (a < 3).where(a, 0).cast(dtypes.int32).tolist(), "int": ((c * 3 + 1) // 4 % 5).tolist()}}
print("RESULTS " + json.dumps(out))
"""


def interp(path, data):
  """Our reference's outputs of a recorded kernel, given data per slot: {slot: [values]}."""
  with open(path, encoding="utf-8") as f: text = f.read()
  text += "".join(f"data {slot} = {' '.join(map(str, values))}\n" for slot, values in data.items())
  with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f: f.write(text)
  r = subprocess.run([UOPFUZZ, "interp", f.name], capture_output=True, text=True, timeout=60)
  os.unlink(f.name)
  return {int(m[1]): [float(v) for v in m[2].split()] for m in re.finditer(r"^expect (\d+) = (.*)$", r.stdout, re.M)}


def buffers(text):
  return {int(m[3]): (m[1], int(m[2])) for m in re.finditer(r"BUFFER (\w+)\[(\d+)\] slot=(\d+)", text)}


def flat(x): return [v for row in x for v in row] if x and isinstance(x[0], list) else x


with tempfile.TemporaryDirectory() as tmp:
  script, out = os.path.join(tmp, "tensors.py"), os.path.join(tmp, "seeds")
  with open(script, "w", encoding="utf-8") as f: f.write(SCRIPT)
  r = subprocess.run([sys.executable, "-B", RECORD, "--out", out, "--uopfuzz", UOPFUZZ, script], capture_output=True, text=True,
                     timeout=600, env={**os.environ, "DEV": "PYTHON"})
  check(r.returncode == 0, f"tg_record.py ran the script (exit {r.returncode}) {r.stderr.strip()[-400:]}")
  results = json.loads(next(l for l in r.stdout.splitlines() if l.startswith("RESULTS "))[8:]) if "RESULTS " in r.stdout else {}
  with open(os.path.join(out, "record.json"), encoding="utf-8") as f: summary = json.load(f)
  print(json.dumps(summary))
  check(summary["invalid"] == {}, f"every recorded file is one uopfuzz reads: invalid {summary['invalid']}")
  check(summary["valid"] >= 5, f"{summary['valid']} distinct kernels recorded of {summary['kernels']}")
  check(summary["recorded"] + sum(summary["skipped"].values()) == summary["kernels"], "every kernel is recorded or counted as skipped")
  files = {p: open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(out, "*.uop"))}
  check(any("ALLOC" in t and "END" in t for t in files.values()), "a reduction is an accumulator loop (ALLOC ... END)")
  check(any(re.search(r"LOAD \w+ %\d+ %\d+ %\d+", t) for t in files.values()), "a pad is a gated LOAD")
  check(any(len(re.findall(r"= RANGE ", t)) >= 2 for t in files.values()), "a kernel with two RANGEs")
  # what the lifted kernels compute: inputs recognised by their length
  by_shape = {6: flat(A), 3: B}
  for name, want in (("sum", results.get("sum")), ("where", flat(results.get("where") or [])), ("int", results.get("int"))):
    inputs = {6: C, 3: B} if name == "int" else by_shape
    got = None
    for path, text in files.items():
      bufs = buffers(text)
      outs = [s for s, (dt, n) in bufs.items() if s == 0 and n == len(want or [])]
      if not outs or not all(n in inputs for s, (dt, n) in bufs.items() if s != 0): continue
      if name == "int" and bufs[0][0] != "i32" or name == "where" and (bufs[0][0] != "i32" or "CMPLT" not in text): continue
      if name == "sum" and "ALLOC" not in text: continue
      got = interp(path, {s: inputs[n] for s, (dt, n) in bufs.items() if s != 0}).get(0)
      break
    check(want is not None and got == [float(v) for v in want], f"{name}: the lifted kernel computes tinygrad's {want}: {got}")
bad = subprocess.run([sys.executable, "-B", RECORD, "--out", "/tmp/never", "/nonexistent.py"], capture_output=True, text=True, timeout=60)
check(bad.returncode == 2 and "no such file" in bad.stderr, f"a missing script: exit {bad.returncode}, {bad.stderr.strip()[-200:]}")
finish()

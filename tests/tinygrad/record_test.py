#!/usr/bin/env python3
# plugins/tinygrad/tg_record.py: the kernels a tinygrad program builds, recorded as `.uop` seeds. A small
# Tensor program (a sum over an axis, a max, a pad, a masked cast, integer arithmetic) is recorded on
# tinygrad's PYTHON device; every kernel it builds is either a file uopfuzz reads or counted as skipped; the
# shapes that matter come through (an accumulator loop for a reduction, a gated load for a pad, several
# RANGEs); and the lifted kernels compute what tinygrad computed: our reference interpreter, given the
# tensors' values as data, gives tinygrad's results. A missing script is exit 2. Kernels compiled with
# opts_to_apply (as tinygrad's optimizer tests do) on CPU:X86: an int sum with UPCAST and UNROLL gets them as
# its opts line on the axis numbers of its kind=global and kind=reduce RANGEs (and the adapter applies exactly
# those), an empty opts_to_apply an empty line, none no line; an UPCAST of a range tinygrad split in two
# (both parts keep its number) cannot be written: counted in record.json, the empty prefix written. A sum of
# squared sums (a REDUCE inside another one's loop, the outer on the higher axis) nests its RANGEs outer first.
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


def record(tmp, source, dev):
  """tg_record.py run on the script `source` under DEV=dev, into tmp/seeds: (its run, the seed dir, record.json)."""
  script, out = os.path.join(tmp, "script.py"), os.path.join(tmp, "seeds")
  with open(script, "w", encoding="utf-8") as f: f.write(source)
  r = subprocess.run([sys.executable, "-B", RECORD, "--out", out, "--uopfuzz", UOPFUZZ, script], capture_output=True, text=True,
                     timeout=600, env={**os.environ, "DEV": dev})
  check(r.returncode == 0, f"tg_record.py ran the script under {dev} (exit {r.returncode}) {r.stderr.strip()[-400:]}")
  with open(os.path.join(out, "record.json"), encoding="utf-8") as f: summary = json.load(f)
  print(json.dumps(summary))
  return r, out, summary


with tempfile.TemporaryDirectory() as tmp:
  r, out, summary = record(tmp, SCRIPT, "PYTHON")
  results = json.loads(next(l for l in r.stdout.splitlines() if l.startswith("RESULTS "))[8:]) if "RESULTS " in r.stdout else {}
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
      # (the where kernel also stores i32[6] from a buffer of 6: the int one reads i32 only)
      if name == "int" and any(dt != "i32" for dt, n in bufs.values()) or name == "where" and (bufs[0][0] != "i32" or "CMPLT" not in text): continue
      if name == "sum" and "ALLOC" not in text: continue
      got = interp(path, {s: inputs[n] for s, (dt, n) in bufs.items() if s != 0}).get(0)
      break
    check(want is not None and got == [float(v) for v in want], f"{name}: the lifted kernel computes tinygrad's {want}: {got}")
OPTS_SCRIPT = """
from tinygrad import Device, dtypes
from tinygrad.codegen import to_program
from tinygrad.codegen.opt import Opt, OptOps
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp
def sum_kernel(opts):  # out[g] = the sum of a[g*6 + r] over r < 6, for g < 4: axis 0 WEAK, axis 1 REDUCE
  a, out = UOp.param(1, dtypes.int32, (24,)), UOp.param(0, dtypes.int32, (4,))
  g, r = UOp.range(4, 0, AxisType.WEAK), UOp.range(6, 1, AxisType.REDUCE)
  info = KernelInfo(name="sum") if opts is None else KernelInfo(name="sum", opts_to_apply=tuple(opts))
  return out.index(g).store(a.index(g * 6 + r).reduce(r, arg=Ops.ADD)).end(g).sink(arg=info)
def transpose_kernel(opts):  # out[i] = a[(i % 4) * 4 + i // 4]: tinygrad splits range 0 at % 4 in two
  a, out = UOp.param(1, dtypes.int32, (16,)), UOp.param(0, dtypes.int32, (16,))
  i = UOp.range(16, 0, AxisType.WEAK)
  return out.index(i).store(a.index((i % 4) * 4 + i // 4)).end(i).sink(arg=KernelInfo(name="transpose", opts_to_apply=tuple(opts)))
def sum_of_squares_kernel():  # out[0] = the sum over j < 6 of (the sum of a[j*4 + i] over i < 4)**2: REDUCE 1 around REDUCE 0
  a, out = UOp.param(1, dtypes.int32, (24,)), UOp.param(0, dtypes.int32, (1,))
  i, j = UOp.range(4, 0, AxisType.REDUCE), UOp.range(6, 1, AxisType.REDUCE)
  inner = a.index(j * 4 + i).reduce(i, arg=Ops.ADD)
  return out.index(0).store((inner * inner).reduce(j, arg=Ops.ADD)).sink(arg=KernelInfo(name="sumsq"))
for ast in (sum_kernel([Opt(OptOps.UPCAST, 0, 2), Opt(OptOps.UNROLL, 0, 3)]), sum_kernel([]), sum_kernel(None),
            transpose_kernel([Opt(OptOps.UPCAST, 0, 2)]), sum_of_squares_kernel()):
  to_program(ast, Device[Device.DEFAULT].renderer)
"""


def adapter_applies(text):
  """The x86 adapter's reply to a render of text (server mode): (opts_applied, opts_skipped)."""
  request = json.dumps({"id": 1, "kind": "render", "function": "k", "program": text}) + "\n"
  r = subprocess.run([sys.executable, "-B", "plugins/tinygrad/uopfuzz_tinygrad.py", "--backend", "x86", "--index", "weak", "--reduce", "int",
                      "--uopfuzz-serve"], input=request, capture_output=True, text=True, timeout=300)
  reply = json.loads(r.stdout.splitlines()[0]) if r.stdout.strip() else {"error": r.stderr[-300:]}
  return reply.get("opts_applied"), reply.get("opts_skipped", reply.get("error"))


def range_kinds(text):
  """{axis: kind} of the RANGEs of a .uop text."""
  return {int(m[1]): m[2] or "loop" for m in re.finditer(r"= RANGE \w+ (\d+) %\d+(?: kind=(\w+))?$", text, re.M)}


with tempfile.TemporaryDirectory() as tmp:
  r, out, summary = record(tmp, OPTS_SCRIPT, "CPU:X86")
  files = [open(p, encoding="utf-8").read() for p in sorted(glob.glob(os.path.join(out, "*.uop")))]
  sums = {(re.search(r"^opts.*$", t, re.M) or [None])[0]: t for t in files if "kernel sum" in t}
  check(set(sums) == {"opts UPCAST:0:2 UNROLL:1:3", "opts", None}, f"the sum kernel's opts lines: {sorted(map(str, sums))}")
  upcast = sums.get("opts UPCAST:0:2 UNROLL:1:3", "")
  check(range_kinds(upcast) == {0: "global", 1: "reduce"}, f"UPCAST names the kind=global RANGE, UNROLL the kind=reduce one: {range_kinds(upcast)}")
  check("meta tinygrad_opts = UPCAST:0:2 UNROLL:0:3" in upcast, "tinygrad's own opts (its axes) as meta tinygrad_opts")
  check(adapter_applies(upcast) == (["UPCAST:0:2", "UNROLL:1:3"], []), f"the adapter applies the recorded opts: {adapter_applies(upcast)}")
  split = next((t for t in files if "kernel transpose" in t), "")
  check(re.search(r"^opts$", split, re.M) is not None and "meta tinygrad_opts = UPCAST:0:2" in split,
        "an UPCAST of a split range: the empty prefix written, tinygrad's opts in meta")
  check(summary["opts"] == {"listed": 3, "whole": 2, "cut": {"opts: a step on a part of a range tinygrad split": 1}},
        f"record.json counts the listed, whole and cut opts: {summary['opts']}")
  check(summary["with_opts"] == 3 and summary["invalid"] == {},
        f"three files with an opts line, all valid: {summary['with_opts']}, {summary['invalid']}")
  # a reduction inside another one's loop: the outer RANGE (axis 1) comes first, whatever the numbers say
  nested = next((t for t in files if "kernel sumsq" in t), "")
  check(list(range_kinds(nested)) == [1, 0], f"a sum of squared sums nests its RANGEs outer first: {list(range_kinds(nested))}")
  if nested:
    with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f: f.write(nested)
    got = interp(f.name, {1: list(range(24))}).get(0)
    os.unlink(f.name)
    check(got == [float(sum(sum(j * 4 + i for i in range(4)) ** 2 for j in range(6)))], f"and computes the sum of squared sums: {got}")
bad = subprocess.run([sys.executable, "-B", RECORD, "--out", "/tmp/never", "/nonexistent.py"], capture_output=True, text=True, timeout=60)
check(bad.returncode == 2 and "no such file" in bad.stderr, f"a missing script: exit {bad.returncode}, {bad.stderr.strip()[-200:]}")
finish()

#!/usr/bin/env python3
# The tinygrad adapter's options beside --backend (plugins/tinygrad/README.md): `--index weak` builds loop
# variables and index arithmetic in tinygrad's weakint, as its own front end builds kernels: every example
# loop gives the same verdict as with `--index i32` (the lift keeps our meaning), and the lifted form fires
# index rules (symbolic, div-and-mod) the i32 form does not. `--emulate long` has tinygrad emulate i64 as
# two 32-bit words: its handshake drops f64 (tinygrad's renderer then lacks double), i64 arithmetic still
# agrees, and tinygrad's long decomposition rules fire. `--reduce int` gives integer accumulator loops to
# tinygrad as its REDUCE: every example loop keeps its verdict, and tinygrad's reduction rules fire (a
# masked sum of a loop-invariant value, tinygrad's arange shape, collapses).
# `--load index` builds a load used as data as its INDEX (tinygrad adds the LOADs late): every example loop
# keeps its verdict, and a WHERE over a loaded value moves into the load's gate (where_on_load, both
# polarities), which no explicit LOAD lets it do. `--store value` writes a gated store's value as Invalid
# where the gate is false (tinygrad's masked stores): the example loops keep their verdicts (`--store
# both`), and tinygrad moves the gate out through the value's op to the store. `--emulate bfloat16` has the
# adapter take bf16, which tinygrad emulates as float: a bf16 kernel agrees on x86 (bf16_ops.uop; clang,
# llvm and python agree too, checked by hand), and the float decomposition rules fire. `--neg front` writes
# NEG and SUB as x * -1 (tinygrad's front end): the example loops keep their verdicts (`--neg both`), and
# its rules on -1 * (x + c) fire. A division by -1 of a numerator tinygrad bounds above MIN needs no guard:
# its x // -1 rule fires. A bad value is exit 2. The defaults are the front end's forms (all of the above);
# each check starts from the other forms (BASE, the defaults before) and adds the option it is about, and
# the adapter without options fires what it does with the six options spelled out. `--emulate none` (or
# an empty value) emulates nothing.
import glob, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

UOPFUZZ = os.environ["UOPFUZZ"]
ADAPTER = "plugins/tinygrad/uopfuzz_tinygrad.py"
# the forms other than the front end's (the adapter's defaults before issue 51): a later option overrides
BASE = ["--emulate", "none", "--reduce", "loop", "--load", "explicit", "--store", "index", "--neg", "op"]
FRONT_END = ["--index", "weak", "--emulate", "long,bfloat16,fp8e4m3", "--reduce", "int", "--load", "index", "--store", "both", "--neg", "both"]


def verdict(path, index, more=""):
  r = subprocess.run([UOPFUZZ, "run", path, "--renderer-cmd", f"{ADAPTER} --backend x86 {' '.join(BASE)} --index {index} {more}"],
                     capture_output=True, text=True, timeout=240)
  return next((l.split(":", 1)[1].split()[0] for l in r.stdout.splitlines() if l.startswith("verdict:")), f"exit {r.returncode}")


def used(path, index, *more, base=BASE):
  server = subprocess.Popen([ADAPTER, "--backend", "x86", *base, "--index", index, *more, "--uopfuzz-serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
  with open(path) as f: server.stdin.write(json.dumps({"id": 1, "kind": "render", "function": "k", "program": f.read()}) + "\n")
  server.stdin.close()
  reply = json.loads(server.stdout.readline())
  server.wait(timeout=60)
  return set(reply.get("used", []))


for path in sorted(glob.glob("tests/programs/loop_*.uop")) + ["tests/programs/divmod_fast.uop"]:
  # the options at once: one run less each
  a, b = verdict(path, "i32"), verdict(path, "weak", "--reduce int --load index --store both --neg both")
  check(a == b, f"{os.path.basename(path)}: --index weak --reduce int --load index --store both --neg both gives {b}, as --index i32 gives {a}")
weak, narrow = used("tests/programs/loop_nest_divmod.uop", "weak"), used("tests/programs/loop_nest_divmod.uop", "i32")
new = sorted(weak - narrow)
check(any(n.startswith(("uop/symbolic.py", "uop/divandmod.py")) for n in new),
      f"loop_nest_divmod: weakint indices fire index rules the i32 form does not: {new[:8]}")
I64 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "i64_ops.uop")
describe = subprocess.run([ADAPTER, "--backend", "x86", "--emulate", "long", "--uopfuzz-describe"], capture_output=True, text=True, timeout=60)
check("f64" not in json.loads(describe.stdout)["without"], "--emulate long: f64 is still taken (its kernels get long native)")
check(verdict(I64, "i32", "--emulate long") == "ok", "--emulate long: i64 ADD, MUL, SHR, CMPLT, MAX, XOR agree")
long_rules = sorted(n for n in used(I64, "i32", "--emulate", "long") - used(I64, "i32") if n.startswith("codegen/decomp/dtype.py"))
check(len(long_rules) >= 5, f"--emulate long fires tinygrad's long decomposition: {long_rules}")
as_reduce = used("tests/programs/loop_sum.uop", "weak", "--reduce", "int") - used("tests/programs/loop_sum.uop", "weak")
check(any(n.startswith(("codegen/__init__.py", "codegen/simplify.py")) for n in as_reduce),
      f"--reduce int: an i32 accumulator loop is tinygrad's REDUCE, its rules fire: {sorted(as_reduce)[:8]}")
SUM = "tests/programs/loop_masked_sum.uop"
collapsed = sorted(n for n in used(SUM, "weak", "--reduce", "int", "--load", "index") if n.startswith("codegen/simplify.py"))
check(len(collapsed) >= 2, f"--reduce int: a masked sum of a loop-invariant value collapses (reduce_load_collapse): {collapsed}")
MASKED = "tests/programs/loop_masked_read.uop"
as_index = used(MASKED, "weak", "--load", "index") - used(MASKED, "weak")
source = json.loads(subprocess.run([ADAPTER, "--backend", "x86", "--uopfuzz-describe"], capture_output=True, text=True, timeout=60).stdout)["switch_source"]
moved = sorted(n for n in as_index if "where_on_load" in source.get(n, ""))
check(len(moved) == 2, f"--load index: a WHERE over a loaded value moves into the load's gate, both polarities: {moved} of {sorted(as_index)}")
GATED = "tests/programs/loop_gated_store.uop"
check(verdict(GATED, "i32", "--store value") == "ok", "--store value: a gated store in a loop agrees")
by_value = used(GATED, "i32", "--store", "value") - used(GATED, "i32")
moved = sorted(n for n in by_value if "invalid_gate" in source.get(n, ""))
check("uop/symbolic.py:460" in by_value and moved, f"--store value: the gate moves out of the value's op ({moved}) to the store: {sorted(by_value)}")
BF16 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bf16_ops.uop")
emulate = json.loads(subprocess.run([ADAPTER, "--backend", "x86", "--emulate", "long,bfloat16", "--uopfuzz-describe"], capture_output=True,
                                    text=True, timeout=60).stdout)["without"]
check("bf16" not in emulate and "f64" not in emulate and "fp8e4m3" in emulate, f"--emulate long,bfloat16: the handshake takes bf16: without {emulate}")
check(verdict(BF16, "i32", "--emulate bfloat16") == "ok", "--emulate bfloat16: bf16 ADD, MUL and casts agree")
float_rules = sorted(n for n in used(BF16, "i32", "--emulate", "bfloat16") if n.startswith("codegen/decomp/dtype.py"))
check(len(float_rules) >= 6, f"--emulate bfloat16 fires tinygrad's float decomposition: {float_rules}")
NEG = "tests/programs/neg_of_sums.uop"
check(verdict(NEG, "i32", "--neg front") == "ok", "--neg front: NEG and SUB of sums as x * -1 agree")
fronted = used(NEG, "i32", "--neg", "front") - used(NEG, "i32")
check({"uop/symbolic.py:241", "uop/symbolic.py:472"} <= fronted, f"--neg front: -1 * (x + c) and -1 * (x + y) fire: {sorted(fronted)}")
defaults = set().union(*(used(p, "weak", base=[]) for p in (MASKED, GATED, NEG, SUM)))
spelled = set().union(*(used(p, "weak", *FRONT_END, base=[]) for p in (MASKED, GATED, NEG, SUM)))
check(defaults == spelled, f"the defaults are {' '.join(FRONT_END)}: the same rules fire ({len(defaults)} on four loops)")
none = [json.loads(subprocess.run([ADAPTER, "--backend", "x86", *emulate, "--uopfuzz-describe"], capture_output=True, text=True,
                                  timeout=60).stdout)["without"] for emulate in (["--emulate", "none"], ["--emulate="])]
check(none[0] == none[1] and {"bf16", "fp8e4m3"} <= set(none[0]) and "f64" not in none[0], f"--emulate none and --emulate= emulate nothing: without {none[0]}")
BY_MINUS_ONE = "tests/programs/floordiv_by_minus_one_bounded.uop"
check(verdict(BY_MINUS_ONE, "i32") == "ok", "a division by -1 of max(x, -5) agrees")
check("uop/symbolic.py:116" in used(BY_MINUS_ONE, "i32"), "a division by -1 of a numerator above MIN is x // -1: its rule fires")
for args, says in ((["--neg", "minus"], "unknown neg 'minus'"), (["--index", "wide"], "unknown index 'wide'"), (["--emulate", "int"], "unknown emulate 'int'"),
                   (["--emulate", "long,f16"], "unknown emulate 'long,f16'"), (["--store", "gate"], "unknown store 'gate'"),
                   (["--reduce", "float"], "unknown reduce 'float'"), (["--load", "lazy"], "unknown load 'lazy'"),
                   (["--emulate", "long,none"], "unknown emulate 'long,none'")):
  bad = subprocess.run([ADAPTER, *args, "--uopfuzz-describe"], capture_output=True, text=True, timeout=60)
  check(bad.returncode == 2 and says in bad.stderr, f"{' '.join(args)}: exit {bad.returncode}, {bad.stderr.strip()}")
finish()

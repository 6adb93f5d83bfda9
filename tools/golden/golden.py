#!/usr/bin/env python3
"""Re-check, extend and re-derive uopfuzz's golden data with tinygrad's own exec_alu.

  golden.py --tinygrad PATH check FILE...                 recompute every line of ALU vector files
  golden.py --tinygrad PATH extend --seed S --count N     write N new random cases (stdout or -o FILE)
  golden.py --tinygrad PATH programs [--write] FILE...    interpret .uop programs, check/rewrite expect

PATH is a tinygrad checkout (the directory holding the `tinygrad` package). Python 3 standard library
only. Exit status: 0 all lines agree, 1 some differ (or are malformed), 2 usage or input error.
The per-op rules (what is UNDEFINED, how CAST/BITCAST are done) are in tests/golden/README.md.
golden_common.py holds what this file and golden_programs.py (the `programs` command) share, with the op
and dtype tables read from core/*.def.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

if __name__ == "__main__":
  sys.dont_write_bytecode = True  # leave no __pycache__ in tools/golden or plugins (before importing ours)
  sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # golden_*.py beside us, even under -P

from golden_common import (ALL_OPS, ALU_OPS, BITS, COMPARE, CONVERSIONS, INTS, VALUE_DTYPES, InputError,  # noqa: E402
                           Tiny, Undefined, arity, fmt_value, int_range, op_valid, parse_value, same,
                           unsigned_dtype)
from golden_programs import cmd_programs  # noqa: E402


# ---------------------------------------------------------------------------------------------------
# Vector files: one case a line

class Case:
  __slots__ = ("op", "src", "dst", "operands", "result", "result_text")

  def __init__(self, op, src, dst, operands, result, result_text):
    self.op, self.src, self.dst, self.operands, self.result, self.result_text = op, src, dst, operands, result, result_text


def parse_case(line: str) -> Case:
  left, sep, right = line.rpartition(" -> ")
  if not sep: raise InputError("no ' -> '")
  toks, res = left.split(), right.strip()
  if len(toks) < 3: raise InputError("too few fields")
  op, dts = toks[0], toks[1]
  if op in CONVERSIONS:
    src, _, dst = dts.partition(">")
    if not dst or len(toks) != 3: raise InputError(f"{op} wants SRC>DST and one value")
    operands = [parse_value(toks[2], src)]
    rdt = dst
  else:
    if op not in ALU_OPS: raise InputError(f"unknown op {op!r}")
    if dts not in VALUE_DTYPES: raise InputError(f"unknown dtype {dts!r}")
    src = dst = dts
    if len(toks) - 2 != arity(op): raise InputError(f"{op} takes {arity(op)} operands, got {len(toks) - 2}")
    operands = [parse_value(t, "bool" if op == "WHERE" and i == 0 else dts) for i, t in enumerate(toks[2:])]
    rdt = "bool" if op in COMPARE else dts
  result = None if res == "UNDEFINED" else parse_value(res, rdt)
  return Case(op, src, dst, operands, result, res)


def compute(tiny: Tiny, c: Case):
  """The result tinygrad gives for a case, or raises Undefined."""
  if c.op == "CAST": return tiny.cast(c.src, c.dst, c.operands[0])
  if c.op == "BITCAST": return tiny.bitcast(c.src, c.dst, c.operands[0])
  return tiny.alu(c.op, c.src, c.operands)


def result_text(tiny: Tiny, c: Case) -> str:
  try:
    v = compute(tiny, c)
  except Undefined:
    return "UNDEFINED"
  return fmt_value(v, "bool" if c.op in COMPARE else c.dst)


def cmd_check(tiny: Tiny, args) -> int:
  bad_total = 0
  for path in args.files:
    t0 = time.perf_counter()
    n = agree = undefined = noncanon = 0
    differ, malformed = [], []
    by_kind: dict[str, int] = {}
    try:
      f = open(path, encoding="utf-8")
    except OSError as e:
      print(f"{path}: {e}", file=sys.stderr)
      return 2
    with f:
      for lineno, raw in enumerate(f, 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"): continue
        n += 1
        try:
          c = parse_case(line)
          odts = ["bool" if c.op == "WHERE" and i == 0 else c.src for i in range(len(c.operands))]
          for v, odt in zip(c.operands, odts):
            if not tiny.representable(odt, v): raise InputError(f"operand {fmt_value(v, odt)} is not a {odt} value")
          got = result_text(tiny, c)
        except InputError as e:
          malformed.append(f"{path}:{lineno}: {line}    [malformed: {e}]")
          continue
        if got == "UNDEFINED" or c.result is None:
          ok = got == c.result_text
        else:
          rdt = "bool" if c.op in COMPARE else c.dst
          ok = same(rdt, parse_value(got, rdt), c.result)
          if ok and got != c.result_text:  # same value, but not the way the files print it
            noncanon += 1
            malformed.append(f"{path}:{lineno}: {line}    [same value, not canonical text: {got}]")
            continue
        if ok:
          agree += 1
          undefined += got == "UNDEFINED"
        else:
          kind = f"{c.op} {c.src}" if c.src == c.dst else f"{c.op} {c.src}>{c.dst}"
          by_kind[kind] = by_kind.get(kind, 0) + 1
          differ.append(f"{path}:{lineno}: {line}    [tinygrad: {got}]")
    dt = time.perf_counter() - t0
    for msg in (differ + malformed)[:args.show]: print(msg)
    if len(differ) + len(malformed) > args.show: print(f"... {len(differ) + len(malformed) - args.show} more not shown (--show N)")
    if by_kind: print("  differing by op/dtype: " + ", ".join(f"{k}: {v}" for k, v in sorted(by_kind.items())))
    print(f"{path}: {n} cases, {agree} agree ({undefined} of them UNDEFINED), {len(differ)} differ, "
          f"{len(malformed)} malformed{f' ({noncanon} of them the same value in non-canonical text)' if noncanon else ''}; "
          f"{dt:.2f} s")
    bad_total += len(differ) + len(malformed)
  return 1 if bad_total else 0


# ---------------------------------------------------------------------------------------------------
# extend: random cases

class Values:
  """Edge values and random values of each dtype, all exact values of the dtype."""

  def __init__(self, tiny: Tiny, rng: random.Random):
    self.tiny, self.rng = tiny, rng
    self._floats: dict[str, tuple[list, list]] = {}

  def trunc(self, dt: str, x):
    t = self.tiny.truncate.get(self.tiny.dtype(dt))
    v = t(x) if t else x
    return math.nan if isinstance(v, float) and math.isnan(v) else v

  def float_tables(self, dt: str):
    """(edges, all_values or None) for a float dtype."""
    if dt in self._floats: return self._floats[dt]
    bits, every = BITS[dt], None
    if bits <= 16:  # enumerate every bit pattern through tinygrad's own bitcast
      u = self.tiny.dtype(unsigned_dtype(bits))
      every = [self.tiny.bitcast_fn(i, u, self.tiny.dtype(dt)) for i in range(1 << bits)]
      finite = [v for v in every if math.isfinite(v)]
      fmax, fmin = max(finite), min(v for v in finite if v > 0)
    elif dt == "f32":
      fmax, fmin = 3.4028234663852886e+38, 1.401298464324817e-45
    else:
      fmax, fmin = sys.float_info.max, 5e-324
    near_ints = [127, 128, 255, 256, 32767, 32768, 65504, 65519, 65520, 65535, 65536, 2**31 - 1, 2**31, 2**32,
                 2**53 + 1, 2**63, 2**64, 1e10, 127.5, 255.5, 0.1, 0.7, 3.0, 100.0]
    raw = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.0, 2.5, -2.5, math.inf, -math.inf, math.nan,
           fmax, -fmax, fmin, -fmin, 2 * fmin, sys.float_info.min, -sys.float_info.min,
           1.1754943508222875e-38, 6.103515625e-05] + near_ints + [-x for x in near_ints]
    edges = [self.trunc(dt, float(x)) for x in raw]
    self._floats[dt] = (edges, every)
    return self._floats[dt]

  def value(self, dt: str):
    r = self.rng
    if dt == "bool": return r.random() < 0.5
    if dt in INTS:
      lo, hi = int_range(dt)
      k = r.random()
      if k < 0.35:
        e = [0, 1, -1, 2, -2, 3, 7, lo, hi, lo + 1, hi - 1, 127, 128, 255, 256, -128, -129, 1 << (BITS[dt] // 2)]
        return r.choice([x for x in e if lo <= x <= hi])
      if k < 0.65: return max(lo, min(hi, r.randint(-100, 100)))
      return r.randint(lo, hi)
    edges, every = self.float_tables(dt)
    k = r.random()
    if k < 0.3: return r.choice(edges)
    if k < 0.5 and every is not None: return r.choice(every)
    if k < 0.5:
      b = r.getrandbits(BITS[dt])
      x = self.tiny.bitcast_fn(b, self.tiny.dtype(unsigned_dtype(BITS[dt])), self.tiny.dtype(dt))
    elif k < 0.7: x = r.randint(-400, 400) / 4
    elif k < 0.85: x = r.uniform(-100, 100)
    else: x = r.choice((1, -1)) * 2.0 ** r.uniform(-40, 40)
    return self.trunc(dt, x)

  def operands(self, op: str, dt: str) -> list:
    r = self.rng
    if op == "WHERE": return [r.random() < 0.5, self.value(dt), self.value(dt)]
    if op in ("SHL", "SHR"):  # shift amounts 0 .. 2*width+2, rarely negative (UNDEFINED)
      lo, hi = int_range(dt)
      b = -1 if lo < 0 and r.random() < 0.01 else r.randint(0, 2 * BITS[dt] + 2)
      return [self.value(dt), b]
    if op == "POW" and dt in INTS:  # small exponents: Python computes the exact power before wrapping
      lo, hi = int_range(dt)
      return [self.value(dt), r.randint(max(lo, -3), min(hi, 70))]
    return [self.value(dt) for _ in range(arity(op))]


def cmd_extend(tiny: Tiny, args) -> int:
  ops = args.ops or list(ALL_OPS)
  dts = args.dtypes or list(VALUE_DTYPES)
  for op in ops:
    if op not in ALL_OPS: raise InputError(f"unknown op {op!r} (ours: {' '.join(ALL_OPS)})")
  for dt in dts:
    if dt not in VALUE_DTYPES: raise InputError(f"unknown dtype {dt!r} (ours: {' '.join(VALUE_DTYPES)})")
  kinds = []  # (op, src, dst)
  for op in ops:
    for s in dts:
      if op == "CAST": kinds += [(op, s, d) for d in dts]
      elif op == "BITCAST": kinds += [(op, s, d) for d in dts if d != s and "bool" not in (s, d) and BITS[s] == BITS[d]]
      elif op_valid(op, s): kinds.append((op, s, s))
  if not kinds: raise InputError("no valid op/dtype combination in --ops/--dtypes")
  rng = random.Random(args.seed)
  vals = Values(tiny, rng)
  per, extra = divmod(args.count, len(kinds))
  lines = []
  for i, (op, s, d) in enumerate(kinds):
    for _ in range(per + (i < extra)):
      operands = [vals.value(s)] if op in CONVERSIONS else vals.operands(op, s)
      c = Case(op, s, d, operands, None, "")
      odts = ["bool" if op == "WHERE" and j == 0 else s for j in range(len(operands))]
      head = f"{op} {s}>{d}" if op in CONVERSIONS else f"{op} {s}"
      lines.append(f"{head} {' '.join(fmt_value(v, t) for v, t in zip(operands, odts))} -> {result_text(tiny, c)}")
  out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
  try:
    out.write(f"# golden ALU vectors: tinygrad exec_alu (CAST: dtype.const + truncate; BITCAST: dtype.bitcast), "
              f"seed {args.seed}, {len(lines)} cases; written by tools/golden/golden.py extend\n")
    out.write("# line: OP DTYPE operands... -> result   |   CAST/BITCAST SRC>DST value -> result   |   "
              "UNDEFINED: no defined result\n")
    out.write("".join(line + "\n" for line in lines))
  finally:
    if out is not sys.stdout: out.close()
  print(f"extend: {len(lines)} cases over {len(kinds)} op/dtype kinds, seed {args.seed}", file=sys.stderr)
  return 0


# ---------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
  tg_help = "tinygrad checkout (put on sys.path); default: import tinygrad as installed"
  ap = argparse.ArgumentParser(prog="golden.py", description=__doc__.splitlines()[0],
                               formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--tinygrad", metavar="PATH", help=tg_help)
  common = argparse.ArgumentParser(add_help=False)  # --tinygrad also accepted after the subcommand
  common.add_argument("--tinygrad", metavar="PATH", help=tg_help, default=argparse.SUPPRESS)
  sub = ap.add_subparsers(dest="cmd", required=True)
  p = sub.add_parser("check", parents=[common], help="recompute every line of ALU vector files")
  p.add_argument("files", nargs="+", metavar="FILE")
  p.add_argument("--show", type=int, default=50, metavar="N", help="print at most N disagreeing lines per file (50)")
  p = sub.add_parser("extend", parents=[common], help="write new random cases")
  p.add_argument("--seed", type=int, required=True)
  p.add_argument("--count", type=int, required=True)
  p.add_argument("--ops", nargs="+", metavar="OP", help=f"subset of: {' '.join(ALL_OPS)}")
  p.add_argument("--dtypes", nargs="+", metavar="DT", help=f"subset of: {' '.join(VALUE_DTYPES)}")
  p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
  p = sub.add_parser("programs", parents=[common], help="interpret .uop programs; check (or --write) expect lines")
  p.add_argument("files", nargs="+", metavar="FILE")
  p.add_argument("--write", action="store_true", help="rewrite the expect lines (and `meta reference` for UNDEFINED)")
  args = ap.parse_args(argv)
  try:
    tiny = Tiny(args.tinygrad)
    print(f"using {tiny.describe()}", file=sys.stderr)
    if args.cmd == "check": return cmd_check(tiny, args)
    if args.cmd == "extend": return cmd_extend(tiny, args)
    return cmd_programs(tiny, args)
  except InputError as e:
    print(f"golden.py: {e}", file=sys.stderr)
    return 2


if __name__ == "__main__":
  sys.exit(main())

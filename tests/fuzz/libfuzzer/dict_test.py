#!/usr/bin/env python3
"""fuzz/libfuzzer/uop.dict against the tables it is typed from: every op of core/ops.def is an entry
`"NAME "`, every dtype of core/dtypes.def is `"name"` (and `"name["`, but void), and every entry that looks
like an op or a dtype is one of them. Run from the repository root; prints what is missing or unknown."""
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."


def rows(path, macro):
  text = open(f"{ROOT}/{path}", encoding="utf-8").read()
  return [m.group(1) for m in re.finditer(rf"^{macro}\(\s*([A-Za-z0-9_]+)\s*,(.*)\)", text, re.M)], text


def main():
  ops, _ = rows("core/ops.def", "OP")
  _, dtypes_text = rows("core/dtypes.def", "DTYPE")
  dtypes = re.findall(r'^DTYPE\(\w+,\s*"([^"]+)"', dtypes_text, re.M)
  entries = re.findall(r'^"((?:[^"\\]|\\.)*)"', open(f"{ROOT}/fuzz/libfuzzer/uop.dict", encoding="utf-8").read(), re.M)
  problems = [f'op {op}: no entry "{op} "' for op in ops if f"{op} " not in entries]
  problems += [f'dtype {d}: no entry "{d}"' for d in dtypes if d not in entries]
  problems += [f'dtype {d}: no entry "{d}["' for d in dtypes if d != "void" and f"{d}[" not in entries]
  for e in entries:
    if re.fullmatch(r"[A-Z][A-Z0-9_]+ ", e) and e[:-1] not in ops: problems.append(f'entry "{e}": not an op of core/ops.def')
    if re.fullmatch(r"(bool|[iuf]\d+|bf16|fp8\w+|void)\[?", e) and e.rstrip("[") not in dtypes:
      problems.append(f'entry "{e}": not a dtype of core/dtypes.def')
  for p in problems: print(p)
  print(f"{len(ops)} ops, {len(dtypes)} dtypes, {len(entries)} entries: {len(problems)} problems")
  return 1 if problems else 0


if __name__ == "__main__":
  sys.exit(main())

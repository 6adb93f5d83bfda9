"""`golden.py programs`: interpret .uop programs (version 1) node by node through tinygrad's exec_alu.

Only nodes reachable from the SINK run, in file order (a topological order). BUFFERs start from their
`data` line (zeros when absent); ALLOC elements start unwritten and reading one is UNDEFINED, as is an
INDEX outside 0..LEN-1. The result is the final contents of every BUFFER, one `expect K = ...` a slot.
"""
from __future__ import annotations

import re
import time

from golden_common import (ALU_OPS, COMPARE, INTS, VALUE_DTYPES, InputError, Tiny, Undefined, arity, fmt_value,
                           parse_value, same)

NODE = re.compile(r"^%(\d+) = ([A-Z0-9_]+) (\S+)(?: (.*))?$")
VALUES = re.compile(r"^(data|expect|got) (\d+) =(?: (.*))?$")
MEM = re.compile(r"^(\w+)\[(\d+)\]$")
SLOT = re.compile(r"^slot=(\d+)$")
REFERENCE = re.compile(r"^meta reference = UNDEFINED \(%(\d+)\)\s*$")


class Node:
  __slots__ = ("id", "op", "dtype", "arg", "src", "length", "slot", "line")

  def __init__(self, id_, op, dtype, line):
    self.id, self.op, self.dtype, self.line = id_, op, dtype, line
    self.arg, self.src, self.length, self.slot = None, [], 0, None


class Program:
  def __init__(self, path: str, text: str):
    self.path, self.lines = path, text.splitlines()
    self.nodes: list[Node] = []
    self.data: dict[int, list] = {}
    self.expect: dict[int, tuple[int, list]] = {}   # slot -> (line number, values)
    self.reference: tuple[int, int] | None = None   # (line number, node id) of `meta reference = UNDEFINED (%N)`
    self._parse()

  def err(self, lineno: int, msg: str) -> InputError:
    return InputError(f"{self.path}:{lineno}: {msg}")

  def _parse(self):
    seen_header = False
    pending_values = []
    for lineno, raw in enumerate(self.lines, 1):
      line = raw.split("#", 1)[0].strip()
      if not line: continue
      if not seen_header:
        if line != "uops 1": raise self.err(lineno, f"expected 'uops 1' (golden.py reads version 1 only), got {line!r}")
        seen_header = True
        continue
      if line.startswith("meta "):
        if (m := REFERENCE.match(line)): self.reference = (lineno, int(m.group(1)))
        continue
      if (m := VALUES.match(line)):
        pending_values.append((lineno, m.group(1), int(m.group(2)), (m.group(3) or "").split()))
        continue
      if not (m := NODE.match(line)): raise self.err(lineno, f"cannot read {line!r}")
      nid, op, dt, rest = int(m.group(1)), m.group(2), m.group(3), (m.group(4) or "").split()
      if nid != len(self.nodes): raise self.err(lineno, f"node %{nid} out of order (expected %{len(self.nodes)})")
      if op in ("BUFFER", "ALLOC"):
        if not (mm := MEM.match(dt)) or len(rest) != 1 or not (ms := SLOT.match(rest[0])):
          raise self.err(lineno, f"{op} wants DTYPE[LEN] slot=K")
        n = Node(nid, op, mm.group(1), lineno)
        n.length, n.slot = int(mm.group(2)), int(ms.group(1))
      else:
        n = Node(nid, op, dt, lineno)
        if op == "CONST":
          if len(rest) != 1: raise self.err(lineno, "CONST wants one value")
          try:
            n.arg = parse_value(rest[0], dt)
          except InputError as e:
            raise self.err(lineno, str(e)) from None
        else:
          for t in rest:
            if not t.startswith("%") or not t[1:].isdigit() or int(t[1:]) >= nid:
              raise self.err(lineno, f"bad source {t!r} (an earlier %ID)")
            n.src.append(int(t[1:]))
      if n.dtype != "void" and n.dtype not in VALUE_DTYPES: raise self.err(lineno, f"unknown dtype {n.dtype!r}")
      self.nodes.append(n)
    if not seen_header: raise self.err(1, "empty file")
    if not self.nodes or self.nodes[-1].op != "SINK": raise self.err(len(self.lines), "the last node must be the SINK")
    buffers = self.buffers()
    for lineno, kind, slot, toks in pending_values:
      if kind == "got": continue
      if slot not in buffers: raise self.err(lineno, f"{kind} {slot}: no BUFFER with slot={slot}")
      b = buffers[slot]
      if len(toks) != b.length: raise self.err(lineno, f"{kind} {slot}: {len(toks)} values for {b.dtype}[{b.length}]")
      try:
        vals = [parse_value(t, b.dtype) for t in toks]
      except InputError as e:
        raise self.err(lineno, str(e)) from None
      if kind == "data": self.data[slot] = vals
      else: self.expect[slot] = (lineno, vals)

  def buffers(self) -> dict[int, Node]:
    return {n.slot: n for n in self.nodes if n.op == "BUFFER"}


def dtype_of(prog: Program, nid: int) -> str:
  return prog.nodes[nid].dtype


def run(tiny: Tiny, prog: Program) -> dict[int, list]:
  """Final BUFFER contents by slot; raises Undefined('%N ...')."""
  live, stack = set(), [len(prog.nodes) - 1]
  while stack:
    i = stack.pop()
    if i not in live:
      live.add(i)
      stack.extend(prog.nodes[i].src)
  for n in prog.nodes:
    if n.op == "CONST" and not tiny.representable(n.dtype, n.arg):
      raise prog.err(n.line, f"CONST {fmt_value(n.arg, n.dtype)} is not a {n.dtype} value")
  mem: dict[int, list] = {}
  for n in prog.nodes:  # every BUFFER holds its data, reachable or not (it is the program's result)
    if n.op == "BUFFER":
      init = prog.data.get(n.slot)
      if init is not None:
        for v in init:
          if not tiny.representable(n.dtype, v): raise InputError(f"{prog.path}: data {n.slot}: {v!r} is not a {n.dtype} value")
      zero = False if n.dtype == "bool" else 0 if n.dtype in INTS else 0.0
      mem[n.id] = list(init) if init is not None else [zero] * n.length
  val: dict[int, object] = {}
  for n in prog.nodes:
    if n.id not in live: continue
    s = [val.get(i) for i in n.src]
    where = f"%{n.id} ({n.op} {n.dtype})"
    try:
      if n.op == "BUFFER": val[n.id] = n.id
      elif n.op == "ALLOC":
        mem[n.id] = [None] * n.length
        val[n.id] = n.id
      elif n.op == "CONST": val[n.id] = n.arg
      elif n.op == "AFTER": val[n.id] = s[0]
      elif n.op == "SINK": pass
      elif n.op == "INDEX":
        m, idx = s[0], s[1]
        if not 0 <= idx < len(mem[m]): raise Undefined(f"INDEX {idx} outside 0..{len(mem[m]) - 1}")
        val[n.id] = (m, idx)
      elif n.op == "LOAD":
        m, idx = s[0]
        if (v := mem[m][idx]) is None: raise Undefined(f"LOAD of ALLOC element {idx} that nothing wrote")
        val[n.id] = v
      elif n.op == "STORE":
        m, idx = s[0]
        mem[m][idx] = s[1]
      elif n.op == "CAST": val[n.id] = tiny.cast(dtype_of(prog, n.src[0]), n.dtype, s[0])
      elif n.op == "BITCAST": val[n.id] = tiny.bitcast(dtype_of(prog, n.src[0]), n.dtype, s[0])
      elif n.op in ALU_OPS:
        if len(n.src) != arity(n.op): raise prog.err(n.line, f"{n.op} takes {arity(n.op)} sources")
        if n.op in COMPARE and n.dtype != "bool": raise prog.err(n.line, f"{n.op} has dtype bool")
        odt = dtype_of(prog, n.src[0]) if n.op in COMPARE else n.dtype
        val[n.id] = tiny.alu(n.op, odt, s)
      else: raise prog.err(n.line, f"golden.py does not know op {n.op}")
    except Undefined as e:
      raise Undefined(f"{where}: {e}") from None
    except (TypeError, KeyError, IndexError) as e:  # a source of the wrong kind (e.g. LOAD of a non-address)
      raise prog.err(n.line, f"{n.op}: bad sources ({type(e).__name__}: {e})") from None
  return {n.slot: mem[n.id] for n in prog.nodes if n.op == "BUFFER"}


def undefined_node(msg: str) -> int:
  return int(msg[1:msg.index(" ")])


def rewrite(prog: Program, result: dict[int, list] | None, undef_at: int | None) -> str:
  out, insert_at, last_data, last_meta, last_node = [], None, None, 0, None
  for raw in prog.lines:
    line = raw.split("#", 1)[0].strip()
    if line.startswith("expect "):
      if insert_at is None: insert_at = len(out)
      continue
    if REFERENCE.match(line): continue
    out.append(raw)
    if line.startswith("data "): last_data = len(out)
    elif line.startswith("meta ") or line.startswith("uops "): last_meta = len(out)
    elif line.startswith("%"): last_node = len(out)
  if result is not None:
    b = prog.buffers()
    new = [f"expect {k} = {' '.join(fmt_value(v, b[k].dtype) for v in result[k])}" for k in sorted(result)]
    at = insert_at if insert_at is not None else last_data if last_data is not None else last_node
    out[at:at] = new
  else:
    out.insert(last_meta, f"meta reference = UNDEFINED (%{undef_at})")
  return "\n".join(out) + "\n"


def cmd_programs(tiny: Tiny, args) -> int:
  t0 = time.perf_counter()
  n = agree = undef_ok = differ = errors = rewritten = lines_ok = 0
  for path in args.files:
    try:
      with open(path, encoding="utf-8") as f:
        prog = Program(path, f.read())
      result, undef_at, why = None, None, ""
      try:
        result = run(tiny, prog)
      except Undefined as e:
        why, undef_at = str(e), undefined_node(str(e))
    except (InputError, OSError) as e:
      print(f"{path}: error: {e}")
      errors += 1
      continue
    n += 1
    problems = []
    if result is None:
      print(f"{path}: UNDEFINED at {why}")
      if prog.expect: problems.append(f"has {len(prog.expect)} expect lines but the program is UNDEFINED")
      if prog.reference is None: problems.append("no `meta reference = UNDEFINED (%N)` line")
      elif prog.reference[1] != undef_at: problems.append(f"meta reference names %{prog.reference[1]}, tinygrad: %{undef_at}")
    else:
      if prog.reference is not None: problems.append(f"meta reference says UNDEFINED (%{prog.reference[1]}) but it runs")
      b = prog.buffers()
      for slot in sorted(result):
        if slot not in prog.expect:
          problems.append(f"no expect line for slot {slot}")
          continue
        lineno, want = prog.expect[slot]
        got = result[slot]
        bad = [i for i, (w, g) in enumerate(zip(want, got)) if not same(b[slot].dtype, w, g)]
        if bad:
          dt = b[slot].dtype
          problems.append(f"line {lineno}: expect {slot} element(s) {bad}: file "
                          f"{' '.join(fmt_value(want[i], dt) for i in bad[:8])}, tinygrad {' '.join(fmt_value(got[i], dt) for i in bad[:8])}")
        else: lines_ok += 1
    if args.write:
      text = rewrite(prog, result, undef_at)
      if text != "\n".join(prog.lines) + "\n":
        with open(path, "w", encoding="utf-8") as f: f.write(text)
        rewritten += 1
        print(f"{path}: rewrote expect lines")
      problems = []
    if problems:
      differ += 1
      for p in problems: print(f"{path}: DIFFER: {p}")
    else:
      agree += 1
      undef_ok += result is None
  dt = time.perf_counter() - t0
  print(f"programs: {n} read, {agree} agree ({lines_ok} expect lines equal; {undef_ok} UNDEFINED where the file says so), "
        f"{differ} differ, {errors} unreadable{f', {rewritten} rewritten' if args.write else ''}; {dt:.2f} s")
  return 2 if errors else 1 if differ else 0

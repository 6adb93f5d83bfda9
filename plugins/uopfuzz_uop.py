# uopfuzz_uop.py: the .uop reader of the Python SDK (uopfuzz_plugin.py re-exports all of it). It reads a
# .uop program into typed objects (Program, Node, Buffer; the Op and DType tables come from core/ops.def and
# core/dtypes.def beside this directory, never copied), and converts a BUFFER's values to and from the bytes
# that run requests carry (buffer_bytes, buffer_values). Standard library only, Python 3.8+.
import os
import re
import struct
import sys

CORE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")
MAX_LANES, MAX_LENGTH, MAX_SLOT = 16, 1 << 24, 1 << 20
# A RANGE's kind (`kind=KIND` at the end of its line): `loop` (the default, never printed), `global` (an output
# axis whose iterations are independent) or `reduce` (a reduction axis: it carries values only through ALLOC
# accumulators). A target's optimizer may treat the last two as tinygrad does its WEAK and REDUCE axes.
RANGE_KINDS = ("loop", "global", "reduce")


class UopSyntaxError(ValueError):
  """A .uop text this reader cannot take; the message is `FILE:LINE: what`."""

  def __init__(self, where, line, message):
    super().__init__(f"{where}:{line}: {message}" if line else f"{where}: {message}")
    self.line = line


def _setup_error(message):
  print(f"uopfuzz_plugin: {message}", file=sys.stderr)
  raise SystemExit(2)


# ---- the op and dtype tables, read from core/*.def -------------------------------------------------

class Op:
  """A row of core/ops.def: name, arity (None: any number), operand dtypes, result rule, flags."""
  __slots__ = ("name", "arity", "operands", "result", "flags")

  def __init__(self, name, arity, operands, result, flags):
    self.name, self.arity, self.operands, self.result, self.flags = name, arity, operands, result, flags

  is_alu = property(lambda self: "ALU" in self.flags)
  is_memory = property(lambda self: "MEM" in self.flags)
  __repr__ = lambda self: f"Op.{self.name}"

  def accepts(self, dtype):
    """Whether the row's operand class takes operands of `dtype` (a DType), as core/uop.cpp's
    operand_class_accepts decides: ANY any value, INT ints, INT_BOOL ints and bool, FLOAT floats, NUM ints
    and floats. Only the class: WHERE's bool condition, say, is the op's own type rule."""
    return {"ANY": not dtype.is_void, "INT": dtype.is_int, "INT_BOOL": dtype.is_int or dtype.is_bool,
            "FLOAT": dtype.is_float, "NUM": dtype.is_int or dtype.is_float}[self.operands]


class DType:
  """A row of core/dtypes.def (`scalar` is self), or a vector of one, `f32x4` (`lanes` 4)."""
  __slots__ = ("name", "ctype", "itemsize", "kind", "scalar", "lanes")

  def __init__(self, name, ctype, itemsize, kind, scalar=None, lanes=1):
    self.name, self.ctype, self.itemsize, self.kind = name, ctype, itemsize, kind
    self.scalar, self.lanes = scalar or self, lanes

  is_bool, is_signed, is_unsigned, is_float, is_void = (property(lambda self, k=k: self.kind == k) for k in "BSUFV")
  is_int = property(lambda self: self.kind in "SU")  # bool is not an int
  is_vector = property(lambda self: self.lanes > 1)
  __repr__ = lambda self: f"DType({self.name})"
  vec = lambda self, lanes: self if lanes == 1 else DType(f"{self.name}x{lanes}", None, self.itemsize * lanes, self.kind, self, lanes)


def _rows(file, macro):
  path = os.path.join(CORE, file)
  try:
    with open(path, encoding="utf-8") as f: text = f.read()
  except OSError as e:
    _setup_error(f"cannot read {path} ({e.strerror}): the SDK reads uopfuzz's tables from core/ beside plugins/;"
                 " use it from a uopfuzz checkout")
  rows = [[w.strip().strip('"') for w in m[1].split(",")] for m in re.finditer(rf"^{macro}\((.*)\)\s*$", text, re.M)]
  if not rows: _setup_error(f"{path}: no {macro}(...) rows")
  return rows


OPS = {r[0]: Op(r[0], None if r[1] == "VARIADIC" else int(r[1]), r[2], r[3], frozenset(re.findall(r"[A-Z_]+", r[4])))
       for r in _rows("ops.def", "OP")}
DTYPES = {r[1]: DType(r[1], r[2], int(r[3]), r[4]) for r in _rows("dtypes.def", "DTYPE")}
OP_ALIASES = {"VECTORIZE": "STACK"}  # tinygrad's older name, which the reader accepts too


def parse_dtype(text):
  """DTYPE or DTYPExN (N in 2..16) -> DType; ValueError otherwise."""
  if text in DTYPES: return DTYPES[text]
  m = re.fullmatch(r"(\w+?)x(\d+)", text)
  if not m or m[1] not in DTYPES: raise ValueError(f"unknown dtype '{text}'")
  lanes, scalar = int(m[2]), DTYPES[m[1]]
  if not 2 <= lanes <= MAX_LANES: raise ValueError(f"vector dtype '{text}': lanes must be 2 to {MAX_LANES}")
  if scalar.is_void: raise ValueError(f"vector dtype '{text}': no vector of void")
  return scalar.vec(lanes)


def parse_value(text, dtype):
  """A value as .uop writes it: bool -> bool, integers -> int, floats -> float (binary64, as written)."""
  t = text.lower()
  if dtype.is_bool:
    if t not in ("true", "false", "1", "0"): raise ValueError(f"'{text}' is not a bool")
    return t in ("true", "1")
  if dtype.is_int:
    if not re.fullmatch(r"[+-]?\d+" if dtype.is_signed else r"\+?\d+|-0+", t): raise ValueError(f"'{text}' is not an {dtype.name}")
    v, bits = int(t), dtype.itemsize * 8
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype.is_signed else (0, (1 << bits) - 1)
    if not lo <= v <= hi: raise ValueError(f"{text} does not fit {dtype.name}")
    return v
  if dtype.is_float:
    if re.fullmatch(r"[+-]?0x[0-9a-f.]+(p[+-]?\d+)?", t): return float.fromhex(t)
    if re.fullmatch(r"[+-]?(inf|infinity|nan|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)", t): return float(t)
    raise ValueError(f"'{text}' is not a float")
  raise ValueError(f"no value of {dtype.name}")


# ---- the program --------------------------------------------------------------------------------------

class Node:
  """`%ID = OP DTYPE [ARG] [%SRC ...]`: args holds CONST's value, GEP's lane, RANGE's axis (parsed); kind is a
  RANGE's kind (one of RANGE_KINDS, "loop" when its line names none), None for other ops."""
  __slots__ = ("id", "op", "dtype", "sources", "args", "line", "kind")

  def __init__(self, id, op, dtype, sources=(), args=(), line=0, kind=None):
    self.id, self.op, self.dtype, self.sources, self.args, self.line = id, op, dtype, tuple(sources), tuple(args), line
    self.kind = kind or ("loop" if op.name == "RANGE" else None)

  arg = property(lambda self: self.args[0] if self.args else None)

  def __repr__(self):
    words = [self.op.name, self.dtype.name, *(str(a).lower() if isinstance(a, bool) else repr(a) for a in self.args), *(f"%{s.id}" for s in self.sources)]
    if self.kind not in (None, "loop"): words.append(f"kind={self.kind}")
    return f"%{self.id} = {' '.join(words)}"


class Buffer(Node):
  """A BUFFER (a kernel parameter) or an ALLOC (kernel-local memory): element dtype, length, slot."""
  __slots__ = ("length", "slot")

  def __init__(self, id, op, dtype, length, slot, line=0):
    super().__init__(id, op, dtype, line=line)
    self.length, self.slot = length, slot

  __repr__ = lambda self: f"%{self.id} = {self.op.name} {self.dtype.name}[{self.length}] slot={self.slot}"


class Program:
  """A parsed .uop file. nodes: distinct nodes in file order (identical lines are one node); buffers: the
  BUFFERs by ascending slot (the kernel's parameters); data/expect/got: {slot: [values]}; meta: [(key,
  value)] in file order; text: the text read; path: its file (None in server mode); opts: the `opts` line as
  [(NAME, axis or None, arg or None)] (axis a RANGE's axis number), [] for `opts` alone, None without one
  (the target's own optimizer decides)."""

  def __init__(self, text, path=None):
    self.text, self.path, self.version, self.meta, self.nodes, self.sink = text, path, 1, [], [], None
    self.data, self.expect, self.got, self.opts = {}, {}, {}, None

  buffers = property(lambda self: sorted((n for n in self.nodes if n.op.name == "BUFFER"), key=lambda b: b.slot))

  def meta_value(self, key, default=None):
    """The first `meta KEY = VALUE` line's value, as uopfuzz reads it."""
    return next((v for k, v in self.meta if k == key), default)


def format_opt(name, axis=None, arg=None):
  """One opt in the `opts` line's notation: NAME, NAME:AXIS or NAME:AXIS:ARG (AXIS a RANGE's axis number, or
  any word a target reports in its place, such as `new` for a range its optimizer made). ValueError for an arg
  without an axis, which the notation cannot write."""
  if axis is None and arg is not None: raise ValueError(f"opt {name}: an ARG needs an AXIS")
  return ":".join(str(x) for x in (name, axis, arg) if x is not None)


def format_opts(opts):
  """The `opts` line of a Program's opts (a list of (NAME, axis, arg)); None gives None (no line)."""
  return None if opts is None else " ".join(["opts", *(format_opt(*o) for o in opts)])


def read_program(path):
  """The program in a .uop file; OSError if it cannot be read, UopSyntaxError if it is not a program."""
  with open(path, encoding="utf-8") as f: return parse_program(f.read(), path)


def parse_program(text, path=None):
  return _Reader(text, path or "<program>").run(Program(text, path))


class _Reader:
  """core/text_read.cpp's grammar (docs/format.md section 1), without its type rules: uopfuzz verified the
  program before a plug-in is asked to render it."""

  def __init__(self, text, where):
    self.text, self.where, self.no, self.ids, self.interned, self.values = text, where, 0, [], {}, []

  def fail(self, message, line=None):
    raise UopSyntaxError(self.where, self.no if line is None else line, message)

  def run(self, p):
    self.p, header, last = p, False, 1
    for self.no, raw in enumerate(self.text.split("\n"), 1):
      if "\0" in raw: self.fail("NUL byte in text")
      s = raw.strip(" \t\r")
      if re.match(r"meta[ \t]", s):
        key, eq, value = s[5:].partition("=")
        if not eq: self.fail("meta needs 'KEY = VALUE'")
        if not key.strip() or len(key.split()) != 1: self.fail("meta key must be one word")
        p.meta.append((key.strip(), value.strip(" \t")))
        continue
      tok = s.split("#", 1)[0].split()
      if not tok: continue
      last = self.no
      if not header:
        if tok[0] != "uops": self.fail(f"expected 'uops 1' as the first line, got '{s}'")
        if tok[1:] not in (["1"], ["2"]): self.fail("unsupported format version (this reader knows 'uops 1' and 'uops 2')")
        p.version, header = int(tok[1]), True
      elif tok[0].startswith("%"): self.node(tok)
      elif tok[0] in ("data", "expect", "got"): self.values_line(tok)
      elif tok[0] == "opts": self.opts_line(tok)
      elif tok[0] == "uops": self.fail("second 'uops' header")
      else: self.fail(f"unknown line '{s}'")
    if not header: self.fail("empty file: expected 'uops 1'", 1)
    if p.sink is None: self.fail("no SINK: the last node must be the SINK", last)
    for no, tok in self.values: self.resolve_values(no, tok)
    if p.opts is not None: self.resolve_opts()
    return p

  def dtype(self, text):
    try: return parse_dtype(text)
    except ValueError as e: self.fail(str(e))

  def source(self, text):
    if not re.fullmatch(r"%\d+", text): self.fail(f"expected a source like %3, got '{text}'")
    if int(text[1:]) >= len(self.ids): self.fail(f"unknown node {text} (sources must be earlier nodes)")
    return self.ids[int(text[1:])]

  def number(self, text, what, lo=0, hi=None):
    if not re.fullmatch(r"[+-]?\d+", text) or int(text) < lo or (hi is not None and int(text) > hi): self.fail(f"bad {what} '{text}'")
    return int(text)

  def node(self, tok):
    if not re.fullmatch(r"%\d+", tok[0]): self.fail(f"bad node id '{tok[0]}'")
    if int(tok[0][1:]) != len(self.ids): self.fail(f"node ids must be 0, 1, 2, ... in order: expected %{len(self.ids)}, got {tok[0]}")
    if self.p.sink is not None: self.fail("node after the SINK: the SINK must be the last node")
    if len(tok) < 4 or tok[1] != "=": self.fail("expected '%ID = OP DTYPE ...'")
    op = OPS.get(OP_ALIASES.get(tok[2], tok[2])) or self.fail(f"unknown op '{tok[2]}'")
    n = len(self.ids)
    if op.name in ("BUFFER", "ALLOC"):
      m = re.fullmatch(r"(\w+)\[([^\]]*)\]", tok[3]) or self.fail(f"{op.name} needs DTYPE[LEN], got '{tok[3]}'")
      if "," in m[2]: self.fail(f"{op.name} has more than one dimension: '{tok[3]}'")
      if len(tok) != 5 or not tok[4].startswith("slot="): self.fail(f"{op.name} needs 'slot=K' after its shape")
      node = Buffer(n, op, self.dtype(m[1]), self.number(m[2], "length", 1, MAX_LENGTH), self.number(tok[4][5:], "slot", 0, MAX_SLOT), self.no)
    elif op.name == "CONST":
      dt = self.dtype(tok[3])
      if len(tok) != 5: self.fail("CONST needs exactly one value")
      if dt.is_void: self.fail("CONST needs a value dtype")
      try: node = Node(n, op, dt, args=[parse_value(tok[4], dt.scalar)], line=self.no)
      except ValueError as e: self.fail(f"CONST {dt.name} {e}")
    elif op.name in ("GEP", "RANGE"):  # %ID = GEP DTYPE LANE %SRC, %ID = RANGE DTYPE AXIS %END [kind=KIND]
      kind = self.range_kind(tok[6:]) if op.name == "RANGE" and len(tok) == 7 else None
      if len(tok) != 6 and kind is None: self.fail(f"{op.name} needs '{op.name} DTYPE {'LANE %SRC' if op.name == 'GEP' else 'AXIS %END [kind=KIND]'}'")
      arg = self.number(tok[4], "GEP lane" if op.name == "GEP" else "RANGE axis", 0, MAX_SLOT)
      node = Node(n, op, self.dtype(tok[3]), [self.source(tok[5])], [arg], self.no, kind)
    else:
      node = Node(n, op, self.dtype(tok[3]), [self.source(t) for t in tok[4:]], line=self.no)
    self.check_version(node)
    self.define(node)

  def range_kind(self, words):
    if not words[0].startswith("kind="): self.fail(f"RANGE: expected 'kind=KIND' after its end, got '{words[0]}'")
    if words[0][5:] not in RANGE_KINDS: self.fail(f"RANGE: unknown kind '{words[0][5:]}' (one of {', '.join(RANGE_KINDS)})")
    return words[0][5:]

  def check_version(self, node):
    if self.p.version >= 2: return
    name, vector = node.op.name, node.dtype.is_vector or node.op.name in ("GEP", "STACK")
    if vector: self.fail(f"vector {(node.sources[0] if name == 'GEP' else node).dtype.name} in a version 1 file (vectors need 'uops 2')")
    if name in ("RANGE", "END"): self.fail(f"{name} in a version 1 file (loops need 'uops 2')")
    if (name, len(node.sources)) in (("LOAD", 3), ("STORE", 3)): self.fail(f"gated {name} in a version 1 file (gated memory needs 'uops 2')")

  def define(self, node):
    key = (node.op.name, node.dtype.name, tuple(map(repr, node.args)), tuple(s.id for s in node.sources), getattr(node, "slot", None),
           getattr(node, "length", None), node.kind)
    node = self.interned.setdefault(key, node)  # a line identical to an earlier one is the same node
    if node.id == len(self.ids): self.p.nodes.append(node)
    if node.op.name == "SINK": self.p.sink = node
    self.ids.append(node)

  def values_line(self, tok):
    if len(tok) < 3 or tok[2] != "=": self.fail(f"{tok[0]} needs '{tok[0]} SLOT = v ...'")
    self.number(tok[1], "slot")
    self.values.append((self.no, tok))

  def opts_line(self, tok):
    """`opts OPT ...`, each OPT NAME[:AXIS[:ARG]]; the axes are checked against the RANGEs once all are read."""
    if self.p.opts is not None: self.fail("second 'opts' line")
    self.p.opts, self.opts_no = [], self.no
    for word in tok[1:]:
      m = re.fullmatch(r"([A-Z][A-Z_]*)(?::(\d+)(?::(\d+))?)?", word) or self.fail(f"bad opt '{word}' (expected NAME, NAME:AXIS or NAME:AXIS:ARG)")
      self.p.opts.append((m[1], *(None if x is None else int(x) for x in (m[2], m[3]))))

  def resolve_opts(self):
    """Each opt's axis (and SWAP's other axis, its arg) names exactly one RANGE of the program."""
    axes = [n.arg for n in self.p.nodes if n.op.name == "RANGE"]
    for name, axis, arg in self.p.opts:
      for a in (axis, arg) if name == "SWAP" else (axis,):
        if a is not None and axes.count(a) != 1:
          self.fail(f"opt {format_opt(name, axis, arg)}: {'no RANGE' if not axes.count(a) else 'more than one RANGE'} with axis {a}", self.opts_no)

  def resolve_values(self, no, tok):
    self.no, key, slot = no, tok[0], int(tok[1])
    target = getattr(self.p, key)
    b = next((b for b in self.p.buffers if b.slot == slot), None) or self.fail(f"{key} {slot}: no BUFFER with slot {slot}")
    if slot in target: self.fail(f"second {key} line for slot {slot}")
    if len(tok) - 3 != b.length: self.fail(f"{key} {slot}: {len(tok) - 3} values for {b.dtype.name}[{b.length}]")
    try: target[slot] = [parse_value(v, b.dtype) for v in tok[3:]]
    except ValueError as e: self.fail(f"{key} {slot}: {e}")


# ---- a BUFFER's bytes, as run requests carry them --------------------------------------------------------

# struct formats of the scalar dtypes, little-endian: bf16 and the fp8 formats have no Python type, so
# their raw bit patterns (bf16: the top 16 bits of the binary32 pattern) are the values.
_FORMATS = {"bool": "?", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u16": "H", "u32": "I",
            "u64": "Q", "f16": "e", "f32": "f", "f64": "d", "bf16": "H",
            "fp8e4m3": "B", "fp8e5m2": "B", "fp8e4m3fnuz": "B", "fp8e5m2fnuz": "B"}


def _buffer_format(dtype):
  dt = parse_dtype(dtype) if isinstance(dtype, str) else dtype
  if dt.name not in _FORMATS: raise ValueError(f"no BUFFER of {dt.name} (BUFFERs are scalar, never void)")
  return dt, _FORMATS[dt.name]


def buffer_bytes(dtype, values):
  """The bytes of a BUFFER of `dtype` (a DType or its name) holding `values`, as run requests carry them:
  little-endian, native layout, itemsize bytes each. bool: False/True (one byte, 0/1); ints: int (struct.error
  when out of range); f16, f32, f64: float (rounded to the nearest value of the format, OverflowError past
  its largest); bf16 and fp8e4m3/fp8e5m2/fp8e4m3fnuz/fp8e5m2fnuz: the raw bit pattern as an int (bf16 the
  top 16 bits of the binary32 pattern), as Python has no type for them."""
  dt, fmt = _buffer_format(dtype)
  return struct.pack(f"<{len(values)}{fmt}", *values)


def buffer_values(dtype, data):
  """The values of a BUFFER of `dtype` from its bytes, exactly: the inverse of buffer_bytes (bool: any
  non-zero byte is True; bf16 and fp8: raw bit patterns as ints). ValueError when len(data) is not a
  multiple of the itemsize."""
  dt, fmt = _buffer_format(dtype)
  if len(data) % dt.itemsize: raise ValueError(f"{len(data)} bytes are not a whole number of {dt.name} ({dt.itemsize} bytes each)")
  return list(struct.unpack(f"<{len(data) // dt.itemsize}{fmt}", data))

# uopfuzz_plugin.py: the Python SDK for renderer plug-ins (docs/format.md, section 5). Standard library
# only, Python 3.8+. It reads a .uop program into typed objects (Program, Node, Buffer; the Op and DType
# tables come from core/ops.def and core/dtypes.def beside this directory, never copied) and serves the
# three modes and the handshake of protocol 2: `--uopfuzz-describe`, `--uopfuzz-serve` (JSON lines),
# `LIST_FILE` (batch) and `PROGRAM_FILE FUNCTION_NAME` (one program):
#
#   Plugin(name="my-target", version="1.0", without=["vector"], render=render).main()
#
# where render(program, function) returns the C translation unit or raises RenderError. Without a `name`
# the plug-in answers no handshake: uopfuzz then speaks protocol 1 to it, as its flag says. `switches`
# (things of the target a render can switch off, `off`, and report as `used`) and `exports` (formats a
# program can be exported to) are protocol 2's optional keys for culprit searches and reproducers.
import collections
import json
import os
import re
import subprocess
import sys
import traceback

CORE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")
MODES = ("server", "batch", "program")  # in the order uopfuzz prefers them
PROTOCOL = 2
MAX_LANES, MAX_LENGTH, MAX_SLOT = 16, 1 << 24, 1 << 20


class RenderError(Exception):
  """This program cannot be rendered: a render-error of this program alone, with the message."""


Rendered = collections.namedtuple("Rendered", "source used", defaults=(None,))  # render's C and the switches that took effect


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
  """`%ID = OP DTYPE [ARG] [%SRC ...]`: args holds CONST's value, GEP's lane, RANGE's axis (parsed)."""
  __slots__ = ("id", "op", "dtype", "sources", "args", "line")

  def __init__(self, id, op, dtype, sources=(), args=(), line=0):
    self.id, self.op, self.dtype, self.sources, self.args, self.line = id, op, dtype, tuple(sources), tuple(args), line

  arg = property(lambda self: self.args[0] if self.args else None)

  def __repr__(self):
    words = [self.op.name, self.dtype.name, *(str(a).lower() if isinstance(a, bool) else repr(a) for a in self.args), *(f"%{s.id}" for s in self.sources)]
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
  value)] in file order; text: the text read; path: its file (None in server mode)."""

  def __init__(self, text, path=None):
    self.text, self.path, self.version, self.meta, self.nodes, self.sink = text, path, 1, [], [], None
    self.data, self.expect, self.got = {}, {}, {}

  buffers = property(lambda self: sorted((n for n in self.nodes if n.op.name == "BUFFER"), key=lambda b: b.slot))

  def meta_value(self, key, default=None):
    """The first `meta KEY = VALUE` line's value, as uopfuzz reads it."""
    return next((v for k, v in self.meta if k == key), default)


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
      elif tok[0] == "uops": self.fail("second 'uops' header")
      else: self.fail(f"unknown line '{s}'")
    if not header: self.fail("empty file: expected 'uops 1'", 1)
    if p.sink is None: self.fail("no SINK: the last node must be the SINK", last)
    for no, tok in self.values: self.resolve_values(no, tok)
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
    elif op.name in ("GEP", "RANGE"):  # %ID = GEP DTYPE LANE %SRC, %ID = RANGE DTYPE AXIS %END
      if len(tok) != 6: self.fail(f"{op.name} needs '{op.name} DTYPE {'LANE %SRC' if op.name == 'GEP' else 'AXIS %END'}'")
      arg = self.number(tok[4], "GEP lane" if op.name == "GEP" else "RANGE axis", 0, MAX_SLOT)
      node = Node(n, op, self.dtype(tok[3]), [self.source(tok[5])], [arg], self.no)
    else:
      node = Node(n, op, self.dtype(tok[3]), [self.source(t) for t in tok[4:]], line=self.no)
    self.check_version(node)
    self.define(node)

  def check_version(self, node):
    if self.p.version >= 2: return
    name, vector = node.op.name, node.dtype.is_vector or node.op.name in ("GEP", "STACK")
    if vector: self.fail(f"vector {(node.sources[0] if name == 'GEP' else node).dtype.name} in a version 1 file (vectors need 'uops 2')")
    if name in ("RANGE", "END"): self.fail(f"{name} in a version 1 file (loops need 'uops 2')")
    if (name, len(node.sources)) in (("LOAD", 3), ("STORE", 3)): self.fail(f"gated {name} in a version 1 file (gated memory needs 'uops 2')")

  def define(self, node):
    key = (node.op.name, node.dtype.name, tuple(map(repr, node.args)), tuple(s.id for s in node.sources), getattr(node, "slot", None), getattr(node, "length", None))
    node = self.interned.setdefault(key, node)  # a line identical to an earlier one is the same node
    if node.id == len(self.ids): self.p.nodes.append(node)
    if node.op.name == "SINK": self.p.sink = node
    self.ids.append(node)

  def values_line(self, tok):
    if len(tok) < 3 or tok[2] != "=": self.fail(f"{tok[0]} needs '{tok[0]} SLOT = v ...'")
    self.number(tok[1], "slot")
    self.values.append((self.no, tok))

  def resolve_values(self, no, tok):
    self.no, key, slot = no, tok[0], int(tok[1])
    target = getattr(self.p, key)
    b = next((b for b in self.p.buffers if b.slot == slot), None) or self.fail(f"{key} {slot}: no BUFFER with slot {slot}")
    if slot in target: self.fail(f"second {key} line for slot {slot}")
    if len(tok) - 3 != b.length: self.fail(f"{key} {slot}: {len(tok) - 3} values for {b.dtype.name}[{b.length}]")
    try: target[slot] = [parse_value(v, b.dtype) for v in tok[3:]]
    except ValueError as e: self.fail(f"{key} {slot}: {e}")


# ---- serving: the handshake and the three modes ----------------------------------------------------------

_renderer = None  # one `$UOPFUZZ render-plugin --uopfuzz-serve` for this process's renders


def uopfuzz_render(program, function):
  """The C of uopfuzz's own renderer, for plug-ins that break it (the tests'): asked of one `$UOPFUZZ
  render-plugin` server per process (a process a render costs ~8 ms), restarted if it died."""
  global _renderer
  uopfuzz = os.environ.get("UOPFUZZ") or sys.exit("set UOPFUZZ to the uopfuzz binary")
  if _renderer is None or _renderer.poll() is not None:
    _renderer = subprocess.Popen([uopfuzz, "render-plugin", "--uopfuzz-serve"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
  try:
    _renderer.stdin.write(json.dumps({"id": 1, "kind": "render", "function": function, "program": program.text}) + "\n")
    _renderer.stdin.flush()
    reply = json.loads(_renderer.stdout.readline() or "null")
  except (OSError, ValueError) as e: reply = {"error": f"uopfuzz render-plugin: {e}"}
  if not isinstance(reply, dict) or "source" not in reply:
    raise RenderError(f"uopfuzz render-plugin: {reply.get('error') if isinstance(reply, dict) else 'exited'}")
  return reply["source"]


class Plugin:
  """render(program, function) -> C source (or Rendered), or raise RenderError. name, version (a string, or
  a function giving one, called only by the handshake) and without describe the target for the handshake;
  without a name there is none (protocol 1). one_unit=True tells uopfuzz that the renders of a batch may be
  compiled as one translation unit (their common leading lines once): true when they differ only after a
  prelude they share, and define nothing two kernels would both define differently. switches (a list, or a
  function giving one, called when first needed: the handshake or an `off`) make the call render(program,
  function, off=frozenset of names). exports: {FORMAT: fn(program) -> text}, for `export` requests."""

  def __init__(self, render, name=None, version="", without=(), modes=MODES, language="c", one_unit=False, switches=None, exports=None):
    self.render, self.name, self.version, self.without, self.modes, self.language = render, name, version, list(without), list(modes), language
    self.one_unit, self.switches, self.exports, self._switch_list = one_unit, switches, dict(exports or {}), None
    self.prog = os.path.splitext(os.path.basename(sys.argv[0]))[0] or "plugin"

  def switch_list(self):
    if self._switch_list is None:
      self._switch_list = list(self.switches() if callable(self.switches) else self.switches)
      for n in self._switch_list:
        if not isinstance(n, str) or not re.fullmatch(r"[!-+\--~]+", n): self.fail(2, f"switch {n!r}: not printable ASCII without blanks or commas")
    return self._switch_list

  def describe(self):
    version = self.version() if callable(self.version) else self.version
    d = {"protocol": PROTOCOL, "modes": self.modes, "language": self.language,
         "target": {"name": self.name, "version": str(version)}, "without": self.without}
    if self.one_unit: d["one_unit"] = True
    if self.switches is not None: d["switches"] = self.switch_list()
    if self.exports: d["exports"] = sorted(self.exports)
    return d

  def render_text(self, text, function, path=None, off=()):
    """(source, error, used) for one program: what a batch line or a server request gets."""
    try: program = parse_program(text, path)
    except UopSyntaxError as e: return None, str(e), None
    return self.render_program(program, function, off)

  def render_program(self, program, function, off=()):
    if not re.fullmatch(r"[A-Za-z_]\w*", function or ""): return None, f"bad FUNCTION_NAME {function!r}", None
    kw = {} if self.switches is None else {"off": frozenset(off)}
    out, error = self.call(self.render, program, function, **kw)
    return (out.source, None, out.used) if isinstance(out, Rendered) else (out, error, None)

  def call(self, fn, *args, **kw):
    """(fn's value, None), or (None, the error) when it raises: that program's error, not the process's end."""
    try:
      return fn(*args, **kw), None
    except Exception as e:  # a RenderError, or a bug of the plug-in or its target
      cause = e.__cause__ if isinstance(e, RenderError) else e
      if os.environ.get("UOPFUZZ_PLUGIN_TRACE") and cause: traceback.print_exception(type(cause), cause, cause.__traceback__)
      return None, str(e) if isinstance(e, RenderError) else f"{type(e).__name__}: {e}"

  def main(self, argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--uopfuzz-describe"]:
      if not self.name: self.fail(2, "speaks protocol 1 (no handshake)")
      print(json.dumps(self.describe()))
    elif args == ["--uopfuzz-serve"]: self.serve(sys.stdin.buffer, sys.stdout)
    elif len(args) == 1 and not args[0].startswith("--"): self.batch(args[0])
    elif len(args) == 2 and not args[0].startswith("--"): self.one(*args)
    else: self.fail(2, f"usage: {self.prog} PROGRAM_FILE FUNCTION_NAME | LIST_FILE | --uopfuzz-serve | --uopfuzz-describe")

  def fail(self, code, message):
    print(f"{self.prog}: {message}", file=sys.stderr)
    raise SystemExit(code)

  def read(self, path):
    try:
      with open(path, encoding="utf-8") as f: return f.read()
    except (OSError, UnicodeDecodeError) as e: self.fail(2, f"{path}: cannot read ({getattr(e, 'strerror', None) or e})")

  def one(self, path, function):
    """PROGRAM_FILE FUNCTION_NAME: C on stdout; a program it cannot render is exit 1, bad input exit 2."""
    try: program = parse_program(self.read(path), path)
    except UopSyntaxError as e: self.fail(2, str(e))
    if not re.fullmatch(r"[A-Za-z_]\w*", function): self.fail(2, f"bad FUNCTION_NAME {function!r}")
    source, error, _ = self.render_program(program, function)
    if error is not None: self.fail(1, error)
    sys.stdout.write(source)

  def batch(self, list_file):
    """LIST_FILE: for each line `K.uop FUNCTION K.c K.err`, K.c or K.err beside the list."""
    base = os.path.dirname(os.path.abspath(list_file))
    for line in self.read(list_file).splitlines():
      if not line.strip(): continue
      words = line.split()
      if len(words) != 4: self.fail(2, f"{list_file}: expected 'K.uop FUNCTION_NAME K.c K.err', got {line!r}")
      program, function, c_file, err_file = (os.path.join(base, w) if i != 1 else w for i, w in enumerate(words))
      try:
        with open(program, encoding="utf-8") as f: text = f.read()
        source, error, _ = self.render_text(text, function, program)
      except (OSError, UnicodeDecodeError) as e: source, error = None, f"{program}: cannot read ({e})"
      with open(c_file if error is None else err_file, "w", encoding="utf-8") as out: out.write(source if error is None else error)

  def serve(self, requests, replies):
    """--uopfuzz-serve: one JSON request a line in, one JSON reply a line out, until end of input. The
    render's own prints go to stderr, so stdout carries replies only."""
    sys.stdout = sys.stderr
    try:
      for line in requests:
        if line.strip(): replies.write(json.dumps(self.answer(line)) + "\n")
        replies.flush()
    finally:
      sys.stdout = replies

  def answer(self, line):
    """The reply to one request line: `render` (with `off`, the switches to switch off) or `export`."""
    try: request = json.loads(line)
    except ValueError as e: return {"id": None, "error": f"bad request: not JSON ({e})"}
    request = request if isinstance(request, dict) else {}
    rid, kind, fmt, off = request.get("id"), request.get("kind"), request.get("format"), request.get("off") or []
    if kind not in ("render", "export") or not isinstance(request.get("program"), str) or (kind == "render" and not isinstance(request.get("function"), str)):
      return {"id": rid, "error": "bad request: expected {\"id\", \"kind\": \"render\", \"function\", \"program\"} or an export"}
    if kind == "export":
      if not isinstance(fmt, str) or fmt not in self.exports:
        return {"id": rid, "error": f"unknown export format {fmt!r} (this plug-in exports {', '.join(sorted(self.exports)) or 'nothing'})"}
      try: source, error = self.call(self.exports[fmt], parse_program(request["program"]))
      except UopSyntaxError as e: source, error = None, str(e)
      return {"id": rid, "source": source} if error is None else {"id": rid, "error": error}
    if not isinstance(off, list) or not all(isinstance(n, str) for n in off): return {"id": rid, "error": "bad request: 'off' must be a list of strings"}
    if off and self.switches is None: return {"id": rid, "error": "bad request: 'off' given, but this plug-in has no switches"}
    known = set(self.switch_list()) if off else ()
    unknown = next((n for n in off if n not in known), None)
    source, error, used = (None, f"unknown switch {unknown}", None) if unknown is not None else self.render_text(request["program"], request["function"], off=off)
    if error is not None: return {"id": rid, "error": error}
    return {"id": rid, "source": source} if used is None else {"id": rid, "source": source, "used": list(used)}

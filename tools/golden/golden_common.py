"""What golden.py and golden_programs.py share: our op and dtype facts, the tinygrad names they map to, the
Tiny wrapper around tinygrad, and values as the golden files write them.

The facts (which ops and dtypes exist, arities, operand classes, dtype kinds and sizes) are read from
core/ops.def and core/dtypes.def through the plug-in SDK (plugins/uopfuzz_uop.py), never retyped here; only
what is tinygrad's own (its spelling of names) lives in this file.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
import types

PLUGINS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "plugins")
sys.path.insert(0, PLUGINS)
try:
  import uopfuzz_uop as sdk  # noqa: E402  (the op and dtype tables of core/*.def)
finally:
  sys.path.remove(PLUGINS)  # plugins/tinygrad/ must not stand in for the tinygrad package later


# ---------------------------------------------------------------------------------------------------
# Our ops and dtypes (core/*.def), and tinygrad's names for them

VALUE_DTYPES = tuple(name for name, dt in sdk.DTYPES.items() if not dt.is_void)  # core/dtypes.def order
INTS = tuple(name for name in VALUE_DTYPES if sdk.DTYPES[name].is_int)
FLOATS = tuple(name for name in VALUE_DTYPES if sdk.DTYPES[name].is_float)
BITS = {name: 8 * sdk.DTYPES[name].itemsize for name in VALUE_DTYPES}

CONVERSIONS = ("CAST", "BITCAST")  # ALU ops tinygrad computes outside exec_alu (Tiny.cast, Tiny.bitcast)
# exec_alu's ops: unary, binary, then ternary, each group in core/ops.def order. `extend` writes its cases
# in this order, so reordering it would change the file every seed gives.
ALU_OPS = tuple(op.name for op in sorted((op for op in sdk.OPS.values() if op.is_alu and op.name not in CONVERSIONS),
                                         key=lambda op: op.arity))
ALL_OPS = ALU_OPS + CONVERSIONS
COMPARE = tuple(name for name in ALU_OPS if sdk.OPS[name].result == "BOOL")

# tinygrad's Ops names where they are not ours, first one present wins (IDIV/MOD are the names older
# tinygrads used for the C-style CDIV/CMOD).
TINYGRAD_OP_NAMES = {"RECIP": ("RECIPROCAL",), "CDIV": ("CDIV", "IDIV"), "CMOD": ("CMOD", "MOD")}
TINYGRAD_DTYPE_RENAMES = {"bf16": "bfloat16"}  # the one name tinygrad's rule below does not give


def tinygrad_dtype_name(name: str) -> str:
  """The attribute of tinygrad.dtype.dtypes for our dtype: tinygrad spells out the ints and the IEEE
  floats (i8 int8, u16 uint16, f32 float32); bool and the fp8 formats have our names."""
  dt, bits = sdk.DTYPES[name], BITS[name]
  if dt.is_int: return f"{'u' if dt.is_unsigned else ''}int{bits}"
  if dt.is_float and name == f"f{bits}": return f"float{bits}"
  return TINYGRAD_DTYPE_RENAMES.get(name, name)


TINYGRAD_DTYPES = {name: tinygrad_dtype_name(name) for name in VALUE_DTYPES}


def arity(op: str) -> int:
  return sdk.OPS[op].arity


def op_valid(op: str, dt: str) -> bool:
  """Whether the op takes operands of dt (its operand class in core/ops.def: no bit ops on floats, ...)."""
  return sdk.OPS[op].accepts(sdk.DTYPES[dt])


def unsigned_dtype(bits: int) -> str:
  """Our unsigned int dtype of that width (to walk a float dtype's bit patterns with bitcast)."""
  return next(name for name in INTS if sdk.DTYPES[name].is_unsigned and BITS[name] == bits)


def int_range(dt: str) -> tuple[int, int]:
  bits = BITS[dt]
  return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if sdk.DTYPES[dt].is_signed else (0, (1 << bits) - 1)


class Undefined(Exception):
  """tinygrad has no result (it raises), or the reference leaves the result open (BITCAST of a NaN)."""


class InputError(Exception):
  """A malformed line or file."""


# ---------------------------------------------------------------------------------------------------
# tinygrad

def git_commit(path: str) -> str | None:
  try:
    out = subprocess.run(["git", "-C", path, "log", "-1", "--format=%H %cd", "--date=short"],
                         capture_output=True, text=True, timeout=10)
    return out.stdout.strip() or None if out.returncode == 0 else None
  except (OSError, subprocess.SubprocessError):
    return None


class Tiny:
  """The few pieces of tinygrad we call: exec_alu, truncate, DType.const and bitcast."""

  def __init__(self, path: str | None):
    if path is not None:
      path = os.path.abspath(path)
      if not os.path.isfile(os.path.join(path, "tinygrad", "dtype.py")):
        raise InputError(f"--tinygrad {path}: no tinygrad/dtype.py there (give the checkout's root)")
      sys.path.insert(0, path)
    self.path, self.note = path, ""
    try:
      import tinygrad  # noqa: F401  (the normal way; it needs no third-party package at the time of writing)
    except ImportError as e:
      # The package __init__ pulls in the whole library; if some dependency is missing, load only the
      # modules exec_alu needs by giving the package an empty __init__.
      if path is None: raise InputError(f"cannot import tinygrad ({e}); pass --tinygrad PATH") from e
      for m in [m for m in sys.modules if m == "tinygrad" or m.startswith("tinygrad.")]: del sys.modules[m]
      pkg = types.ModuleType("tinygrad")
      pkg.__path__ = [os.path.join(path, "tinygrad")]
      sys.modules["tinygrad"] = pkg
      self.note = f"(import tinygrad failed: {e}; loaded tinygrad.dtype and tinygrad.uop.ops alone)"
    from tinygrad import dtype as tdt
    from tinygrad.uop import ops as tops
    self.tdt, self.Ops, self.exec_alu = tdt, tops.Ops, tops.exec_alu
    self.python_alu = getattr(tops, "python_alu", None)
    self.truncate, self.bitcast_fn = tdt.truncate, getattr(tdt, "bitcast", None)
    self.dt = {ours: getattr(tdt.dtypes, theirs) for ours, theirs in TINYGRAD_DTYPES.items() if hasattr(tdt.dtypes, theirs)}
    self.ops = {}
    for op in ALU_OPS:
      for name in TINYGRAD_OP_NAMES.get(op, (op,)):
        if hasattr(self.Ops, name):
          self.ops[op] = getattr(self.Ops, name)
          break
    self.version = git_commit(path) if path else None
    self.file = os.path.dirname(os.path.dirname(os.path.abspath(tdt.__file__)))

  def dtype(self, dt: str):
    if dt not in TINYGRAD_DTYPES: raise InputError(f"unknown dtype {dt!r}")
    if dt not in self.dt: raise InputError(f"this tinygrad has no dtype for {dt}")
    return self.dt[dt]

  def top(self, op: str):
    if op not in self.ops or (self.python_alu is not None and self.ops[op] not in self.python_alu):
      raise InputError(f"this tinygrad's exec_alu has no op for {op}")
    return self.ops[op]

  def alu(self, op: str, dt: str, operands: list):
    """exec_alu with the result dtype the way tinygrad's UOps carry it (bool for comparisons)."""
    top, rdt = self.top(op), self.dtype("bool" if op in COMPARE else dt)
    try:
      return self.exec_alu(top, rdt, list(operands))
    except (ArithmeticError, ValueError, TypeError) as e:
      raise Undefined(f"exec_alu raised {type(e).__name__}: {e}") from None

  def cast(self, src: str, dst: str, v):
    """tinygrad's python backend: truncate.get(dtype, id)(dtype.const(x))."""
    self.dtype(src)
    d = self.dtype(dst)
    try:
      return self.truncate.get(d, lambda x: x)(d.const(v))
    except (ArithmeticError, ValueError, TypeError) as e:
      raise Undefined(f"CAST raised {type(e).__name__}: {e}") from None

  def bitcast(self, src: str, dst: str, v):
    """tinygrad.dtype.bitcast; a NaN source is UNDEFINED (the value does not fix its bits)."""
    if self.bitcast_fn is None: raise InputError("this tinygrad has no tinygrad.dtype.bitcast")
    if src == "bool" or dst == "bool" or BITS[src] != BITS[dst]: raise InputError(f"BITCAST {src}>{dst}: sizes differ")
    if src in FLOATS and math.isnan(v): raise Undefined("BITCAST of a NaN (its bits are not fixed by the value)")
    try:
      return self.bitcast_fn(v, self.dtype(src), self.dtype(dst))
    except (ArithmeticError, ValueError, TypeError, AssertionError) as e:
      raise Undefined(f"bitcast raised {type(e).__name__}: {e}") from None

  def representable(self, dt: str, v) -> bool:
    """v is a value of dt (what the C++ side can hold): truncation leaves it unchanged."""
    if dt == "bool": return isinstance(v, bool)
    t = self.truncate.get(self.dtype(dt))
    try:
      return same(dt, t(v), v)
    except (ArithmeticError, ValueError, TypeError):
      return False

  def describe(self) -> str:
    return f"tinygrad {self.version or '(commit unknown: not a git work tree)'} at {self.file} {self.note}".rstrip()


# ---------------------------------------------------------------------------------------------------
# Values as the files write them

def parse_value(tok: str, dt: str):
  if dt == "bool":
    if tok == "true": return True
    if tok == "false": return False
    raise InputError(f"bad bool {tok!r}")
  if dt in INTS:
    try:
      return int(tok, 10)
    except ValueError:
      raise InputError(f"bad {dt} value {tok!r}") from None
  if dt in FLOATS:
    try:
      return float.fromhex(tok) if "x" in tok.lower() else float(tok)
    except ValueError:
      raise InputError(f"bad {dt} value {tok!r}") from None
  raise InputError(f"unknown dtype {dt!r}")


def fmt_value(v, dt: str) -> str:
  if dt == "bool": return "true" if v else "false"
  if dt in INTS:
    if isinstance(v, float) or not isinstance(v, int): raise InputError(f"{dt} result {v!r} is not an integer")
    return str(int(v))
  return float.__repr__(float(v))  # 'nan', 'inf', '-inf', shortest round-trip decimal


def same(dt: str, a, b) -> bool:
  """Equal as the project compares results: floats bit for bit except that all NaNs are equal."""
  if dt in FLOATS:
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b): return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
  return type(a) is type(b) and a == b if dt == "bool" else a == b

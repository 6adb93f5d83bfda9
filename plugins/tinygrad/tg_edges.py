# tg_edges.py: the results our IR defines where tinygrad's C (and its other renderers) leave them undefined:
# integer division by 0 and MIN / -1, shifts by the width or more, float-to-int casts out of range
# (docs/semantics.md, after tinygrad's exec_alu). tg_uops.build writes each such op out with these.
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp


def edges(op, dt, a, b):
  """Integer division and shifts with the meaning our IR gives their edge cases (docs/semantics.md, after
  tinygrad's exec_alu): b = 0 divides to 0 and leaves a as the remainder, MIN / -1 is MIN, a shift by N or
  more bits gives 0 (or -1, a negative a shifted right). In tinygrad's C these are undefined behaviour, so
  they are made explicit; a constant divisor or shift amount that needs none of it stays as it is."""
  def alu(o, *x): return UOp(o, dt, x)
  signed = not dtypes.is_unsigned(dt) and dt != dtypes.bool
  bits = dt.itemsize * 8
  if op in ("SHL", "SHR"):
    if b.op is Ops.CONST and b.arg < bits: return alu(getattr(Ops, op), a, b)
    big = UOp(Ops.CMPLT, dtypes.bool, (UOp.const(bits - 1, dt), b))
    r = alu(getattr(Ops, op), a, big.where(UOp.const(0, dt), b))
    out = UOp(Ops.CMPLT, dtypes.bool, (a, UOp.const(0, dt))).where(UOp.const(-1, dt), UOp.const(0, dt)) if op == "SHR" and signed else UOp.const(0, dt)
    return big.where(out, r)
  o = getattr(Ops, op)
  # by -1 only MIN needs the guard: tinygrad's own bound says when a cannot be MIN (then `x // -1 -> -x`)
  if b.op is Ops.CONST and b.arg != 0 and not (signed and b.arg == -1 and a.vmin <= dt.min): return alu(o, a, b)
  zero = UOp(Ops.CMPEQ, dtypes.bool, (b, UOp.const(0, dt)))
  minus1 = UOp(Ops.CMPEQ, dtypes.bool, (b, UOp.const(-1, dt))) if signed else UOp.const(False, dtypes.bool)
  if op in ("FLOORDIV", "CDIV"):  # MIN / -1 divides by 1 instead
    is_min = UOp(Ops.CMPEQ, dtypes.bool, (a, UOp.const(dt.min, dt))) if signed else UOp.const(False, dtypes.bool)
    safe = UOp(Ops.OR, dtypes.bool, (zero, UOp(Ops.AND, dtypes.bool, (minus1, is_min)))).where(UOp.const(1, dt), b)
    return zero.where(UOp.const(0, dt), alu(o, a, safe))
  safe = UOp(Ops.OR, dtypes.bool, (zero, minus1)).where(UOp.const(1, dt), b)  # x mod -1 is 0, as x mod 1
  return zero.where(a, alu(o, a, safe))


def float_to_int(x, dt):
  """CAST float -> int as exec_alu does it: truncate, then wrap to the dtype. C (tinygrad's renderer casts
  directly) leaves a value outside the dtype undefined, a negative one to an unsigned dtype included, so
  the cast goes through i64, exact for |x| < 2^63; beyond that the gap stays (docs/findings.md)."""
  if dt == dtypes.int64: return x.cast(dt)
  wide = x.cast(dtypes.int64).cast(dt)
  if dt != dtypes.uint64: return wide
  return UOp(Ops.CMPLT, dtypes.bool, (x, UOp.const(0.0, x.dtype))).where(wide, x.cast(dt))

#!/usr/bin/env python3
# tg_record.py: the kernels a tinygrad program builds, recorded as uopfuzz `.uop` files: seeds for a
# coverage-guided campaign (`uopfuzz fuzz --seeds DIR`, docs/format.md), shaped as tinygrad's own kernels are
# (index arithmetic over several RANGEs with div/mod, masked loads, reductions over axes, dtype mixes).
#
#   plugins/tinygrad/tg_record.py --out DIR [--uopfuzz PATH] [--max-iterations N] [--max-length N] SCRIPT [ARGS...]
#
# runs SCRIPT (a Python file using tinygrad) with a hook in tinygrad's codegen entry (do_to_program): each
# kernel AST it sees is lifted (lift below) to our IR and written as DIR/HASH.uop, one file per distinct
# program. What our IR cannot express is counted by reason, never guessed: DIR/record.json holds
# {"kernels", "recorded", "written", "skipped": {reason: count}, "opts": {...}}; with --uopfuzz, each file is
# kept only when uopfuzz reads it (rewritten in canonical form), the rest counted: "valid", "invalid":
# {message: count}, "with_opts": files with an opts line. tools/tinygrad-peer-coverage --record DIR records
# tinygrad's own test suite the same way (tg_peer.py). Each RANGE says its kind (kind=global, kind=reduce)
# from tinygrad's AxisType, and a kernel whose KernelInfo lists opts_to_apply (tinygrad's optimizer tests)
# gets them as its `opts` line, on our axis numbers, and as `meta tinygrad_opts` on tinygrad's axes
# (tg_record_opts.py); one without them (tinygrad's heuristic chose) gets no line. The lifted program keeps each kernel's
# structure, not always its exact meaning (FDIV becomes a MUL by a RECIP): a seed is a program like the
# kernel, checked by the reference like every other program.
import collections
import hashlib
import json
import math
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [p for p in (os.path.join(HERE, ".."), HERE) if p not in sys.path]
from tinygrad.dtype import AddrSpace, dtypes
from tinygrad.uop.ops import Ops

from tg_record_opts import range_kinds, recorded_opts, tinygrad_notation
from tg_uops import tg_dtype
from uopfuzz_plugin import DTYPES, format_opts

OUR_DTYPE = {tg_dtype(n): n for n in DTYPES if n != "void" and tg_dtype(n) is not None}
RENAMED = {Ops.RECIPROCAL: "RECIP"}
ALU = {"ADD", "SUB", "MUL", "MAX", "CMPLT", "CMPNE", "CMPEQ", "NEG", "AND", "OR", "XOR", "SHL", "SHR", "FLOORDIV",
       "FLOORMOD", "CDIV", "CMOD", "POW", "RECIP", "SQRT", "EXP2", "LOG2", "SIN", "TRUNC", "WHERE", "MULACC"}
COMPARES = {Ops.CMPLT, Ops.CMPNE, Ops.CMPEQ}
IDENTITY = {Ops.ADD: lambda dt: 0, Ops.MUL: lambda dt: 1, Ops.MAX: lambda dt: dt.min}
INT32 = (-2**31, 2**31 - 1)


class Skip(Exception):
  """A kernel our IR cannot express, with the reason (counted in record.json)."""


def value_text(v, name):
  """A constant as our reader takes it: floats exactly (C99 hex), bools as words, integers wrapped into
  their dtype (tinygrad writes `x * -1` on an unsigned x with the constant -1)."""
  if name == "bool": return "true" if v else "false"
  if name[0] in "iu":
    bits = DTYPES[name].itemsize * 8
    v = int(v) & ((1 << bits) - 1)
    return str(v - (1 << bits) if name[0] == "i" and v >> (bits - 1) else v)
  v = float(v)
  if math.isnan(v): return "nan"
  if math.isinf(v): return "inf" if v > 0 else "-inf"
  return v.hex()


class Lift:
  """One kernel AST as a `.uop` program: nodes in topological order, tinygrad's weak dtypes made concrete
  (weakint as i32 where its bounds fit, a weak constant as the dtype beside it), an INDEX read as a LOAD,
  REDUCE as tinygrad's accumulator loop (ALLOC, AFTER, END)."""

  def __init__(self, max_length, kinds=None):
    self.lines, self.memo, self.max_length, self.alloc_slot, self.kinds = [], {}, max_length, 0, kinds or {}

  def emit(self, text):
    self.lines.append(f"%{len(self.lines)} = {text}")
    return len(self.lines) - 1

  def const(self, v, name):
    return self.emit(f"CONST {name} {value_text(v, name)}")

  def dtype_of(self, u, beside=None):
    """Our dtype name for u's value; a weak dtype takes the dtype beside it (an operand's sibling)."""
    if u.dtype == dtypes.weakint:
      if beside is not None and beside != "i32": return beside
      if u.op is not Ops.CONST and not (INT32[0] <= u.vmin and u.vmax <= INT32[1]): raise Skip("index beyond int32")
      return "i32"
    if u.dtype == dtypes.weakfloat: return beside or "f32"
    if u.dtype == dtypes.void: return "void"
    name = OUR_DTYPE.get(u.dtype)
    if name is None or u.shape not in ((), None) and u.op not in (Ops.PARAM, Ops.AFTER): raise Skip(f"dtype {u.dtype}")
    return name

  def val(self, u, want=None):
    """The node id of u's value, as dtype `want` when u is weak (a constant) or differs (a cast)."""
    key = (u, want)
    if key in self.memo: return self.memo[key]
    if u.op is Ops.CONST: r = self.const(u.arg, want or self.dtype_of(u))
    else:
      if (u, None) not in self.memo: self.memo[(u, None)] = self.node(u)
      r = self.memo[(u, None)]
      if want is not None and want != self.dtype_of(u): r = self.emit(f"CAST {want} %{r}")
    self.memo[key] = r
    return r

  def node(self, u):
    op = u.op
    if op is Ops.PARAM:
      if u.addrspace != AddrSpace.GLOBAL: raise Skip("scalar parameter (a symbolic variable)")
      size = u.src[0] if u.src else None
      if size is None or size.op is not Ops.CONST: raise Skip("symbolic buffer size")
      if size.arg > self.max_length: raise Skip("buffer too long")
      return self.emit(f"BUFFER {self.dtype_of(u)}[{size.arg}] slot={u.arg.slot}")
    if op is Ops.RANGE:
      if u.src[0].op is not Ops.CONST: raise Skip("symbolic loop end")
      kind = self.kinds.get(u, "loop")
      return self.emit(f"RANGE i32 {u.arg[0]} %{self.val(u.src[0], 'i32')}" + (f" kind={kind}" if kind != "loop" else ""))
    if op is Ops.INDEX: return self.load(u)
    if op is Ops.STORE:
      return self.emit(f"STORE void %{self.address(u.src[0])} %{self.val(u.src[1], self.dtype_of(u.src[0]))}")
    if op is Ops.END: return self.emit("END void " + " ".join(f"%{self.val(s)}" for s in u.src))
    if op is Ops.AFTER: return self.emit(f"AFTER {self.dtype_of(u)} " + " ".join(f"%{self.val(s)}" for s in u.src))
    if op is Ops.SINK: return self.emit("SINK void " + " ".join(f"%{self.val(s)}" for s in u.src))
    if op is Ops.REDUCE: return self.reduce(u)
    if op in (Ops.CAST, Ops.BITCAST):
      return self.emit(f"{op.name} {self.dtype_of(u)} %{self.val(u.src[0])}")
    if op is Ops.FDIV:  # not in our IR: a * (1/b), the kernel's shape
      name = self.dtype_of(u)
      return self.emit(f"MUL {name} %{self.val(u.src[0], name)} %{self.emit(f'RECIP {name} %{self.val(u.src[1], name)}')}")
    our = RENAMED.get(op, op.name)
    if our not in ALU: raise Skip(f"op {op.name}")
    return self.alu(u, our)

  def alu(self, u, our):
    """An ALU node: a weak operand takes its concrete sibling's dtype (a comparison's result is bool)."""
    data = u.src[1:] if u.op is Ops.WHERE else u.src
    concrete = next((self.dtype_of(s) for s in data if s.dtype not in (dtypes.weakint, dtypes.weakfloat)), None)
    name = self.dtype_of(u, None if u.op in COMPARES else concrete)
    operand = concrete or (name if u.op not in COMPARES else None)
    if u.op in COMPARES and operand is None: operand = self.dtype_of(u.src[0])
    srcs = [self.val(u.src[0], "bool")] if u.op is Ops.WHERE else []
    srcs += [self.val(s, operand) for s in data]
    return self.emit(f"{our} {name} " + " ".join(f"%{s}" for s in srcs))

  def index(self, u):
    """INDEX(memory, i[, gate]) as (our INDEX id, gate id or None); the index valid only where a gate holds
    (tinygrad's `i.valid(gate)`: WHERE(gate, i, Invalid)) is a gated access."""
    if len(u.src) != 2: raise Skip("INDEX with several indices")
    mem, i, gate = u.src[0], u.src[1], None
    if i.op is Ops.WHERE and i.src[2].op is Ops.CONST and i.src[2].is_invalid: i, gate = i.src[1], self.val(i.src[0], "bool")
    base = self.memory(mem)
    return self.emit(f"INDEX {self.dtype_of(u)} %{base} %{self.val(i, 'i32')}"), gate

  def memory(self, m):
    if m.op not in (Ops.PARAM, Ops.AFTER): raise Skip(f"memory through {m.op.name}")
    return self.val(m)

  def address(self, u):
    if u.op is not Ops.INDEX: raise Skip(f"store through {u.op.name}")
    addr, gate = self.index(u)
    return addr if gate is None else self.gated_store_address(addr, gate)

  def gated_store_address(self, addr, gate):
    raise Skip("gated store")  # tinygrad gates stores late (IF), after the AST: not seen here

  def load(self, u):
    addr, gate = self.index(u)
    name = self.dtype_of(u)
    if gate is None: return self.emit(f"LOAD {name} %{addr}")
    return self.emit(f"LOAD {name} %{addr} %{self.const(0, name)} %{gate}")

  def reduce(self, u):
    """REDUCE(value, ranges..., arg=(op, ...)) as tinygrad lowers it: an accumulator initialised inside the
    loops the value shares with its users, updated in the REDUCE's own loops, read after them."""
    rop = u.arg[0] if isinstance(u.arg, tuple) else u.arg
    if rop not in IDENTITY: raise Skip(f"REDUCE {rop}")
    name = self.dtype_of(u)
    value, ranges = u.src[0], u.src[1:]
    if not ranges: raise Skip("REDUCE without ranges")
    outer = [r for r in value.ranges if r not in ranges]
    acc = self.emit(f"ALLOC {name}[1] slot={self.alloc_slot}")
    self.alloc_slot += 1
    zero = self.const(0, "i32")
    init_mem = self.emit(f"AFTER {name} %{acc} " + " ".join(f"%{self.val(r)}" for r in outer)) if outer else acc
    init = self.emit(f"STORE void %{self.emit(f'INDEX {name} %{init_mem} %{zero}')} %{self.const(IDENTITY[rop](u.dtype), name)}")
    rs = " ".join(f"%{self.val(r)}" for r in ranges)
    at = self.emit(f"INDEX {name} %{self.emit(f'AFTER {name} %{acc} %{init} {rs}')} %{zero}")
    step = self.emit(f"{rop.name} {name} %{self.emit(f'LOAD {name} %{at}')} %{self.val(value, name)}")
    end = self.emit(f"END void %{self.emit(f'STORE void %{at} %{step}')} {rs}")
    return self.emit(f"LOAD {name} %{self.emit(f'INDEX {name} %' + str(self.emit(f'AFTER {name} %{acc} %{end}')) + f' %{zero}')}")


def iterations(ast):
  """How many times the innermost body runs: the product of the constant RANGE ends."""
  n = 1
  for r in {u for u in ast.toposort() if u.op is Ops.RANGE}:
    if r.src[0].op is Ops.CONST: n *= max(1, r.src[0].arg)
  return n


def lift(ast, max_iterations=1 << 16, max_length=1 << 16, opts=None):
  """A kernel AST (a SINK) as `.uop` text, or raises Skip. opts: the `opts` line's steps (recorded_opts; None:
  no line), written with the kernel's opts_to_apply as `meta tinygrad_opts`."""
  if ast.tag is not None: raise Skip("a runtime-internal program")
  if iterations(ast) > max_iterations: raise Skip("too many loop iterations")
  lifted = Lift(max_length, range_kinds(ast))
  for r in ranges_of(ast): lifted.val(r)
  lifted.val(ast)
  head = [f"meta about = tinygrad kernel {ast.arg.name}"]
  if opts is not None: head += [f"meta tinygrad_opts = {tinygrad_notation(ast.arg.opts_to_apply or ())}", format_opts(opts)]
  return "uops 2\n" + "\n".join(head + lifted.lines) + "\n"


def ranges_of(ast):
  """The kernel's RANGEs in the order lift emits them: our IR nests loops by the order RANGEs come in,
  tinygrad's by axis type (reductions inside), then axis; but a REDUCE inside another one's loop (a sum of
  sums: the outer loop of REDUCE axis 2 around the inner one's axes 0 and 1) puts the loops its value runs
  inside before its own, whatever their numbers (the accumulator loop is lifted inside them)."""
  nodes = list(ast.toposort())
  order = sorted((u for u in nodes if u.op is Ops.RANGE), key=lambda r: (r.arg[-1].value, r.arg[0]))
  first = {r: set() for r in order}  # the ranges that must come before each one
  for u in nodes:
    if u.op is not Ops.REDUCE: continue
    own = set(u.src[1:])
    for r in own & first.keys(): first[r].update(o for o in u.src[0].ranges if o not in own and o in first)
  placed = []
  while len(placed) < len(order):
    nxt = next((r for r in order if r not in placed and first[r] <= set(placed)), None)
    if nxt is None: raise Skip("reductions nested both ways")
    placed.append(nxt)
  return placed


class Recorder:
  """A hook in tinygrad's do_to_program that lifts and writes every kernel it is given. opts counts the
  recorded kernels that list opts_to_apply: "listed", "whole" (every step in the opts line) and "cut":
  {why: count} (a prefix written, recorded_opts)."""

  def __init__(self, out_dir, max_iterations=1 << 16, max_length=1 << 16):
    self.out, self.limits = out_dir, (max_iterations, max_length)
    self.kernels, self.written, self.recorded, self.skipped = 0, set(), 0, collections.Counter()
    self.opts = {"listed": 0, "whole": 0, "cut": collections.Counter()}
    os.makedirs(out_dir, exist_ok=True)

  def install(self):
    """Hooks do_to_program (each kernel, recorded once it is compiled or failed) and, inside it, apply_opts
    (the sink tinygrad's optimizer gets, on which its opts_to_apply are replayed: recorded_opts)."""
    import tinygrad.codegen as codegen
    compile_kernel, optimize = codegen.do_to_program, codegen.apply_opts
    open_kernels = []  # [ast, (steps, why) or None] of the kernels being compiled, innermost last

    def recording(ast, renderer):
      if ast.op is not Ops.SINK: return compile_kernel(ast, renderer)
      open_kernels.append([ast, None])
      try: return compile_kernel(ast, renderer)
      finally: self.record(*open_kernels.pop())

    def replaying(sink, renderer, beam=0):
      if open_kernels and open_kernels[-1][1] is None and sink.tag is None:
        open_kernels[-1][1] = self.replay(sink, renderer, open_kernels[-1][0])
      return optimize(sink, renderer, beam=beam)
    codegen.do_to_program, codegen.apply_opts = recording, replaying

  def replay(self, sink, renderer, ast):
    try: return recorded_opts(sink, renderer, [r.arg[0] for r in ranges_of(ast)])
    except Exception as e:  # noqa: BLE001  (a count, never a crash of the host)
      if os.environ.get("UOPFUZZ_RECORD_DEBUG"): raise
      return [], f"opts: the replay failed: {type(e).__name__}"

  def record(self, ast, opts=None):
    """Lifts and writes one kernel; opts: (steps, why) from its replay (None: the optimizer never ran)."""
    self.kernels += 1
    listed = ast.arg is not None and ast.arg.opts_to_apply is not None
    steps, why = opts or (([], "opts: tinygrad failed before its optimizer ran") if listed else (None, None))
    try: text = lift(ast, *self.limits, opts=steps)
    except Skip as e: self.skipped[str(e)] += 1; return
    except Exception as e:
      if os.environ.get("UOPFUZZ_RECORD_DEBUG"): raise
      self.skipped[f"lift failed: {type(e).__name__}"] += 1; return  # noqa: BLE001  (a count, never a crash of the host)
    self.recorded += 1
    if listed:
      self.opts["listed"] += 1
      if why is None: self.opts["whole"] += 1
      else: self.opts["cut"][why] += 1
    name = hashlib.sha256(text.encode()).hexdigest()[:16] + ".uop"
    if name not in self.written:
      self.written.add(name)
      with open(os.path.join(self.out, name), "w", encoding="utf-8") as f: f.write(text)

  def finish(self):
    opts = {**self.opts, "cut": dict(self.opts["cut"].most_common())}
    summary = {"kernels": self.kernels, "recorded": self.recorded, "written": len(self.written),
               "skipped": dict(self.skipped.most_common()), "opts": opts}
    with open(os.path.join(self.out, "record.json"), "w", encoding="utf-8") as f: json.dump(summary, f, indent=1)
    return summary


def check_files(out_dir, uopfuzz):
  """Every recorded file through `uopfuzz fmt`: kept in canonical form when our reader and verifier take it,
  else removed and counted by the message (a lift that wrote an invalid program: a bug of this file).
  Kept as HASH.uop of the canonical text, so two kernels that differ only in what fmt drops (dead nodes,
  duplicates) are one file. record.json gets "valid" (distinct files kept), "invalid": {message: count} and
  "with_opts" (files with an opts line)."""
  import re
  import subprocess
  invalid, kept = collections.Counter(), {}
  for name in sorted(os.listdir(out_dir)):
    if not name.endswith(".uop"): continue
    path = os.path.join(out_dir, name)
    r = subprocess.run([uopfuzz, "fmt", path], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    os.remove(path)
    if r.returncode == 0: kept[hashlib.sha256(r.stdout.encode()).hexdigest()[:16] + ".uop"] = r.stdout
    else: invalid[re.sub(r"%\d+", "%N", re.sub(r"^\S+:\d+: ", "", (r.stderr.strip().splitlines() or ["?"])[0]))] += 1
  for name, text in kept.items():
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f: f.write(text)
  with open(os.path.join(out_dir, "record.json"), encoding="utf-8") as f: summary = json.load(f)
  summary.update(valid=len(kept), invalid=dict(invalid.most_common()),
                 with_opts=sum(bool(re.search(r"^opts\b", t, re.M)) for t in kept.values()))
  with open(os.path.join(out_dir, "record.json"), "w", encoding="utf-8") as f: json.dump(summary, f, indent=1)
  return summary


def main(argv):
  import argparse
  ap = argparse.ArgumentParser(description="Record the kernels a tinygrad script builds as uopfuzz .uop seeds.")
  ap.add_argument("--out", required=True, help="the directory of the .uop files (and record.json)")
  ap.add_argument("--max-iterations", type=int, default=1 << 16, help="skip kernels whose loops run more often")
  ap.add_argument("--max-length", type=int, default=1 << 16, help="skip kernels with a longer buffer")
  ap.add_argument("--uopfuzz", help="uopfuzz, to keep only the files it reads, in canonical form (check_files)")
  ap.add_argument("script")
  ap.add_argument("args", nargs=argparse.REMAINDER)
  a = ap.parse_args(argv)
  if not os.path.isfile(a.script): ap.error(f"{a.script}: no such file")
  rec = Recorder(a.out, a.max_iterations, a.max_length)
  rec.install()
  sys.argv = [a.script, *a.args]
  try: runpy.run_path(a.script, run_name="__main__")
  finally:
    summary = rec.finish()
    if a.uopfuzz: summary = check_files(a.out, a.uopfuzz)
    print(f"tg_record: {json.dumps(summary)}", file=sys.stderr)


if __name__ == "__main__":
  main(sys.argv[1:])

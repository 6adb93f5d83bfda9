# tg_tensor.py: the tinygrad adapter's Tensor lift (README.md, "Reachability"): a program written as the
# user code of tinygrad's Tensor front end would compute it, run on the backend's device, to tell a finding
# users reach (`tensor`) from one only a hand-built kernel reaches (`kernel`).
#
# The lift takes loop-free programs: every BUFFER a Tensor of its data, a LOAD of element k `bufS[k]`, each ALU
# op the Tensor operator or method a user writes for it (TENSOR_OPS), constants typed Tensors, and every
# stored BUFFER the stack of its elements (what was stored, else its data). A program with loops, kernel-local
# memory (ALLOC, AFTER), gates, computed indices or vectors has no Tensor form here: it is `kernel`, with the
# reason. The front end decides what kernels it builds from this (it fuses, folds constants, rewrites
# -x as x * -1): that is the point, the question is what user code gets.
import json
import math
import os
import subprocess
import sys

from uopfuzz_plugin import RenderError, format_opts
from tg_uops import tg_dtype, tinygrad_version

# Ours -> the Tensor expression user code writes for it ({0}, {1}, {2}: the operands; {T}: the result dtype).
TENSOR_OPS = {
  "ADD": "{0} + {1}", "SUB": "{0} - {1}", "MUL": "{0} * {1}", "MAX": "{0}.maximum({1})",
  "CMPLT": "({0} < {1})", "CMPNE": "({0} != {1})", "CMPEQ": "{0}.eq({1})", "NEG": "-{0}",
  "AND": "({0} & {1})", "OR": "({0} | {1})", "XOR": "({0} ^ {1})", "SHL": "({0} << {1})", "SHR": "({0} >> {1})",
  "FLOORDIV": "({0} // {1})", "FLOORMOD": "({0} % {1})", "CDIV": "{0}.div({1}, rounding_mode='trunc')", "CMOD": "{0}.fmod({1})",
  "POW": "{0}.pow({1})", "RECIP": "{0}.reciprocal()", "SQRT": "{0}.sqrt()", "EXP2": "{0}.exp2()", "LOG2": "{0}.log2()",
  "SIN": "{0}.sin()", "TRUNC": "{0}.trunc()", "WHERE": "{0}.where({1}, {2})", "MULACC": "({0} * {1} + {2})",
  "CAST": "{0}.cast({T})", "BITCAST": "{0}.bitcast({T})",
}
# Where a bool's Tensor operator means something else: tinygrad's `a - b` on bools is `a + ~b` (its neg of a
# bool is logical not), ours is exec_alu's XOR; our NEG of a bool is the bool itself.
BOOL_TENSOR_OPS = {"SUB": "({0} ^ {1})", "NEG": "{0}"}


class NoTensorForm(Exception):
  """The program has something the lift does not write as Tensor code: the reason."""


def literal(value):
  if isinstance(value, float) and not math.isfinite(value): return f"float('{value}')"
  return repr(value)


def backward(node):
  """The node and everything it depends on."""
  seen, todo = set(), [node]
  while todo:
    n = todo.pop()
    if n.id not in seen: seen.add(n.id); todo.extend(n.sources)
  return seen


def memory(n, deps):
  """(the BUFFER under an INDEX's or AFTER's memory, the LOADs an AFTER on the way orders it after)."""
  if n.op.name == "AFTER":
    if any(x.op.name == "STORE" for d in n.sources[1:] for x in deps.nodes_of(d)):
      raise NoTensorForm(f"%{n.id}: memory ordered after a STORE (Tensor code has no such order)")
    buffer, loads = memory(n.sources[0], deps)
    return buffer, loads | {i for d in n.sources[1:] for i in deps.loads_of(d)}
  if n.op.name == "INDEX": return memory(n.sources[0], deps)
  if n.op.name != "BUFFER": raise NoTensorForm(f"%{n.id}: memory of {n.op.name}")
  return n, set()


class Dependencies:
  """What a node depends on: its nodes, its LOADs."""

  def __init__(self, program): self.by_id = {n.id: n for n in program.nodes}
  def nodes_of(self, n): return [self.by_id[i] for i in backward(n)]
  def loads_of(self, n): return {x.id for x in self.nodes_of(n) if x.op.name == "LOAD"}


def tensor_lines(program, device):
  """The body of `compute()`: Python lines building the program with Tensors on `device`, ending in a return
  of {slot: the stored BUFFER's values}. Raises NoTensorForm."""
  names, lines, stored, loads_of_element = {}, [], {}, {}
  deps = Dependencies(program)
  for n in program.nodes:
    op, dt = n.op.name, None if n.dtype.is_void else tg_dtype(n.dtype.name)
    if not n.dtype.is_void and (n.dtype.is_vector or dt is None): raise NoTensorForm(f"%{n.id}: dtype {n.dtype.name}")
    src = [names.get(s.id) for s in n.sources]
    if op == "BUFFER":
      names[n.id] = f"buf{n.slot}"
      lines.append(f"buf{n.slot} = Tensor({program.data.get(n.slot, [0] * n.length)!r}, dtype={dt!r}, device=DEVICE)")
    elif op == "CONST": names[n.id] = f"Tensor({literal(n.arg)}, dtype={dt!r}, device=DEVICE)"
    elif op == "AFTER": memory(n, deps)  # only checked here: Tensor code reads the data as it was
    elif op == "INDEX":
      buffer, _ = memory(n, deps)
      if n.sources[1].op.name != "CONST" or len(n.sources) > 2: raise NoTensorForm(f"%{n.id}: a computed or gated index")
      names[n.id] = (buffer.slot, n.sources[1].arg)
    elif op == "LOAD":
      if len(n.sources) > 1: raise NoTensorForm(f"%{n.id}: a gated LOAD")
      slot, k = names[n.sources[0].id]
      loads_of_element.setdefault((slot, k), set()).add(n.id)
      names[n.id] = f"buf{slot}_{k}" if len(loads_of_element[slot, k]) == 1 else f"buf{slot}_{k}_{n.id}"
      lines.append(f"{names[n.id]} = buf{slot}[{k}]")
    elif op == "STORE":
      if len(n.sources) > 2: raise NoTensorForm(f"%{n.id}: a gated STORE")
      at = names[n.sources[0].id]
      if at in stored: raise NoTensorForm(f"%{n.id}: buf{at[0]}[{at[1]}] stored twice")
      stored[at] = (src[1], memory(n.sources[0], deps)[1])
    elif op == "SINK": break
    elif op in TENSOR_OPS:  # named by what it is and its node's number
      names[n.id] = f"{op.lower()}{n.id}"
      form = BOOL_TENSOR_OPS.get(op, TENSOR_OPS[op]) if n.dtype.name == "bool" else TENSOR_OPS[op]
      lines.append(f"{names[n.id]} = " + form.format(*src, T=repr(dt)))
    else: raise NoTensorForm(f"%{n.id}: {op}")
  for at, (_, ordered_after) in stored.items():  # a store to an element also loaded must come after those loads
    if not loads_of_element.get(at, set()) <= ordered_after:
      raise NoTensorForm(f"buf{at[0]}[{at[1]}] is loaded and stored in no order (Tensor code reads the data as it was)")
  stored = {at: value for at, (value, _) in stored.items()}
  outputs = sorted({slot for slot, _ in stored})
  lengths = {b.slot: b.length for b in program.buffers}
  for slot in outputs:
    elements = [stored.get((slot, k), f"buf{slot}[{k}]") for k in range(lengths[slot])]
    lines.append(f"out{slot} = Tensor.stack({', '.join(elements)})")
  lines.append("return {" + ", ".join(f"{slot}: out{slot}.tolist()" for slot in outputs) + "}")
  used = " ".join(lines)  # a BUFFER's Tensor only when read (a stored BUFFER's elements not stored are read)
  return [l for l in lines if not (l.startswith("buf") and " = Tensor(" in l) or f"{l.split(' ', 1)[0]}[" in used]


def module(program, backend):
  """The Tensor form as a module defining compute() (run under the backend's renderer) and EXPECT."""
  _, renderer, device, dev = backend.EXPORT
  settings = {"DEV": dev}
  from tinygrad.helpers import EMULATED_DTYPES
  if EMULATED_DTYPES.value: settings["EMULATED_DTYPES"] = EMULATED_DTYPES.value
  body = tensor_lines(program, device)
  deps = Dependencies(program)
  outputs = {memory(n.sources[0], deps)[0].slot for n in program.nodes if n.op.name == "STORE"}
  expect = {slot: program.expect[slot] for slot in sorted(program.expect) if slot in outputs}
  return "\n".join([
    "import math, unittest", "from tinygrad import Tensor, dtypes", "from tinygrad.helpers import Context",
    f"DEVICE = {device!r}", "",
    "def compute():",
    f"  \"\"\"The program as Tensor code, run with the finding's renderer ({renderer}) whatever DEV says.\"\"\"",
    f"  with Context({', '.join(f'{k}={v!r}' for k, v in settings.items())}):",
    *(f"    {l}" for l in body), "",
    "# the values uopfuzz's reference (tinygrad's exec_alu) gives each BUFFER the program stores, by slot",
    f"EXPECT = {{{', '.join(f'{s}: [{chr(44).join(literal(v) for v in expect[s])}]' for s in expect)}}}",
  ])


# How values compare, in the test and in reach() alike.
SAME = """def same(got, want):
  \"\"\"Exact: floats by value and sign (tolist gives each element exactly), any NaN equal to any NaN.\"\"\"
  if isinstance(got, float) or isinstance(want, float):
    return (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))
  return got == want
"""
_scope = {"math": math}
exec(SAME, _scope)
same_value = _scope["same"]

TEST = "\n\n" + SAME + """

class TestUopfuzzFindingTensor(unittest.TestCase):
  def test_tensor(self):
    wrong = [f"buf{slot}[{k}] = {g!r} expected {w!r}" for slot, got in compute().items()
             for k, (g, w) in enumerate(zip(got, EXPECT[slot])) if not same(g, w)]
    if wrong: self.fail("\\n".join(wrong[:20]))


if __name__ == "__main__":
  unittest.main()
"""


def export_tensor(program, backend):
  """`export --as tinygrad-tensor`: the Tensor form as a standalone unittest, failing while the bug is there."""
  try: code = module(program, backend)
  except NoTensorForm as e: raise RenderError(f"no Tensor form: {e}") from None
  return "\n".join([
    "# A tinygrad bug found by uopfuzz, as user code of tinygrad's Tensor front end: the program's values",
    f"# computed by Tensor operations on {backend.EXPORT[2]} with {backend.EXPORT[1]} and compared with exec_alu's",
    "# (uopfuzz's reference; floats by value and sign). It fails while the bug is there.",
    "#   PYTHONPATH=/path/to/tinygrad python3 THIS_FILE.py     (no DEV needed: the test picks its renderer)",
    f"# exported with tinygrad {tinygrad_version()}" + (f", from {program.path}" if program.path else ""),
    *(f"# {k}: {v}" for k, v in program.meta if k in ("signature", "status", "found")),
    *([f"#{ignored_opts(program)}"] if program.opts is not None else []),
    code]) + TEST


def ignored_opts(program):
  """What a Tensor form says of the program's `opts` line: it is not applied (user code does not choose the
  kernels' opts; tinygrad's heuristic does)."""
  if program.opts is None: return ""
  return f" (the opts line, {format_opts(program.opts)!r}, is not applied: tinygrad's heuristic optimizes the Tensor form)"


def reach(program, backend, timeout_s=300):
  """("tensor" | "kernel", detail): whether the Tensor form, run on the backend, fails as the finding does:
  its values differ from the expect lines and equal the finding's `got` lines where it has them. The detail
  says when the program's opts line was not applied, and whether the heuristic or BEAM reaches the line
  (tg_opts_reach)."""
  from tg_opts_reach import opts_reach
  level, detail = reach_values(program, backend, timeout_s)
  return level, detail + ignored_opts(program) + opts_reach(program, backend)


def reach_values(program, backend, timeout_s):
  try: code = module(program, backend)
  except NoTensorForm as e: return "kernel", f"no Tensor form: {e}"
  driver = code + "\nimport json\nprint('UOPFUZZ-VALUES ' + json.dumps(compute()))\n"
  root = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["tinygrad"].__file__)))
  env = {**os.environ, "PYTHONPATH": root}
  env.pop("DEV", None)
  try:
    r = subprocess.run([sys.executable, "-B", "-c", driver], capture_output=True, text=True, env=env, timeout=timeout_s,
                       stdin=subprocess.DEVNULL)
  except subprocess.TimeoutExpired: return "kernel", f"the Tensor form did not finish in {timeout_s} s"
  line = next((l for l in r.stdout.splitlines() if l.startswith("UOPFUZZ-VALUES ")), None)
  if line is None:
    last = (r.stderr.strip().splitlines() or ["no output"])[-1]
    return "kernel", f"the Tensor form fails otherwise: {last[:300]}"
  values = {int(k): v for k, v in json.loads(line[len("UOPFUZZ-VALUES "):]).items()}
  wrong = [(s, k) for s, vs in values.items() for k, v in enumerate(vs) if s in program.expect and not same_value(v, program.expect[s][k])]
  if not wrong: return "kernel", "the Tensor form computes the expected values"
  unlike = [(s, k) for s, vs in program.got.items() if s in values for k, v in enumerate(vs) if not same_value(values[s][k], v)]
  if unlike: return "kernel", f"the Tensor form differs, but not as the kernel does (buf{unlike[0][0]}[{unlike[0][1]}])"
  s, k = wrong[0]
  return "tensor", f"the Tensor form gives buf{s}[{k}] = {values[s][k]!r}, expected {program.expect[s][k]!r} (export --as tinygrad-tensor)"

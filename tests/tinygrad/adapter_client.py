"""The tinygrad adapter as the optimizer tests (opts_test.py, beam_test.py) drive it: one adapter server asked to
render (or, for python, run) a program, the render run as uopfuzz would run it (native_run.py) and its outputs
compared with the program's expect lines; and the kernels they ask about."""
import base64, json, os, subprocess, tempfile

import native_run as nr
from uopfuzz_plugin import parse_program

ADAPTER = os.environ.get("UOPFUZZ_TINYGRAD_ADAPTER", "plugins/tinygrad/uopfuzz_tinygrad.py")
TMP = tempfile.mkdtemp()
NEST_FILE = "tests/programs/loop_global_reduce_nest.uop"  # a global loop with ALLOC scratch inside


def global_loop(opts, buffers=2, unused=(), gate=False, spare=0, dead=()):
  """out[i] = the sum of in_k[i] over the used input BUFFERs + i, for i < 16 (a RANGE of kind global, axis 0);
  BUFFER buffers-1 is out, in_k holds k*100 + i, `spare` more BUFFERs after out are unused. gate: the first
  load gated by i < 8 (alt 7). dead: the inputs whose load is under a constant-false WHERE (0 instead), which
  tinygrad's symbolic passes fold away, PARAM and all."""
  ins = [k for k in range(buffers - 1) if k not in unused]
  lines = ["uops 2", *(f"%{k} = BUFFER i32[16] slot={k}" for k in range(buffers + spare))]
  n = buffers + spare
  def add(text):
    nonlocal n
    lines.append(f"%{n} = {text}")
    n += 1
    return n - 1
  end = add("CONST i32 16")
  rng = add(f"RANGE i32 0 %{end} kind=global")
  acc = rng
  for j, k in enumerate(ins):
    at = add(f"INDEX i32 %{k} %{rng}")
    if gate and j == 0:
      bound = add("CONST i32 8")
      alt, cond = add("CONST i32 7"), add(f"CMPLT bool %{rng} %{bound}")
      val = add(f"LOAD i32 %{at} %{alt} %{cond}")
    else: val = add(f"LOAD i32 %{at}")
    if k in dead: val = add(f"WHERE i32 %{add('CONST bool false')} %{val} %{add('CONST i32 0')}")
    acc = add(f"ADD i32 %{acc} %{val}")
  out = add(f"INDEX i32 %{buffers - 1} %{rng}")
  store = add(f"STORE void %{out} %{acc}")
  add(f"SINK void %{add(f'END void %{store} %{rng}')}")
  lines += [f"data {k} = " + " ".join(str(k * 100 + i) for i in range(16)) for k in ins]
  want = [i + sum((7 if gate and j == 0 and i >= 8 else 0 if k in dead else k * 100 + i) for j, k in enumerate(ins)) for i in range(16)]
  lines += [f"expect {buffers - 1} = " + " ".join(map(str, want))] + ([opts] if opts is not None else [])
  return "\n".join(lines) + "\n"


# an output loop (out[i] = i) and, outside it, a[0] += 1: tinygrad's CPU runtime runs the whole kernel once per
# core_id, so with THREAD the increment would run once per thread (3, not 2): such a THREAD is skipped and said
OUTSIDE_STORE = """uops 2
%0 = BUFFER i32[1] slot=0
%1 = BUFFER i32[4] slot=1
%2 = CONST i32 0
%3 = CONST i32 4
%4 = RANGE i32 0 %3 kind=global
%5 = INDEX i32 %1 %4
%6 = STORE void %5 %4
%7 = END void %6 %4
%8 = INDEX i32 %0 %2
%9 = LOAD i32 %8
%10 = CONST i32 1
%11 = ADD i32 %9 %10
%12 = STORE void %8 %11
%13 = SINK void %7 %12
data 0 = 1
expect 0 = 2
expect 1 = 0 1 2 3
opts THREAD:0:2
"""


def own_index_sum(opts):
  """tests/programs/loop_sum.uop (136, the sum of i < 17 in an accumulator) with its RANGE of kind reduce."""
  with open("tests/programs/loop_sum.uop") as f: text = f.read().replace("%6 = RANGE i32 0 %1", "%6 = RANGE i32 0 %1 kind=reduce")
  return text + opts + "\n"


class Adapter:
  """One adapter server (a backend and options): ask(program text) -> (reply keys, verdict, details)."""

  def __init__(self, backend, *options):
    self.backend, self.n = backend, 0
    self.p = subprocess.Popen([ADAPTER, "--backend", backend, *options, "--uopfuzz-serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

  def request(self, **kw):
    self.n += 1
    self.p.stdin.write(json.dumps({"id": self.n, **kw}) + "\n")
    self.p.stdin.flush()
    return json.loads(self.p.stdout.readline())

  def ask(self, text):
    program = parse_program(text)
    if self.backend == "python":
      inputs = [{str(s): base64.b64encode(b).decode() for s, b in nr.inputs(program).items()}]
      reply = self.request(kind="run", function="k", program=text, inputs=inputs)
      out = reply.get("outputs", [{"class": "render-error", "message": reply.get("error")}])[0]
      result = ("ok", {int(s): base64.b64decode(b) for s, b in out.items()}) if "class" not in out else (out["class"], out["message"])
    else:
      reply = self.request(kind="render", function="k", program=text)
      if "error" in reply: return reply, "render-error", reply["error"][-300:]
      source = reply["source"]
      if self.backend == "x86": result = nr.run_x86_image(base64.b64decode(source), program)
      elif self.backend == "llvm": result = nr.run_llvm_ir(source, program, "k", TMP)
      else: result = nr.run_c(source, program, "k", TMP)
    if result[0] != "ok": return reply, result[0], str(result[1])[:300]
    wrong = nr.compare(program, result[1])
    return reply, "ok" if wrong is None else "mismatch", wrong or ""

  def close(self):
    self.p.stdin.close()
    self.p.wait(timeout=60)


def vectorized(backend, features):
  """Whether the render's features show vector code (python's emulator: the UPCAST on its GLOBAL axis)."""
  return {"clang": "c:vector" in features, "llvm": any(f.startswith(("llvm:vec:", "llvm:insertelement")) for f in features),
          "x86": any(f.startswith("insn:V") for f in features), "python": "opt:UPCAST:GLOBAL" in features}[backend]


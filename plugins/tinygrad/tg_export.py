# tg_export.py: the tinygrad adapter's export (README.md, "Export"): a program as a standalone tinygrad
# unittest, for the backend's device and renderer (the CPU device's ClangRenderer, CPULLVMRenderer or
# X86Renderer, built by the test itself: no DEV needed; the PYTHON device's emulator). A program with an `opts`
# line exports the opts tinygrad applied as the kernel's KernelInfo.opts_to_apply, on the scheduler's axes.
from dataclasses import replace

import tg_opts
from uopfuzz_plugin import RenderError, format_opts
from tinygrad.dtype import storage_fmt_for_dtype
from tinygrad.helpers import EMULATED_DTYPES, NUM_CPU_THREADS
from tinygrad.uop.render import pyrender
from tg_params import kernel_slots
from tg_uops import Unsupported, build, tg_dtype, tinygrad_version

# The program as a unittest in the style of tinygrad's test/test_uops.py that needs only tinygrad: the
# UOps the adapter gives tinygrad's pipeline (as tinygrad's own pyrender writes them), compiled and run on
# the backend's device by tinygrad (to_program, get_runtime), every BUFFER compared with the program's expect
# lines (exec_alu's values). For an open finding it fails.
TEST_IMPORTS = """import math, signal, struct, unittest
from dataclasses import replace
from tinygrad import Device
from tinygrad.codegen import to_program
from tinygrad.codegen.opt import Opt, OptOps
from tinygrad.device import Buffer
from tinygrad.dtype import AddrSpace, ConstFloat, Invalid, dtypes, from_storage_scalar, storage_fmt_for_dtype, to_storage_scalar
from tinygrad.engine.realize import get_runtime
from @MODULE@ import @RENDERER@
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, ParamArg, UOp
inf, nan = math.inf, math.nan
DEVICE = "@DEVICE@"
"""
TEST_BODY = """


def same(dt, got, want):
  \"\"\"Bit for bit in dt's storage, but any NaN equals any NaN (and any byte but 0 is a true bool, as struct reads it).\"\"\"
  if isinstance(got, float) and math.isnan(got) and math.isnan(want): return True
  fmt = "<" + storage_fmt_for_dtype(dt)
  return struct.pack(fmt, to_storage_scalar(got, dt)) == struct.pack(fmt, to_storage_scalar(want, dt))


def storage(dt, data):
  \"\"\"Values of dt as the bytes of a Buffer of dt (bf16 and fp8 through tinygrad's own storage conversions).\"\"\"
  return struct.pack(f"<{len(data)}{storage_fmt_for_dtype(dt)}", *[to_storage_scalar(x, dt) for x in data])


class TestUopfuzzFinding(unittest.TestCase):
  def test_kernel(self):
    renderer = @MAKE_RENDERER@  # the finding's renderer whatever DEV says
    bufs = {slot: Buffer(DEVICE, len(data), dt, initial_value=storage(dt, data)) for slot, (dt, data, _) in BUFFERS.items()}
@LIMIT@    prg = to_program(kernel(), renderer)
    global_size, local_size = prg.arg.launch_dims({})
    # the buffers in the order the kernel's C function takes them: its LINEAR's PARAMs (as to_elf's signature lists them),
    # PARAM k the BUFFER of slot SLOTS[k]. NOTE: exec_kernel passes them in prg.arg.globals order (by slot), not always
    # the same (a zero-trip RANGE reorders them)
    params = [SLOTS[u.arg.slot] for u in next(s for s in prg.src if s.op is Ops.LINEAR).src if u.op is Ops.PARAM and u.addrspace != AddrSpace.ALU]
    get_runtime(DEVICE, prg)(*[bufs[slot].ensure_allocated()._buf for slot in params], global_size=global_size, local_size=local_size,
                            vals=prg.arg.vals({}))
    wrong = []
    for slot, (dt, _, want) in sorted(BUFFERS.items()):
      got = [from_storage_scalar(v, dt) for (v,) in struct.iter_unpack("<" + storage_fmt_for_dtype(dt), bytes(bufs[slot].as_memoryview()))]
      wrong += [f"buf{slot}[{k}] = {g} expected {w}" for k, (g, w) in enumerate(zip(got, want or got)) if not same(dt, g, w)]
    if wrong: self.fail("\\n".join(wrong[:20] + [f"({len(wrong)} elements differ)"] * (len(wrong) > 20)))
if __name__ == "__main__":
  unittest.main()
"""


def explicit_uops(sink):
  """The graph as UOp(op, dtype, src, arg) lines, should pyrender's not give back the same graph."""
  names, lines = {}, []
  for k, u in enumerate(sink.toposort()):
    names[u] = "ast" if u is sink else f"u{k}"
    tag = f", {u.tag!r}" if u.tag is not None else ""
    lines.append(f"{names[u]} = UOp({u.op}, {u.dtype}, ({''.join(names[x] + ', ' for x in u.src)}), {u.arg!r}{tag})")
  return "\n".join(lines)


def without_defaults(code, opts=None):
  """pyrender's code with the kernel's KernelInfo(...) shortened to its name and opts (its other fields are
  their defaults); the caller keeps it only if it still builds the same graph."""
  at = code.find("KernelInfo(")
  if at < 0: return code
  depth, end = 0, at + len("KernelInfo")
  for end in range(at + len("KernelInfo"), len(code)):
    depth += {"(": 1, ")": -1}.get(code[end], 0)
    if depth == 0: break
  shown = "" if opts is None else f", opts_to_apply={opts!r}"
  return code[:at] + f"KernelInfo(name='uopfuzz_kernel'{shown})" + code[end + 1:]


def applied_opts(program, backend):
  """(the Opts on the scheduler's axes, the skipped ones' lines) of the program's `opts` line as the adapter's
  lowering applies them (tg_opts): an opt tinygrad raised on, not KernelOptError, is kept (it is the finding).
  (None, []) without an opts line: the test leaves the choice to tinygrad's heuristic, as the adapter does."""
  if program.opts is None: return None, []
  tg_opts.LAST = None
  try: backend.lower_program(program, "uopfuzz_kernel")
  except Exception: pass  # a finding that fails later in tinygrad's pipeline: its opts were applied by then
  r = tg_opts.LAST
  if r is None: raise RenderError("the program's opts were not applied: tinygrad's pipeline failed before its optimizer")
  return tuple(r.tinygrad) + ((r.trying,) if r.trying is not None else ()), r.skipped


def make_renderer(renderer, device, dev):
  """The unittest's renderer, built by the test itself (tinygrad's own way, ops_cpu.py: the device's target
  with another renderer), so it runs the bug under tinygrad's defaults, DEV unset."""
  if ":" not in dev: return f"Device[DEVICE].renderer"
  return f'{renderer}(replace(Device[DEVICE].renderer.target, renderer="{dev.split(":", 1)[1]}"))'


def export_tinygrad(program, backend):
  """The program as a unittest for the backend's device and renderer."""
  try: sink = build(program, "uopfuzz_kernel", backend.RENDERER)
  except Unsupported as e: raise RenderError(f"unsupported: {e}") from None
  slots = kernel_slots(sink)  # the kernel's PARAMs are numbered 0..n-1 (tg_params): PARAM k is BUFFER slot slots[k]
  opts, skipped = applied_opts(program, backend)
  if opts is not None: sink = sink.replace(arg=replace(sink.arg, opts_to_apply=opts))
  module, renderer, device, dev = backend.EXPORT
  imports = TEST_IMPORTS.replace("@MODULE@", module).replace("@RENDERER@", renderer).replace("@DEVICE@", device)
  if EMULATED_DTYPES.value:  # the adapter's --emulate: tinygrad's own setting, which the test needs too
    imports += f"from tinygrad.helpers import EMULATED_DTYPES\nEMULATED_DTYPES.value = {EMULATED_DTYPES.value!r}  # uopfuzz_tinygrad.py --emulate\n"
  if any(o.op.name == "THREAD" for o in opts or ()):  # the adapter's fixed thread count (uopfuzz_tinygrad.THREADS)
    imports += f"from tinygrad.helpers import NUM_CPU_THREADS\nNUM_CPU_THREADS.value = {NUM_CPU_THREADS.value}  # uopfuzz_tinygrad.py\n"
  rendered = pyrender(sink)
  for code in (without_defaults(rendered, opts), rendered, explicit_uops(sink)):  # the first that builds this very graph (UOps are interned)
    scope = {}
    exec(imports + code, scope)
    if scope.get("ast") is sink: break
  else: raise RenderError("neither pyrender nor UOp(...) lines rebuild the graph")
  table = []
  for b in program.buffers:
    dt = tg_dtype(b.dtype.name)
    if not storage_fmt_for_dtype(dt): raise RenderError(f"unsupported: BUFFER slot {b.slot} of {b.dtype.name}: Python's struct has no {dt!r}")
    data, want = program.data.get(b.slot, [0] * b.length), program.expect.get(b.slot)
    table.append(f"  {b.slot}: ({dt!r}, {data!r}, {want!r}),")
  found = [f"# {k}: {v}" for k, v in program.meta if k in ("tinygrad", "about", "signature", "status", "found", "seed")]
  limit = ""
  if program.meta_value("signature") == "render-error timeout":  # the finding is the time tinygrad takes
    seconds = float(program.meta_value("render_timeout") or 60)
    limit = (f"    # the finding: tinygrad takes longer than {seconds:g} s to lower this kernel (meta render_timeout)\n"
             f"    signal.signal(signal.SIGALRM, lambda *_: self.fail('tinygrad took longer than {seconds:g} s to lower the kernel (to_program)'))\n"
             f"    signal.setitimer(signal.ITIMER_REAL, {seconds!r})\n"
             "    self.addCleanup(signal.setitimer, signal.ITIMER_REAL, 0)\n")
  return "\n".join([
    "# A tinygrad bug found by uopfuzz, the differential fuzzer of UOp code generators, as a standalone test in the",
    "# style of tinygrad's test/test_uops.py; it needs nothing but tinygrad. It builds the kernel's UOps as uopfuzz's",
    f"# tinygrad adapter gives them to tinygrad, compiles and runs them on the {device} device with tinygrad's own pipeline",
    f"# (to_program: the rewrites, the linearizer, {renderer} and its compiler) and compares every output element with exec_alu's",
    "# values (uopfuzz's reference; floats bit for bit, NaN equal to NaN). It fails while the bug is there.",
    "#   PYTHONPATH=/path/to/tinygrad python3 THIS_FILE.py     (no DEV needed: the test picks its renderer)",
    f"# exported with tinygrad {tinygrad_version()}" + (f", from {program.path}" if program.path else ""),
    *found, "# The program (uopfuzz's .uop):", *(f"#   {n!r}" for n in program.nodes),
    *([f"#   {format_opts(program.opts)}", "# its opts as tinygrad applied them: the kernel's opts_to_apply (scheduler axes)"] if opts is not None else []),
    *(f"# skipped (tinygrad refused it): {s}" for s in skipped),
    imports, "", "def kernel() -> UOp:", *(f"  {l}" for l in code.splitlines()), "  return ast", "",
    "", "# BUFFER slot: (dtype, data, expected values after the kernel; None: not checked)", "BUFFERS = {", *table, "}",
    "# the BUFFER slot of each of the kernel's PARAMs 0, 1, ... (numbered densely, as tinygrad's own kernels are)",
    f"SLOTS = {slots!r}",
  ]) + TEST_BODY.replace("@MAKE_RENDERER@", make_renderer(renderer, device, dev)).replace("@LIMIT@", limit)

# backend_clang.py: the tinygrad adapter's default backend (--backend clang): tinygrad's ClangRenderer, the
# C of its CPU device, handshake language `c`. tinygrad compiles that C itself with clang -O2 (its
# ClangCompiler); here uopfuzz compiles it, with --cc and --cflags.
import re

from tinygrad.renderer.cstyle import ClangRenderer
from tinygrad.uop.ops import Ops
from tg_params import kernel_slots, program_part, threads
from tg_uops import Unsupported, cpu_target, lowering, without, without_compiler

NAME, LANGUAGE = "tinygrad", "c"
RENDERER = without_compiler(ClangRenderer(cpu_target("CLANG")))
EXCLUDED = [ClangRenderer.string_rewrite]  # its C text: without one an op has no C at all
# bf16: a toolchain limit here (clang <= 16 rejects __bf16 or casts to it), not tinygrad's
WITHOUT = without(RENDERER, extra=["bf16"])
# one_unit: a kernel is typedefs (the same text for the same vector type), a static kernel and its
# uniquely named wrapper, so a batch of them compiles as one translation unit.
ONE_UNIT = True
# The C type of a BUFFER parameter where it is not dtypes.def's: tinygrad's C declares f16 as __fp16.
PARAM_CTYPES = {"bool": "_Bool", "f16": "uint16_t"}


lower_program = lowering(RENDERER)


def render(program, fname):
  prg = lower_program(program, fname)
  return wrap(program_part(prg, Ops.SOURCE), fname, program.buffers, kernel_slots(prg), threads(prg))


def wrap(source, fname, buffers, ours, cores=0):
  """tinygrad's translation unit with its kernel made static, and FUNCTION_NAME(p0, p1, ...) (one a BUFFER, slot
  order) calling it with each BUFFER where it takes it: its `T* restrict data{k}_{len}` is the BUFFER of our slot
  ours[k] (tg_params.kernel_slots); a threaded kernel (cores > 0) once per core_id 0 .. cores-1 in order, as
  tinygrad's CPU runtime runs it (its one parameter that is not a pointer: `const int data{k}_`)."""
  inner = f"tg_{fname}"
  sig = re.search(r"\bvoid\s+" + re.escape(fname) + r"\s*\(([^)]*)\)", source)
  if not sig: raise Unsupported(f"tinygrad's C has no function {fname}:\n{source}")
  source = source[:sig.start()] + f"static void {inner}({sig[1]})" + source[sig.end():]
  slots = sorted(b.slot for b in buffers)
  args = []
  for p in (p.strip() for p in sig[1].split(",") if p.strip()):
    m = re.search(r"\*.*\bdata(\d+)_\d+$", p)  # tinygrad names a BUFFER's PARAM data{slot}_{len}
    if m: args.append(f"(void*)p{slots.index(ours[int(m[1])])}")
    elif cores: args.append("core_id")
    else: raise Unsupported(f"tinygrad's kernel takes more than its BUFFERs: {sig[1]}")
  ctypes = {b.slot: PARAM_CTYPES.get(b.dtype.name, b.dtype.ctype) for b in buffers}
  params = ", ".join(f"{ctypes[s]}* p{i}" for i, s in enumerate(slots)) or "void"
  call = f"{inner}({', '.join(args)});"
  if cores: call = f"for (int core_id = 0; core_id < {cores}; core_id++) {call}"
  return f"#include <stdint.h>\n{source}\nvoid {fname}({params}) {{ {call} }}\n"


def features(prg):
  """Coverage beyond the rules: `c:vector` when tinygrad's C has vector types, `c:vector:TYPE` each (float4)."""
  types = re.findall(r"^typedef \w+ (\w+) __attribute__\(\(aligned\(\d+\),ext_vector_type", program_part(prg, Ops.SOURCE), re.M)
  return ["c:vector"] * bool(types) + [f"c:vector:{t}" for t in types]


EXPORT = ("tinygrad.renderer.cstyle", "ClangRenderer", "CPU", "CPU:CLANG")  # the export: the unittest's renderer and device

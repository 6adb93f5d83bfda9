# backend_clang.py: the tinygrad adapter's default backend (--backend clang): tinygrad's ClangRenderer, the
# C of its CPU device, handshake language `c`. tinygrad compiles that C itself with clang -O2 (its
# ClangCompiler); here uopfuzz compiles it, with --cc and --cflags.
import re

from tinygrad.renderer.cstyle import ClangRenderer
from tinygrad.uop.ops import Ops
from tg_uops import Unsupported, cpu_target, lowering, program_part, without, without_compiler

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


def render(program, fname): return wrap(program_part(lower_program(program, fname), Ops.SOURCE), fname, program.buffers)


def wrap(source, fname, buffers):
  """tinygrad's translation unit with its kernel made static, and FUNCTION_NAME(p0, p1, ...) calling it."""
  inner = f"tg_{fname}"
  sig = re.search(r"\bvoid\s+" + re.escape(fname) + r"\s*\(([^)]*)\)", source)
  if not sig: raise Unsupported(f"tinygrad's C has no function {fname}:\n{source}")
  source = source[:sig.start()] + f"static void {inner}({sig[1]})" + source[sig.end():]
  order = [int(s) for s in re.findall(r"\bdata(\d+)_\d+\b", sig[1])]  # tinygrad names a PARAM data{slot}_{len}
  slots = sorted(b.slot for b in buffers)
  ctypes = {b.slot: PARAM_CTYPES.get(b.dtype.name, b.dtype.ctype) for b in buffers}
  params = ", ".join(f"{ctypes[s]}* p{i}" for i, s in enumerate(slots)) or "void"
  call = ", ".join(f"(void*)p{slots.index(s)}" for s in order)
  return f"#include <stdint.h>\n{source}\nvoid {fname}({params}) {{ {inner}({call}); }}\n"
EXPORT = ("tinygrad.renderer.cstyle", "ClangRenderer", "CPU", "CPU:CLANG")  # the export: the unittest's renderer and device

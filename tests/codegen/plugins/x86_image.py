#!/usr/bin/env python3
# A protocol-2 plug-in of language x86-64 (docs/format.md section 5), on the SDK, for uopfuzz's own tests:
# uopfuzz's own C (uopfuzz_render) compiled by gcc ($CC, default cc) into a flat image, so its kernels agree
# with the reference. The image is what the contract asks for: position-independent, entry at offset 0, no
# relocations, no symbols from outside (memcpy, memmove and memset, which a compiler may call, are in it),
# read+execute only (a kernel with writable data, .data or .bss, is a render-error), at most 16-byte
# alignment (no -march=native: SSE2 code never needs more; -malign-data=abi: no 32-byte tables). ld lays it
# out (.text.FUNCTION first, then the other code and the constants) and objcopy cuts it out. libm cannot be
# linked into it, so the handshake says `without` the ops whose C calls libm (EXP2, LOG2, SIN, POW: uopfuzz's
# C calls them through function pointers; SQRT and TRUNC are inlined: with -fno-math-errno, sqrt sets no errno).
#   $UOPFUZZ_X86_BREAK=rbx: the image begins with `xor ebx, ebx` (then nops, keeping the alignment): the
#     kernel clobbers a callee-saved register, which uopfuzz must report as a crash.
#   $UOPFUZZ_X86_BREAK=mul: in the C, scalar 32-bit integer MUL becomes ADD (broken_c.py): a value bug.
import functools
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, compile_c, run_tool, tool_version, uopfuzz_render  # noqa: E402
from broken_c import int32_mul_as_add  # noqa: E402  (beside this file)

CFLAGS = ["-c", "-O2", "-fPIC", "-fno-stack-protector", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
          "-ffunction-sections", "-fdata-sections", "-fvisibility=hidden", "-fcf-protection=none", "-U_FORTIFY_SOURCE",
          "-fno-tree-loop-distribute-patterns", "-malign-data=abi", "-ffp-contract=off", "-fno-fast-math",
          "-fno-math-errno"]  # after -fno-fast-math, which sets -fmath-errno
WITHOUT = ["exp2", "log2", "sin", "pow"]
MAX_IMAGE = 16 << 20
CLOBBER_RBX = b"\x31\xdb" + b"\x66\x0f\x1f\x84\x00\x00\x00\x00\x00" + b"\x0f\x1f\x40\x00" + b"\x90"  # xor ebx, ebx; nops to 16 bytes

# The image: the kernel first, then the rest of the code and the constants; anything else that is left
# (writable data, a GOT) lands in .rest, which must be empty.
LINKER_SCRIPT = """SECTIONS {
  . = 0;
  .image : { KEEP(*(.text.FUNCTION)) *(.text .text.*) *(.rodata .rodata.*) }
  /DISCARD/ : { *(.eh_frame .eh_frame.* .note .note.* .comment) }
  .rest : { *(*) }
}
ASSERT(FUNCTION == 0, "the kernel is not at offset 0 of the image");
ASSERT(SIZEOF(.rest) == 0, "the kernel has writable data (.data, .bss) or a GOT: an image is read+execute only");
ASSERT(ALIGNOF(.image) <= 16, "the image needs more than 16-byte alignment");
"""

# What a compiler may call for a copy or a fill, built without builtins so that it does not call itself.
MEMORY_C = """#include <stddef.h>
void *memcpy(void *restrict d, const void *restrict s, size_t n) { unsigned char *o = d; const unsigned char *i = s; while (n--) *o++ = *i++; return d; }
void *memmove(void *d, const void *s, size_t n) {
  unsigned char *o = d; const unsigned char *i = s;
  if (o < i) while (n--) *o++ = *i++; else while (n--) o[n] = i[n];
  return d;
}
void *memset(void *d, int c, size_t n) { unsigned char *o = d; while (n--) *o++ = (unsigned char)c; return d; }
"""


@functools.lru_cache(maxsize=None)
def memory_object():
  """memcpy, memmove and memset, compiled once per process."""
  return compile_c(MEMORY_C, CFLAGS + ["-ffreestanding", "-fno-builtin"], os.path.join(tempfile.mkdtemp(prefix="x86_image-"), "memory.o"))


def render(program, function):
  c = uopfuzz_render(program, function)
  knob = os.environ.get("UOPFUZZ_X86_BREAK")
  if knob == "mul": c = int32_mul_as_add(c)
  with tempfile.TemporaryDirectory(prefix="x86_image-") as tmp:
    kernel = compile_c(c, CFLAGS, os.path.join(tmp, "kernel.o"))
    with open(os.path.join(tmp, "image.ld"), "w") as f: f.write(LINKER_SCRIPT.replace("FUNCTION", function))
    run_tool(["ld", "-T", "image.ld", "--gc-sections", "-e", function, "-o", "image.elf", kernel, memory_object()], cwd=tmp)
    run_tool(["objcopy", "-O", "binary", "-j", ".image", "image.elf", "image.bin"], cwd=tmp)
    with open(os.path.join(tmp, "image.bin"), "rb") as f: image = f.read()
  if len(image) > MAX_IMAGE: raise RenderError(f"the image has {len(image)} bytes, more than {MAX_IMAGE}")
  return CLOBBER_RBX + image if knob == "rbx" else image


if __name__ == "__main__":
  Plugin(name="x86-image", version=lambda: tool_version(os.environ.get("CC") or "cc"), without=WITHOUT, language="x86-64", render=render).main()

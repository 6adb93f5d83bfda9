# backend_x86.py: the tinygrad adapter's --backend x86: tinygrad's X86Renderer (DEV=CPU:X86), tinygrad's own
# instruction selection, register allocation and encoder, handshake language `x86-64`: the machine code as
# the flat image the contract wants. tinygrad's "compiler" for it (X86Compiler) only turns the renderer's hex
# into bytes, and its CPU device (CPUProgram) maps those bytes as they are (no ELF, nothing to relocate) and
# calls offset 0 with the BUFFERs' addresses (ctypes, System V: rdi, rsi, rdx, rcx, r8, r9, then the stack).
# The code is position-independent by construction: jumps are rel32 within the image, constants are
# immediates (MOVABS), and X86Ops has no call.
from tinygrad.renderer.isa.x86 import X86Renderer, isel_matcher, post_regalloc_matcher, pre_regalloc_matcher
from tinygrad.runtime.support.elf import jit_loader
from tinygrad.uop.ops import Ops
from tg_uops import Unsupported, cpu_target, lowering, program_part, without

NAME, LANGUAGE, ONE_UNIT = "tinygrad-x86", "x86-64", False
RENDERER = X86Renderer(cpu_target("X86"))  # its compiler, X86Compiler, is bytes.fromhex: kept
# its instructions: without one of these rules an op has no instruction, a value no register
EXCLUDED = [isel_matcher, pre_regalloc_matcher, post_regalloc_matcher]
WITHOUT = without(RENDERER)
EXPORT = ("tinygrad.renderer.isa.x86", "X86Renderer", "CPU", "CPU:X86")
ARG_REGS = (7, 6, 2, 1, 8, 9)  # rdi, rsi, rdx, rcx, r8, r9 (their encodings)


lower_program = lowering(RENDERER)


def render(program, fname):
  prg = lower_program(program, fname)
  image = program_part(prg, Ops.BINARY)
  if image[:4] == b"\x7fELF":  # not what X86Renderer makes today; should it: relocated at base 0, nothing outside
    try: image = jit_loader(image, base=0)
    except RuntimeError as e: raise Unsupported(f"tinygrad's x86 code calls out of the image: {e}") from None
  # the kernel's parameters: its PARAMs sorted by slot (IselContext.func_args; CPUProgram passes
  # prg.arg.globals, the same slots), which skips a BUFFER the kernel does not use; the entry stub moves
  # each argument where the kernel wants it
  return entry_stub(sorted(prg.arg.globals), sorted(b.slot for b in program.buffers)) + image


def entry_stub(used, slots):
  """Machine code that moves the arguments of FUNCTION(p0, ..., pN) (one a BUFFER, slot order) to where the
  kernel, which takes only the `used` slots, wants them: argument i of the kernel is argument
  j = slots.index(used[i]) >= i of FUNCTION, so moving them in order i = 0, 1, ... reads each before it is
  overwritten. Registers as the System V ABI has them, stack arguments at [rsp + 8 (k - 5)] (the callee
  owns them); rax is scratch. Empty when the kernel takes every BUFFER."""
  if any(s not in slots for s in used): raise Unsupported(f"tinygrad's kernel takes slots {used}, the program has {slots}")
  code = bytearray()
  for i, j in enumerate(slots.index(s) for s in used):
    if i == j: continue
    if j < 6:  # mov dst, src: REX.W 89 /r
      d, s = ARG_REGS[i], ARG_REGS[j]
      code += bytes([0x48 | (s >> 3) << 2 | d >> 3, 0x89, 0xC0 | (s & 7) << 3 | (d & 7)])
      continue
    disp = (8 * (j - 5)).to_bytes(4, "little")
    if i < 6:  # mov dst, [rsp + disp32]: REX.W 8B /r, SIB 24
      d = ARG_REGS[i]
      code += bytes([0x48 | (d >> 3) << 2, 0x8B, 0x84 | (d & 7) << 3, 0x24]) + disp
    else:  # mov rax, [rsp + disp]; mov [rsp + disp'], rax
      code += bytes([0x48, 0x8B, 0x84, 0x24]) + disp + bytes([0x48, 0x89, 0x84, 0x24]) + (8 * (i - 5)).to_bytes(4, "little")
  return bytes(code)

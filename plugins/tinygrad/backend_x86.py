# backend_x86.py: the tinygrad adapter's --backend x86: tinygrad's X86Renderer (DEV=CPU:X86), tinygrad's own
# instruction selection, register allocation and encoder, handshake language `x86-64`: the machine code as
# the flat image the contract wants. tinygrad's "compiler" for it (X86Compiler) only turns the renderer's hex
# into bytes, and its CPU device (CPUProgram) maps those bytes as they are (no ELF, nothing to relocate) and
# calls offset 0 with the BUFFERs' addresses (ctypes, System V: rdi, rsi, rdx, rcx, r8, r9, then the stack).
# The code is position-independent by construction: jumps are rel32 within the image, constants are
# immediates (MOVABS), and X86Ops has no call.
from tinygrad.renderer.isa.x86 import X86Ops, X86Renderer, isel_matcher, post_regalloc_matcher, pre_regalloc_matcher
from tinygrad.runtime.support.elf import jit_loader
from tinygrad.uop.ops import Ops
from tg_params import kernel_slots, program_part, threads
from tg_uops import Unsupported, cpu_target, lowering, without

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
  # prg.arg.globals, the same slots), the BUFFERs of our slots kernel_slots(prg), which skip a BUFFER the
  # kernel does not use; the entry stub moves each argument where the kernel wants it, or calls a threaded
  # kernel once per core_id
  slots = sorted(b.slot for b in program.buffers)
  if threads(prg): return threaded_stub(kernel_args(prg, slots), threads(prg)) + image
  return entry_stub([kernel_slots(prg)[k] for k in sorted(prg.arg.globals)], slots) + image


def features(prg):
  """Coverage beyond the rules: `insn:NAME`, each X86Ops instruction of the linearized program."""
  return list(dict.fromkeys(f"insn:{u.arg.name}" for u in program_part(prg, Ops.LINEAR).src if u.op is Ops.INS and isinstance(u.arg, X86Ops)))


CORE = "core_id"


def kernel_args(prg, slots):
  """A threaded kernel's arguments in order: each FUNCTION's argument number (a BUFFER: the place of its slot
  of ours in slots) or CORE. Its PARAMs are sorted by slot (IselContext.func_args), core_id's slot being the
  count of the kernel's BUFFERs (tinygrad numbers it after them): where that ties with a BUFFER's slot (a PARAM
  tinygrad dropped after its optimizer), the register tinygrad gave core_id in the linearized program (its
  PARAM's tag) says where it is."""
  used, ours = sorted(prg.arg.globals), kernel_slots(prg)
  if any(ours[s] not in slots for s in used): raise Unsupported(f"tinygrad's kernel takes slots {[ours[s] for s in used]}, the program has {slots}")
  core = next(v for v in prg.arg.vars if v.expr == "core_id")
  tagged = [t.index for u in program_part(prg, Ops.LINEAR).src if u.op is Ops.PARAM and u.arg == core.arg
            for t in (u.tag if isinstance(u.tag, tuple) else ()) if getattr(t, "index", None) in ARG_REGS]
  if tagged: at = ARG_REGS.index(tagged[0])
  elif core.arg.slot not in used: at = sum(s < core.arg.slot for s in used)
  else: raise Unsupported(f"core_id's slot {core.arg.slot} is also a BUFFER's, and its place among the kernel's arguments unknown")
  args = [slots.index(ours[s]) for s in used]
  return args[:at] + [CORE] + args[at:]


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
      code += reg_move(ARG_REGS[j], ARG_REGS[i])
      continue
    disp = (8 * (j - 5)).to_bytes(4, "little")
    if i < 6:  # mov dst, [rsp + disp32]: REX.W 8B /r, SIB 24
      d = ARG_REGS[i]
      code += bytes([0x48 | (d >> 3) << 2, 0x8B, 0x84 | (d & 7) << 3, 0x24]) + disp
    else:  # mov rax, [rsp + disp]; mov [rsp + disp'], rax
      code += bytes([0x48, 0x8B, 0x84, 0x24]) + disp + bytes([0x48, 0x89, 0x84, 0x24]) + (8 * (i - 5)).to_bytes(4, "little")
  return bytes(code)


def threaded_stub(args, cores):
  """Machine code that calls the kernel (the image right after it) once per core_id 0 .. cores-1, in order, as
  tinygrad's CPU runtime runs a threaded kernel: args (kernel_args) says what each kernel argument is. It keeps
  rbp (its frame) and rbx (the core_id counter), callee-saved, on the stack; saves FUNCTION's register
  arguments at [rbp - 16 - 8j] (the kernel may clobber them); reads its stack arguments at [rbp + 16 + 8(j-6)];
  and puts the kernel's stack arguments at [rsp + 8(i-6)], rsp 16-byte aligned at the call."""
  out = max(0, len(args) - 6) * 8
  frame = 48 + out + (8 if (48 + out) % 16 == 0 else 0)  # after push rbp, push rbx: rsp = 8 mod 16; the call wants 0
  code = bytearray(b"\x55\x48\x89\xe5\x53")  # push rbp; mov rbp, rsp; push rbx
  code += b"\x48\x81\xec" + frame.to_bytes(4, "little")  # sub rsp, frame
  for j, reg in enumerate(ARG_REGS): code += rbp_move(0x89, reg, -16 - 8 * j)  # mov [rbp - 16 - 8j], reg
  code += b"\x31\xdb"  # xor ebx, ebx
  loop = len(code)
  for i, a in enumerate(args):
    if a == CORE: code += reg_move(3, ARG_REGS[i]) if i < 6 else b"\x48\x89\x9c\x24" + (8 * (i - 6)).to_bytes(4, "little")
    else:
      src = -16 - 8 * a if a < 6 else 16 + 8 * (a - 6)
      if i < 6: code += rbp_move(0x8B, ARG_REGS[i], src)  # mov reg, [rbp + src]
      else: code += rbp_move(0x8B, 0, src) + b"\x48\x89\x84\x24" + (8 * (i - 6)).to_bytes(4, "little")  # via rax
  call = len(code)
  code += b"\xe8\0\0\0\0"  # call the kernel (its offset patched below)
  code += b"\xff\xc3\x81\xfb" + cores.to_bytes(4, "little")  # inc ebx; cmp ebx, cores
  code += b"\x0f\x8c" + (loop - (len(code) + 6)).to_bytes(4, "little", signed=True)  # jl loop
  code += b"\x48\x8b\x5d\xf8\xc9\xc3"  # mov rbx, [rbp - 8]; leave; ret
  code[call + 1:call + 5] = (len(code) - (call + 5)).to_bytes(4, "little", signed=True)
  return bytes(code)


def rbp_move(opcode, reg, disp):
  """mov [rbp + disp32], reg (opcode 89) or mov reg, [rbp + disp32] (8B): REX.W, ModRM mod 10 rm 101."""
  return bytes([0x48 | (reg >> 3) << 2, opcode, 0x80 | (reg & 7) << 3 | 5]) + disp.to_bytes(4, "little", signed=True)


def reg_move(src, dst):
  """mov dst, src (64-bit registers): REX.W 89 /r."""
  return bytes([0x48 | (src >> 3) << 2 | dst >> 3, 0x89, 0xC0 | (src & 7) << 3 | (dst & 7)])

# backend_llvm.py: the tinygrad adapter's --backend llvm: tinygrad's CPULLVMRenderer, the LLVM IR of its CPU
# device (DEV=CPU:LLVM), handshake language `llvm-ir`. tinygrad compiles that IR itself through libLLVM's C
# API (runtime/support/compiler_llvm.py: CPULLVMCompiler): the host's CPU and features (arch `native`),
# codegen level Default (-O2), PIC, the pass pipeline default<O2> with loop unrolling, loop and SLP
# vectorization; its fast-math is in the IR itself (nsz arcp contract afn on each float op, and the kernel's
# "no-trapping-math" and "no-builtins" attributes). Here uopfuzz compiles it (`clang -x ir` with --cflags):
# --cflags '-O2 -march=native' is tinygrad's own compilation (README.md).
import re

from tinygrad.renderer import Renderer
from tinygrad.renderer.llvmir import CPULLVMRenderer
from tinygrad.uop.ops import Ops
from tg_params import kernel_slots, program_part, threads
from tg_uops import Unsupported, cpu_target, lowering, without, without_compiler


def renderer():
  """CPULLVMRenderer for the CPU target. Its __init__ also sets up tinygrad's compiler, which loads
  libLLVM; uopfuzz compiles, so without libLLVM the renderer is made without it."""
  try: return CPULLVMRenderer(cpu_target("LLVM"))
  except (OSError, AttributeError, RuntimeError):
    ren = CPULLVMRenderer.__new__(CPULLVMRenderer)
    Renderer.__init__(ren, cpu_target("LLVM"))
    return ren


NAME, LANGUAGE, ONE_UNIT = "tinygrad-llvm", "llvm-ir", False
RENDERER = without_compiler(renderer())
EXCLUDED = [CPULLVMRenderer.string_rewrite]  # its IR text: without one an op has no IR at all
WITHOUT = without(RENDERER)
EXPORT = ("tinygrad.renderer.llvmir", "CPULLVMRenderer", "CPU", "CPU:LLVM")


lower_program = lowering(RENDERER)


def render(program, fname):
  prg = lower_program(program, fname)
  return wrap(program_part(prg, Ops.SOURCE), fname, program.buffers, kernel_slots(prg), threads(prg))


def wrap(source, fname, buffers, ours, cores=0):
  """tinygrad's module with its kernel made internal (tg_FUNCTION), and FUNCTION(ptr p0, ptr p1, ...), one
  pointer a BUFFER in slot order, calling it with each BUFFER where tinygrad's kernel takes it (its
  parameters are %data{k}, in the order of its linearizer: the BUFFER of our slot ours[k],
  tg_params.kernel_slots). FUNCTION has the kernel's attributes (#0), as tinygrad compiles it: "no-builtins"
  keeps LLVM from making a loop a call to memset. tinygrad spells its pointers `float*` but gives one pointer
  several types (a float* loaded as <2 x float>*): its IR needs opaque pointers, LLVM 16 or later (clang-15
  and older reject it), which read `float*` as `ptr`. A threaded kernel (cores > 0) is called in a loop, once
  per core_id 0 .. cores-1 in order, as tinygrad's CPU runtime runs it: core_id is its one parameter that is
  not a pointer (`i32 %data{k}`)."""
  inner = f"tg_{fname}"
  sig = re.search(r"^define\s+void\s+@" + re.escape(fname) + r"\(([^)]*)\)", source, re.M)
  if not sig: raise Unsupported(f"tinygrad's LLVM IR defines no @{fname}:\n{source}")
  params = [re.fullmatch(r"(\S+)[^%]* %data(\d+)", p.strip()) for p in sig[1].split(",") if p.strip()]
  if not all(params) or any(not m[1].endswith("*") for m in params) and not cores:
    raise Unsupported(f"tinygrad's kernel takes more than its BUFFERs: {sig[1]}")
  source = source[:sig.start()] + f"define internal void @{inner}({sig[1]})" + source[sig.end():]
  slots = sorted(b.slot for b in buffers)
  args = ", ".join(f"ptr %p{i}" for i in range(len(slots)))
  call = ", ".join(f"{m[1]} %p{slots.index(ours[int(m[2])])}" if m[1].endswith("*") else f"{m[1]} %core" for m in params)
  core_type = next((m[1] for m in params if not m[1].endswith("*")), "i32")
  body = f"  call void @{inner}({call})\n  ret void\n" if not cores else threaded_body(f"  call void @{inner}({call})\n", core_type, cores)
  return declarations(source) + f"{source}\n\ndefine void @{fname}({args}) #0 {{\n{body}}}\n"


def threaded_body(call, core_type, cores):
  """The wrapper's body for a threaded kernel: the call in a loop over %core = 0 .. cores-1, in order."""
  return (f"entry:\n  br label %loop\nloop:\n  %core = phi {core_type} [ 0, %entry ], [ %next, %loop ]\n{call}"
          f"  %next = add {core_type} %core, 1\n  %more = icmp ult {core_type} %next, {cores}\n"
          "  br i1 %more, label %loop, label %done\ndone:\n  ret void\n")


VECTOR_OPS = ("insertelement", "extractelement", "shufflevector")


def features(prg):
  """Coverage beyond the rules: the IR's vector instructions, `llvm:insertelement` (extractelement,
  shufflevector) and `llvm:vec:OPCODE` for any other instruction on a vector type (`<4 x float>`)."""
  out = []
  for line in program_part(prg, Ops.SOURCE).splitlines():
    m = re.match(r"\s*(?:%\S+ = )?(\w+)\b", line)
    if not m or "<" not in line or m[1] in ("define", "declare", "attributes"): continue
    if m[1] in VECTOR_OPS: out.append(f"llvm:{m[1]}")
    elif re.search(r"<\d+ x ", line): out.append(f"llvm:vec:{m[1]}")
  return list(dict.fromkeys(out))


def declarations(source):
  """`declare` lines for the LLVM intrinsics tinygrad's IR calls without declaring them (TRUNC is
  `call float @llvm.trunc.float(float %v3)`): newer LLVM's IR parser declares them itself, LLVM 16's rejects
  the module (`use of undefined value '@llvm.trunc.float'`). Types as the call has them."""
  declared = set(re.findall(r"^(?:declare|define)[^@\n]*@([\w.]+)", source, re.M))
  out = {}
  for m in re.finditer(r"\bcall (\S+) @(llvm\.[\w.]+)\(([^)]*)\)", source):
    if m[2] not in declared: out.setdefault(m[2], f"declare {m[1]} @{m[2]}({', '.join(a.split()[0] for a in m[3].split(',') if a.strip())})\n")
  return "".join(out.values())

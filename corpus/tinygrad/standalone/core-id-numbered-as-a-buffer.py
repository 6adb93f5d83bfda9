# tinygrad alone: a kernel whose symbolic passes drop a BUFFER's PARAM (a load under a constant-false WHERE),
# threaded (THREAD): pm_number_params numbers core_id as the count of the remaining PARAMs, the slot of the last
# BUFFER; the kernel then has two PARAMs of one slot.
import sys
from dataclasses import replace
from tinygrad import Device
from tinygrad.codegen import to_program
from tinygrad.codegen.opt import Opt, OptOps
from tinygrad.dtype import dtypes
from tinygrad.helpers import NUM_CPU_THREADS
from tinygrad.uop.ops import AxisType, KernelInfo, UOp

NUM_CPU_THREADS.value = 8
renderer_name = sys.argv[1] if len(sys.argv) > 1 else "CLANG"
a, b, out = (UOp.param(i, dtypes.int32, (16,)) for i in range(3))
r = UOp.range(16, 0, AxisType.WEAK)
dead = UOp.const(False, dtypes.bool).where(b.index(r), UOp.const(0, dtypes.int32))  # folds: PARAM 1 is dropped
ast = out.index(r).store(a.index(r) + dead).end(r).sink(arg=KernelInfo(name="k", opts_to_apply=(Opt(OptOps.THREAD, 0, 2),)))
target = Device["CPU"].renderer.target
if renderer_name == "CLANG":
  from tinygrad.renderer.cstyle import ClangRenderer as R
elif renderer_name == "LLVM":
  from tinygrad.renderer.llvmir import CPULLVMRenderer as R
else:
  from tinygrad.renderer.isa.x86 import X86Renderer as R
prg = to_program(ast, R(replace(target, renderer=renderer_name)))
print(prg.arg.globals, [v.arg for v in prg.arg.vars])
print(prg.src[2].arg if isinstance(prg.src[2].arg, str) else prg.src[2].arg[:80])

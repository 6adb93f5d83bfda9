# tinygrad alone: THREAD on a kernel that, besides its output loop, increments a[0] outside the loop. tinygrad's CPU
# runtime runs the whole kernel once per core_id, so a[0] += 1 runs once per thread: a[0] = 1 gives 3 with 2 threads,
# not 2. (Scheduler's THREAD check, _globalizable_rngs, looks only at the threaded range being an output range.)
#   PYTHONPATH=/path/to/tinygrad python3 outside_store_runs_once_per_thread.py [CLANG|LLVM|X86]
import struct, sys
from dataclasses import replace
from tinygrad import Device
from tinygrad.codegen import to_program
from tinygrad.codegen.opt import Opt, OptOps
from tinygrad.device import Buffer
from tinygrad.dtype import dtypes
from tinygrad.engine.realize import get_runtime
from tinygrad.helpers import NUM_CPU_THREADS
from tinygrad.uop.ops import AxisType, KernelInfo, UOp

NUM_CPU_THREADS.value = 8
name = sys.argv[1] if len(sys.argv) > 1 else "CLANG"
if name == "CLANG": from tinygrad.renderer.cstyle import ClangRenderer as R
elif name == "LLVM": from tinygrad.renderer.llvmir import CPULLVMRenderer as R
else: from tinygrad.renderer.isa.x86 import X86Renderer as R
a, out = UOp.param(0, dtypes.int32, (1,)), UOp.param(1, dtypes.int32, (4,))
r = UOp.range(4, 0, AxisType.WEAK)
loop = out.index(r).store(r.cast(dtypes.int32)).end(r)            # out[i] = i, an output loop
bump = a.index(UOp.const(0, dtypes.weakint)).store(a.index(UOp.const(0, dtypes.weakint)) + 1)  # a[0] += 1, outside it
ast = UOp.sink(loop, bump, arg=KernelInfo(name="k", opts_to_apply=(Opt(OptOps.THREAD, 0, 2),)))
prg = to_program(ast, R(replace(Device["CPU"].renderer.target, renderer=name)))
bufs = [Buffer("CPU", 1, dtypes.int32, initial_value=struct.pack("<i", 1)), Buffer("CPU", 4, dtypes.int32, initial_value=bytes(16))]
gs, ls = prg.arg.launch_dims({})
get_runtime("CPU", prg)(*[bufs[s].ensure_allocated()._buf for s in prg.arg.globals], global_size=gs, local_size=ls, vals=prg.arg.vals({}))
got = struct.unpack("<i", bytes(bufs[0].as_memoryview()))[0]
print(f"{name}: threads {gs[0]}, a[0] = {got} (expected 2), out = {list(struct.unpack('<4i', bytes(bufs[1].as_memoryview())))}")
sys.exit(0 if got == 2 else 1)

# tinygrad alone: Tensor.arange(17).sum() under PADTO:0:32, the opt BEAM=N BEAM_PADTO=1 may choose (its actions
# hold it). The kernel is a REDUCE of its own range; PADTO (codegen/opt/postrange.py) pads the range to 32 and
# masks only buffer INDEXes, so the padded iterations add 17..31 too: 496, not 136 (docs/findings.md, bug 14;
# corpus/tinygrad/padto-reduce-adds-its-padded-indices.uop). tinygrad's own apply_opts applies the opt, given as
# the kernel's opts_to_apply. Exit 1 when the sum is wrong.
#   DEV=CPU:X86 (CPU:CLANG, CPU:LLVM, PYTHON) PYTHONPATH=/path/to/tinygrad python3 padto-arange-sum-tensor.py
import sys
from dataclasses import replace
import tinygrad.codegen as codegen
from tinygrad.codegen.opt import Opt, OptOps
from tinygrad.uop.ops import KernelInfo

tinygrads_apply_opts = codegen.apply_opts


def padded(ast, ren, beam=0):
  return tinygrads_apply_opts(ast.replace(arg=replace(ast.arg or KernelInfo(), opts_to_apply=(Opt(OptOps.PADTO, 0, 32),))), ren)


codegen.apply_opts = padded
from tinygrad import Tensor  # noqa: E402  (after the patch: the kernel is lowered at realize)
got = Tensor.arange(17).sum().item()
print(got)
sys.exit(0 if got == 136 else 1)

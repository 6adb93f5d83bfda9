# tinygrad alone, as a user writes it: the safe-division idiom over an index (docs/findings.md,
# `x86/where-closure-unguards-division.uop`). fold_where_closure (uop/symbolic.py:221) substitutes `z := false`
# into the WHERE's false arm, so the inner guard folds away; CPU:X86 and CPU:LLVM evaluate both arms of the
# select and divide by zero: the process dies of SIGFPE. CPU:CLANG and PYTHON print [0, 7, 3, 2].
# Run: DEV=CPU:X86 PYTHONPATH=path/to/tinygrad python3 where-closure-sigfpe-tensor.py
from tinygrad import Tensor, dtypes

b = Tensor.arange(64, dtype=dtypes.int32)
z = b == 0
print(z.where(0, Tensor(7, dtype=dtypes.int32) // z.where(1, b)).tolist()[:4])

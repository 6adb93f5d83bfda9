#!/usr/bin/env python3
# A protocol-2 plug-in of language llvm-ir (docs/format.md section 5), on the SDK, for uopfuzz's own tests:
# uopfuzz's own C (uopfuzz_render) turned into LLVM IR by clang, so its kernels agree with the reference.
# uopfuzz builds the IR with its --cc, which must be clang, as `CC -x ir CFLAGS...`: use the clang that
# wrote it ($CLANG, default clang), as an older LLVM may not read a newer one's IR.
#   The IR is clang's before its optimisations (-O3 -Xclang -disable-llvm-optzns: not `optnone`, so uopfuzz's
#   -O3 still optimises it), exact as uopfuzz compiles C (-ffp-contract=off -fno-fast-math); the kernel is
#   the only symbol it defines that is not `internal` (the C's helpers are `static`).
#   $UOPFUZZ_IR_BREAK=mul: a bug in the IR: the `mul` of every scalar 32-bit integer MUL (uopfuzz's C
#   multiplies them in 64 bits, in uf_mul_i32 and uf_mul_u32) becomes `add`: found as `mismatch MUL i32`.
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, compile_c, tool_version, uopfuzz_render  # noqa: E402

CLANG = os.environ.get("CLANG", "clang")
IR_FLAGS = ["-S", "-emit-llvm", "-O3", "-Xclang", "-disable-llvm-optzns", "-ffp-contract=off", "-fno-fast-math", "-march=native"]


def render(program, function):
  with tempfile.TemporaryDirectory(prefix="llvm_ir-") as tmp:
    with open(compile_c(uopfuzz_render(program, function), IR_FLAGS, os.path.join(tmp, "kernel.ll"), cc=CLANG)) as f: ir = f.read()
  return int32_mul_as_add(ir) if os.environ.get("UOPFUZZ_IR_BREAK") == "mul" else ir


def int32_mul_as_add(ir):
  """Every `mul` in the bodies of @uf_mul_i32 and @uf_mul_u32 an `add`."""
  return re.sub(r"^define [^\n]*@uf_mul_[iu]32\(.*?^\}$", lambda m: m[0].replace(" = mul ", " = add "), ir, flags=re.M | re.S)


if __name__ == "__main__":
  Plugin(name="llvm-ir", version=lambda: tool_version(CLANG), language="llvm-ir", render=render).main()

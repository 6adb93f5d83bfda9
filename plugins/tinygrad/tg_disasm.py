#!/usr/bin/env python3
# tg_disasm.py: the evidence of an x86 encoder bug. X86Renderer encodes each instruction it selected
# (renderer/isa/x86.py `encodings`) and joins the bytes; this lists every instruction as tinygrad meant it
# (its asm_str) beside what binutils' objdump decodes at the same offset, and names the first where the
# two disagree on the instruction's length: bytes that do not say what tinygrad meant, so the CPU runs
# something else from there on (a wrong operand, or the next instruction's bytes taken as an immediate).
#
#   PYTHONPATH=/path/to/tinygrad plugins/tinygrad/tg_disasm.py FILE.uop [--emulate long] [--index weak]
#
# Exit 0 when every instruction decodes as encoded, 1 with the first that does not (its line starts with
# `!`), 2 for a setup problem (no objdump, a file tinygrad does not render).
import os
import re
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
sys.dont_write_bytecode = True


def instructions(program):
  """[(asm, bytes)] of each instruction X86Renderer encodes for the program, in order, and the image."""
  import backend_x86
  from tinygrad.renderer.isa.x86 import X86Ops, encodings
  from tinygrad.uop.ops import Ops
  from tg_uops import program_part
  prg = backend_x86.lower_program(program, "kernel")
  out = []
  for u in program_part(prg, Ops.LINEAR).src:
    if u.op is not Ops.INS or u.arg in (X86Ops.DEFINE, X86Ops.LOOP_CMP, X86Ops.LABEL): continue
    asm = backend_x86.RENDERER.asm_str([u], "k").splitlines()[-1].strip()
    out.append((re.sub(r"\s+", " ", asm), bytes(encodings[u.arg](u))))
  return out, program_part(prg, Ops.BINARY)


def objdump(image):
  """{offset: (length, text)} of objdump's decoding of the flat image."""
  with tempfile.NamedTemporaryFile(suffix=".bin") as f:
    f.write(image)
    f.flush()
    r = subprocess.run(["objdump", "-D", "-b", "binary", "-mi386:x86-64", "-M", "intel", f.name], capture_output=True, text=True)
  if r.returncode != 0: raise SystemExit(f"tg_disasm: objdump failed: {r.stderr.strip()}")
  decoded, last = {}, None
  for line in r.stdout.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*(?:\t(.*))?$", line)
    if not m: continue
    offset, nbytes = int(m[1], 16), len(m[2].split())
    if m[3] is None and last is not None:  # objdump continues a long instruction's bytes on the next line
      decoded[last] = (decoded[last][0] + nbytes, decoded[last][1])
      continue
    decoded[offset], last = (nbytes, re.sub(r"\s+", " ", m[3].strip())), offset
  return decoded


def main(argv):
  from tinygrad.helpers import EMULATED_DTYPES
  import tg_uops
  from uopfuzz_plugin import read_program
  args = list(argv)
  for flag, setter in (("--emulate", lambda v: setattr(EMULATED_DTYPES, "value", v)), ("--index", lambda v: setattr(tg_uops, "INDEX_FORM", v))):
    if flag in args:
      at = args.index(flag)
      setter(args[at + 1])
      del args[at:at + 2]
  if len(args) != 1: raise SystemExit("usage: tg_disasm.py FILE.uop [--emulate long] [--index weak]")
  ins, image = instructions(read_program(args[0]))
  decoded, offset, first_bad = objdump(image), 0, None
  for asm, code in ins:
    length, text = decoded.get(offset, (0, "(no instruction starts here)"))
    bad = length != len(code)
    if bad and first_bad is None: first_bad = (offset, asm, code, length, text)
    print(f"{'!' if bad else ' '} {offset:5x}  {asm:40s} {code.hex(' '):32s} objdump: {text}" + (f" ({length} bytes)" if bad else ""))
    offset += len(code)
  if first_bad is None:
    print("every instruction decodes as tinygrad encoded it")
    return 0
  off, asm, code, length, text = first_bad
  print(f"first wrong encoding at {off:#x}: tinygrad meant `{asm}` as {len(code)} bytes ({code.hex(' ')}); "
        f"objdump reads {length} bytes there: `{text}`")
  return 1


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))

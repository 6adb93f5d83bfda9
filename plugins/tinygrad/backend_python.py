# backend_python.py: the tinygrad adapter's --backend python: tinygrad's PYTHON device (runtime/ops_python.py),
# handshake language `outputs`: an executing target. The program goes through tinygrad's pipeline for that
# device (PythonRenderer: its code_for_op is exec_alu's, so no transcendental approximations; its "source"
# is the pickled UOps, its compiler unpickles them) and tinygrad's emulator, PythonProgram, runs the
# linearized UOps on each data set's bytes.
import os
import signal

from tinygrad.device import Device
from tinygrad.helpers import Target
from tinygrad.runtime.ops_python import PythonRenderer
from tg_params import param_slots, threads
from tg_uops import lowering, without

NAME, LANGUAGE = "tinygrad-python", "outputs"
RENDERER = PythonRenderer(Target(device="PYTHON"))  # its compiler (base64 of the pickle) is kept
EXCLUDED = []  # no text: its render is the UOps themselves
WITHOUT = without(RENDERER)  # f16 below Python 3.12 (its supported_dtypes: struct 'e' in memoryview.cast)
EXPORT = ("tinygrad.runtime.ops_python", "PythonRenderer", "PYTHON", "PYTHON")
SECONDS = float(os.environ.get("UOPFUZZ_TINYGRAD_RUN_SECONDS", "20"))  # a data set's run longer than this is a timeout


class Timeout(Exception): pass


lower_program = lowering(RENDERER, grid=True)  # a kernel for a launch grid (GLOBAL, LOCAL axes) runs as on a GPU


def features(prg): return []  # no text to look at beyond the opts the report names


def launches(prg):
  """The emulator's calls of the kernel as tinygrad's runtime makes them: one over its launch grid (PythonProgram
  runs each global and local index), or for a threaded kernel one per core_id 0 .. n-1, in order."""
  if threads(prg): return [dict(vals=(core,)) for core in range(threads(prg))]
  global_size, local_size = prg.arg.launch_dims({})
  return [dict(global_size=global_size, local_size=local_size or (1, 1, 1))]


def run(prg, inputs):
  """The lowered PROGRAM run by tinygrad's emulator (the PYTHON device's runtime) on each data set
  ({slot: bytes}): {slot: bytes} after the run, or RunFailure: an exception in the emulator (an access out
  of bounds, an op it cannot run) is a crash, a run over SECONDS a timeout. The buffers go in the order the
  kernel takes them (its LINEAR's PARAMs, each the BUFFER of our slot param_slots names): PythonProgram takes
  each PARAM's buffer as it meets it."""
  from uopfuzz_plugin import RunFailure
  runtime = Device["PYTHON"].runtime(prg.to_elf())
  slots, out = param_slots(prg), []
  for data in inputs:
    bufs = {s: memoryview(bytearray(b)) for s, b in data.items()}
    try:
      with time_limit(SECONDS):
        for launch in launches(prg): runtime(*[bufs[s] for s in slots], **launch)
      out.append({s: bytes(m) for s, m in bufs.items()})
    except Timeout: out.append(RunFailure("timeout", f"tinygrad's emulator ran over {SECONDS:g} s"))
    except Exception as e: out.append(RunFailure("crash", f"tinygrad's emulator: {type(e).__name__}: {e}"))
  return out


class time_limit:
  """Raise Timeout in the main thread after `seconds` (SIGALRM), for one run."""
  def __init__(self, seconds): self.seconds = seconds
  def __enter__(self):
    def fire(*_): raise Timeout()
    self.old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, self.seconds)
  def __exit__(self, *exc):
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, self.old)

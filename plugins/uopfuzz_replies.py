# uopfuzz_replies.py: what a plug-in's render and run return and the reply keys they become (Rendered, Ran,
# RunFailure, reply_lists), and the bytes of run requests (base64 in, base64 out: decode_inputs, encode_outputs).
# Part of the Python SDK (uopfuzz_plugin.py re-exports all of it). Standard library only, Python 3.8+.
import base64
import binascii
import collections
import re

RUN_FAILURE_CLASSES = ("crash", "timeout", "compile-error")

# What render and run may return beside the render or the outputs, each None when not said: the switches that
# took effect (used), the opts applied in order and those skipped with why (opts_applied, opts_skipped: the
# `opts` line's notation, format_opt; a skipped one `OPT: why`), and the target's coverage names beyond its
# switches (features). Each becomes its reply key.
REPLY_LISTS = ("used", "opts_applied", "opts_skipped", "features")
Rendered = collections.namedtuple("Rendered", "source " + " ".join(REPLY_LISTS), defaults=(None,) * len(REPLY_LISTS))
Ran = collections.namedtuple("Ran", "outputs " + " ".join(REPLY_LISTS), defaults=(None,) * len(REPLY_LISTS))
# One data set's failure: cls in RUN_FAILURE_CLASSES; a crash may say the signal that ended it (its number).
RunFailure = collections.namedtuple("RunFailure", "cls message signal", defaults=(None,))


# ---- run requests: base64 in, base64 out -----------------------------------------------------------------

def buffer_sizes(program):
  """{slot: bytes} of the program's BUFFERs: what each data set of a run request holds, in and out."""
  return {b.slot: b.length * b.dtype.itemsize for b in program.buffers}


def decode_inputs(inputs, sizes):
  """A run request's `inputs` -> [{slot: bytes}]; ValueError saying what is wrong with them."""
  if not isinstance(inputs, list) or not inputs: raise ValueError("'inputs' must be a non-empty list")
  decoded = []
  for k, data_set in enumerate(inputs):
    if not isinstance(data_set, dict) or not all(re.fullmatch(r"\d+", s) and isinstance(t, str) for s, t in data_set.items()):
      raise ValueError(f"input {k} is not an object mapping slots to base64 strings")
    try: buffers = {int(s): base64.b64decode(t, validate=True) for s, t in data_set.items()}
    except binascii.Error as e: raise ValueError(f"input {k}: bad base64 ({e})") from e
    check_buffers(buffers, sizes, f"input {k}")
    decoded.append(buffers)
  return decoded


def check_buffers(buffers, sizes, what):
  if sorted(buffers) != sorted(sizes): raise ValueError(f"{what} has slots {sorted(buffers)}, the program's BUFFERs {sorted(sizes)}")
  wrong = next((s for s in sizes if len(buffers[s]) != sizes[s]), None)
  if wrong is not None: raise ValueError(f"{what}: slot {wrong} has {len(buffers[wrong])} bytes, not {sizes[wrong]}")


def reply_lists(out):
  """The reply keys of a Rendered or a Ran (those not None), checked: ValueError saying what is wrong (a
  plug-in's bug), never a malformed reply. Every entry is one line of printable text; a feature (like a
  switch) printable ASCII without blanks or commas."""
  keys = {}
  for key in REPLY_LISTS:
    value = getattr(out, key, None)
    if value is None: continue
    value = list(value)
    pattern = r"[!-+\--~]+" if key in ("used", "features") else r"[ -~]+"
    bad = next((x for x in value if not isinstance(x, str) or not re.fullmatch(pattern, x)), None)
    if bad is not None: raise ValueError(f"{key} entry {bad!r}: not {'printable ASCII without blanks or commas' if key in ('used', 'features') else 'one line of printable ASCII'}")
    keys[key] = value
  return keys


def encode_outputs(outputs, count, sizes):
  """What run returned -> the reply's `outputs`; ValueError saying what is wrong with it (a plug-in's bug)."""
  if not isinstance(outputs, (list, tuple)) or isinstance(outputs, RunFailure):  # (a RunFailure is a tuple too)
    raise ValueError(f"run returned {type(outputs).__name__}, not a list")
  if len(outputs) != count: raise ValueError(f"run returned {len(outputs)} outputs for {count} inputs")
  return [encode_output(out, sizes, f"output {k}") for k, out in enumerate(outputs)]


def encode_output(out, sizes, what):
  if isinstance(out, RunFailure):
    if out.cls not in RUN_FAILURE_CLASSES: raise ValueError(f"{what}: RunFailure class {out.cls!r} is none of {', '.join(RUN_FAILURE_CLASSES)}")
    if out.signal is None: return {"class": out.cls, "message": str(out.message)}
    if out.cls != "crash" or not isinstance(out.signal, int) or isinstance(out.signal, bool) or out.signal < 1:
      raise ValueError(f"{what}: RunFailure signal {out.signal!r}: a crash's signal is a positive int")
    return {"class": out.cls, "message": str(out.message), "signal": out.signal}
  if not isinstance(out, dict) or not all(isinstance(s, int) and isinstance(b, (bytes, bytearray)) for s, b in out.items()):
    raise ValueError(f"{what} is neither {{slot (int): bytes}} nor a RunFailure: {type(out).__name__}")
  check_buffers(out, sizes, what)
  return {str(s): base64.b64encode(bytes(b)).decode("ascii") for s, b in sorted(out.items())}

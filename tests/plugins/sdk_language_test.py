#!/usr/bin/env python3
# The Python SDK's output languages and run requests (plugins/uopfuzz_plugin.py, docs/format.md section 5):
# a plug-in of language x86-64 (its render is bytes: raw in one-program and batch mode, base64 in server
# replies), an executing target (language outputs: run requests, base64 buffers in and out, RunFailure, a
# wrong return made an `error` reply) and the buffer_bytes/buffer_values helpers. sdk_plugin.py is the
# plug-in, its language chosen by $SDK_PLUGIN_LANGUAGE. Run by CTest from the repository root.
import base64, json, math, os, shutil, struct, subprocess, sys, tempfile, unittest

sys.dont_write_bytecode = True
from sdk_test import PLUGIN, PROGRAM, ROOT, Server, with_meta  # noqa: E402  (this directory, the script's)
import uopfuzz_plugin as sdk  # noqa: E402  (sdk_test put plugins/ on the path)

MACHINE_CODE = b"\xc3" + bytes(range(256))  # what sdk_plugin.py renders in language x86-64
TWO_BUFFERS = "uops 1\n%0 = BUFFER i32[2] slot=0\n%1 = BUFFER f16[3] slot=4\n%2 = SINK void\n"


def env(language): return {**os.environ, "SDK_PLUGIN_LANGUAGE": language}


def b64(data): return base64.b64encode(data).decode("ascii")


def sdk_code(body):
  """A python3 -c command line defining a plug-in with the SDK: body is `Plugin(...)`."""
  return [sys.executable, "-B", "-c", f"import sys; sys.path.insert(0, {os.path.join(ROOT, 'plugins')!r}); from uopfuzz_plugin import *; {body}"]


class Languages(unittest.TestCase):
  def describe(self, language):
    r = subprocess.run(PLUGIN + ["--uopfuzz-describe"], capture_output=True, text=True, env=env(language), timeout=60)
    self.assertEqual(r.returncode, 0, r.stderr)
    return json.loads(r.stdout)

  def test_handshake_says_the_language(self):
    d = self.describe("x86-64")
    self.assertEqual((d["language"], d["modes"]), ("x86-64", ["server", "batch", "program"]))
    d = self.describe("outputs")
    self.assertEqual((d["language"], d["modes"]), ("outputs", ["server"]))  # run requests travel in server mode only
    for body in ("Plugin(name='t', render=None, language='rust')", "Plugin(name='t', run=print)",
                 "Plugin(name='t', render=print, run=print, language='outputs')", "Plugin(name='t', language='outputs')"):
      r = subprocess.run(sdk_code(body + ".main()") + ["--uopfuzz-describe"], capture_output=True, text=True, timeout=60)
      self.assertEqual(r.returncode, 2, body)
      self.assertIn("language", r.stderr, body)

  def test_machine_code_in_each_mode(self):
    with tempfile.TemporaryDirectory() as tmp:
      with open(os.path.join(tmp, "0.uop"), "w") as f: f.write(PROGRAM)
      with open(os.path.join(tmp, "1.uop"), "w") as f: f.write(with_meta("wrong", "type"))
      r = subprocess.run(PLUGIN + [os.path.join(tmp, "0.uop"), "kernel0"], capture_output=True, env=env("x86-64"), timeout=60)
      self.assertEqual((r.returncode, r.stdout), (0, MACHINE_CODE))  # raw bytes on stdout, no text layer
      r = subprocess.run(PLUGIN + [os.path.join(tmp, "1.uop"), "kernel0"], capture_output=True, text=True, env=env("x86-64"), timeout=60)
      self.assertEqual(r.returncode, 1)
      self.assertIn("render returned str, not bytes (language x86-64)", r.stderr)
      with open(os.path.join(tmp, "batch.list"), "w") as f: f.write("0.uop kernel0 0.c 0.err\n1.uop kernel1 1.c 1.err\n")
      r = subprocess.run(PLUGIN + [os.path.join(tmp, "batch.list")], capture_output=True, text=True, env=env("x86-64"), timeout=60)
      self.assertEqual(r.returncode, 0, r.stderr)
      with open(os.path.join(tmp, "0.c"), "rb") as f: self.assertEqual(f.read(), MACHINE_CODE)
      self.assertEqual(sorted(os.listdir(tmp)), ["0.c", "0.uop", "1.err", "1.uop", "batch.list"])

  def test_machine_code_in_server_replies_is_base64(self):
    server = LanguageServer(self, "x86-64")
    r = server.render(1, PROGRAM)
    self.assertEqual(sorted(r), ["id", "source"])
    self.assertEqual(base64.b64decode(r["source"], validate=True), MACHINE_CODE)
    self.assertEqual(r["source"], b64(MACHINE_CODE))  # standard alphabet, padded, no newlines
    self.assertIn("render returned str, not bytes", server.render(2, with_meta("wrong", "type"))["error"])
    self.assertEqual(server.render(3, with_meta("use", "late.py:7"))["used"], ["late.py:7"])
    c_server = Server(self, PLUGIN)
    self.assertIn("render returned bytes, not str (language c)", c_server.render(4, with_meta("wrong", "type"))["error"])
    self.assertIn("bad request: a run request to a plug-in of language c",
                  c_server.ask({"id": 5, "kind": "run", "function": "k", "program": PROGRAM, "inputs": [{"0": b64(bytes(8))}]})["error"])
    self.assertEqual(server.close()[0], 0)


class LanguageServer(Server):
  """sdk_plugin.py of that language in server mode; run(rid, text, inputs) asks a run request."""

  def __init__(self, test, language): super().__init__(test, PLUGIN, env(language))

  def run(self, rid, text, inputs, function="kernel0", **kw):
    return self.ask({"id": rid, "kind": "run", "function": function, "program": text, "inputs": inputs, **kw})


class RunRequests(unittest.TestCase):
  def setUp(self):
    self.server = LanguageServer(self, "outputs")
    self.inputs = [{"0": b64(struct.pack("<2i", 1, -5)), "4": b64(bytes(6))}, {"0": b64(struct.pack("<2i", 7, 8)), "4": b64(b"\x00\x3c" * 3)}]

  def test_outputs_decoded_and_encoded(self):
    r = self.server.run(9, TWO_BUFFERS, self.inputs)
    self.assertEqual(sorted(r), ["id", "outputs"])
    self.assertEqual(r["id"], 9)
    self.assertEqual(len(r["outputs"]), 2)
    self.assertEqual([struct.unpack("<2i", base64.b64decode(o["0"])) for o in r["outputs"]], [(2, -4), (8, 9)])  # ints plus one
    self.assertEqual([o["4"] for o in r["outputs"]], [self.inputs[0]["4"], self.inputs[1]["4"]])  # f16 as it was
    r = self.server.run(10, "meta use = sym.py:10 late.py:7\n" + TWO_BUFFERS, self.inputs[:1], off=["late.py:7"])
    self.assertEqual((sorted(r), r["used"]), (["id", "outputs", "used"], ["sym.py:10"]))
    self.assertIn("unknown switch nope", self.server.run(11, TWO_BUFFERS, self.inputs, off=["nope"])["error"])
    self.assertEqual(self.server.close()[0], 0)

  def test_run_failures(self):
    for cls in ("crash", "timeout", "compile-error"):
      r = self.server.run(1, f"meta fail = {cls}\n" + TWO_BUFFERS, self.inputs)
      self.assertEqual(r, {"id": 1, "outputs": [{"class": cls, "message": f"{cls} as asked"}] * 2})
    self.assertEqual(self.server.run(2, with_meta("refuse", "no"), [{"0": b64(bytes(8))}]), {"id": 2, "error": "refused: no"})
    self.assertIn("RuntimeError: boom", self.server.run(3, with_meta("raise", "boom"), [{"0": b64(bytes(8))}])["error"])

  def test_a_wrong_return_is_an_error_reply(self):
    wrong = {"count": "run returned 1 outputs for 2 inputs", "slot": "output 0 has slots [4], the program's BUFFERs [0, 4]",
             "size": "output 0: slot 0 has 9 bytes, not 8", "class": "RunFailure class 'segfault' is none of crash, timeout, compile-error",
             "type": "run returned str, not a list", "keys": "output 0 is neither {slot (int): bytes} nor a RunFailure"}
    for what, message in wrong.items():
      r = self.server.run(4, f"meta wrong = {what}\n" + TWO_BUFFERS, self.inputs)
      self.assertEqual(sorted(r), ["error", "id"], what)
      self.assertIn(message, r["error"], what)
    self.assertIn("outputs", self.server.run(5, TWO_BUFFERS, self.inputs))  # still serving

  def test_bad_requests(self):
    bad = {"'inputs' must be a non-empty list": [], "input 0: bad base64": [{"0": "AA=A", "4": b64(bytes(6))}],
           "input 1 has slots [0], the program's BUFFERs [0, 4]": [self.inputs[0], {"0": b64(bytes(8))}],
           "input 0: slot 4 has 5 bytes, not 6": [{"0": b64(bytes(8)), "4": b64(bytes(5))}],
           "input 0 is not an object mapping slots to base64 strings": [{"x": "AA=="}]}
    for message, inputs in bad.items():
      self.assertIn(message, self.server.run(6, TWO_BUFFERS, inputs)["error"])
    self.assertIn("unknown line 'nope'", self.server.run(7, "uops 1\nnope\n", self.inputs)["error"])
    self.assertIn("bad FUNCTION_NAME", self.server.run(8, TWO_BUFFERS, self.inputs, function="1x")["error"])
    self.assertIn("a render request to a plug-in of language outputs", self.server.render(9, TWO_BUFFERS)["error"])
    r = self.server.ask({"id": 10, "kind": "export", "format": "ops", "program": TWO_BUFFERS})  # exports work as ever
    self.assertTrue(r["source"].startswith("BUFFER BUFFER SINK"))

  def test_no_other_mode(self):
    with tempfile.NamedTemporaryFile("w", suffix=".uop") as f:
      f.write(PROGRAM)
      f.flush()
      for args in ([f.name, "kernel0"], [f.name]):
        r = subprocess.run(PLUGIN + args, capture_output=True, text=True, env=env("outputs"), timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("server mode only", r.stderr)

  def test_prints_do_not_reach_the_replies(self):
    self.assertIn("outputs", self.server.run(1, "meta print = noise\n" + TWO_BUFFERS, self.inputs))
    code, stderr = self.server.close()
    self.assertEqual(code, 0)
    self.assertIn("noise", stderr)


class CompilerHelpers(unittest.TestCase):
  def test_tool_version(self):
    self.assertTrue(sdk.tool_version(sys.executable).startswith("Python 3"))
    self.assertEqual(sdk.tool_version("/nonexistent/cc"), "")

  @unittest.skipUnless(shutil.which("cc"), "no cc")
  def test_compile_c(self):
    with tempfile.TemporaryDirectory() as tmp:
      out = sdk.compile_c("int f(void) { return 1; }\n", ["-c"], os.path.join(tmp, "f.o"), cc="cc")
      self.assertEqual(out, os.path.join(tmp, "f.o"))
      self.assertTrue(os.path.getsize(out) > 0)
      with self.assertRaises(sdk.RenderError) as e: sdk.compile_c("int f(void) { return }\n", ["-c"], os.path.join(tmp, "g.o"), cc="cc")
      self.assertIn("g.o.c:1", str(e.exception))  # the compiler's message, naming the file relative to its directory
      self.assertNotIn(tmp, str(e.exception))
    with self.assertRaises(sdk.RenderError) as e: sdk.run_tool(["/nonexistent/ld"])
    self.assertIn("cannot run /nonexistent/ld", str(e.exception))


class BufferBytes(unittest.TestCase):
  def test_round_trips(self):
    cases = {"bool": [True, False, True], "i8": [-128, 127], "u8": [0, 255], "i16": [-32768, 5], "u16": [65535], "i32": [-2**31, 2**31 - 1],
             "u32": [2**32 - 1], "i64": [-2**63], "u64": [2**64 - 1], "f16": [1.5, -0.0, 65504.0, 2**-24, math.inf],
             "f32": [2**-149, -3.5, 1.0], "f64": [0.1, -math.inf, 5e-324], "bf16": [0x3f80, 0xffff], "fp8e4m3": [0x7e, 0x80],
             "fp8e5m2": [1], "fp8e4m3fnuz": [0x80], "fp8e5m2fnuz": [0xff]}
    self.assertEqual(set(cases) | {"void"}, set(sdk.DTYPES))  # every scalar dtype has a case
    for name, values in cases.items():
      data = sdk.buffer_bytes(name, values)
      self.assertEqual(len(data), len(values) * sdk.DTYPES[name].itemsize, name)
      self.assertEqual(sdk.buffer_values(sdk.DTYPES[name], data), values, name)
    nan = sdk.buffer_values("f32", sdk.buffer_bytes("f32", [math.nan]))[0]
    self.assertTrue(math.isnan(nan))

  def test_layout_is_little_endian_native(self):
    self.assertEqual(sdk.buffer_bytes("i32", [1, -2]), b"\x01\x00\x00\x00\xfe\xff\xff\xff")
    self.assertEqual(sdk.buffer_bytes("f16", [1.0]), b"\x00\x3c")  # binary16 bits
    self.assertEqual(sdk.buffer_bytes("bf16", [0x3f80]), b"\x80\x3f")  # bf16 is its raw bits
    self.assertEqual(sdk.buffer_bytes("bool", [True, False]), b"\x01\x00")
    self.assertEqual(sdk.buffer_values("f32", b"\x00\x00\x80\x3f"), [1.0])

  def test_errors(self):
    with self.assertRaises(ValueError): sdk.buffer_values("i32", bytes(5))  # not whole items
    with self.assertRaises(ValueError): sdk.buffer_bytes("f32x4", [1.0])  # BUFFERs are scalar
    with self.assertRaises(ValueError): sdk.buffer_bytes("void", [])
    with self.assertRaises(struct.error): sdk.buffer_bytes("u8", [256])
    with self.assertRaises(OverflowError): sdk.buffer_bytes("f16", [1e6])


if __name__ == "__main__":
  unittest.main(verbosity=2)

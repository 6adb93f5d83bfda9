#!/usr/bin/env python3
# The tinygrad adapter's export (plugins/tinygrad/uopfuzz_tinygrad.py, an `export` request with format
# `tinygrad`): a standalone unittest that builds the program's UOps, runs them through tinygrad's own CPU
# pipeline and compares every BUFFER with the program's expect lines. Each finding of corpus/tinygrad/
# exported and run outside the repository (only tinygrad on PYTHONPATH) fails, a mismatch naming the element
# its `got` line says differs (by slot, `buf1[5]`), a render error raising where its signature says (a render
# timeout: tinygrad's lowering stopped at the file's render_timeout) and a
# compile error raised as such, with DEV unset (the test builds its renderer; x86's findings too); each
# example program (tests/programs) the adapter renders right passes, and the two that hit known tinygrad
# bugs fail. Run from the repository root
# with tinygrad on PYTHONPATH (or UOPFUZZ_TINYGRAD); exit 77 without tinygrad or clang.
import glob, json, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

sys.path.insert(0, "plugins")
import uopfuzz_plugin as sdk  # noqa: E402

ADAPTER = "plugins/tinygrad/uopfuzz_tinygrad.py"
# example programs that hit a tinygrad bug (tests/tinygrad/adapter_test.py: the same two)
KNOWN = {"loop_trip_counts.uop", "f16_native_chain.uop"}


d = json.loads(subprocess.run([ADAPTER, "--uopfuzz-describe"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60).stdout)
check(d.get("exports") == ["tinygrad", "tinygrad-tensor"] and d.get("reach") == "tensor", f"handshake: exports {d.get('exports')}, reach {d.get('reach')}")
without = set(d.get("without", []))
server = subprocess.Popen([ADAPTER, "--uopfuzz-serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
requests = 0


def export(text, fmt="tinygrad"):
  global requests
  requests += 1
  server.stdin.write(json.dumps({"id": requests, "kind": "export", "format": fmt, "program": text}) + "\n")
  server.stdin.flush()
  reply = json.loads(server.stdout.readline())
  assert reply.get("id") == requests, reply
  return reply


def fits(program):
  return not any(n.dtype.is_vector or n.op.name.lower() in without or n.dtype.name in without for n in program.nodes)


tmp = tempfile.mkdtemp()


def run_test(name, source):
  """The exported test, run in a directory of its own with only tinygrad on PYTHONPATH: (exit status, output)."""
  path = os.path.join(tmp, f"test_{name}.py")
  with open(path, "w") as f: f.write(source)
  env = {k: v for k, v in os.environ.items() if k != "DEV"}  # tinygrad's defaults: the test picks its renderer
  r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=240, cwd=tmp, env=env)
  return r.returncode, r.stdout + r.stderr


def gist(out):
  """The test's verdict and what failed."""
  return " | ".join(l for l in out.splitlines() if re.match(r"(\w+Error|FAILED|OK)\b", l))[-400:]


def first_wrong(program):
  """The first element the file's `got` has wrong, as the test names it: by slot, as the .uop does."""
  wrong = [(s, k) for s, got in sorted(program.got.items()) for k, (g, w) in enumerate(zip(got, program.expect[s])) if repr(g) != repr(w)]
  return f"buf{wrong[0][0]}[{wrong[0][1]}] = " if wrong else "?"


def raises_as_signed(program, code, out):
  """Whether a render-error finding's test raised in tinygrad's pipeline where its signature says."""
  where = re.match(r"render-error (\w+) at (\S+):(\d+)", program.meta_value("signature") or "")
  return code == 1 and "FAILED" in out and where is not None and where.group(1) in out and f'{where.group(2)}", line {where.group(3)}' in out


# the findings: each test fails, naming the element that differs (a render error: raising where it says)
for f in sorted(glob.glob("corpus/tinygrad/*.uop")):
  with open(f) as file: text = file.read()
  program, name = sdk.parse_program(text), os.path.basename(f)[:-4].replace("-", "_")
  if (program.meta_value("renderer") or "").split()[1:]:  # the adapter's options it was found with: uopfuzz passes them
    out_file = os.path.join(tmp, f"{name}.py")
    r = subprocess.run([os.environ["UOPFUZZ"], "export", f, "--as", "tinygrad", "-o", out_file], capture_output=True, text=True, timeout=240)
    reply = {"source": open(out_file).read()} if r.returncode == 0 else {"error": r.stderr[-300:]}
  else:
    reply = export(text)
  check("source" in reply, f"{f}: exported {reply.get('error', '')}")
  if "source" not in reply: continue
  source = reply["source"]
  imports = {m for m in re.findall(r"^(?:from|import) (\w+)", source, re.M)}
  check(imports <= {"dataclasses", "math", "struct", "unittest", "tinygrad"}, f"{f}: imports only tinygrad and the standard library: {sorted(imports)}")
  check("uopfuzz" in source.split("\nimport")[0] and d["target"]["version"] in source and repr(program.nodes[-1]) in source,
        f"{f}: the header names uopfuzz, the tinygrad commit and the program")
  code, out = run_test(name, source)
  if program.meta_value("class") == "compile-error":
    check(code == 1 and "FAILED (errors=1)" in out and "clang" in out, f"{f}: the compile error is raised: {gist(out)}")
    continue
  if program.meta_value("class") == "render-error":
    check(raises_as_signed(program, code, out), f"{f}: tinygrad raises as its signature says: {gist(out)}")
    continue
  element = first_wrong(program)
  check(code == 1 and "FAILED (failures=1)" in out and element in out and " expected " in out, f"{f}: fails naming {element}...: {gist(out)}")
  if name == "const_fold_no_wrap": check("buf0[0] = 10800000000 expected 2210065408" in out, f"{f}: buf0[0] = 10800000000 expected 2210065408")

# the other backends' findings (x86: X86Renderer), exported through uopfuzz and run with DEV unset: each
# runs the bug under tinygrad's defaults (the test builds its renderer), never fails on the set-up
for f in sorted(glob.glob("corpus/tinygrad/x86/*.uop")):
  program, name = sdk.read_program(f), os.path.basename(f)[:-4].replace("-", "_")
  out_file = os.path.join(tmp, f"test_x86_{name}.py")
  r = subprocess.run([os.environ["UOPFUZZ"], "export", f, "--as", "tinygrad", "-o", out_file], capture_output=True, text=True, timeout=240)
  check(r.returncode == 0, f"{f}: exported (exit {r.returncode}) {r.stderr[-300:]}")
  if r.returncode != 0: continue
  code, out = run_test(f"x86_{name}", open(out_file).read())
  check("X86Renderer(replace(Device[DEVICE].renderer.target" in open(out_file).read() and "DEV=" not in out, f"{f}: the test builds its X86Renderer")
  if program.meta_value("class") == "mismatch":
    element = first_wrong(program)
    check(code == 1 and "FAILED (failures=1)" in out and element in out, f"{f}: with DEV unset fails naming {element}...: {gist(out)}")
  elif program.meta_value("signature") == "render-error timeout":  # tinygrad's pipeline is stopped at the recorded limit
    limit = f"took longer than {float(program.meta_value('render_timeout') or 60):g} s to lower the kernel"
    check(code == 1 and "FAILED (failures=1)" in out and limit in out, f"{f}: with DEV unset fails as {limit}: {gist(out)}")
  elif program.meta_value("class") == "render-error":  # tinygrad raises in its pipeline, where the signature says
    check(raises_as_signed(program, code, out), f"{f}: with DEV unset tinygrad raises as its signature says: {gist(out)}")
  else:
    check(code != 0 and "AssertionError" not in out, f"{f}: with DEV unset ends as a {program.meta_value('class')} (exit {code}): {gist(out)}")

# the example programs: those the adapter renders right pass (the known bugs' and five others: each
# exported test is a Python process importing tinygrad, a few seconds)
ran = 0
examples = sorted(glob.glob("tests/programs/*.uop"), key=lambda f: (os.path.basename(f) not in KNOWN, f))
for f in examples:
  if ran >= len(KNOWN) + 5: break
  program = sdk.read_program(f)
  if not fits(program): continue
  reply = export(program.text)
  if "source" not in reply:
    check(False, f"{f}: exported {reply.get('error')}")
    continue
  code, out = run_test(os.path.basename(f)[:-4], reply["source"])
  known = os.path.basename(f) in KNOWN
  check((code != 0) == known, f"{f}: {'fails (a known tinygrad bug)' if known else 'passes'}: {gist(out)}")
  ran += 1
check(ran >= len(KNOWN) + 5, f"{ran} example programs exported and run")

# what cannot be exported
with open("tests/programs/vector_add.uop") as file: r = export(file.read())
check("unsupported" in r.get("error", "") and "--without vector" in r.get("error", ""), f"a vector program: {r}")
with open("corpus/tinygrad/const-fold-no-wrap.uop") as file: r = export(file.read(), "c")
check(r.get("error", "").startswith("unknown export format 'c'"), f"an unknown format: {r}")
server.stdin.close()
check(server.wait(timeout=60) == 0, "the server ends with its input")

# through uopfuzz: `export --as tinygrad` asks the file's renderer, with the reference's values as expect
out = os.path.join(tmp, "test_cli.py")
r = subprocess.run([os.environ["UOPFUZZ"], "export", "corpus/tinygrad/noop-store-drops-order.uop", "--as", "tinygrad", "-o", out],
                   capture_output=True, text=True, timeout=240)
check(r.returncode == 0 and os.path.exists(out), f"uopfuzz export --as tinygrad: exit {r.returncode} {r.stderr[-300:]}")
if os.path.exists(out):
  code, text = run_test("cli", open(out).read())
  check(code == 1 and "FAILED (failures=1)" in text and " expected " in text, f"uopfuzz export --as tinygrad: the test fails: {gist(text)}")
r = subprocess.run([os.environ["UOPFUZZ"], "export", "tests/programs/chain.uop", "--as", "tinygrad"], capture_output=True, text=True, timeout=60)
check(r.returncode == 2 and "expected c (a protocol-2 plug-in may offer more" in r.stderr, f"--as tinygrad without the plug-in: {r.stderr.strip()}")
shutil.rmtree(tmp)

finish()

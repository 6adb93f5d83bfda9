"""What the tinygrad backend tests (backends_test.py, opts_test.py) do with a render where uopfuzz would do
it (before its languages llvm-ir and x86-64 could be run through `uopfuzz run`, and to check the protocol
itself): a buffer's bytes from .uop values and back, C compiled by clang and LLVM IR by `clang -x ir` into a
shared object, an x86-64 image mapped read+execute, each called in a child process (a crash is the child's
signal) on the program's data, and the outputs compared with its expect lines (floats bit for bit, NaN equal to NaN)."""
import ctypes, math, mmap, os, pickle, select, signal, struct, subprocess

FMT = {"bool": "?", "i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I", "i64": "q", "u64": "Q",
       "f16": "e", "f32": "f", "f64": "d"}


def to_bytes(dtype, values):
  """A buffer's bytes (native layout, little-endian): bf16 is the top 16 bits of binary32."""
  if dtype == "bf16": return b"".join(struct.pack("<f", v)[2:] for v in values)
  return struct.pack(f"<{len(values)}{FMT[dtype]}", *values)


def from_bytes(dtype, data):
  if dtype == "bf16": return [struct.unpack("<f", b"\0\0" + data[i:i + 2])[0] for i in range(0, len(data), 2)]
  return [v for (v,) in struct.iter_unpack("<" + FMT[dtype], data)]


def same(dtype, got, want):
  if isinstance(got, float) and math.isnan(got) and math.isnan(want): return True
  return to_bytes(dtype, [got]) == to_bytes(dtype, [want])


def inputs(program):
  """Data set 0, the program's own: {slot: bytes} of every BUFFER."""
  return {b.slot: to_bytes(b.dtype.name, program.data.get(b.slot, [0] * b.length)) for b in program.buffers}


def compare(program, outputs):
  """None when every BUFFER with expect lines has its expected values, else what differs."""
  wrong = []
  for i, b in enumerate(program.buffers):
    want = program.expect.get(b.slot)
    if want is None: continue
    got = from_bytes(b.dtype.name, outputs[b.slot])
    wrong += [f"p{i}[{k}] = {g} expected {w}" for k, (g, w) in enumerate(zip(got, want)) if not same(b.dtype.name, g, w)]
  return "; ".join(wrong[:4]) + (f" ({len(wrong)} differ)" if len(wrong) > 4 else "") if wrong else None


def in_child(call, program, seconds=10):
  """call(pointers) in a forked child on data set 0: ('ok', {slot: bytes}), ('crash', signal) or ('timeout', ...)."""
  rfd, wfd = os.pipe()
  pid = os.fork()
  if pid == 0:  # the child never returns: whatever happens, it exits here
    try:
      os.close(rfd)
      # each buffer page aligned, as uopfuzz's are (64 bytes): tinygrad's LLVM IR says align 32
      bufs = {s: mmap.mmap(-1, max(len(b), 1)) for s, b in inputs(program).items()}
      for s, b in inputs(program).items(): bufs[s].write(b)
      call([ctypes.addressof(ctypes.c_char.from_buffer(bufs[s])) for s in sorted(bufs)])
      with os.fdopen(wfd, "wb") as f: pickle.dump({s: bufs[s][:len(b)] for s, b in inputs(program).items()}, f)
    finally: os._exit(0)
  os.close(wfd)
  if not select.select([rfd], [], [], seconds)[0]:  # nothing written nor closed: the kernel still runs
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(rfd)
    return "timeout", f"over {seconds} s"
  with os.fdopen(rfd, "rb") as f: data = f.read()
  _, status = os.waitpid(pid, 0)
  if os.WIFSIGNALED(status): return "crash", f"signal {os.WTERMSIG(status)}"
  return ("ok", pickle.loads(data)) if data else ("crash", "the call raised in the child")


def run_shared_object(argv, program, function):
  """Builds the shared object `argv` (a compiler command line) writes after -o, then calls `function` in a child."""
  r = subprocess.run(argv, capture_output=True, text=True)
  if r.returncode != 0: return "compile-error", r.stderr.strip()[-400:]
  def call(ptrs):
    fn = getattr(ctypes.CDLL(argv[argv.index("-o") + 1]), function)
    fn.argtypes = [ctypes.c_void_p] * len(ptrs)
    fn(*ptrs)
  return in_child(call, program)


def run_llvm_ir(ir, program, function, tmp, cc="clang-16", cflags=("-O2", "-march=native")):
  """LLVM IR compiled as uopfuzz does (clang -x ir, the flags that are tinygrad's own), then called."""
  ll, so = os.path.join(tmp, f"{function}.ll"), os.path.join(tmp, f"{function}.so")
  with open(ll, "w") as f: f.write(ir)
  return run_shared_object([cc, "-x", "ir", "-Wno-override-module", *cflags, "-shared", "-fPIC", ll, "-o", so], program, function)


def run_c(source, program, function, tmp, cc="clang", cflags=("-O2",)):
  """A C translation unit compiled as uopfuzz does (CC CFLAGS -shared -fPIC), then called."""
  c, so = os.path.join(tmp, f"{function}.c"), os.path.join(tmp, f"{function}_c.so")
  with open(c, "w") as f: f.write(source)
  return run_shared_object([cc, *cflags, "-shared", "-fPIC", c, "-o", so, "-lm"], program, function)


def run_x86_image(image, program):
  """A flat x86-64 image mapped read+execute (not writable), entry at offset 0, called with the BUFFERs."""
  def call(ptrs):
    mem = mmap.mmap(-1, max(len(image), 1), prot=mmap.PROT_READ | mmap.PROT_WRITE)
    mem.write(image)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(mem))
    libc = ctypes.CDLL(None)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    assert libc.mprotect(addr, len(mem), mmap.PROT_READ | mmap.PROT_EXEC) == 0
    ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(ptrs))(addr)(*ptrs)
  return in_child(call, program)

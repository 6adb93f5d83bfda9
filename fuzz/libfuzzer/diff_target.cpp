// libFuzzer target: a .uop program (shaped by mutator.cpp) through the reference and the compiled path.
//
// Any failure of the compiled path on a program the reference defines (mismatch, crash, timeout,
// compile or render error) writes the program as a reproducer, `divergence-<signature>.uop` with the
// usual meta, expect and got lines, into $UOPFUZZ_FUZZ_OUT (default: the working directory), then
// aborts so libFuzzer stops and keeps the input too. `uopfuzz run FILE` replays it.
//
// The check is the fuzzer's (uf::check: one cached compiler call, a sandboxed run, probes), with
// $UOPFUZZ_FUZZ_CC, $UOPFUZZ_FUZZ_CFLAGS and $UOPFUZZ_FUZZ_RENDERER overriding the defaults. Its cost is
// bounded per input: programs past kMaxNodes nodes or kMaxElements memory elements, or whose loops run
// more than kMaxLoopSteps nodes in the reference, are rejected; a kernel gets a few seconds. Without a usable compiler (a runner image without one) the target checks
// the reference alone and says so, unless $UOPFUZZ_FUZZ_REQUIRE_CC is set: then it exits 2.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "codegen/compiled_path.h"
#include "codegen/runtime/files.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/oracle/oracle.h"

namespace {

constexpr size_t kMaxInput = 64 << 10;
constexpr size_t kMaxNodes = 3000;
constexpr int64_t kMaxElements = 1 << 14;
constexpr uint64_t kMaxLoopSteps = 1 << 22;  // node runs inside loops: a few seconds under the sanitizers

struct Setup {
  uf::CompiledPathConfig cfg;
  std::string out_dir = ".";
  std::string cc_version;
  bool compiled = true;
};

Setup& setup() {
  static Setup s;
  return s;
}

const char* env(const char* key) {
  const char* v = std::getenv(key);
  return v && *v ? v : nullptr;
}

// Writes the reproducer atomically (replace_file), so it is whole or absent.
std::string write_reproducer(const uf::Program& p, const uf::Observation& obs) {
  const Setup& s = setup();
  uf::FindingContext ctx{"diff_target", s.cfg, s.cc_version};
  uf::Program copy = p;
  copy.set_meta("found_by", "libfuzzer diff_target");
  const std::string text = uf::reproducer_text(std::move(copy), obs, ctx);
  namespace fs = std::filesystem;
  const fs::path path = fs::path(s.out_dir) / ("divergence-" + uf::Corpus::file_name(obs.signature));
  if (const uf::FileError e = uf::replace_file(path.string(), text)) {
    std::fprintf(stderr, "diff_target: cannot write %s (%s); the program:\n%s", path.c_str(), e.reason().c_str(), text.c_str());
    return "";
  }
  return path.string();
}

bool too_costly(const uf::Program& p) {
  if (p.graph->size() > kMaxNodes) return true;
  int64_t elements = 0;
  for (const uf::UOp* u : uf::linearize(p))
    if (u->op == uf::Op::BUFFER || u->op == uf::Op::ALLOC) elements += u->len;
  return elements > kMaxElements;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Setup& s = setup();
  if (const char* v = env("UOPFUZZ_FUZZ_CC")) s.cfg.cc = v;
  if (const char* v = env("UOPFUZZ_FUZZ_CFLAGS")) s.cfg.cflags = v;
  if (const char* v = env("UOPFUZZ_FUZZ_RENDERER")) s.cfg.renderer_cmd = v;
  if (const char* v = env("UOPFUZZ_FUZZ_F16")) s.cfg.render.f16_native = std::string(v) == "native";
  if (const char* v = env("UOPFUZZ_FUZZ_OUT")) s.out_dir = v;
  s.cfg.timeout_s = 5;
  s.cfg.compile_timeout_s = 60;
  try {
    s.cc_version = uf::compiler_id(s.cfg.cc).version_line();
  } catch (const uf::UserError& e) {
    if (env("UOPFUZZ_FUZZ_REQUIRE_CC")) {
      std::fprintf(stderr, "diff_target: %s\n", e.what());
      std::exit(2);
    }
    std::fprintf(stderr, "diff_target: WARNING: %s: no compiled path, checking the reference only\n", e.what());
    s.compiled = false;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return -1;
  uf::Program p;
  try {
    p = uf::parse_program(std::string_view(reinterpret_cast<const char*>(data), size), "<input>");
    uf::verify(p);
  } catch (const uf::UserError&) {
    return -1;  // not a program: the parse target's business, keep it out of this corpus
  }
  if (too_costly(p)) return -1;
  uf::RefResult ref;
  try {
    ref = uf::interpret(p, uf::Limits{kMaxLoopSteps});
  } catch (const uf::UserError&) { return -1; }
  if (ref.over_budget) return -1;  // a mutated trip count: too long for the reference and the kernel alike
  const Setup& s = setup();
  if (ref.undefined || !s.compiled) return 0;
  uf::Observation obs;
  try {
    obs = std::move(uf::check({&p}, {ref}, s.cfg).at(0).observation);
  } catch (const uf::UserError& e) {
    // A setup problem (cache directory, compiler gone), not a finding: stop without blaming the input.
    std::fprintf(stderr, "diff_target: %s\n", e.what());
    std::_Exit(2);
  }
  if (obs.verdict == uf::Verdict::ok) return 0;
  const std::string path = write_reproducer(p, obs);
  std::fprintf(stderr,
               "diff_target: divergence `%s`: the compiled path (%s %s, renderer %s) differs from the reference\n"
               "diff_target: wrote %s (replay: uopfuzz run %s)\n",
               obs.signature.c_str(), s.cfg.cc.c_str(), s.cfg.cflags.c_str(),
               s.cfg.renderer_cmd.empty() ? "builtin" : s.cfg.renderer_cmd.c_str(), path.c_str(), path.c_str());
  std::abort();
}

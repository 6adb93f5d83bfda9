// Compiling C translation units into one shared object, through a content-addressed cache.
//
// compile_shared runs ONE compiler call for all the given translation units:
//     CC CFLAGS... -shared -fPIC -o OUT.so k0.c k1.c ... -lm
// (several TUs are how plug-in outputs, each with its own prelude, are batched); LLVM IR modules as
// `k0.ll ...` after `-x ir`, which needs a clang (a gcc is refused with a UserError).
//
// Default flags (kDefaultCFlags): -O3 -march=native for speed, and for exactness
//   -ffp-contract=off   no fused multiply-add (gcc's default is `fast`, clang's `on`: both would fuse
//                       a*b+c into one rounding, which the reference never does);
//   -fno-fast-math      IEEE semantics kept (NaN, inf, signed zeros, no reassociation).
// Nothing else is needed on x86-64: SSE arithmetic has FLT_EVAL_METHOD 0 (the prelude checks it), the
// rendered C has no undefined behaviour so -fwrapv and friends would only hide renderer bugs, and the
// library calls that compilers like to rewrite (pow(2,x), sin of a constant) are made opaque in the
// prelude instead of by a flag. Flags given by the user are used as they are: finding what they break
// is the fuzzer's job.
//
// Cache: the key is SHA-256 of the sources, the compiler's resolved path and its `--version` output
// (looked up once per process per compiler), and the flags. Entries live in cache_dir() as KEY.so: the
// ELF bytes followed by a 48-byte trailer (magic, length, SHA-256 of the ELF bytes), which dlopen
// ignores and which lets a truncated or corrupt entry be detected before use and rebuilt. Each build
// happens in a private temporary directory inside the cache dir and lands with one rename(2), so
// concurrent processes compiling the same source all succeed and never see half a file. Hits refresh
// the entry's mtime; past kMaxCacheEntries entries the least recently used quarter is removed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace uf {

inline constexpr const char* kDefaultCC = "gcc";
inline constexpr const char* kDefaultCFlags = "-O3 -march=native -ffp-contract=off -fno-fast-math";
inline constexpr size_t kMaxCacheEntries = 4000;

// What the sources are: C, or textual LLVM IR modules (compiled by a clang as `-x ir`).
enum class SourceKind { c, llvm_ir };

struct CompileOptions {
  std::string cc = kDefaultCC;
  std::string cflags = kDefaultCFlags;  // split like a shell command line (see split_command)
  SourceKind kind = SourceKind::c;
  double timeout_s = 300;               // a compiler that takes longer is a compile error
  bool remarks = false;                 // add the compiler's remark flag and keep its remarks (remarks.h)
};

struct CompileResult {
  bool ok = false;
  bool cached = false;  // served from the cache, no compiler run
  std::string so_path;  // when ok: the cache entry (dlopen-able)
  std::string message;  // when not ok: the compiler's stderr and the numbered sources
  bool timed_out = false;  // not ok because the compiler ran past timeout_s (and was killed)
  std::string remarks;     // when ok and asked for: the compiler's diagnostics (kept beside the entry, remarks.h)
};

// Compile errors are results, not exceptions. Throws UserError when the compiler cannot be found or
// run, or the cache directory cannot be used: those are problems of the setup, not of the sources.
CompileResult compile_shared(const std::vector<std::string>& sources, const CompileOptions& opt = {});

// Compiler processes this process has run (cache hits excluded) and their summed wall time: what the
// fuzz loop's "compiler busy" and "programs per compiler call" figures are made of.
struct CompilerStats {
  int64_t calls = 0;
  double seconds = 0;
};
CompilerStats compiler_stats();

// The cache directory: $UOPFUZZ_CACHE_DIR, else $XDG_CACHE_HOME/uopfuzz, else ~/.cache/uopfuzz.
// Created with mode 0700 when missing; refused (UserError) when not ours or writable by others.
std::string cache_dir();

struct CompilerId {
  std::string path;     // resolved absolute path
  std::string version;  // `--version` output
  // Its first line, the compiler's name and release: what people and reproducers are shown.
  std::string version_line() const { return version.substr(0, version.find('\n')); }
};
// Cached per process. Throws UserError naming the compiler when it is missing or does not answer.
CompilerId compiler_id(const std::string& cc);

// "   1 line" listing, as compile errors show sources.
std::string numbered_source(const std::string& src, size_t max_lines = 5000);

// True when `path` is a complete, uncorrupted cache entry.
bool verify_cache_entry(const std::string& path);

}  // namespace uf

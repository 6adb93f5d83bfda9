// Why a compiler call failed (compile_failure.h).
#include "codegen/runtime/compile_failure.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace uf {

namespace {

// What the compiler says when the machine, not the source, is at fault: a full disk or quota, a file
// system it cannot write, no memory, no file descriptors, a broken installation (a missing cc1, as, ld
// or libm), a helper killed from outside (gcc's wording for the OOM killer). Compilers run with
// LC_ALL=C, so these are the C library's and the drivers' English texts.
constexpr const char* kEnvironmentSigns[] = {"No space left on device",
                                             "Disk quota exceeded",
                                             "Read-only file system",
                                             "Input/output error",
                                             "File too large",
                                             "Too many open files",
                                             "Cannot allocate memory",
                                             "out of memory",
                                             "memory exhausted",
                                             "Permission denied",
                                             "Cannot create temporary file",
                                             "cannot execute",
                                             "unable to execute command",
                                             "Killed signal terminated program",
                                             "cannot find -l",
                                             "cannot open output file"};

// A compiler that crashed on the code (an internal compiler error): a finding, the compiler's bug, even where
// its driver then says it was "unable to execute command" (clang's driver when cc1 dies of a signal). The
// crash reports of gcc and of clang/LLVM.
constexpr const char* kCompilerCrashSigns[] = {"internal compiler error", "PLEASE submit a bug report",
                                               "frontend command failed due to signal"};
// Signs that the crash came from the machine after all (cc1 out of memory).
constexpr const char* kOutOfMemorySigns[] = {"Cannot allocate memory", "out of memory", "memory exhausted",
                                             "Killed signal terminated program"};

bool compiler_crashed_on_code(const std::string& text) {
  const auto any = [&text](const auto& signs) {
    return std::any_of(std::begin(signs), std::end(signs), [&text](const char* s) { return text.find(s) != std::string::npos; });
  };
  return any(kCompilerCrashSigns) && !any(kOutOfMemorySigns);
}

// Bytes available to us on the file system holding `path`, or UINTMAX_MAX when it cannot be told.
uintmax_t available_bytes(const std::string& path, bool& no_inodes) {
  struct statvfs v;
  no_inodes = false;
  if (::statvfs(path.c_str(), &v) != 0) return UINTMAX_MAX;
  no_inodes = v.f_files > 0 && v.f_favail == 0;
  return static_cast<uintmax_t>(v.f_bavail) * v.f_frsize;
}

}  // namespace

std::string environment_failure(const ProcessResult& r, const std::vector<std::string>& dirs) {
  if (r.signal != 0) return "the C compiler was " + r.describe() + " (out of memory, or killed from outside)";
  if (compiler_crashed_on_code(r.err + r.out)) return "";
  for (const std::string* text : {&r.err, &r.out})
    for (const char* sign : kEnvironmentSigns)
      if (text->find(sign) != std::string::npos) return std::string("the C compiler reports: ") + sign;
  // Compilers whose wording we do not know: a full disk where their temporary files and output go.
  constexpr uintmax_t kLow = uintmax_t{1} << 20;
  for (const std::string& d : dirs) {
    bool no_inodes = false;
    const uintmax_t free = available_bytes(d, no_inodes);
    if (no_inodes) return "the file system of " + d + " has no free inodes";
    if (free < kLow) return "the file system of " + d + " is full (" + std::to_string(free) + " bytes free)";
  }
  return "";
}

}  // namespace uf

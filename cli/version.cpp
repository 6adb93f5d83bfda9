// `uopfuzz --version`: what this build is, and which C compilers it can test on this machine.
#include <sstream>
#include <string>

#include "codegen/runtime/compiler.h"
#include "codegen/runtime/process.h"
#include "cli/cli.h"
#include "uopfuzz_version.h"

namespace uf::cli {
namespace {

// The compilers a user is likely to pass as --cc: the defaults and Debian's versioned packages.
constexpr const char* kCandidates[] = {"cc",       "gcc",      "gcc-11",   "gcc-12",   "gcc-13",
                                       "gcc-14",   "clang",    "clang-13", "clang-14", "clang-15",
                                       "clang-16", "clang-17", "clang-18", "clang-19", "tcc"};

}  // namespace

std::string version_text() {
  std::ostringstream out;
  out << "uopfuzz " << UOPFUZZ_VERSION << " (commit " << UOPFUZZ_GIT_COMMIT << ")\n";
  out << "C compilers found:\n";
  int found = 0;
  for (const char* cc : kCandidates) {
    const std::string path = find_executable(cc);
    if (path.empty()) continue;
    ++found;
    std::string version;
    try {
      version = compiler_id(cc).version_line();
    } catch (const UserError&) { version = "(does not answer --version)"; }
    out << "  " << cc << " -> " << path << ": " << version << "\n";
  }
  if (found == 0) out << "  none in PATH (pass --cc PATH)\n";
  return out.str();
}

}  // namespace uf::cli

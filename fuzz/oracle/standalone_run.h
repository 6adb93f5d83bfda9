// The standalone reproducer (codegen/standalone.h) of a program, built and run as a user would: what
// `uopfuzz export` writes, and what a culprit search (culprit.h) rebuilds under each configuration.
#pragma once
#include <string>
#include <vector>

#include "codegen/compiled_path.h"
#include "codegen/standalone.h"

namespace uf {

// The kernel as cfg's target renders `p`, and the reference's final buffers. Throws UserError when the
// reference is UNDEFINED (nothing to reproduce) or the target does not render it (no C: a render-error).
StandaloneC standalone_for(const Program& p, const CompiledPathConfig& cfg);

struct StandaloneOutcome {
  bool compiled = false;
  std::string compiler_stderr;  // all of it, also when it compiled (clang's -opt-bisect-limit lines)
  int exit_code = -1, signal = 0;
  bool timed_out = false;  // the compiler or the run
  std::string output;      // the run's stdout: the differences it printed
  bool passes() const { return compiled && exit_code == 0; }
};

// `CC CFLAGS EXTRA -fPIC -o repro repro.c -lm` in a private directory, then `./repro` (timeout_s each).
StandaloneOutcome build_and_run(const std::string& source, const std::string& cc, const std::string& cflags,
                                const std::vector<std::string>& extra_flags, double timeout_s);

}  // namespace uf

// C-level reduction of a finding with C-Vise (`uopfuzz reduce --c`, docs/format.md section 2). C-Vise
// shrinks the standalone reproducer's kernel (codegen/standalone.h), given with its own macros expanded
// when it still fails so; its driver stays as written, since a reducer free to change the check reduces
// it to `return 1`. The interestingness test is a shell
// script uopfuzz writes beside the kernel; it keeps the failure and rejects undefined behaviour (the
// classic pitfall of reducing wrong code):
//   compile-error  the recorded compiler and flags still fail with the same key line (a backend's
//                  `Cannot select: ... TYPE = NODE`, an ICE's `in FUNCTION`, a failed assertion, else the
//                  first `error:` text), and gcc -O0 compiles the file (valid C, not a typo);
//   crash          the recorded build runs and dies by the same signal, and both sanitizer builds below
//                  run clean and print the expected values;
//   mismatch       the recorded build runs and prints the same differences (exit 1); built at -O0 with
//                  -fsanitize=undefined,address (and -Werror for implicit declarations, implicit int,
//                  a missing return, an uninitialised read) by gcc and by clang, it runs without a
//                  sanitizer report, and at least one of the two prints the expected values (exit 0).
#pragma once
#include <string>

namespace uf {

struct CReduceSpec {
  std::string failure;          // "compile-error", "crash" or "mismatch"
  int signal = 0;               // crash: the signal it dies by
  std::string compile_message;  // compile-error: what the compiler printed
  std::string cc, cflags;       // the failing configuration
  std::string kernel, driver;   // the standalone pieces: C-Vise changes `kernel` only
  std::string work_dir;         // where the files, the script and C-Vise's run live
  double time_s = 600;          // then C-Vise is stopped and the smallest kernel it kept is the result
  int jobs = 2;
};

struct CReduceResult {
  std::string kernel;  // the reduced kernel (the original when nothing smaller stays interesting)
  bool complete = false;  // C-Vise ended by itself, not by the time limit
  double seconds = 0;
  std::string script;  // the interestingness test, for the record
};

// Throws UserError when C-Vise is not installed, the failure is of another kind (render-error,
// timeout), or the kernel is not interesting to begin with (the script says why).
CReduceResult reduce_c(const CReduceSpec& s);

// The key line of a compiler's failure as an extended regular expression (grep -E), "" when there is
// none: what a reduced kernel must still make the compiler print.
std::string compile_error_pattern(const std::string& message);

}  // namespace uf

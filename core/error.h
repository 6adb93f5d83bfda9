// Two error tiers.
//  - UserError: something wrong with the input (a file, a flag, a program). Carries an optional line;
//    commands print it as `FILE:LINE: message` and exit 2.
//  - InternalError: one of our own invariants broke. UOPFUZZ_CHECK reports the source file:line so the
//    bug can be found; it is never the user's fault.
#pragma once
#include <stdexcept>
#include <string>

namespace uf {

struct UserError : std::runtime_error {
  int line;  // 1-based line in the input, 0 when the error has no single line
  explicit UserError(const std::string& msg, int line_ = 0) : std::runtime_error(msg), line(line_) {}
};

// A node that breaks a type rule: thrown by the node factory, located by whoever knows the line.
struct TypeError : UserError {
  using UserError::UserError;
};

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_failure(const char* file, int line, const char* what);

}  // namespace uf

#define UOPFUZZ_CHECK(cond)                                         \
  do {                                                              \
    if (!(cond)) ::uf::internal_failure(__FILE__, __LINE__, #cond); \
  } while (0)

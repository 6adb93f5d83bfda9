// Blame: a failing program re-run across a matrix of compilers and flag sets (`uopfuzz triage`, and
// `fuzz --matrix` for each new bucket), so a reader sees at once whether the renderer is wrong
// everywhere or one compiler at one level is.
//
// A matrix is written `CC:FLAGS,CC:FLAGS,...` (e.g. `gcc:-O0,gcc:-O3,clang:-O2`); FLAGS is split like a
// shell command line and may be empty. The configurations that fail with the program's own signature
// are its blame, recorded as `meta blame = gcc:-O3, clang:-O2` (itself a valid matrix), or `none`.
#pragma once
#include <string>
#include <vector>

#include "fuzz/oracle/oracle.h"

namespace uf {

struct MatrixEntry {
  std::string cc, cflags;
  std::string name() const { return cc + ":" + cflags; }
};

// Throws UserError (`--matrix: ...`) for an empty entry, one without `:`, an empty CC or one with blanks,
// or flags with an unbalanced quote.
std::vector<MatrixEntry> parse_matrix(const std::string& text);
// gcc and clang when found in PATH, each at -O0 and at -O3 (their highest level).
std::vector<MatrixEntry> default_matrix();
// UserError naming the first entry whose compiler is not found: a setup problem, found before any work.
void check_matrix_compilers(const std::vector<MatrixEntry>& matrix);

enum class Blame { same, other, passes, undefined };

struct TriageRow {
  MatrixEntry config;
  Blame outcome = Blame::passes;
  std::string signature;  // of the failure, when there is one
};

// Runs `p` under each configuration (renderer, timeout and the rest from `base`). `signature` is the
// bucket the program stands for; empty: any failure is blamed.
std::vector<TriageRow> triage(const Program& p, const std::string& signature, const CompiledPathConfig& base,
                              const std::vector<MatrixEntry>& matrix);
// The `meta blame` value: the configurations failing with the signature, `, `-separated, or `none`.
std::string blame_text(const std::vector<TriageRow>& rows);
// One line per configuration: `gcc:-O3  fails (mismatch MUL i32)`, `... other failure (...)`, `... passes`.
std::string triage_table(const std::vector<TriageRow>& rows);

}  // namespace uf

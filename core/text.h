// The .uop text format (docs/format.md): reading and canonical printing.
//
// read_program never crashes and never recurses: every malformed input is a UserError whose line is
// set, and callers print it as `FILE:LINE: message`. The printer's output is the canonical form:
// print(parse(f)) == f for a canonical f, and parse(print(p)) is the same program for every p.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/program.h"

namespace uf {

// Parses `text`; `filename` is used in messages. Builds the graph, checks the type rules, and checks
// data/expect/got lines against the buffers. Does not run the ordering verifier (see verify()).
Program parse_program(std::string_view text, const std::string& filename = "<input>");
// Reads a file (UserError if it cannot be read) and parses it.
Program read_program(const std::string& path);

std::string print_program(const Program& p);
// One `KEY SLOT = v v v` line (KEY is data, expect or got).
std::string print_values_line(const char* key, int64_t slot, DType d, const Values& v);

// One line read as a `meta KEY = VALUE` line, the reader's own rule (blanks around key and value trimmed):
// is_meta when it starts with `meta`; then either key and value, or an error for a malformed one.
struct MetaLine {
  bool is_meta = false;
  std::string key, value;
  const char* error = nullptr;
};
MetaLine parse_meta_line(std::string_view line);

// The words of `s`: its runs of non-blanks (blanks are what `>>` skips: space, tab, CR, LF, VT, FF).
std::vector<std::string> words(std::string_view s);
// The lines of `text` (each without its '\n'; a last line without one counts too).
std::vector<std::string> lines(std::string_view text);

// Formats a UserError from a program file as `FILE:LINE: message` (or `FILE: message` without a line).
std::string located(const std::string& filename, const UserError& e);

}  // namespace uf

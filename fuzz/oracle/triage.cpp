// Blame across a compiler and flag matrix (see triage.h).
#include "fuzz/oracle/triage.h"

#include <algorithm>

#include "codegen/runtime/process.h"
#include "core/error.h"

namespace uf {

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

}  // namespace

std::vector<MatrixEntry> parse_matrix(const std::string& text) {
  std::vector<MatrixEntry> out;
  size_t from = 0;
  for (;;) {
    const size_t comma = text.find(',', from);
    const std::string entry = trim(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (entry.empty())
      throw UserError("--matrix: empty entry in '" + text + "' (write CC:FLAGS,CC:FLAGS, e.g. gcc:-O0,clang:-O2)");
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) throw UserError("--matrix: entry '" + entry + "' is not CC:FLAGS (e.g. gcc:-O3)");
    MatrixEntry e{trim(entry.substr(0, colon)), trim(entry.substr(colon + 1))};
    if (e.cc.empty()) throw UserError("--matrix: entry '" + entry + "' has no compiler before ':'");
    if (e.cc.find_first_of(" \t") != std::string::npos)
      throw UserError("--matrix: compiler '" + e.cc + "' contains blanks (flags go after ':')");
    try {
      split_command(e.cflags);
    } catch (const UserError& err) { throw UserError("--matrix: entry '" + entry + "': " + err.what()); }
    out.push_back(std::move(e));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

std::vector<MatrixEntry> default_matrix() {
  std::vector<MatrixEntry> out;
  for (const char* cc : {"gcc", "clang"})
    if (!find_executable(cc).empty())
      for (const char* level : {"-O0", "-O3"}) out.push_back({cc, level});
  return out;
}

void check_matrix_compilers(const std::vector<MatrixEntry>& matrix) {
  for (const MatrixEntry& e : matrix)
    if (find_executable(e.cc).empty()) throw UserError("--matrix: compiler '" + e.cc + "' not found");
}

std::vector<TriageRow> triage(const Program& p, const std::string& signature, const CompiledPathConfig& base,
                              const std::vector<MatrixEntry>& matrix) {
  std::vector<TriageRow> rows;
  if (matrix.empty()) return rows;
  const std::vector<Analysis> facts{analyze(p)};  // the program and its reference are the same on every row
  const RefResult ref = interpret(p, facts[0]);
  for (const MatrixEntry& e : matrix) {
    CompiledPathConfig cfg = base;
    cfg.cc = e.cc;
    cfg.cflags = e.cflags;
    const Finding f = std::move(check({&p}, facts, {ref}, cfg).at(0));
    TriageRow row{e, Blame::passes, ""};
    if (!f.defined())
      row.outcome = Blame::undefined;
    else if (f.observation.verdict != Verdict::ok) {
      row.signature = f.observation.signature;
      row.outcome = signature.empty() || same_signature(signature, row.signature) ? Blame::same : Blame::other;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string blame_text(const std::vector<TriageRow>& rows) {
  std::string out;
  for (const TriageRow& r : rows)
    if (r.outcome == Blame::same) out += (out.empty() ? "" : ", ") + r.config.name();
  return out.empty() ? "none" : out;
}

std::string triage_table(const std::vector<TriageRow>& rows) {
  size_t width = 0;
  for (const TriageRow& r : rows) width = std::max(width, r.config.name().size());
  std::string out;
  for (const TriageRow& r : rows) {
    std::string name = r.config.name();
    name.resize(width + 2, ' ');
    switch (r.outcome) {
      case Blame::same: out += name + "fails (" + r.signature + ")\n"; break;
      case Blame::other: out += name + "other failure (" + r.signature + ")\n"; break;
      case Blame::passes: out += name + "passes\n"; break;
      case Blame::undefined: out += name + "UNDEFINED under the reference\n"; break;
    }
  }
  return out;
}

}  // namespace uf

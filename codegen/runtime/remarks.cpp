#include "codegen/runtime/remarks.h"

#include <cctype>
#include <regex>

#include "codegen/runtime/files.h"
#include "core/error.h"
#include "core/text.h"

namespace uf {

namespace {

// Numbers as N and quoted names as 'X': what stays is the kind of optimization, not the place.
std::string normalized(const std::string& message) {
  static const std::regex quoted("'[^']*'"), number("-?[0-9]+");
  std::string s = std::regex_replace(message, quoted, "'X'");
  s = std::regex_replace(s, number, "N");
  while (!s.empty() && (s.back() == ' ' || s.back() == '.' || s.back() == ';')) s.pop_back();
  const size_t first = s.find_first_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first);
}

}  // namespace

std::string remark_flag(const CompilerId& id) {
  return id.version.find("clang") != std::string::npos ? "-Rpass=.*" : "-fopt-info-optimized";
}

std::vector<Remark> parse_remarks(const std::string& diagnostics) {
  // PATH/kF.c:LINE:COL: KIND: MESSAGE, KIND `optimized` (gcc) or `remark` (clang, the pass at the end)
  static const std::regex line_re(R"((?:^|/)k([0-9]+)\.(?:c|ll):([0-9]+):(?:[0-9]+:)? (optimized|remark): (.*)$)");
  static const std::regex pass_re(R"(^(.*) \[-Rpass=([A-Za-z0-9_.-]+)\]$)");
  std::vector<Remark> out;
  for (const std::string& l : lines(diagnostics)) {
    std::smatch m;
    if (!std::regex_search(l, m, line_re)) continue;
    Remark r{std::stoi(m[1]), std::stoi(m[2]), ""};
    std::string message = m[4];
    if (m[3] == "remark") {
      std::smatch p;
      if (!std::regex_match(message, p, pass_re)) continue;
      r.feature = "clang " + p[2].str() + ": " + normalized(p[1]);
    } else {
      r.feature = "gcc optimized: " + normalized(message);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string remarks_path(const std::string& cache_entry) {
  const size_t dot = cache_entry.rfind(".so");
  return (dot == std::string::npos ? cache_entry : cache_entry.substr(0, dot)) + ".remarks";
}

std::string keep_remarks(const std::string& cache_entry, const std::string& diagnostics, const std::string& build_dir) {
  const FileOptions staged{.mode = 0600, .temporary_dir = build_dir};
  if (const FileError e = replace_file(remarks_path(cache_entry), diagnostics, staged))
    throw UserError("cannot write " + e.path + " in the cache: " + e.reason());
  return diagnostics;
}

}  // namespace uf

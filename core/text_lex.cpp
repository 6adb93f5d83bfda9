// The .uop lexer (core/text_lex.h) and the line-level entry points of core/text.h built on it.
#include "core/text_lex.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace uf {
namespace lex {
namespace {

// The runs of characters that are not `blank` in `s`, into `out` (views of s).
template <class IsBlank>
void split_on(std::string_view s, std::vector<std::string_view>& out, IsBlank blank) {
  out.clear();
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !blank(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void split(std::string_view s, std::vector<std::string_view>& out) {
  split_on(s, out, [](char c) { return c == ' ' || c == '\t'; });
}

bool to_id(std::string_view s, int64_t& v) {
  if (s.empty() || s.size() > 18) return to_int(s, v);
  int64_t r = 0;
  for (char c : s) {
    const unsigned d = static_cast<unsigned char>(c) - unsigned{'0'};
    if (d > 9) return to_int(s, v);
    r = r * 10 + d;
  }
  v = r;
  return true;
}

std::string quote(std::string_view s) {
  std::string q = "'";
  for (char c : s.substr(0, 40)) q += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > 40) q += "...";
  return q + "'";
}

}  // namespace lex

using lex::split_on;
using lex::trim;

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string_view> views;
  split_on(s, views, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  return {views.begin(), views.end()};
}

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    out.emplace_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

MetaLine parse_meta_line(std::string_view line) {
  MetaLine m;
  const std::string_view s = trim(line);
  if (s.substr(0, 5) != "meta " && s.substr(0, 5) != "meta\t") return m;
  m.is_meta = true;
  const std::string_view rest = trim(s.substr(5));
  const size_t eq = rest.find('=');
  if (eq == std::string_view::npos) {
    m.error = "meta needs 'KEY = VALUE'";
    return m;
  }
  const std::string_view key = trim(rest.substr(0, eq));
  if (key.empty() || key.find_first_of(" \t") != std::string_view::npos) {
    m.error = "meta key must be one word";
    return m;
  }
  m.key = key;
  m.value = trim(rest.substr(eq + 1));
  return m;
}

}  // namespace uf

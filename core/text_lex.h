// The .uop lexer: the word and number scanning the reader and the meta-line parser share (internal to
// core/text_*.cpp; the public entry points are in core/text.h).
#pragma once
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace uf::lex {

std::string_view trim(std::string_view s);

// A .uop line's words: only space and tab separate them (any other control character is part of a
// word, and so an error where the word is checked).
void split(std::string_view s, std::vector<std::string_view>& out);

template <class T>
bool to_int(std::string_view s, T& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Node ids (three a line): plain digits in a fast loop; anything else (signs, overflow, junk) goes to
// to_int, so results and messages are exactly those of from_chars.
bool to_id(std::string_view s, int64_t& v);

// `s` for a message: at most 40 characters, control characters as '?'.
std::string quote(std::string_view s);

}  // namespace uf::lex

// Small text helpers the report's HTML and SVG share: escaping and numbers for people.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace uf::report {

// Escapes & < > " ' for text and attribute values alike.
std::string esc(std::string_view s);
// 1234567 -> "1,234,567".
std::string grouped(int64_t n);
// A number with at most `decimals` decimals, trailing zeros dropped: 2.50 -> "2.5", 3.0 -> "3".
std::string num(double v, int decimals = 1);

}  // namespace uf::report

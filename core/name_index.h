// A constant-time lookup from a name to its position in a fixed table (op names, dtype names).
//
// Why: the reader looks up an op and a dtype on every node line. A linear scan comparing against
// `const char*` names cost a strlen and a compare per table entry (about 460 instructions per node
// line for the ops). This is an open-addressing table built at compile time. Every name fits in 8 bytes,
// so a name is packed into one integer: hashing is one multiply and a candidate is one compare (no
// per-character hash loop, no memcmp call). Names up to 16 bytes (`fp8e4m3fnuz`) take a second integer,
// compared only when the first matches.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace uf {

template <size_t N>
class NameIndex {
 public:
  constexpr explicit NameIndex(const std::array<std::string_view, N>& names) {
    table_.fill(-1);
    for (size_t i = 0; i < N; ++i) {
      if (names[i].size() > 16) throw "NameIndex: names are at most 16 bytes";  // fails the constant evaluation
      keys_[i] = pack(names[i].substr(0, 8));
      tails_[i] = pack(tail(names[i]));
      lens_[i] = static_cast<uint8_t>(names[i].size());
      size_t h = hash(keys_[i], names[i].size());
      while (table_[h] >= 0) h = (h + 1) & (kSize - 1);
      table_[h] = static_cast<int16_t>(i);
    }
  }

  // The position of `s` in the table, or -1.
  constexpr int find(std::string_view s) const {
    if (s.empty() || s.size() > 16) return -1;
    const uint64_t key = pack(s.substr(0, 8));
    for (size_t h = hash(key, s.size());; h = (h + 1) & (kSize - 1)) {
      const int i = table_[h];
      if (i < 0) return i;
      const auto k = static_cast<size_t>(i);
      if (keys_[k] == key && lens_[k] == s.size() && (s.size() <= 8 || tails_[k] == pack(tail(s)))) return i;
    }
  }

 private:
  static constexpr size_t kSize = std::bit_ceil(4 * N);  // at most a quarter full: short probes
  // The bytes as one integer: with the length, a name's exact identity (leading NULs aside, which the
  // length tells apart).
  static constexpr uint64_t pack(std::string_view s) {
    uint64_t k = 0;
    for (char c : s) k = k << 8 | static_cast<uint8_t>(c);
    return k;
  }
  static constexpr std::string_view tail(std::string_view s) { return s.size() > 8 ? s.substr(8) : std::string_view{}; }
  static constexpr size_t hash(uint64_t key, size_t len) {
    return static_cast<size_t>(((key ^ len) * 0x9E3779B97F4A7C15ull) >> 40) & (kSize - 1);
  }
  std::array<uint64_t, N> keys_{};
  std::array<uint64_t, N> tails_{};
  std::array<uint8_t, N> lens_{};
  std::array<int16_t, kSize> table_{};
};

// The enumerator whose row of `Rows` (kOpInfo, kDTypeInfo: row i describes enumerator i) is named `s`,
// or nullopt. The one lookup behind parse_op and parse_dtype.
template <class E, const auto& Rows>
std::optional<E> parse_by_name(std::string_view s) {
  constexpr size_t N = std::size(Rows);
  static constexpr NameIndex<N> kIndex([] {
    std::array<std::string_view, N> names{};
    for (size_t i = 0; i < N; ++i) names[i] = Rows[i].name;
    return names;
  }());
  const int i = kIndex.find(s);
  if (i < 0) return std::nullopt;
  return static_cast<E>(i);
}

}  // namespace uf

// A constant-time lookup from a name to its position in a fixed table (op names, dtype names).
//
// Why: the reader looks up an op and a dtype on every node line. A linear scan comparing against
// `const char*` names costs a strlen and a compare per table entry (about 460 instructions per node
// line for the ops), a sixth of `uopfuzz interp` on a large file. This is an open-addressing hash table
// built at compile time; a lookup hashes the name once and usually compares one candidate.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <string_view>

namespace uf {

template <size_t N>
class NameIndex {
 public:
  constexpr explicit NameIndex(const std::array<std::string_view, N>& names) : names_(names) {
    table_.fill(-1);
    for (size_t i = 0; i < N; ++i) {
      size_t h = hash(names[i]) & (kSize - 1);
      while (table_[h] >= 0) h = (h + 1) & (kSize - 1);
      table_[h] = static_cast<int16_t>(i);
    }
  }

  // The position of `s` in the table, or -1.
  constexpr int find(std::string_view s) const {
    for (size_t h = hash(s) & (kSize - 1);; h = (h + 1) & (kSize - 1)) {
      const int i = table_[h];
      if (i < 0 || names_[static_cast<size_t>(i)] == s) return i;
    }
  }

 private:
  static constexpr size_t kSize = std::bit_ceil(4 * N);  // at most a quarter full: short probes
  static constexpr size_t hash(std::string_view s) {     // FNV-1a
    uint32_t h = 2166136261u;
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return h;
  }
  std::array<std::string_view, N> names_;
  std::array<int16_t, kSize> table_{};
};

}  // namespace uf

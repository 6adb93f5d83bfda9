// Reading a .uop file from disk (the parsing itself is text_read.cpp).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/text.h"

namespace uf {

Program read_program(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError("is a directory, not a program file");
  // One read into one uninitialised buffer (a stringstream copied the text twice more, a string zeroes it).
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw UserError("cannot read file");
  std::FILE* const f = file.get();
  std::unique_ptr<char[]> text;
  size_t size = 0, capacity = 0;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const long end = std::ftell(f);
    capacity = end > 0 ? static_cast<size_t>(end) + 1 : 0;  // +1: the end is seen without a second read
    std::rewind(f);
  }
  for (;;) {
    if (!text || size == capacity) {  // first, then for a pipe or a file that grew: double
      if (text || capacity == 0) capacity = std::max<size_t>(2 * capacity, 1 << 16);
      auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
      if (size) std::memcpy(bigger.get(), text.get(), size);
      text = std::move(bigger);
    }
    const size_t got = std::fread(text.get() + size, 1, capacity - size, f);
    if (got == 0) break;
    size += got;
  }
  if (std::ferror(f)) throw UserError("cannot read file");
  return parse_program(std::string_view(text.get(), size), path);
}

}  // namespace uf

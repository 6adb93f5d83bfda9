// Base64 through OpenSSL (see base64.h).
#include "codegen/runtime/base64.h"

#include <openssl/evp.h>

#include <algorithm>

namespace uf {

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  const size_t padding = text.size() >= 2 && text.substr(text.size() - 2) == "==" ? 2 : !text.empty() && text.back() == '=' ? 1 : 0;
  const auto alphabet = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'; };
  if (!std::all_of(text.begin(), text.end() - static_cast<std::ptrdiff_t>(padding), alphabet)) return std::nullopt;
  std::string out(3 * (text.size() / 4), '\0');
  // EVP_DecodeBlock counts padding as zero bytes: they are dropped here.
  if (EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(text.data()),
                      static_cast<int>(text.size())) < 0)
    return std::nullopt;
  out.resize(out.size() - padding);
  return out;
}

}  // namespace uf

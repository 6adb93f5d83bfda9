// Base64 (RFC 4648, standard alphabet, `=` padding, no line breaks): how protocol 2 carries bytes in
// JSON (an x86-64 image, a run request's buffers). OpenSSL's EVP block coders underneath.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace uf {

std::string base64_encode(std::string_view bytes);
// nullopt for anything but canonical base64 (a length not a multiple of 4, a stray character, padding
// in the middle).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace uf

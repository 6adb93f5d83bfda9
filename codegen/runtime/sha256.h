// SHA-256 (FIPS 180-4), for the content-addressed compile cache's keys and its integrity trailers.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace uf {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<uint8_t, 32> digest();  // finishes the hash; the object is spent afterwards

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t total_ = 0;
};

std::string to_hex(const uint8_t* p, size_t n);
std::string sha256_hex(std::string_view s);

}  // namespace uf

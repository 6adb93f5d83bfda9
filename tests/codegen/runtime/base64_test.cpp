// Base64 as protocol 2 carries bytes: RFC 4648's vectors both ways, every byte value, and what is refused.
#include "codegen/runtime/base64.h"

#include <gtest/gtest.h>

namespace uf::testing {
namespace {

TEST(Base64, Rfc4648VectorsBothWays) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},           {"f", "Zg=="},         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},    {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64_encode(plain), coded);
    EXPECT_EQ(base64_decode(coded), std::optional<std::string>(plain)) << coded;
  }
}

TEST(Base64, EveryByteRoundTrips) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (size_t len : {size_t{1}, size_t{2}, size_t{3}, size_t{255}, size_t{256}})
    EXPECT_EQ(base64_decode(base64_encode(all.substr(0, len))), std::optional<std::string>(all.substr(0, len)));
}

TEST(Base64, AnythingButCanonicalBase64IsRefused) {
  for (const char* bad : {"Zg=", "Zm9", "Zm 9v", "Zm9v\n", "Z===", "Zg==Zg==", "Zm9*", "=Zm9"})
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace uf::testing

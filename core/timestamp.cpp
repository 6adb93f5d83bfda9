#include "core/timestamp.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace uf {

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", s);
  const auto r = std::to_chars(buf, buf + sizeof buf, std::strtod(buf, nullptr));  // "1230", not "1.23e+03"
  return std::string(buf, r.ptr);
}

}  // namespace uf

// Scalar values: dtype names, half-precision conversion, and the exact text form of values.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/float_formats.h"
#include "core/name_index.h"

namespace uf {

void internal_failure(const char* file, int line, const char* what) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": invariant failed: " + what);
}

std::optional<DType> parse_dtype(std::string_view s) { return parse_by_name<DType, kDTypeInfo>(s); }

bool same_value(DType d, Scalar a, Scalar b) {
  if (is_float(d) && std::isnan(a.f) && std::isnan(b.f)) return true;
  return a.u == b.u;
}

double half_to_double(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1f;
  const int man = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp(man, -24);
  if (exp == 31) return man ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  return sign * std::ldexp(1024 + man, exp - 25);
}

uint16_t double_to_half(double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7e00;
  const double a = std::fabs(x);
  if (a < 0x1p-14) {  // subnormal range: the unit is 2^-24; q == 1024 is the smallest normal, as bits too
    return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24));
  }
  if (a >= 65520.0) return sign | 0x7c00;  // 65520 is halfway to 65536 and ties to even (up): overflow
  int e;
  const double m = std::frexp(a, &e);     // a = m * 2^e, m in [0.5, 1)
  double q = std::nearbyint(m * 2048.0);  // 11 significant bits, rounded to nearest even
  if (q == 2048.0) {
    q = 1024.0;
    ++e;
  }
  const int biased = e - 1 + 15;
  return sign | static_cast<uint16_t>((biased << 10) | (static_cast<int>(q) - 1024));
}

Scalar normalize(DType d, Scalar v) {
  if (is_bool(d)) return Scalar::of_uint(v.u != 0);
  if (is_float(d)) return Scalar::of_float(round_to_float_dtype(d, v.f));
  if (bits(d) == 64) return v;
  const int b = bits(d);
  const uint64_t low = v.u & ((uint64_t{1} << b) - 1);
  if (is_unsigned(d)) return Scalar::of_uint(low);
  return Scalar::of_int(static_cast<int64_t>(low << (64 - b)) >> (64 - b));
}

namespace {

// Python repr of a finite binary64: shortest round-trip digits, fixed notation for exponents in [-4, 16).
void append_float(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  if (std::signbit(v)) {
    out += '-';
    v = -v;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  UOPFUZZ_CHECK(res.ec == std::errc());
  std::string_view s(buf, res.ptr - buf);
  const size_t epos = s.find('e');
  std::string digits;
  for (char c : s.substr(0, epos))
    if (c != '.') digits += c;
  int exp = 0;
  std::from_chars(s.data() + epos + (s[epos + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
  const int n = static_cast<int>(digits.size());
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      if (n <= exp + 1) {
        out += digits;
        out.append(exp + 1 - n, '0');
        out += ".0";
      } else {
        out.append(digits, 0, exp + 1);
        out += '.';
        out.append(digits, exp + 1);
      }
    } else {
      out += "0.";
      out.append(-exp - 1, '0');
      out += digits;
    }
    return;
  }
  out += digits[0];
  if (n > 1) {
    out += '.';
    out.append(digits, 1);
  }
  char e[16];
  std::snprintf(e, sizeof e, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  out += e;
}

template <class T>
bool parse_number(std::string_view t, T& out, std::chars_format fmt = std::chars_format::general) {
  if constexpr (std::is_floating_point_v<T>) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out, fmt);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  } else {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  }
}

ScalarParse parse_float(DType d, std::string_view t) {
  bool neg = false;
  std::string_view body = t;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  double v;
  if (body == "inf" || body == "infinity")
    v = INFINITY;
  else if (body == "nan")
    v = std::numeric_limits<double>::quiet_NaN();
  else if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    if (!parse_number(body.substr(2), v, std::chars_format::hex)) return {{}, "bad hex float"};
  } else if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.') || !parse_number(body, v)) {
    return {{}, "bad float"};
  }
  if (neg) v = -v;
  v = round_to_float_dtype(d, v);
  return {Scalar::of_float(v), nullptr};
}

}  // namespace

void append_scalar(std::string& out, DType d, Scalar v) {
  char buf[32];
  if (is_bool(d)) {
    out += v.u ? "true" : "false";
    return;
  }
  if (is_float(d)) {
    append_float(out, v.f);
    return;
  }
  auto r = is_signed(d) ? std::to_chars(buf, buf + sizeof buf, v.i) : std::to_chars(buf, buf + sizeof buf, v.u);
  out.append(buf, r.ptr);
}

std::string format_scalar(DType d, Scalar v) {
  std::string s;
  append_scalar(s, d, v);
  return s;
}

ScalarParse parse_scalar(DType d, std::string_view t) {
  if (t.empty()) return {{}, "missing value"};
  if (is_bool(d)) {
    if (t == "true" || t == "1") return {Scalar::of_uint(1), nullptr};
    if (t == "false" || t == "0") return {Scalar::of_uint(0), nullptr};
    return {{}, "bad bool (true or false)"};
  }
  if (is_float(d)) return parse_float(d, t);
  if (t[0] == '+') t.remove_prefix(1);
  const int b = bits(d);
  if (is_signed(d)) {
    int64_t v;
    if (!parse_number(t, v)) return {{}, t.find_first_not_of("-0123456789") == t.npos ? "integer out of range" : "bad integer"};
    if (b < 64 && (v < -(int64_t{1} << (b - 1)) || v >= (int64_t{1} << (b - 1)))) return {{}, "integer out of range"};
    return {Scalar::of_int(v), nullptr};
  }
  uint64_t v;
  if (t == "-0") return {Scalar::zero(), nullptr};
  if (t[0] == '-') return {{}, "integer out of range"};
  if (!parse_number(t, v)) return {{}, t.find_first_not_of("0123456789") == t.npos ? "integer out of range" : "bad integer"};
  if (b < 64 && v >= (uint64_t{1} << b)) return {{}, "integer out of range"};
  return {Scalar::of_uint(v), nullptr};
}

}  // namespace uf

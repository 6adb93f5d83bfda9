// Dtypes and scalar values.
//
// A Scalar holds one value of some dtype in 64 bits. The dtype is kept beside it, never inside:
//  - bool: 0 or 1 in `u`;
//  - iN: the value sign-extended to 64 bits in `i`;
//  - uN: the value zero-extended in `u`;
//  - floats (f16 f32 f64 bf16 and the fp8s): the value as a binary64 in `f` (every value of the narrower
//    formats is exactly representable).
// This is the reference's own view: every operand is its exact value, a binary64 for floats.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace uf {

enum class DType : uint8_t {
#define DTYPE(E, name, ctype, bytes, kind) E,
#include "core/dtypes.def"
#undef DTYPE
};
inline constexpr int kNumDTypes = static_cast<int>(DType::Void) + 1;

enum class DKind : uint8_t { B, S, U, F, V };

struct DTypeInfo {
  const char* name;
  const char* ctype;
  int bytes;
  DKind kind;
};

inline constexpr DTypeInfo kDTypeInfo[] = {
#define DTYPE(E, name, ctype, bytes, kind) {name, ctype, bytes, DKind::kind},
#include "core/dtypes.def"
#undef DTYPE
};

constexpr const DTypeInfo& info(DType d) { return kDTypeInfo[static_cast<int>(d)]; }
constexpr const char* name(DType d) { return info(d).name; }
constexpr int bytes(DType d) { return info(d).bytes; }
constexpr int bits(DType d) { return info(d).bytes * 8; }
constexpr bool is_bool(DType d) { return info(d).kind == DKind::B; }
constexpr bool is_signed(DType d) { return info(d).kind == DKind::S; }
constexpr bool is_unsigned(DType d) { return info(d).kind == DKind::U; }
constexpr bool is_int(DType d) { return is_signed(d) || is_unsigned(d); }
constexpr bool is_float(DType d) { return info(d).kind == DKind::F; }
constexpr bool is_void(DType d) { return d == DType::Void; }

std::optional<DType> parse_dtype(std::string_view s);

// The value dtypes (every dtype but void), in table order: handy for generators and tests.
inline constexpr auto kValueDTypes = [] {
  std::array<DType, kNumDTypes - 1> all{};
  for (int i = 0, k = 0; i < kNumDTypes; ++i)
    if (static_cast<DType>(i) != DType::Void) all[k++] = static_cast<DType>(i);
  return all;
}();

union Scalar {
  int64_t i;
  uint64_t u;
  double f;

  static Scalar of_int(int64_t v) {
    Scalar s;
    s.i = v;
    return s;
  }
  static Scalar of_uint(uint64_t v) {
    Scalar s;
    s.u = v;
    return s;
  }
  static Scalar of_float(double v) {
    Scalar s;
    s.f = v;
    return s;
  }
  static Scalar zero() { return of_uint(0); }
  uint64_t bits() const { return u; }
};
static_assert(sizeof(Scalar) == 8);

// The comparison rule of docs/semantics.md: ints and bools exactly; floats bit for bit, all NaNs equal.
bool same_value(DType d, Scalar a, Scalar b);

// IEEE binary16 <-> binary64. to_half rounds to nearest even; beyond the largest finite half gives inf.
double half_to_double(uint16_t h);
uint16_t double_to_half(double x);
inline double round_to_half(double x) { return half_to_double(double_to_half(x)); }

// The representation invariant above, enforced: ints wrapped and extended, bools 0/1, floats truncated to
// their dtype (core/float_formats.h).
Scalar normalize(DType d, Scalar v);

// Value text as docs/format.md writes it. Floats print as the shortest decimal that reads back to the same
// binary64, in Python's repr style (`0.1`, `-0.0`, `1e-45`, `3.4028234663852886e+38`, `inf`, `nan`).
std::string format_scalar(DType d, Scalar v);
void append_scalar(std::string& out, DType d, Scalar v);
// Parses one value of dtype d. Floats round to d (binary64 first, like tinygrad's dtype.const);
// integers must be in range. Returns an error message instead of throwing, to keep the parser fast.
struct ScalarParse {
  Scalar value;
  const char* error;
};
ScalarParse parse_scalar(DType d, std::string_view text);

}  // namespace uf

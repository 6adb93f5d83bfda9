// Facts: a sound over-approximation of each node's values. Ints and bools take the transfer functions
// of the shared integer domain (core/int_range.h); floats are ranges plus "may be NaN", kept here.
//
// Only used to decide where guards are needed, so it may be loose but never wrong. Float bounds are
// computed in binary64 and then rounded outward (by far more than any rounding error); a positive bound
// too close to zero becomes zero, because a product may underflow. No libm call whose result could differ
// between C libraries is used (only ldexp, frexp, sqrt, trunc, which are exact or correctly rounded):
// the generator's output must not depend on the machine.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/float_formats.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

double float_max(DType d) { return float_limits(d).max_finite; }

namespace {

Facts of_ints(IntRange r) { return Facts{.ints = r}; }

double round_down(DType d, double x) {
  if (std::isnan(x)) return -INFINITY;
  if (std::isinf(x)) return x;
  double r = 0;
  // Near zero the rounding error is absolute (subnormals), not relative: widen to a safe distance.
  // Elsewhere by far more than half an ulp of the dtype (2^-9 or, for bf16 and the fp8s, 2^-(p-2)).
  const FloatLimits& f = float_limits(d);
  const double widen = std::ldexp(1.0, -std::min(9, f.significand_bits - 2));
  if (x > 0)
    r = x < 4 * f.min_normal ? 0.0 : x * (1 - widen);
  else if (x < 0)
    r = x > -4 * f.min_normal ? -4 * f.min_normal : x * (1 + widen);
  if (r < -float_max(d)) return -INFINITY;
  return std::min(r, float_max(d));
}

double round_up(DType d, double x) { return -round_down(d, -x); }

// Float facts for the binary64 range [lo, hi] rounded to d. A format without infinities makes NaN of them.
Facts float_range(DType d, double lo, double hi, bool nan) {
  Facts f;
  f.flo = round_down(d, lo);
  f.fhi = round_up(d, hi);
  f.nan = nan || (!float_limits(d).has_inf && (std::isinf(lo) || std::isinf(hi)));
  return f;
}

bool has_inf(const Facts& f) { return f.flo == -INFINITY || f.fhi == INFINITY; }
bool contains0(const Facts& f) { return f.flo <= 0 && f.fhi >= 0; }

Facts float_mul(DType d, const Facts& a, const Facts& b) {
  const double c[4] = {a.flo * b.flo, a.flo * b.fhi, a.fhi * b.flo, a.fhi * b.fhi};
  double lo = INFINITY, hi = -INFINITY;
  for (double x : c) {
    const double v = std::isnan(x) ? 0.0 : x;  // 0*inf corners: the NaN is flagged below
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const bool nan = a.nan || b.nan || (has_inf(a) && contains0(b)) || (has_inf(b) && contains0(a));
  return float_range(d, lo, hi, nan);
}

Facts float_add(DType d, const Facts& a, const Facts& b) {
  const bool nan = a.nan || b.nan || (a.fhi == INFINITY && b.flo == -INFINITY) || (a.flo == -INFINITY && b.fhi == INFINITY);
  return float_range(d, a.flo + b.flo, a.fhi + b.fhi, nan);
}

Facts float_facts(Op op, DType d, std::span<const Facts* const> s) {
  const Facts& a = *s[0];
  const Facts& b = s.size() > 1 ? *s[1] : a;
  switch (op) {
    case Op::ADD: return float_add(d, a, b);
    case Op::SUB: {
      Facts nb = b;
      nb.flo = -b.fhi;
      nb.fhi = -b.flo;
      return float_add(d, a, nb);
    }
    case Op::MUL: return float_mul(d, a, b);
    case Op::MULACC: return float_add(d, float_mul(DType::F64, a, b), *s[2]);
    case Op::MAX: {  // MAX(a, nan) is a (Python's max): then the result is not above a's range
      const double lo = b.nan ? a.flo : std::max(a.flo, b.flo);
      return float_range(d, lo, std::max(a.fhi, b.fhi), a.nan || b.nan);
    }
    case Op::NEG: return float_range(d, -a.fhi, -a.flo, a.nan);
    case Op::TRUNC: return float_range(d, std::trunc(a.flo), std::trunc(a.fhi), a.nan);
    case Op::RECIP:
      if (contains0(a)) return float_range(d, -INFINITY, INFINITY, a.nan);
      return float_range(d, 1 / a.fhi, 1 / a.flo, a.nan);
    case Op::SQRT: return float_range(d, 0, std::sqrt(std::max(a.fhi, 0.0)), a.nan || a.flo < 0);
    case Op::EXP2: {
      const double lo = std::clamp(a.flo, -1100.0, 1100.0), hi = std::clamp(a.fhi, -1100.0, 1100.0);
      return float_range(d, std::ldexp(1.0, static_cast<int>(std::floor(lo))), std::ldexp(1.0, static_cast<int>(std::ceil(hi))),
                         a.nan);
    }
    case Op::LOG2: {
      int e = 0;
      double lo = -INFINITY, hi = -INFINITY;
      if (a.flo > 0) {
        std::frexp(a.flo, &e);
        lo = e - 1;
      }
      if (a.fhi == INFINITY)
        hi = INFINITY;
      else if (a.fhi > 0) {
        std::frexp(a.fhi, &e);
        hi = e;
      }
      return float_range(d, lo, hi, a.nan || a.flo < 0);
    }
    case Op::SIN: return float_range(d, -1, 1, a.nan || has_inf(a));
    default: return full_facts(d);
  }
}

// The shared transfer (core/int_range.h) on the sources' integer ranges.
IntRange int_result(Op op, DType d, std::span<const Facts* const> s) {
  IntRange src[3];
  for (size_t i = 0; i < s.size(); ++i) src[i] = s[i]->ints;
  return transfer(op, d, std::span<const IntRange>(src, s.size()));
}

Facts cast_facts(DType from, DType to, const Facts& a) {
  if (is_bool(to)) return full_facts(to);
  if (is_float(from) && is_float(to)) return float_range(to, a.flo, a.fhi, a.nan);
  if (is_float(to)) return float_range(to, static_cast<double>(a.ints.lo), static_cast<double>(a.ints.hi), false);
  if (!is_float(from)) return of_ints(wrap(a.ints, to));
  if (!finite(a) || std::fabs(a.flo) > 0x1p100 || std::fabs(a.fhi) > 0x1p100) return full_facts(to);
  return of_ints(wrap({static_cast<int128>(std::trunc(a.flo)), static_cast<int128>(std::trunc(a.fhi))}, to));
}

Facts bitcast_facts(DType from, DType to, const Facts& a) {
  if (!is_float(from) && !is_float(to)) return of_ints(wrap(a.ints, to));
  if (from == to) return a;
  if (!is_float(to)) return full_facts(to);
  // A known bit pattern (one integer, or one non-NaN float other than a zero, whose sign a range does
  // not keep) is a known float.
  uint64_t pattern;
  if (!is_float(from) && a.ints.lo == a.ints.hi)
    pattern = static_cast<uint64_t>(a.ints.lo);
  else if (is_float(from) && !a.nan && a.flo == a.fhi && a.flo != 0)
    pattern = float_storage_bits(from, a.flo);
  else
    return full_facts(to);
  const uint64_t mask = bits(to) == 64 ? ~uint64_t{0} : (uint64_t{1} << bits(to)) - 1;
  return const_facts(to, Scalar::of_float(float_from_storage_bits(to, pattern & mask)));
}

}  // namespace

Facts full_facts(DType d) {
  Facts f;
  if (is_float(d)) {
    f.flo = -INFINITY;
    f.fhi = INFINITY;
    f.nan = true;
  } else {
    f.ints = dtype_range(d);  // {0, 0} for void
  }
  return f;
}

Facts const_facts(DType d, Scalar v) {
  Facts f;
  if (is_float(d)) {
    f.nan = std::isnan(v.f);
    f.flo = f.fhi = f.nan ? 0.0 : v.f;  // a NaN's range is empty; the flag is what counts
  } else {
    f.ints = {int_value(d, v), int_value(d, v)};
  }
  return f;
}

Facts join(DType d, const Facts& a, const Facts& b) {
  Facts f;
  if (is_float(d)) {
    f.flo = std::min(a.flo, b.flo);
    f.fhi = std::max(a.fhi, b.fhi);
    f.nan = a.nan || b.nan;
  } else {
    f.ints = hull(a.ints, b.ints);
  }
  return f;
}

Facts alu_facts(const UOp* u, std::span<const Facts* const> s) {
  const Op op = u->op;
  const DType d = u->dtype;
  if (op == Op::WHERE) return join(d, *s[1], *s[2]);
  if (op == Op::CAST) return cast_facts(u->src[0]->dtype, d, *s[0]);
  if (op == Op::BITCAST) return bitcast_facts(u->src[0]->dtype, d, *s[0]);
  if (is_bool(d)) return full_facts(d);  // comparisons and bool arithmetic: false or true
  if (is_float(d)) return float_facts(op, d, s);
  return of_ints(int_result(op, d, s));
}

}  // namespace uf::gen

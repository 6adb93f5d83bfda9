// Approximate ops against MPFR's correctly rounded results (interp/approx.h).
#include "interp/approx.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

#include <mpfr.h>

#include "core/error.h"
#include "core/float_formats.h"

namespace uf {

namespace {

struct BudgetRow {
  Op op;
  DType dtype;  // Void: any float dtype
  ApproxBudget budget;
};

constexpr BudgetRow kBudget[] = {
#define APPROX_BUDGET(OP, DTYPE, MAX_ABS_X, ULPS, FLOOR, SOURCE) {Op::OP, DType::DTYPE, {MAX_ABS_X, ULPS, FLOOR, SOURCE}},
#include "interp/approx_budget.def"
#undef APPROX_BUDGET
};

constexpr mpfr_prec_t kExactBits = 128;  // the exact value: far beyond f64's 53 bits, so its ULP error is exact enough

// One MPFR number, cleared when it goes.
struct Mpfr {
  mpfr_t v;
  explicit Mpfr(mpfr_prec_t bits) { mpfr_init2(v, bits); }
  Mpfr(mpfr_prec_t bits, double x) : Mpfr(bits) { mpfr_set_d(v, x, MPFR_RNDN); }  // exact: bits >= 53
  ~Mpfr() { mpfr_clear(v); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
};

// MPFR's exponent range set to a dtype's for a rounding, and put back.
struct ExponentRange {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  ExponentRange(mpfr_exp_t lo, mpfr_exp_t hi) {
    mpfr_set_emin(lo);
    mpfr_set_emax(hi);
  }
  ~ExponentRange() {
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
  }
  ExponentRange(const ExponentRange&) = delete;
  ExponentRange& operator=(const ExponentRange&) = delete;
};

int apply(Op op, mpfr_t out, const mpfr_t a, const mpfr_t b) {
  switch (op) {
    case Op::SIN: return mpfr_sin(out, a, MPFR_RNDN);
    case Op::LOG2: return mpfr_log2(out, a, MPFR_RNDN);
    case Op::EXP2: return mpfr_exp2(out, a, MPFR_RNDN);
    case Op::SQRT: return mpfr_sqrt(out, a, MPFR_RNDN);
    case Op::RECIP: return mpfr_ui_div(out, 1, a, MPFR_RNDN);
    case Op::POW: return mpfr_pow(out, a, b, MPFR_RNDN);
    default: UOPFUZZ_CHECK(!"an approximate op"); return 0;
  }
}

// A float dtype's format in MPFR's terms: precision, and the exponents (x = 0.1f... * 2^e) of its smallest
// subnormal and of the first power of two beyond its largest finite value.
struct Format {
  mpfr_prec_t bits;
  mpfr_exp_t emin, emax;
  int min_normal_exp, max_exp;  // floor(log2) of the smallest normal and of the largest finite value
};

Format format_of(DType d) {
  const FloatLimits& l = float_limits(d);
  const int min_normal_exp = std::ilogb(l.min_normal), max_exp = std::ilogb(l.max_finite);
  return {l.significand_bits, min_normal_exp - l.significand_bits + 2, max_exp + 1, min_normal_exp, max_exp};
}

double correctly_rounded(Op op, const Format& f, const Mpfr& a, const Mpfr& b) {
  const ExponentRange range(f.emin, f.emax);
  Mpfr r(f.bits);
  int t = apply(op, r.v, a.v, b.v);
  t = mpfr_check_range(r.v, t, MPFR_RNDN);
  mpfr_subnormalize(r.v, t, MPFR_RNDN);
  return mpfr_get_d(r.v, MPFR_RNDN);
}

// |got - exact| in ULPs of the format at max(|exact|, floor).
double ulp_distance(const Format& f, const Mpfr& exact, double got, double floor) {
  Mpfr magnitude(kExactBits), diff(kExactBits);
  mpfr_abs(magnitude.v, exact.v, MPFR_RNDN);
  if (mpfr_cmp_d(magnitude.v, floor) < 0) mpfr_set_d(magnitude.v, floor, MPFR_RNDN);
  int e = mpfr_zero_p(magnitude.v) ? f.min_normal_exp : static_cast<int>(mpfr_get_exp(magnitude.v)) - 1;
  e = std::min(std::max(e, f.min_normal_exp), f.max_exp);
  mpfr_sub_d(diff.v, exact.v, got, MPFR_RNDN);
  mpfr_mul_2si(diff.v, diff.v, -(e - static_cast<int>(f.bits) + 1), MPFR_RNDN);
  return std::fabs(mpfr_get_d(diff.v, MPFR_RNDN));
}

// Special values must be exact: a NaN, an infinity or an exact zero (its sign too) on either side, where
// the other is not the same.
bool special_wrong(double reference, bool exact_zero, double got) {
  if (std::isnan(reference) || std::isnan(got)) return std::isnan(reference) != std::isnan(got);
  if (std::isinf(reference) || std::isinf(got)) return reference != got;
  if (exact_zero) return got != 0 || std::signbit(got) != std::signbit(reference);
  return false;
}

}  // namespace

bool is_judged_approx(Op op, DType d) {
  return may_approximate(op) && (d == DType::F16 || d == DType::BF16 || d == DType::F32 || d == DType::F64);
}

bool is_approximated(const UOp* u, const std::vector<Op>& approx) {
  return u->lanes <= 1 && is_judged_approx(u->op, u->dtype) && std::find(approx.begin(), approx.end(), u->op) != approx.end();
}

const ApproxBudget& approx_budget(Op op, DType d, double x) {
  for (const BudgetRow& row : kBudget)
    if (row.op == op && (row.dtype == DType::Void || row.dtype == d) && !(std::fabs(x) > row.budget.max_abs_x)) return row.budget;
  UOPFUZZ_CHECK(!"a budget row for every judged op");
  return kBudget[0].budget;
}

ApproxJudgement judge_approx(Op op, DType d, double a, double b, double got) {
  UOPFUZZ_CHECK(is_judged_approx(op, d));
  const Format f = format_of(d);
  const Mpfr x(kExactBits, a), y(kExactBits, b);
  Mpfr exact(kExactBits);
  apply(op, exact.v, x.v, y.v);
  ApproxJudgement j;
  j.budget = &approx_budget(op, d, a);
  j.reference = correctly_rounded(op, f, x, y);
  if (op == Op::POW && a == 0 && b < 0) {  // exec_alu's (Python's) one departure from Annex F: +inf for -0 too
    mpfr_set_inf(exact.v, 1);
    j.reference = INFINITY;
  }
  const bool exact_zero = mpfr_zero_p(exact.v) != 0;
  j.special_wrong = special_wrong(j.reference, exact_zero, got);
  // A finite result is measured; the same special value (an overflow to inf included) is 0 ulps off.
  if (j.special_wrong) j.ulps = INFINITY;
  else if (std::isfinite(j.reference) && std::isfinite(got) && !exact_zero) j.ulps = ulp_distance(f, exact, got, j.budget->floor);
  j.within = !j.special_wrong && !(j.ulps > j.budget->ulps);
  return j;
}

const char* ulp_bin(double ulps, bool special_wrong) {
  if (special_wrong) return kUlpBins[7];
  static constexpr double kMost[] = {0.5, 1, 2, 4, 16, 256};  // kUlpBins' bounds
  for (size_t i = 0; i < std::size(kMost); ++i)
    if (ulps <= kMost[i]) return kUlpBins[i];
  return kUlpBins[6];
}

std::string ulp_text(double ulps) {
  char text[32];
  std::snprintf(text, sizeof text, "ulp %.2g", ulps);
  return text;
}

}  // namespace uf

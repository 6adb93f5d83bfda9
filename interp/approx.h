// Approximate ops (docs/semantics.md, "Approximate ops"): SIN, LOG2, EXP2, POW, SQRT and RECIP judged by
// their distance from the correctly rounded result, for a target that says it computes them approximately
// (tinygrad: its transcendental polynomials). The interpreter keeps exec_alu's meaning; this is the
// oracle's second opinion on such an op's result.
//
// The reference is MPFR's: the exact value of the op on the operand values (each a binary64 holding the
// dtype's value exactly), at 128 bits, which MPFR computes correctly rounded whatever the argument (SIN
// reduces huge arguments exactly), and the same value correctly rounded to the result dtype (its precision,
// its subnormals, overflow to inf). Special results follow C99 Annex F (MPFR's): sin(±inf) = NaN,
// sin(±0) = ±0, log2(±0) = -inf, log2(x < 0) = NaN, exp2(-inf) = +0, sqrt(-0) = -0, pow(x, ±0) = 1 for
// any x, pow(1, y) = 1 for any y, and the rest of F.9.4.4; but pow(±0, y < 0) = +inf, as exec_alu (Python,
// ZeroDivisionError made +inf by tinygrad) and tinygrad's xpow both give, where Annex F gives -0's -inf.
#pragma once
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/ops.h"
#include "core/uop.h"

namespace uf {

// Whether op is one the budget judges (a row of interp/approx_budget.def) on result dtype d (a float with
// infinities: f16, bf16, f32, f64).
bool is_judged_approx(Op op, DType d);

// Whether u is a scalar op of `approx` (a target's handshake `approximate`) that the budget judges on
// its dtype: what the oracle judges by the budget where it is stored straight into a BUFFER.
bool is_approximated(const UOp* u, const std::vector<Op>& approx);

// One row of the budget table: the error allowed, where it counts, and why.
struct ApproxBudget {
  double max_abs_x;  // the domain: |first operand| at most this
  double ulps;       // the error allowed, in ULPs (inf: finite results not judged)
  double floor;      // the ULP is taken at max(|exact|, floor)
  const char* source;
};
const ApproxBudget& approx_budget(Op op, DType d, double x);  // is_judged_approx(op, d)

// The judgement of one result `got` of op on result dtype d and operands a (and b for POW).
struct ApproxJudgement {
  double reference = 0;  // the exact result correctly rounded to d
  double ulps = 0;       // |got - exact| in ULPs of d at max(|exact|, floor); inf when one is special and the other not
  bool special_wrong = false;  // the exact result is NaN, ±inf or ±0 and got is not that (NaN any NaN; zero's sign kept)
  bool within = true;          // neither special_wrong nor ulps over the budget
  const ApproxBudget* budget = nullptr;
};
ApproxJudgement judge_approx(Op op, DType d, double a, double b, double got);

// "ulp 3.2e+06" style text of an error, for messages and reports.
std::string ulp_text(double ulps);

// The histogram bins of judged results, in order: `<=0.5` (correctly rounded), `<=1`, `<=2`, `<=4`, `<=16`,
// `<=256`, `>256`, `special` (a wrong special value): the summary's `approx_ulps` (docs/format.md).
inline constexpr const char* kUlpBins[] = {"<=0.5", "<=1", "<=2", "<=4", "<=16", "<=256", ">256", "special"};
// The bin of one result.
const char* ulp_bin(double ulps, bool special_wrong);

}  // namespace uf

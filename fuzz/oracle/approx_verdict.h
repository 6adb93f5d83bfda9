// The oracle on a target's approximate ops (docs/semantics.md, "Approximate ops: the budget"): a BUFFER
// element the reference stored straight from an op the target says it approximates (its handshake's
// `approximate`) is judged by its distance from the correctly rounded result (interp/approx.h), not bit
// for bit; every other element, and every other op, stays exact.
#pragma once
#include <vector>

#include "core/ops.h"
#include "core/program.h"
#include "interp/interp.h"

namespace uf {

struct Observation;

// A float as the messages write it (17 significant digits), and an approximated store as `SIN f32(3.3) at p1[0]`.
std::string value_text(double v);
std::string approx_store_text(const ApproxStore& s);

// Every element of `got` (the compiled run's buffers) stored straight from an approximated op is judged by
// the budget, its error in o.approx_ulps. On a mismatch `o` of p, such elements within it are right; when
// nothing else differs the verdict is ok. When only such
// elements differ and one is over its budget (or a special value is wrong), `o` is signed by the first of
// them in slot and element order, `mismatch SIN f32 ulp 1e+01` (the decade of its ULP error) or `mismatch
// SIN f32 special`, its message saying the operands, both values and the budget's row. An element of
// another op that differs leaves `o` to the usual signature.
void judge_approximate(const Program& p, const RefResult& ref, const std::map<int64_t, Values>& got,
                       const std::vector<Op>& approx, Observation& o);

}  // namespace uf

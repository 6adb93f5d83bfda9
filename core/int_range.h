// Integer ranges: the one interval domain behind uopfuzz's two guard analyses, the renderer's
// (core/int_bounds.cpp: which index clamps and division fix-ups the emitted C can drop) and the
// generator's (fuzz/gen/facts.cpp: where a program needs a guard to stay defined).
//
// An IntRange [lo, hi] is a set of exact integers. __int128 holds every value of every integer dtype and
// every exact sum or product formed below, so the arithmetic itself never overflows.
//
// Soundness contract: given ranges that contain an op's operands (values of the result dtype d), each
// transfer function returns a range that contains the op's result in d, both as the reference defines it
// (docs/semantics.md, including its total cases: x/0 is 0, x%0 is x, MIN/-1 wraps) and as the C helpers
// of codegen/render/prelude.cpp compute it, on every input, also those the reference calls UNDEFINED
// (a negative shift amount). Arithmetic is exact where no wrap can occur; a result that may wrap is the
// whole dtype. The ranges need not be the tightest: a caller may use a function less precisely (by
// widening its operands), never more.
#pragma once
#include <span>

#include "core/dtype.h"
#include "core/ops.h"

namespace uf {

__extension__ typedef __int128 int128;

struct IntRange {
  int128 lo = 0, hi = 0;
};

// Every value of an int or bool dtype ({0, 0} for the others).
IntRange dtype_range(DType d);
// The exact value of an int or bool Scalar.
int128 int_value(DType d, Scalar v);

bool contains(IntRange r, int128 v);
bool contains(IntRange outer, IntRange inner);
// The smallest range holding both (the union, as a range): WHERE's two arms, a join of facts.
IntRange hull(IntRange a, IntRange b);
// An exact result brought into d: itself if it fits, else all of d (wrapping may give any value). This
// is also CAST between int and bool dtypes.
IntRange wrap(IntRange exact, DType d);

IntRange add(IntRange a, IntRange b, DType d);
IntRange sub(IntRange a, IntRange b, DType d);
IntRange neg(IntRange a, DType d);
IntRange mul(IntRange a, IntRange b, DType d);
IntRange mulacc(IntRange a, IntRange b, IntRange c, DType d);  // a*b + c, wrapped once
IntRange maximum(IntRange a, IntRange b);
IntRange bit_and(IntRange a, IntRange b, DType d);
IntRange or_xor(IntRange a, IntRange b, DType d);  // OR and XOR alike
IntRange shl(IntRange a, IntRange amount, DType d);
IntRange shr(IntRange a);  // whatever the amount
IntRange floordiv(IntRange a, IntRange b, DType d);
IntRange cdiv(IntRange a, IntRange b, DType d);
IntRange floormod(IntRange a, IntRange b, DType d);
IntRange cmod(IntRange a, IntRange b, DType d);

// The one op -> range transfer both analyses use: the range of op's result in d, given a range for each
// of its sources (src[i] for source i). It knows the ops above (the ALU ones by their own functions;
// SHR whatever the amount), MAX, WHERE (the hull of its arms), CAST and BITCAST between int and bool
// dtypes (wrap; to bool: [0, 1]), the comparisons ([0, 1]) and RANGE (0 .. end-1; a loop whose end is at
// most 0 never runs, so [0, 0] covers it). Any other op gives the whole dtype. A caller that trusts an
// op less (the renderer's bounds, on purpose) widens its answer or skips the call; none may tighten it.
IntRange transfer(Op op, DType d, std::span<const IntRange> src);

}  // namespace uf

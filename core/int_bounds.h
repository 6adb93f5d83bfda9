// Value ranges of integer and bool nodes, a program's integer bounds: computed once per program with its
// other facts (core/analysis.h), for the renderer's two decisions that need them, and for the probes'
// bounds on computed trip counts (core/probe.h):
//  - the division fast path: FLOORDIV/FLOORMOD print as C's `/` and `%` when the numerator is provably
//    >= 0 and the divisor is a positive constant (then truncation and floor agree);
//  - index guards: an INDEX whose index is provably inside its memory is printed without a clamp.
//
// Soundness is with respect to the C the renderer emits, not only the reference: an UNDEFINED input
// (a negative shift, a NaN cast) still produces some value in C, and the ranges must cover it, because
// an index guard dropped on a wrong range would let a kernel write outside its buffers. The transfer
// of core/int_range.h (the one the generator's facts use too) promises exactly that; these rules decide
// where it is trusted, and every other case gives the whole dtype:
//  - CONST [v,v]; RANGE [0, end.hi-1] (its body never runs when end <= 0); comparisons and CAST to bool [0,1]; LOAD, BITCAST, float->int CAST: the whole dtype;
//  - int/bool->int CAST: wrap;
//  - ADD SUB MUL MULACC NEG only while every operand lies within +-2^62; bool ones are [0,1] (they print
//    as | ^ & and the operand itself);
//  - MAX, WHERE (the hull of both arms), AND, OR/XOR (bool AND/OR/XOR: [0,1]);
//  - SHR of a non-negative only;
//  - FLOORDIV/CDIV/FLOORMOD/CMOD by a positive constant only; a modulo's numerator counts as [0, hi]
//    when it is non-negative, else as any value of the dtype.
// Where these are coarser than the domain allows, that is on purpose: which guards the emitted C keeps
// is part of the renderer's output, so tightening a rule changes the renderer, not just the analysis.
#pragma once
#include <vector>

#include "core/int_range.h"
#include "core/uop.h"

namespace uf {

// Ranges for every integer/bool node of `order` (a linear order: sources before users), indexed by
// UOp::id; entries of other nodes are meaningless. `graph_size` is the graph's node count.
std::vector<IntRange> int_bounds(const std::vector<const UOp*>& order, size_t graph_size);

// The fast path: FLOORDIV/FLOORMOD whose numerator is provably >= 0 and whose divisor is a positive
// constant, or CDIV/CMOD whose divisor is a constant other than 0 and -1 (C's `/` and `%` are exactly
// CDIV/CMOD then, with no trap).
bool division_fast_path(const UOp* u, const std::vector<IntRange>& bounds);

}  // namespace uf

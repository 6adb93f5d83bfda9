// Value ranges of integer and bool nodes, for the renderer's two decisions that need them:
//  - the division fast path: FLOORDIV/FLOORMOD print as C's `/` and `%` when the numerator is provably
//    >= 0 and the divisor is a positive constant (then truncation and floor agree);
//  - index guards: an INDEX whose index is provably inside its memory is printed without a clamp.
//
// Soundness is with respect to the C the renderer emits, not only the reference: an UNDEFINED input
// (a negative shift, a NaN cast) still produces some value in C, and the ranges must cover it, because
// an index guard dropped on a wrong range would let a kernel write outside its buffers. So every rule
// below either follows the exact semantics where no wrap can occur, or falls back to the whole dtype:
//  - CONST [v,v]; comparisons and CAST to bool [0,1]; LOAD, BITCAST, float->int CAST: the whole dtype;
//  - int/bool->int CAST keeps the source range if it fits in the target, else the whole target;
//  - ADD SUB MUL MULACC NEG by interval arithmetic, kept only when the result cannot wrap
//    (operands of 64-bit dtypes must lie within +-2^62 so the arithmetic itself cannot overflow);
//  - MAX: [max lo, max hi]; WHERE: the hull of both arms;
//  - AND with a non-negative side x: [0, x.hi]; OR/XOR of non-negatives: [0, 2^k-1] covering both;
//  - SHR of a non-negative: [0, a.hi] (the C helper returns `a` for a negative amount);
//  - FLOORDIV/CDIV by a positive constant c: the quotients of the ends; FLOORMOD by c: [0, c-1];
//    CMOD by c: [0, c-1] for a non-negative numerator, else [-(c-1), c-1];
//  - everything else: the whole dtype.
#pragma once
#include <vector>

#include "core/uop.h"

namespace uf {

__extension__ typedef __int128 int128;

struct Interval {
  int128 lo, hi;
};

// The whole range of an integer or bool dtype.
Interval dtype_range(DType d);

// Ranges for every integer/bool node of `order` (a linear order: sources before users), indexed by
// UOp::id; entries of other nodes are meaningless. `graph_size` is the graph's node count.
std::vector<Interval> int_bounds(const std::vector<const UOp*>& order, size_t graph_size);

// The fast path: FLOORDIV/FLOORMOD whose numerator is provably >= 0 and whose divisor is a positive
// constant, or CDIV/CMOD whose divisor is a constant other than 0 and -1 (C's `/` and `%` are exactly
// CDIV/CMOD then, with no trap).
bool division_fast_path(const UOp* u, const std::vector<Interval>& bounds);

}  // namespace uf

// The loop structure of a program: which RANGEs each node runs under, how the loops nest, and the
// schedule (the linear order as nested blocks). The one home of this analysis: the verifier, the
// interpreter and the renderer all use it (docs/semantics.md, "Loops").
//
// Rules, in terms of the linear order:
//  - the ranges of a node are those of its sources, plus itself for a RANGE, minus every range closed by
//    an END it depends on (transitively);
//  - every RANGE is one loop. A node runs in the loop of its innermost range; loops nest by linear order
//    (a RANGE whose end depends on another RANGE comes after it, so "depends on" and "first in the order"
//    agree), and every node's ranges must lie on one chain of that nest;
//  - END closes its ranges: a node that depends on it runs after every iteration of those loops.
// A program that breaks a rule (a value used outside its loop, loops that do not nest, an END that closes
// an outer loop but not an inner one, a SINK inside a loop, loops that wait on each other) is rejected
// with a UserError naming the node.
#pragma once
#include <cstdint>
#include <vector>

#include "core/program.h"

namespace uf {

struct Loops {
  std::vector<const UOp*> ranges;  // loop k is the RANGE ranges[k]; linear order, so an outer loop comes first
  std::vector<int> parent;         // by loop: the loop it is nested in, -1 at top level
  std::vector<int> innermost;      // by node id: the innermost loop it runs in (a RANGE: its own), -1 outside
  // The nodes of the order as nested blocks: a RANGE opens its loop, whose body is the entries after it up
  // to body_end of its position. Straight-line programs: the order itself.
  std::vector<const UOp*> schedule;
  std::vector<uint32_t> body_end;  // by schedule position (RANGE entries only; empty without loops)

  bool any() const { return !ranges.empty(); }
  // The loops node u runs in, outermost first (empty outside every loop).
  std::vector<int> loops_of(const UOp* u) const;
};

bool has_loops(const std::vector<const UOp*>& order);
// Throws UserError (with the node's line) when the loop structure is malformed.
Loops analyze_loops(const Program& p, const std::vector<const UOp*>& order);

}  // namespace uf

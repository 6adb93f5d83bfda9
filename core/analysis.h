// A program's facts, computed once: its linear order (program.h), its loop structure (loops.h) and the
// integer bounds of its nodes (int_bounds.h). Every pass that runs or rewrites a program needs some of
// them (the interpreter the order and loops, the renderer all three, the probes all three), and the
// oracle checks one program by several of those passes, so it analyzes each program once and hands the
// Analysis along; the entry points that take only a Program compute what they need themselves.
//
// An Analysis describes the program's graph from its SINK: it stays valid for a copy of the program with
// other data lines (the oracle's extra data sets), and for the program after nodes were added to its
// graph that its SINK does not reach (a probe program built on it), not after its SINK changes.
#pragma once
#include <vector>

#include "core/int_range.h"
#include "core/loops.h"
#include "core/program.h"

namespace uf {

struct Analysis {
  std::vector<const UOp*> order;  // linearize(p)
  Loops loops;                    // analyze_loops(p, order)
  std::vector<IntRange> bounds;   // int_bounds(order, ...): by node id, for the integer and bool nodes
};

// Throws UserError when the loop structure is malformed (loops.h).
Analysis analyze(const Program& p);

}  // namespace uf

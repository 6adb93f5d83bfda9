// The reference interpreter: what a program means (docs/semantics.md).
//
// It runs the nodes of `order` once each, in that order, and returns the final contents of every BUFFER,
// or UNDEFINED naming the first node (in that order) that has no defined result. Only nodes in `order`
// run: dead code (not reachable from the SINK, so absent from linearize's order) is never evaluated.
//
// Memory model:
//  - BUFFER starts as p.initial(b) (its data line, or zeros); its final contents are the result.
//  - ALLOC is uninitialised scratch for this call: reading an element no STORE wrote is UNDEFINED.
//  - INDEX is an address; its index (a runtime i32) outside 0..len-1 is UNDEFINED, whether or not the
//    address is then used. AFTER computes nothing: it is its first source.
//  - LOAD reads and STORE writes one element.
// For a program that passes verify(), every topological order gives the same result; the interpreter
// does not re-check that (verify does), it simply follows `order`.
//
// Speed: one pass over `order`, values in a flat array by node id (kept by the thread between calls), one
// dispatch per node on its op and operand family, except that the cheap total ops of a family share one
// dispatch (all computed, one picked); AFTER and memory declarations compute nothing. linearize's order
// walks the node arena front to back, which keeps a big program streaming from memory.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis.h"
#include "core/program.h"

namespace uf {

struct Undefined {
  const UOp* node;     // the node that has no defined result
  std::string reason;  // e.g. "CAST of nan to i32", "INDEX 7 out of bounds for ALLOC f32[4] slot=2"
  // Not an undefined result but a bad program the reference found as it ran: a kind=global loop whose
  // iterations are not independent (node: that RANGE). Commands that read a file make it exit 2
  // (check_loop_kinds); a campaign's reducer drops such a candidate as it drops any UNDEFINED one.
  bool bad_program = false;
};

// A BUFFER element whose final value a STORE took straight from an op that a target may compute
// approximately (interp/approx.h: a float SIN, LOG2, EXP2, POW, SQRT or RECIP), with that op's operand
// values as they were then: what the oracle judges such an element by, for a target that says so.
struct ApproxStore {
  int64_t slot = 0;
  size_t element = 0;
  const UOp* node = nullptr;
  Scalar a{}, b{};
};

struct RefResult {
  std::optional<Undefined> undefined;  // set: the program has no defined result (then `buffers` is empty)
  std::map<int64_t, Values> buffers;   // final contents of EVERY BUFFER of the program, by slot
  bool over_budget = false;            // stopped at Limits::max_loop_steps (`undefined` says where): no verdict
  // The elements whose final value a STORE took straight from an approximate op.
  std::vector<ApproxStore> approx_stores;
};

// A bound on one call's work, for callers that run programs nobody bounded (a libFuzzer mutation can turn
// a trip count of 8 into 2^31). A loop charges its trip count times its body's length in nodes when it
// starts, each time it starts: the budget bounds the node runs inside loops.
struct Limits {
  uint64_t max_loop_steps = UINT64_MAX;
};

// `order` is linearize(p) or any topological order of the nodes to run (each node after its sources).
// Every BUFFER in p.buffers or in `order` is part of the result. Throws UserError if a data line has the
// wrong length or two BUFFERs share a slot, InternalError if `order` runs a node before a source.
RefResult interpret(const Program& p, const std::vector<const UOp*>& order, const Limits& limits = {});
RefResult interpret(const Program& p, const Limits& limits = {});
// The same on p's facts already computed (a = analyze(p), or of a copy of p with other data lines).
RefResult interpret(const Program& p, const Analysis& a, const Limits& limits = {});

// Throws UserError at the RANGE's line when `ref` found a kind=global loop whose iterations are not
// independent (docs/semantics.md, "Loop kinds"); interprets p when it has such a loop and ref is null.
void check_loop_kinds(const Program& p, const RefResult* ref = nullptr);

}  // namespace uf

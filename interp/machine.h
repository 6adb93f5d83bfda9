// The interpreter's machine (internal to interp/): the state of one interpret() call and the steps that
// run it. interp.cpp has the dispatch loop, loops.cpp the loops and gated accesses, vector.cpp the vector
// nodes.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/loops.h"
#include "interp/approx.h"
#include "interp/interp.h"

namespace uf::interp_machine {

// One BUFFER or ALLOC for the duration of a call: its elements are cells [first, first + len) of the
// machine's one cell array.
struct Memory {
  const UOp* node;
  size_t first;
  int64_t len;
};

inline std::string memory_text(const UOp* m) {
  return std::string(name(m->op)) + " " + name(m->dtype) + "[" + std::to_string(m->len) + "] slot=" + std::to_string(m->slot);
}

// The per-node arrays, kept by the thread from one call to the next: the fuzz loop interprets thousands
// of programs, and fresh arrays cost an allocation and page faults each time, and for a big program a
// zeroing pass that pushes everything else out of the cache. `values` is zeroed only when it grows; an
// entry this call never writes (what a node without sources "reads", a STORE's value) then holds an
// earlier call's value, which nothing uses: it only has to be initialised.
struct NodeArrays {
  std::vector<Scalar> values;  // by node id; BUFFER/ALLOC: index into memories_
  std::vector<uint8_t> ran;    // by node id: evaluated (or declared memory) yet
  bool busy = false;
};

// The thread's arrays, sized for n nodes, for the lifetime of one call (released when it ends, however it
// ends: a bad data line throws from the Machine's constructor).
class NodeArraysLease {
 public:
  explicit NodeArraysLease(size_t n) : a_(thread_arrays()) {
    UOPFUZZ_CHECK(!a_.busy);  // interpret is not reentrant on one thread (nothing calls back into it)
    if (a_.values.size() < n) a_.values.resize(n, Scalar::zero());
    a_.ran.assign(n, 0);
    a_.busy = true;  // last: if growing threw (bad_alloc), the arrays are still free
  }
  ~NodeArraysLease() {
    a_.busy = false;
    if (a_.values.size() > kKeptNodes) a_ = NodeArrays{};  // a huge program's arrays are not kept
  }
  NodeArraysLease(const NodeArraysLease&) = delete;
  NodeArraysLease& operator=(const NodeArraysLease&) = delete;
  Scalar* values() { return a_.values.data(); }
  uint8_t* ran() { return a_.ran.data(); }

 private:
  static constexpr size_t kKeptNodes = size_t{1} << 22;  // 32 MB of values
  static NodeArrays& thread_arrays() {
    thread_local NodeArrays arrays;
    return arrays;
  }
  NodeArrays& a_;
};

// A kind=global loop running (interp/independence.cpp): its iteration, and per cell it touched, the last
// iteration that wrote it and an iteration that read it before writing it (its value from outside).
struct IndependentLoop {
  struct Use {
    int64_t writer = -1;
    int64_t exposed_reader = -1;
    bool exposed_by_several = false;
  };
  const UOp* range;
  int64_t iteration = 0;
  std::unordered_map<size_t, Use> cells;
};

// The cell value of an address whose index is out of bounds but which only gated accesses use: not
// UNDEFINED until an access with a true gate uses it.
constexpr uint64_t kNoCell = UINT64_MAX;

inline bool has_loops_or_gates(const std::vector<const UOp*>& order) {
  for (const UOp* u : order)
    if (u->op == Op::RANGE || ((u->op == Op::LOAD || u->op == Op::STORE) && u->src.size() == 3)) return true;
  return false;
}

class Machine {
 public:
  // `known`: the loop structure of `order` if the caller has it (core/analysis.h), else null.
  Machine(const Program& p, const std::vector<const UOp*>& order, const Loops* known, const Limits& limits)
      : Machine(p, order, known, has_loops_or_gates(order), limits) {}

 private:
  Machine(const Program& p, const std::vector<const UOp*>& order, const Loops* known, bool structured, const Limits& limits)
      : p_(p),
        loop_steps_left_(limits.max_loop_steps),
        own_loops_(structured && !known ? analyze_loops(p, order) : Loops{}),
        loops_(structured && known ? *known : own_loops_),
        order_(loops_.any() ? loops_.schedule : order),
        arrays_(p.graph->size()),
        values_(arrays_.values()),
        ran_(arrays_.ran()) {
    if (!loops_.schedule.empty()) mark_gated_only_addresses();
    records_approx_ = std::any_of(order_.begin(), order_.end(), [](const UOp* u) { return is_judged_approx(u->op, u->dtype); });
    memories_.reserve(16);  // typical programs: a few memories of a few elements, so no regrowth
    cells_.reserve(256);
    written_.reserve(256);
    for (const UOp* b : p_.buffers) add_memory(b);
  }

 public:
  RefResult run() {
    RefResult r;
    r.undefined = execute(0, order_.size());
    r.over_budget = over_budget_;
    if (r.undefined && broken_loop_) *r.undefined = Undefined{broken_loop_, r.undefined->reason, true};
    if (r.undefined) return r;
    for (const Memory& m : memories_) {
      if (m.node->op != Op::BUFFER) continue;
      const auto first = cells_.begin() + static_cast<ptrdiff_t>(m.first);
      if (!r.buffers.emplace(m.node->slot, Values(first, first + m.len)).second)
        throw UserError("two different BUFFERs use slot " + std::to_string(m.node->slot));
      for (size_t e = 0; records_approx_ && e < static_cast<size_t>(m.len) && m.first + e < origin_.size(); ++e)
        if (const ApproxStore& o = origin_[m.first + e]; o.node) r.approx_stores.push_back({m.node->slot, e, o.node, o.a, o.b});
    }
    return r;
  }

 private:
  // A BUFFER's or ALLOC's value is its index in memories_ (AFTER passes it on, INDEX reads it).
  void add_memory(const UOp* m) {
    if (ran_[m->id]) return;
    ran_[m->id] = 1;
    values_[m->id] = Scalar::of_uint(memories_.size());
    memories_.push_back({m, cells_.size(), m->len});
    const size_t len = static_cast<size_t>(m->len);
    if (m->op == Op::ALLOC) {  // uninitialised: nothing written yet
      cells_.resize(cells_.size() + len, Scalar::zero());
      written_.resize(written_.size() + len, 0);
      return;
    }
    auto data = p_.data.find(m->slot);
    if (data == p_.data.end()) {
      cells_.resize(cells_.size() + len, Scalar::zero());
    } else {
      if (data->second.size() != len)
        throw UserError("data " + std::to_string(m->slot) + ": " + std::to_string(data->second.size()) + " values for " +
                        memory_text(m));
      for (const Scalar v : data->second) cells_.push_back(normalize(m->dtype, v));
    }
    written_.resize(written_.size() + len, 1);  // a BUFFER's every element is defined
  }

  [[noreturn]] void source_not_run(const UOp* user, const UOp* src) const {
    throw InternalError("interpret: the order runs " + p_.node_name(user, &order_) + " (" + name(user->op) +
                        ") before its source " + p_.node_name(src, &order_));
  }

  void check_sources(const UOp* u) const {
    for (const UOp* s : u->src)
      if (!ran_[s->id]) source_not_run(u, s);
  }

  // After an UNDEFINED the rest of the order does not run, but is still checked as if it had been:
  // a bad order or a bad data line is an error whatever the values.
  void check_rest(size_t undefined_at) {
    ran_[order_[undefined_at]->id] = 1;  // it ran, without a value
    for (size_t i = undefined_at + 1; i < order_.size(); ++i) {
      const UOp* u = order_[i];
      check_sources(u);
      if (u->op == Op::BUFFER || u->op == Op::ALLOC) add_memory(u);
      ran_[u->id] = 1;
    }
  }

  // Runs order_[from, to): the whole program, or one iteration of a loop body (run_loop).
  std::optional<Undefined> execute(size_t from, size_t to);

  // Loops and gated accesses (interp/loops.cpp), vectors (interp/vector.cpp): off the scalar path.
  [[gnu::noinline]] std::optional<Undefined> run_loop(size_t at);
  Undefined out_of_bounds(size_t i);
  // Records an access of `lanes` cells from `cell` in every kind=global loop running; the reason when it
  // shows their iterations are not independent (and broken_loop_ is that loop's RANGE).
  [[gnu::noinline]] std::optional<std::string> note_access(size_t cell, int lanes, bool write);
  std::optional<std::string> note_in(IndependentLoop& loop, size_t cell, bool write);
  const Memory* memory_at(size_t cell) const;
  std::string cell_text(size_t cell) const;
  void mark_gated_only_addresses();
  [[gnu::noinline]] std::optional<std::string> vector_node(const UOp* u);
  [[gnu::noinline]] std::optional<std::string> vector_store(const UOp* u);

  const Memory& memory_of(const UOp* addr) const { return memories_[values_[addr->base()->id].u]; }

  // A STORE of `value` into `cell`: where the cell's value now comes from (an approximate op, with its
  // operands' values now, or nothing: value null for a vector's lane).
  [[gnu::noinline]] void note_origin(size_t cell, const UOp* value) {
    if (origin_.size() <= cell) origin_.resize(cells_.size());
    ApproxStore& o = origin_[cell];
    o.node = value && is_judged_approx(value->op, value->dtype) ? value : nullptr;
    if (!o.node) return;
    o.a = values_[value->src[0]->id];
    o.b = value->src.size() > 1 ? values_[value->src[1]->id] : Scalar::zero();
  }

  static constexpr auto kIsFloat = [] {
    std::array<bool, kNumDTypes> t{};
    for (int i = 0; i < kNumDTypes; ++i) t[i] = is_float(static_cast<DType>(i));
    return t;
  }();

  const Program& p_;
  uint64_t loop_steps_left_;
  bool over_budget_ = false;
  const Loops own_loops_;                                   // computed here when the caller did not pass them
  const Loops& loops_;                                      // empty for a program without loops or gated accesses
  const std::vector<const UOp*>& order_;                    // the schedule (loops_.schedule) or the caller's order
  std::vector<uint8_t> gated_only_;                         // by node id: an INDEX only gated accesses use (empty: none)
  std::vector<std::pair<const UOp*, int64_t>> iterations_;  // the loops running, outermost first
  std::vector<IndependentLoop> independent_;                // the kind=global loops running, outermost first
  const UOp* broken_loop_ = nullptr;                        // a kind=global RANGE found not independent
  bool iteration_noted_ = false;
  NodeArraysLease arrays_;
  Scalar* const values_;  // arrays_.values()
  uint8_t* const ran_;    // arrays_.ran()
  std::vector<Memory> memories_;
  Values cells_;                  // every element of every memory
  std::vector<uint8_t> written_;  // per cell: defined yet (BUFFER cells always; ALLOC cells once stored)
  Values vec_lanes_;              // the lanes of every vector node, one run of `lanes` per node
  bool records_approx_ = false;   // the order has an approximate op (interp/approx.h): origin_ kept
  std::vector<ApproxStore> origin_;  // per cell, when records_approx_: the approximate op it was stored from
};

}  // namespace uf::interp_machine

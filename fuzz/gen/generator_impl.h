// Internals of the generator, shared by the files of fuzz/gen/. Not a public interface: use generator.h.
//
// Gen builds one program bottom-up: each step adds nodes whose operands are earlier nodes (so reuse,
// i.e. shared subexpressions, is the common case) or fresh leaves (constants, loads, casts).
// Beside each node it keeps Facts, a sound over-approximation of the values the node may take. The
// facts decide where a guard is needed (a float that may be NaN before CAST to int, a signed shift
// amount that may be negative, a computed index that may be out of bounds), so that guards appear
// where they matter and the reference result is almost never UNDEFINED.
#pragma once
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/int_range.h"
#include "core/program.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/policy.h"
#include "fuzz/gen/rng.h"

namespace uf::gen {

// What a node's value may be. Ints and bool: the range of exact values. Floats: [flo, fhi] (possibly
// infinite) and whether NaN is possible. Unknown is "full" for the dtype.
struct Facts {
  IntRange ints;
  double flo = 0, fhi = 0;
  bool nan = false;
};

Facts full_facts(DType d);
Facts const_facts(DType d, Scalar v);
Facts join(DType d, const Facts& a, const Facts& b);
// The facts of an ALU node from those of its sources (src[i] are the facts of u->src[i]).
Facts alu_facts(const UOp* u, std::span<const Facts* const> src);
// Float: neither NaN nor infinite.
inline bool finite(const Facts& f) { return !f.nan && f.flo > -INFINITY && f.fhi < INFINITY; }
double float_max(DType d);  // largest finite value of a float dtype

// One access (LOAD or STORE) of a memory, in creation order.
struct Access {
  const UOp* node;
  int64_t index;  // the constant index, or -1 for a computed one
  bool is_store;
  int lanes = 1;  // elements index .. index + lanes - 1 (a vector access)
};

// What the generator knows about one BUFFER or ALLOC.
struct Memory {
  const UOp* mem;
  bool output = false;  // BUFFERs the program writes; ALLOCs are always written
  std::vector<Access> accesses;
  std::vector<Facts> elem;       // what each element may hold now
  std::vector<uint8_t> written;  // ALLOC: a STORE wrote this element (so reading it is defined)
  bool all_written() const;
};

// One read or write of a loop body: its shape, the offset k of j+k / j-k and the divisor K of j // K, j % K.
struct LoopAccess {
  LoopRead shape;
  int64_t k, K;
};

// A Loop step as drawn before any node is built (loops.cpp, draw_loop_plan).
struct LoopPlan {
  std::vector<int64_t> trips, widths;  // per nest level; widths: trip counts, at least 1
  int64_t P = 1;                       // flat indices 0..P-1: the nest's combinations
  LoopKind kind = LoopKind::Map;
  DType d = DType::F32;                    // the body's dtype
  int s = 0;                               // levels outside the reduction (Map, SameBuffer: all of them)
  int64_t P_out = 1;                       // combinations of those outer levels
  std::vector<LoopAccess> reads;           // one or two
  int64_t in_len = 1;                      // elements the reads need
  LoopAccess write{LoopRead::Flat, 1, 1};  // a map's write: out[j], out[j // K] or out[j % K]
  bool gated_store = false;
  bool kinds = false;                      // its RANGEs say their kind (p_loop_kinds; level_kind)
  int depth() const { return static_cast<int>(trips.size()); }
  // The kind of level l's RANGE (docs/semantics.md, "Loop kinds"), by construction: a map's levels are
  // independent when each iteration writes its own element (out[j], padded or gated); a reduction's outer
  // levels are too (each writes out[its flat index]; its ALLOC accumulator is written first in each
  // iteration: private scratch) and its inner levels reduce; a map into the buffer it reads carries values.
  RangeKind level_kind(int l, bool alloc_acc) const {
    if (!kinds) return RangeKind::Loop;
    if (kind == LoopKind::Reduce) return l >= s ? RangeKind::Reduce : alloc_acc ? RangeKind::Global : RangeKind::Loop;
    return kind == LoopKind::Map && write.shape == LoopRead::Flat ? RangeKind::Global : RangeKind::Loop;
  }
};

// The memories of a loop, all made before its RANGEs.
struct LoopMemories {
  std::vector<const UOp*> ends;  // per level: a trip count loaded at run time, or null
  const UOp* in = nullptr;
  const UOp* out = nullptr;
  Memory* out_mem = nullptr;
  const UOp* acc = nullptr;  // a reduction's accumulator
};

// A loop nest opened, with its body's value (loops.cpp, open_loops).
struct LoopNest {
  std::vector<const UOp*> ranges;  // outer levels first
  const UOp* init = nullptr;       // the accumulator's initialising STORE
  Op rop = Op::ADD;                // the reduction's op
  const UOp* j = nullptr;          // the flat index
  const UOp* f = nullptr;          // the body's value
};

class Gen {
 public:
  Gen(const Choices& choices, const GenPolicy& base, std::vector<uint64_t>* record = nullptr);
  Gen(uint64_t seed, const GenPolicy& base) : Gen(Choices{seed, {}}, base) {}
  Program run();

  // ---- nodes (generator.cpp)
  const UOp* make(Op op, std::span<const UOp* const> src, std::optional<DType> declared = std::nullopt);
  const UOp* make(Op op, std::initializer_list<const UOp*> src, std::optional<DType> declared = std::nullopt) {
    return make(op, std::span<const UOp* const>(src.begin(), src.size()), declared);
  }
  const UOp* note(const UOp* u);
  const UOp* constant(DType d, Scalar v);
  const UOp* i32(int64_t v) { return constant(DType::I32, Scalar::of_int(v)); }
  // Whether `--without` bans op, and whether op may be built on operands of dtype d (accepted, not banned).
  bool banned(Op op) const { return pol.op_banned[static_cast<size_t>(op)]; }
  bool accepts(Op op, DType d) const { return policy_accepts(pol, op, d); }
  bool usable(Op op, DType d) const { return accepts(op, d) && !banned(op); }
  // Whether the target has dtype d: the policy draws it (`--without f64` zeroes its weight; a program's
  // swarm may drop it too, which says nothing about the target).
  bool target_has(DType d) const { return target_dtypes_[static_cast<size_t>(d)]; }
  Facts& facts(const UOp* u) { return facts_[u->id]; }

  // ---- values (values.cpp)
  Scalar random_value(DType d, const Weights<ValueKind>& w);
  Scalar edge_value(DType d);
  // A value of dtype `from` on a rounding boundary of float dtype `to`: a tie between two neighbours of
  // `to`, exactly or one ulp of `from` either side (the double-rounding band when `from` is wider).
  Scalar rounding_edge(DType from, DType to);
  Scalar precise_value(DType d);   // ValueKind::Precise
  Scalar fraction_value(DType d);  // ValueKind::Fraction
  Scalar boundary_value(DType d);  // ValueKind::Boundary
  Scalar approx_value(DType d);    // ValueKind::Approx
  Scalar finite_value(DType d);    // a constant value that is neither NaN nor infinite
  Values buffer_data(DType d, int64_t len, bool random);

  // ---- ALU nodes and operands (alu.cpp)
  const UOp* alu_step();
  const UOp* alu_node(Op op, DType d, const UOp* first);
  const UOp* idiom_operand(Op op, DType d);
  const UOp* logical_not(const UOp* x);
  const UOp* cleared_low_bits(Op op, const UOp* x, DType d);
  const UOp* exact_float_idiom(DType d);  // float_idioms.cpp
  const UOp* exact_int_idiom(DType d);    // int_idioms.cpp
  const UOp* where_node(DType d, const UOp* t);
  // One more ALU op on v (its first operand), drawn by op_weight among those that accept v's dtype;
  // null when none does.
  const UOp* alu_on(const UOp* v);
  void chain_step();
  const UOp* operand(DType d);
  const UOp* reuse(DType d);
  const UOp* cast_to(const UOp* v, DType to);
  const UOp* bitcast_to(const UOp* v, DType to);
  const UOp* finite_guard(const UOp* x);
  const UOp* not_nan_guard(const UOp* x);
  const UOp* combine(DType d, const UOp* a, const UOp* b);
  DType pick_dtype(const std::function<bool(DType)>& ok);  // weighted by the policy
  // ---- integer shapes (shapes.cpp)
  const UOp* shift_amount(DType d);
  const UOp* nonneg_numerator(DType d);
  const UOp* divisor(DType d);
  // An in-bounds i32 for m: a constant, or (dynamic) a computed value clamped into 0..len-1. For an
  // ALLOC only written elements (all of them, for a computed index) are ever named.
  const UOp* index_for(const Memory& m, bool dynamic);
  const UOp* clamp_index(const UOp* x, int64_t len);

  // ---- memory (memory.cpp)
  const UOp* load(Memory& m, const UOp* idx);
  const UOp* store(Memory& m, const UOp* idx, const UOp* value);
  // A LOAD (value null; `lanes` > 1: a vector LOAD) or STORE (of value, vector or not) at idx.
  const UOp* access(Memory& m, const UOp* idx, const UOp* value, int lanes = 1);
  const UOp* ordered_address(Memory& m, const UOp* idx, const std::vector<const UOp*>& deps);
  void record_access(Memory& m, const UOp* node, int64_t ci, const UOp* value, int lanes);
  enum class MemPick { Readable, Output, Buffer };
  // A random memory of dtype d (any dtype if none): Readable = a BUFFER or an ALLOC with a written
  // element; Output = a BUFFER the program writes; Buffer = any BUFFER. Null if there is none.
  Memory* pick_memory(std::optional<DType> d, MemPick kind);
  void load_step(bool dynamic);
  void scratch_step();
  void accumulate_step();
  void rmw_step();
  void scatter_step();
  void store_reload_step();

  // ---- vectors (vector.cpp)
  void vector_step();
  const UOp* vector_operand(DType d, int lanes, std::span<const UOp* const> scalars, bool free);

  // ---- loops (loops.cpp)
  // The value pools' sizes: values made after a mark and before truncate(mark) are forgotten, so that
  // a value of a loop is never an operand after its loop is closed.
  struct PoolMark {
    std::vector<size_t> pool;
    size_t values, vectors;
  };
  PoolMark mark_pools() const;
  void truncate_pools(const PoolMark& m);
  void loop_step();
  std::optional<LoopPlan> draw_loop_plan();
  LoopMemories loop_memories(const LoopPlan& plan);
  // Sets `outer` to the pools after the outer levels' RANGEs (what an inner reduction truncates to).
  LoopNest open_loops(const LoopPlan& plan, const LoopMemories& mem, PoolMark& outer);
  const UOp* loop_index(const LoopAccess& a, int64_t len, const UOp* j, const UOp** gate);
  const UOp* spelled_index(const LoopAccess& a, int64_t len, const UOp* j);
  const UOp* masked(const UOp* v, const UOp* j, int64_t P, int64_t k);
  const UOp* mask_once(const UOp* v, const UOp* j, int64_t P, int64_t k);
  const UOp* one_hot(const UOp* v, const UOp* r);
  const UOp* arange_term(const LoopPlan& plan, const LoopNest& nest);
  const UOp* affine_index(const UOp* r, Op op);
  const UOp* loop_store(const LoopPlan& plan, const LoopMemories& mem, const LoopNest& nest, const UOp* idx_flat, const UOp* v,
                        std::span<const UOp* const> ranges);
  // A reduction's END (a nest: the outer levels' store's) and, for a whole-nest one, its result: a
  // straight-line value, stored after the loop to a BUFFER of its own.
  std::pair<const UOp*, const UOp*> reduce_loop(const LoopPlan& plan, const LoopMemories& mem, const LoopNest& nest,
                                                const PoolMark& outer);
  const UOp* fresh_buffer(DType d, int64_t len, bool output);
  const UOp* loop_range(int64_t trips, const UOp* runtime_end, RangeKind kind);
  const UOp* flat_index(std::span<const UOp* const> ranges, std::span<const int64_t> widths);
  const UOp* loop_body_value(const UOp* first, DType to, const UOp* flat);
  // Inside a loop body no operand loads from memory (its access could not be ordered after the loop):
  // operand() draws no Leaf::Load while one of these lives.
  class NoLoadsInside {
   public:
    explicit NoLoadsInside(Gen& g) : g_(g) { ++g_.no_loads_; }
    ~NoLoadsInside() { --g_.no_loads_; }
    NoLoadsInside(const NoLoadsInside&) = delete;
    NoLoadsInside& operator=(const NoLoadsInside&) = delete;

   private:
    Gen& g_;
  };
  const UOp* close_loops(const UOp* effect, std::span<const UOp* const> ranges);

  // ---- the end of a program (generator.cpp)
  void make_buffers();
  void finish_outputs();
  void dead_code();
  const UOp* make_sink();
  int64_t log_uniform(int64_t lo, int64_t hi);
  void new_stamp();  // start a reachability query
  // Marks root and everything it depends on, except nodes older than `floor` (they cannot reach
  // anything made after them, which is all a caller asks about).
  void mark_ancestors(const UOp* root, uint32_t floor = 0);
  // Internal invariant of the generator (not the program's fault): throws InternalError.
  static void ensure(bool ok, const char* what);

  const Choices choices_;  // what rng replays: owned here, so it outlives the caller's
  Rng rng;
  GenPolicy pol;
  std::array<bool, kNumDTypes> target_dtypes_{};  // by dtype: target_has
  uint64_t seed;
  Program prog;
  Graph& g;
  std::vector<Facts> facts_;                   // by node id
  std::vector<int> uses_;                      // by node id: how many nodes use it
  uint32_t seen_ = 0;                          // nodes with id < seen_ already have facts
  std::vector<std::vector<const UOp*>> pool_;  // by dtype: non-constant values in creation order
  std::vector<const UOp*> values_;             // every non-constant scalar value in creation order
  std::vector<const UOp*> vectors_;            // every non-constant vector value in creation order
  std::deque<Memory> mems_;                    // BUFFERs first, then ALLOCs as made (deque: references stay valid)
  std::vector<const UOp*> stores_;             // every STORE made through access(), in order
  int64_t next_alloc_slot_ = 0;
  int64_t next_buffer_slot_ = 0;  // slots of BUFFERs made after make_buffers (loops)
  int64_t next_axis_ = 0;         // RANGE axes: distinct, so no two loops are interned as one
  int64_t loop_iterations_ = 0;   // iterations of the loops made so far (max_loop_iterations)
  bool big_nest_drawn_ = false;   // a program's one nest of p_big_nest
  int no_loads_ = 0;              // NoLoadsInside guards alive
  bool nesting_ = false;          // inside idiom_operand's inner node: no idiom of an idiom
  std::array<double, kNumOps> alu_weight_{};  // op weight x weight of the dtypes it accepts
  std::vector<uint32_t> mark_;                // DFS stamps for reachability, by node id
  uint32_t stamp_ = 0;
};

}  // namespace uf::gen

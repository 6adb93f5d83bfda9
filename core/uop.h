// UOps: immutable, hash-consed nodes, and the one factory that builds them.
//
// A Graph owns its nodes. Graph::make is the only way to create one: it runs the type rules (infer) and
// then interns, so building the same (op, dtype, sources, arg) twice returns the same pointer, and
// pointer equality is structural equality. A node that breaks a type rule is never built: make throws
// TypeError with the op name and the dtypes involved.
//
// Memory: BUFFER (caller's array, GLOBAL) and ALLOC (call-scope scratch, LOCAL) have rank 1 and a
// length; INDEX turns memory into a rank-0 address in the same address space; LOAD reads an address
// into a value (ALU); STORE writes one; AFTER(mem, deps...) is mem, ordered after deps.
//
// Vectors: a value node has `lanes` (1: a scalar; 2..16: the vector dtype DTYPExN, N lanes of `dtype`).
// The lane count is part of the node's type: it is hashed and interned, and the type rules check it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/ops.h"

namespace uf {

enum class AddrSpace : uint8_t { ALU, GLOBAL, LOCAL };

// What a loop's iterations may share (docs/semantics.md, "Loop kinds"): a sequential loop, an output axis
// whose iterations are independent (tinygrad's GLOBAL/WEAK), or a reduction axis that carries values only
// through ALLOC accumulators (tinygrad's REDUCE). The reference runs all three in order; the kind says
// what a target may do instead.
enum class RangeKind : int32_t { Loop = 0, Global = 1, Reduce = 2 };
inline constexpr const char* kRangeKindNames[] = {"loop", "global", "reduce"};
inline const char* name(RangeKind k) { return kRangeKindNames[static_cast<int>(k)]; }

// Bounds that keep hostile inputs from exhausting memory.
inline constexpr int64_t kMaxBufferLen = int64_t{1} << 24;
inline constexpr int64_t kMaxSlot = int64_t{1} << 20;
inline constexpr int kMaxLanes = 16;

// A dtype with its lane count as the text format writes it: `f32`, `f32x4`.
std::string type_name(DType d, int lanes);

struct UOp {
  Op op;
  DType dtype;
  AddrSpace space;
  uint8_t rank;       // 1 for BUFFER/ALLOC (and AFTER of them), 0 for addresses and values
  uint32_t id;        // creation order in its graph: a dense, deterministic key
  int64_t len = 0;    // element count of rank-1 memory
  int32_t slot = 0;   // BUFFER: kernel parameter position; ALLOC: a number that names it; RANGE: its RangeKind
  uint8_t lanes = 1;  // value nodes: 1 scalar, 2..16 a vector of `dtype` (STORE, SINK, memory: 1)
  Scalar value{};     // CONST (a vector CONST: every lane); GEP: the lane index in `i`; RANGE: the axis in `i`
  // The sources, stored right after the node in its graph's arena: reading them touches the node's own
  // cache line (or the next), not a separate heap block.
  std::span<const UOp* const> src;

  // src[0], src[1], src[2] with the missing ones repeating src[0] (a node without sources: itself). The
  // storage behind `src` is padded to three, so a hot loop reads three operands without branching on
  // the arity. Variadic nodes may have more sources than these three.
  const UOp* const* operands3() const { return src.data(); }

  bool is_memory() const { return space != AddrSpace::ALU; }
  bool is_vector() const { return lanes > 1; }
  // A LOAD with (alt, gate) or a STORE with a gate (uops 2).
  bool is_gated() const { return (op == Op::LOAD && src.size() == 3) || (op == Op::STORE && src.size() == 3); }
  // The BUFFER or ALLOC under any AFTERs and INDEX: what an address or memory refers to.
  const UOp* base() const;
  const UOp* index_node() const;  // the INDEX under any AFTERs of an address (rank 0 memory)
  RangeKind range_kind() const { return static_cast<RangeKind>(slot); }  // RANGE only
};

// Whether an op's operand class admits dtype d (void never does).
bool operand_class_accepts(OperandClass c, DType d);
// Whether the op table lets `op` compute on operand dtype `d` (BITCAST: not bool; SINK: never).
bool op_accepts(Op op, DType d);
// Whether BITCAST from -> to type-checks: same size, neither is bool.
bool bitcast_legal(DType from, DType to);

// The type of a node as the rules infer it.
struct NodeType {
  DType dtype;
  AddrSpace space;
  uint8_t rank;
  int64_t len;
  int lanes = 1;
};

// The type rules, all in one place. `declared` is the dtype the caller wrote (required for CONST,
// BUFFER, ALLOC, CAST, BITCAST; checked against the inferred dtype for every other op when given).
// `shape` is only for BUFFER/ALLOC. `lanes` is the declared lane count (0: not given, inferred; CONST and
// a vector LOAD need it); `arg` is the slot of a BUFFER/ALLOC or the lane of a GEP. Throws TypeError.
NodeType infer(Op op, std::span<const UOp* const> src, std::optional<DType> declared, std::span<const int64_t> shape = {},
               int64_t arg = 0, int lanes = 0);

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // `lanes`: the declared lane count, 0 to infer it (a vector LOAD must give it).
  const UOp* make(Op op, std::span<const UOp* const> src, std::optional<DType> declared = std::nullopt, int lanes = 0);
  const UOp* make(Op op, std::initializer_list<const UOp*> src, std::optional<DType> declared = std::nullopt, int lanes = 0) {
    return make(op, std::span<const UOp* const>(src.begin(), src.size()), declared, lanes);
  }
  const UOp* constant(DType d, Scalar v, int lanes = 1);                                   // lanes > 1: v in every lane
  const UOp* gep(const UOp* vec, int lane, std::optional<DType> declared = std::nullopt);  // lane `lane` of vec
  // A loop variable counting 0 .. end-1, `axis` its number (docs/semantics.md, Loops).
  const UOp* range(const UOp* end, int64_t axis, std::optional<DType> declared = std::nullopt, RangeKind kind = RangeKind::Loop);
  const UOp* memory(Op op, DType d, std::span<const int64_t> shape, int64_t slot);  // BUFFER or ALLOC
  const UOp* memory(Op op, DType d, int64_t len, int64_t slot) { return memory(op, d, std::span(&len, 1), slot); }

  size_t size() const { return nodes_.size(); }
  const UOp* node(size_t id) const { return nodes_[id]; }  // id < size()
  // `u` itself, checked to be a node of this graph (an internal invariant: ids index per-graph arrays).
  const UOp* own(const UOp* u) const {
    UOPFUZZ_CHECK(u->id < nodes_.size() && nodes_[u->id] == u);
    return u;
  }
  // Room for `nodes` nodes without regrowing the table (a reader that knows its line count).
  void reserve(size_t nodes);

 private:
  // Nodes live in an arena of growing blocks, each followed by its sources; they are never freed one by
  // one and UOp is trivially destructible, so destroying a graph frees a few blocks, not one per node.
  // The intern table is open addressing over node ids with a 32-bit hash tag per entry: a node is hashed
  // once, and a lookup compares the tag before touching any node.
  struct Entry {
    uint32_t tag;
    uint32_t id_plus_1;  // 0: empty
  };
  const UOp* intern(const UOp& key);
  void* allocate(size_t bytes);
  void grow_table();

  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* free_ = nullptr;
  size_t left_ = 0, next_block_ = 4096;
  std::vector<const UOp*> nodes_;  // by id
  std::vector<Entry> table_;       // size a power of two, at most half full
};

}  // namespace uf

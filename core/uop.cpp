// The type rules and the interning factory.
#include "core/uop.h"

#include <algorithm>
#include <bit>
#include <new>
#include <type_traits>

#include "core/name_index.h"

namespace uf {

std::optional<Op> parse_op(std::string_view s) { return parse_by_name<Op, kOpInfo>(s); }

const UOp* UOp::base() const {
  const UOp* u = this;
  while (u->op == Op::AFTER || u->op == Op::INDEX) u = u->src[0];
  return u;
}

const UOp* UOp::index_node() const {
  const UOp* u = this;
  while (u->op == Op::AFTER) u = u->src[0];
  return u->op == Op::INDEX ? u : nullptr;
}

std::string type_name(DType d, int lanes) {
  return lanes > 1 ? std::string(name(d)) + "x" + std::to_string(lanes) : std::string(name(d));
}

namespace {

[[noreturn]] void fail(const std::string& msg) { throw TypeError(msg); }

std::string op_name(Op op) { return name(op); }

}  // namespace

bool operand_class_accepts(OperandClass c, DType d) {
  switch (c) {
    case OperandClass::ANY: return !is_void(d);
    case OperandClass::INT: return is_int(d);
    case OperandClass::INT_BOOL: return is_int(d) || is_bool(d);
    case OperandClass::FLOAT: return is_float(d);
    case OperandClass::NUM: return is_int(d) || is_float(d);
  }
  return false;
}

bool op_accepts(Op op, DType d) {
  if (is_void(d) || op == Op::SINK || op == Op::END) return false;
  if (op == Op::BITCAST) return !is_bool(d);
  return operand_class_accepts(info(op).operands, d);
}

bool bitcast_legal(DType from, DType to) {
  return !is_void(from) && !is_void(to) && !is_bool(from) && !is_bool(to) && bytes(from) == bytes(to);
}

namespace {

const char* class_message(OperandClass c) {
  switch (c) {
    case OperandClass::INT: return "is integer only";
    case OperandClass::INT_BOOL: return "is integer or bool only";
    case OperandClass::FLOAT: return "is float only";
    case OperandClass::NUM: return "is integer or float only";
    case OperandClass::ANY: return "needs a value";
  }
  return "";
}

std::string shape_text(const UOp* u) { return u->rank ? "(" + std::to_string(u->len) + ",)" : "()"; }

NodeType value(DType d, int lanes = 1) { return {d, AddrSpace::ALU, 0, 0, lanes}; }

// A vector access (LOAD or STORE of N lanes) touches N consecutive elements: the memory must hold N.
void check_vector_access(const char* what, const UOp* addr, int lanes) {
  if (lanes <= 1) return;
  const UOp* mem = addr->base();
  if (mem->len < lanes)
    fail(std::string(what) + " of " + std::to_string(lanes) + " lanes from " + name(mem->op) + " " + name(mem->dtype) + "[" +
         std::to_string(mem->len) + "]: the memory is shorter than the vector");
}

// A gated access (LOAD addr alt gate, STORE addr value gate) is scalar; LOAD's alt is a value of the memory's
// dtype, the gate a bool scalar.
void check_gated(const char* what, DType d, int lanes, const UOp* alt, const UOp* gate) {
  if (lanes > 1) fail(std::string("a gated ") + what + " is scalar, not " + type_name(d, lanes));
  if (alt && (alt->is_memory() || alt->dtype != d || alt->is_vector()))
    fail(std::string("gated LOAD: alt must be a ") + name(d) + " value, got " +
         (alt->is_memory() ? std::string("memory") : type_name(alt->dtype, alt->lanes)));
  if (gate->is_memory() || gate->dtype != DType::Bool || gate->is_vector())
    fail(std::string("gated ") + what + ": the gate must be a bool scalar, got " +
         (gate->is_memory() ? std::string("memory") : type_name(gate->dtype, gate->lanes)));
}

// RANGE: a loop variable of an int dtype, its one source the end (a scalar of the same dtype). END: an
// effect (a STORE or END), then the RANGEs it closes.
NodeType infer_loop_op(Op op, std::span<const UOp* const> src, std::optional<DType> declared) {
  if (op == Op::RANGE) {
    const UOp* end = src[0];
    if (end->is_memory() || is_void(end->dtype) || end->is_vector() || !is_int(end->dtype))
      fail("RANGE needs an integer scalar end, got " +
           (end->is_memory() ? std::string("memory") : type_name(end->dtype, end->lanes)));
    if (declared && *declared != end->dtype)
      fail(std::string("RANGE ") + name(*declared) + ": its end is " + name(end->dtype) + " (the same dtype)");
    return value(end->dtype);
  }
  if (src.size() < 2) fail("END takes an effect (STORE or END) and at least one RANGE");
  if (src[0]->op != Op::STORE && src[0]->op != Op::END)
    fail(std::string("END: its first source must be a STORE or END, not ") + name(src[0]->op));
  for (size_t i = 1; i < src.size(); ++i)
    if (src[i]->op != Op::RANGE) fail("END closes source " + std::to_string(i) + ", a " + name(src[i]->op) + ", not a RANGE");
  return value(DType::Void);
}

NodeType infer_memory_op(Op op, std::span<const UOp* const> src, int lanes) {
  switch (op) {
    case Op::INDEX: {
      if (src.empty() || !src[0]->is_memory()) fail("INDEX needs memory");
      const UOp* mem = src[0];
      const size_t nidx = src.size() - 1;
      if (nidx == 0) fail("INDEX needs an index");
      if (nidx > mem->rank) fail("INDEX: " + std::to_string(nidx) + " indices into shape " + shape_text(mem));
      for (size_t i = 1; i < src.size(); ++i)
        if (src[i]->dtype != DType::I32 || src[i]->rank != 0 || src[i]->is_memory() || src[i]->is_vector())
          fail("INDEX indices are i32 scalars");
      return {mem->dtype, mem->space, 0, 0};
    }
    case Op::LOAD:
      if (src.size() != 1 && src.size() != 3)
        fail("LOAD takes 1 source (or 3: address, alt, gate), got " + std::to_string(src.size()));
      if (!src[0]->is_memory()) fail("LOAD needs memory");
      if (src[0]->rank != 0) fail("LOAD needs an address (INDEX), not shape " + shape_text(src[0]));
      check_vector_access("LOAD", src[0], lanes ? lanes : 1);
      if (src.size() == 3) check_gated("LOAD", src[0]->dtype, lanes, src[1], src[2]);
      return value(src[0]->dtype, lanes ? lanes : 1);
    case Op::STORE:
      if (src.size() != 2 && src.size() != 3)
        fail("STORE takes 2 sources (or 3: address, value, gate), got " + std::to_string(src.size()));
      if (!src[0]->is_memory()) fail("STORE needs memory");
      if (src[0]->rank != 0) fail("STORE needs an address (INDEX), not shape " + shape_text(src[0]));
      if (src[1]->is_memory()) fail("STORE of memory: LOAD it first");
      if (src[0]->dtype != src[1]->dtype)
        fail(std::string("STORE of ") + type_name(src[1]->dtype, src[1]->lanes) + " into " + name(src[0]->dtype));
      check_vector_access("STORE", src[0], src[1]->lanes);
      if (src.size() == 3) check_gated("STORE", src[0]->dtype, src[1]->lanes, nullptr, src[2]);
      return value(DType::Void);
    case Op::AFTER:
      if (src.size() < 2) fail("AFTER takes memory and at least one dependency");
      if (!src[0]->is_memory()) fail("AFTER needs memory");
      return {src[0]->dtype, src[0]->space, src[0]->rank, src[0]->len};
    case Op::SINK: return value(DType::Void);
    default: break;
  }
  fail(op_name(op) + ": no memory rule");
}

// GEP and STACK, the ops that take vectors apart and build them.
NodeType infer_lanes_op(Op op, std::span<const UOp* const> src, int64_t lane) {
  for (const UOp* s : src) {
    if (s->is_memory()) fail(std::string(name(op)) + " needs values, not memory (LOAD it first)");
    if (is_void(s->dtype)) fail(std::string(name(op)) + " of void");
  }
  if (op == Op::GEP) {
    if (!src[0]->is_vector()) fail(std::string("GEP needs a vector, got ") + name(src[0]->dtype));
    if (lane < 0 || lane >= src[0]->lanes)
      fail("GEP lane " + std::to_string(lane) + " out of range for " + type_name(src[0]->dtype, src[0]->lanes));
    return value(src[0]->dtype);
  }
  if (src.size() < 2 || src.size() > static_cast<size_t>(kMaxLanes))
    fail("STACK takes 2 to " + std::to_string(kMaxLanes) + " scalars, got " + std::to_string(src.size()));
  for (const UOp* s : src) {
    if (s->is_vector()) fail("STACK of a vector (" + type_name(s->dtype, s->lanes) + "): its sources are scalars");
    if (s->dtype != src[0]->dtype)
      fail(std::string("STACK: dtype mismatch ") + name(src[0]->dtype) + " vs " + name(s->dtype) + " (use CAST)");
  }
  return value(src[0]->dtype, static_cast<int>(src.size()));
}

DType declared_value(const char* n, std::optional<DType> declared) {
  if (!declared || is_void(*declared)) fail(std::string(n) + " needs a value dtype");
  return *declared;
}

// BUFFER and ALLOC: flat memory of scalars, with a bounded length and slot.
NodeType infer_memory_definition(Op op, std::optional<DType> declared, std::span<const int64_t> shape, int64_t slot, int lanes) {
  const char* const n = info(op).name;
  const DType d = declared_value(n, declared);
  if (lanes > 1) fail(std::string(n) + " of a vector dtype: memory holds scalars (use a vector LOAD)");
  if (shape.size() != 1) fail(std::string(n) + " is flat");
  if (shape[0] < 1) fail(std::string(n) + " length must be at least 1");
  if (shape[0] > kMaxBufferLen)
    fail(std::string(n) + " length " + std::to_string(shape[0]) + " is too large (max " + std::to_string(kMaxBufferLen) + ")");
  if (slot < 0 || slot > kMaxSlot) fail(std::string(n) + " slot " + std::to_string(slot) + " is out of range");
  return {d, op == Op::BUFFER ? AddrSpace::GLOBAL : AddrSpace::LOCAL, 1, shape[0]};
}

// ALU ops: values of one dtype (WHERE: a bool condition, then two values of one dtype), lane by lane.
NodeType infer_alu(Op op, std::span<const UOp* const> src, std::optional<DType> declared) {
  const OpInfo& oi = info(op);
  const char* const n = oi.name;
  for (const UOp* s : src) {
    if (s->is_memory()) fail(std::string(n) + " needs values, not memory (LOAD it first)");
    if (is_void(s->dtype)) fail(std::string(n) + " of void");
  }
  std::span<const UOp* const> vals = src;
  if (op == Op::WHERE) {
    if (src[0]->dtype != DType::Bool)
      fail(std::string("WHERE condition must be bool, got ") + type_name(src[0]->dtype, src[0]->lanes));
    vals = src.subspan(1);
  }
  const DType d = vals[0]->dtype;
  const int nl = src[0]->lanes;  // every operand (WHERE's condition too) has the same lanes
  for (const UOp* s : vals)
    if (s->dtype != d) fail(std::string(n) + ": dtype mismatch " + name(d) + " vs " + name(s->dtype) + " (use CAST)");
  for (const UOp* s : src)
    if (s->lanes != nl)
      fail(std::string(n) + ": lane mismatch " + type_name(src[0]->dtype, nl) + " vs " + type_name(s->dtype, s->lanes));
  if (!operand_class_accepts(oi.operands, d)) fail(std::string(n) + " " + class_message(oi.operands));
  if (op == Op::CAST) return value(declared_value(n, declared), nl);
  if (op == Op::BITCAST) {
    const DType to = declared_value(n, declared);
    if (is_bool(d) || is_bool(to)) fail("BITCAST of bool is not defined");
    if (bytes(d) != bytes(to)) fail(std::string("BITCAST ") + name(d) + " to " + name(to) + ": sizes differ");
    return value(to, nl);
  }
  return value(oi.result == ResultRule::BOOL ? DType::Bool : d, nl);
}

}  // namespace

NodeType infer(Op op, std::span<const UOp* const> src, std::optional<DType> declared, std::span<const int64_t> shape,
               int64_t slot, int lanes) {
  const OpInfo& oi = info(op);
  const char* const n = oi.name;  // a string only when a message is built: infer runs per node
  if (oi.arity != VARIADIC && static_cast<int>(src.size()) != oi.arity)
    fail(std::string(n) + " takes " + std::to_string(oi.arity) + " sources, got " + std::to_string(src.size()));
  if (lanes < 0 || lanes > kMaxLanes)
    fail(std::string(n) + ": " + std::to_string(lanes) + " lanes (a vector has 2 to " + std::to_string(kMaxLanes) + ")");
  if (lanes > 1 && declared && is_void(*declared)) fail(std::string(n) + ": a vector of void");
  NodeType t{};
  if (op == Op::CONST) {
    t = value(declared_value(n, declared), lanes ? lanes : 1);
  } else if (op == Op::GEP || op == Op::STACK) {
    t = infer_lanes_op(op, src, slot);
  } else if (op == Op::RANGE || op == Op::END) {
    if (lanes > 1) fail(std::string(n) + " is not a vector");
    t = infer_loop_op(op, src, declared);
  } else if (op == Op::BUFFER || op == Op::ALLOC) {
    t = infer_memory_definition(op, declared, shape, slot, lanes);
  } else if (oi.result == ResultRule::MEMORY || op == Op::STORE || op == Op::SINK) {
    if (lanes > 1 && op != Op::LOAD) fail(std::string(n) + " is not a vector");
    t = infer_memory_op(op, src, lanes);
  } else {
    t = infer_alu(op, src, declared);
  }
  if ((declared && *declared != t.dtype) || (lanes && lanes != t.lanes))
    fail(std::string(n) + ": result is " + type_name(t.dtype, t.lanes) + ", not " +
         type_name(declared ? *declared : t.dtype, lanes ? lanes : t.lanes));
  return t;
}

namespace {

// FxHash-style word mixing, then a final avalanche so the low bits (the table index) depend on all.
inline uint64_t mix(uint64_t h, uint64_t v) { return (std::rotl(h, 5) ^ v) * 0x9E3779B97F4A7C15ull; }

uint32_t node_tag(const UOp& k) {
  uint64_t h = static_cast<uint64_t>(k.op) | static_cast<uint64_t>(k.dtype) << 8 | static_cast<uint64_t>(k.src.size()) << 16 |
               static_cast<uint64_t>(k.lanes) << 48;
  h = mix(h, k.value.u);
  h = mix(h, static_cast<uint64_t>(k.len));
  h = mix(h, static_cast<uint64_t>(k.slot));
  for (const UOp* s : k.src) h = mix(h, s->id);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<uint32_t>(h);
}

bool same_node(const UOp& a, const UOp& b) {
  if (a.op != b.op || a.dtype != b.dtype || a.lanes != b.lanes || a.value.u != b.value.u || a.len != b.len || a.slot != b.slot ||
      a.src.size() != b.src.size())
    return false;
  for (size_t i = 0; i < a.src.size(); ++i)
    if (a.src[i] != b.src[i]) return false;
  return true;
}

}  // namespace

void* Graph::allocate(size_t bytes) {
  static_assert(alignof(UOp) <= alignof(std::max_align_t));
  static_assert(std::is_trivially_destructible_v<UOp>, "the arena never runs destructors");
  bytes = (bytes + alignof(UOp) - 1) & ~(alignof(UOp) - 1);
  if (bytes > left_) {
    // Blocks double up to 1 MB: small programs (the fuzz loop) stay small, big files allocate rarely.
    const size_t size = std::max(bytes, next_block_);
    next_block_ = std::min<size_t>(next_block_ * 2, size_t{1} << 20);
    blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
    free_ = blocks_.back().get();
    left_ = size;
  }
  void* p = free_;
  free_ += bytes;
  left_ -= bytes;
  return p;
}

void Graph::grow_table() {
  std::vector<Entry> old = std::move(table_);
  table_.assign(old.empty() ? 64 : 2 * old.size(), Entry{0, 0});
  const size_t mask = table_.size() - 1;
  for (const Entry& e : old) {
    if (!e.id_plus_1) continue;
    size_t i = e.tag & mask;
    while (table_[i].id_plus_1) i = (i + 1) & mask;
    table_[i] = e;
  }
}

void Graph::reserve(size_t nodes) {
  nodes_.reserve(nodes);
  while (table_.size() < 2 * nodes) grow_table();
}

const UOp* Graph::intern(const UOp& key) {
  if (2 * (nodes_.size() + 1) > table_.size()) grow_table();
  const uint32_t tag = node_tag(key);
  const size_t mask = table_.size() - 1;
  size_t i = tag & mask;
  for (; table_[i].id_plus_1; i = (i + 1) & mask)
    if (table_[i].tag == tag && same_node(*nodes_[table_[i].id_plus_1 - 1], key)) return nodes_[table_[i].id_plus_1 - 1];
  // New: the node, then its sources padded to three (UOp::operands3), in one arena allocation.
  const size_t n = key.src.size();
  void* mem = allocate(sizeof(UOp) + std::max<size_t>(n, 3) * sizeof(const UOp*));
  auto** srcs = reinterpret_cast<const UOp**>(static_cast<std::byte*>(mem) + sizeof(UOp));
  UOp* u = new (mem) UOp(key);
  for (size_t k = 0; k < n; ++k) srcs[k] = key.src[k];  // a loop: std::copy calls memmove for 2 pointers
  for (size_t k = n; k < 3; ++k) srcs[k] = n ? srcs[0] : u;
  u->id = static_cast<uint32_t>(nodes_.size());
  u->src = std::span<const UOp* const>(srcs, n);
  nodes_.push_back(u);
  table_[i] = Entry{tag, u->id + 1};
  return u;
}

const UOp* Graph::make(Op op, std::span<const UOp* const> src, std::optional<DType> declared, int lanes) {
  UOPFUZZ_CHECK(op != Op::CONST && op != Op::BUFFER && op != Op::ALLOC && op != Op::GEP && op != Op::RANGE);
  const NodeType t = infer(op, src, declared, {}, 0, lanes);
  return intern(UOp{op, t.dtype, t.space, t.rank, 0, t.len, 0, static_cast<uint8_t>(t.lanes), Scalar::zero(), src});
}

const UOp* Graph::constant(DType d, Scalar v, int lanes) {
  const NodeType t = infer(Op::CONST, {}, d, {}, 0, lanes);
  return intern(UOp{Op::CONST, t.dtype, t.space, 0, 0, 0, 0, static_cast<uint8_t>(t.lanes), normalize(d, v), {}});
}

const UOp* Graph::gep(const UOp* vec, int lane, std::optional<DType> declared) {
  const UOp* const src[] = {vec};
  const NodeType t = infer(Op::GEP, src, declared, {}, lane);
  return intern(UOp{Op::GEP, t.dtype, t.space, 0, 0, 0, 0, 1, Scalar::of_int(lane), std::span<const UOp* const>(src)});
}

const UOp* Graph::range(const UOp* end, int64_t axis, std::optional<DType> declared, RangeKind kind) {
  const UOp* const src[] = {end};
  const NodeType t = infer(Op::RANGE, src, declared);
  return intern(UOp{Op::RANGE, t.dtype, t.space, 0, 0, 0, static_cast<int32_t>(kind), 1, Scalar::of_int(axis),
                    std::span<const UOp* const>(src)});
}

const UOp* Graph::memory(Op op, DType d, std::span<const int64_t> shape, int64_t slot) {
  UOPFUZZ_CHECK(op == Op::BUFFER || op == Op::ALLOC);
  const NodeType t = infer(op, {}, d, shape, slot);
  return intern(UOp{op, t.dtype, t.space, t.rank, 0, t.len, static_cast<int32_t>(slot), 1, Scalar::zero(), {}});
}

}  // namespace uf

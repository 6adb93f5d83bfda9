// The type rules and the interning factory.
#include "core/uop.h"

#include <functional>

#include "core/name_index.h"

namespace uf {

std::optional<Op> parse_op(std::string_view s) {
  static constexpr NameIndex<kNumOps> kIndex([] {
    std::array<std::string_view, kNumOps> names{};
    for (int i = 0; i < kNumOps; ++i) names[static_cast<size_t>(i)] = kOpInfo[i].name;
    return names;
  }());
  const int i = kIndex.find(s);
  if (i < 0) return std::nullopt;
  return static_cast<Op>(i);
}

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
  if (is_void(d) || op == Op::SINK) return false;
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

std::string shape_text(const UOp* u) {
  return u->rank ? "(" + std::to_string(u->len) + ",)" : "()";
}

NodeType value(DType d) { return {d, AddrSpace::ALU, 0, 0}; }

NodeType infer_memory_op(Op op, std::span<const UOp* const> src) {
  const std::string n = op_name(op);
  switch (op) {
    case Op::INDEX: {
      if (src.empty() || !src[0]->is_memory()) fail("INDEX needs memory");
      const UOp* mem = src[0];
      const size_t nidx = src.size() - 1;
      if (nidx == 0) fail("INDEX needs an index");
      if (nidx > mem->rank)
        fail("INDEX: " + std::to_string(nidx) + " indices into shape " + shape_text(mem));
      for (size_t i = 1; i < src.size(); ++i)
        if (src[i]->dtype != DType::I32 || src[i]->rank != 0 || src[i]->is_memory())
          fail("INDEX indices are i32 scalars");
      return {mem->dtype, mem->space, 0, 0};
    }
    case Op::LOAD:
      if (!src[0]->is_memory()) fail("LOAD needs memory");
      if (src[0]->rank != 0) fail("LOAD needs an address (INDEX), not shape " + shape_text(src[0]));
      return value(src[0]->dtype);
    case Op::STORE:
      if (!src[0]->is_memory()) fail("STORE needs memory");
      if (src[0]->rank != 0) fail("STORE needs an address (INDEX), not shape " + shape_text(src[0]));
      if (src[1]->is_memory()) fail("STORE of memory: LOAD it first");
      if (src[0]->dtype != src[1]->dtype)
        fail(std::string("STORE of ") + name(src[1]->dtype) + " into " + name(src[0]->dtype));
      return value(DType::Void);
    case Op::AFTER:
      if (src.size() < 2) fail("AFTER takes memory and at least one dependency");
      if (!src[0]->is_memory()) fail("AFTER needs memory");
      return {src[0]->dtype, src[0]->space, src[0]->rank, src[0]->len};
    case Op::SINK: return value(DType::Void);
    default: break;
  }
  fail(n + ": no memory rule");
}

}  // namespace

NodeType infer(Op op, std::span<const UOp* const> src, std::optional<DType> declared,
               std::span<const int64_t> shape, int64_t slot) {
  const OpInfo& oi = info(op);
  const std::string n = oi.name;
  if (oi.arity != VARIADIC && static_cast<int>(src.size()) != oi.arity)
    fail(n + " takes " + std::to_string(oi.arity) + " sources, got " + std::to_string(src.size()));
  auto need_declared = [&] {
    if (!declared || is_void(*declared)) fail(n + " needs a value dtype");
    return *declared;
  };

  NodeType t{};
  if (op == Op::CONST) {
    t = value(need_declared());
  } else if (op == Op::BUFFER || op == Op::ALLOC) {
    const DType d = need_declared();
    if (shape.size() != 1) fail(n + " is flat");
    if (shape[0] < 1) fail(n + " length must be at least 1");
    if (shape[0] > kMaxBufferLen) fail(n + " length " + std::to_string(shape[0]) + " is too large (max " +
                                       std::to_string(kMaxBufferLen) + ")");
    if (slot < 0 || slot > kMaxSlot) fail(n + " slot " + std::to_string(slot) + " is out of range");
    t = {d, op == Op::BUFFER ? AddrSpace::GLOBAL : AddrSpace::LOCAL, 1, shape[0]};
  } else if (oi.result == ResultRule::MEMORY || op == Op::STORE || op == Op::SINK) {
    t = infer_memory_op(op, src);
  } else {
    // ALU ops: values of one dtype (WHERE: a bool condition, then two values of one dtype).
    for (const UOp* s : src) {
      if (s->is_memory()) fail(n + " needs values, not memory (LOAD it first)");
      if (is_void(s->dtype)) fail(n + " of void");
    }
    std::span<const UOp* const> vals = src;
    if (op == Op::WHERE) {
      if (src[0]->dtype != DType::Bool)
        fail(std::string("WHERE condition must be bool, got ") + name(src[0]->dtype));
      vals = src.subspan(1);
    }
    const DType d = vals[0]->dtype;
    for (const UOp* s : vals)
      if (s->dtype != d)
        fail(n + ": dtype mismatch " + name(d) + " vs " + name(s->dtype) + " (use CAST)");
    if (!operand_class_accepts(oi.operands, d)) fail(n + " " + class_message(oi.operands));
    if (op == Op::CAST) {
      t = value(need_declared());
    } else if (op == Op::BITCAST) {
      const DType to = need_declared();
      if (is_bool(d) || is_bool(to)) fail("BITCAST of bool is not defined");
      if (bytes(d) != bytes(to))
        fail(std::string("BITCAST ") + name(d) + " to " + name(to) + ": sizes differ");
      t = value(to);
    } else {
      t = value(oi.result == ResultRule::BOOL ? DType::Bool : d);
    }
  }
  if (declared && *declared != t.dtype)
    fail(n + ": result is " + name(t.dtype) + ", not " + name(*declared));
  return t;
}

size_t Graph::Hash::operator()(const UOp* u) const {
  size_t h = static_cast<size_t>(u->op) * 0x9E3779B97F4A7C15ull ^ static_cast<size_t>(u->dtype) << 8;
  auto mix = [&h](uint64_t v) { h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2); };
  mix(u->value.u);
  mix(static_cast<uint64_t>(u->len));
  mix(static_cast<uint64_t>(u->slot));
  for (const UOp* s : u->src) mix(s->id);
  return h;
}

bool Graph::Eq::operator()(const UOp* a, const UOp* b) const {
  return a->op == b->op && a->dtype == b->dtype && a->value.u == b->value.u && a->len == b->len &&
         a->slot == b->slot && a->src == b->src;
}

const UOp* Graph::intern(UOp&& candidate) {
  if (auto it = table_.find(&candidate); it != table_.end()) return *it;
  candidate.id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(std::move(candidate));
  const UOp* u = &nodes_.back();
  table_.insert(u);
  return u;
}

const UOp* Graph::make(Op op, std::span<const UOp* const> src, std::optional<DType> declared) {
  UOPFUZZ_CHECK(op != Op::CONST && op != Op::BUFFER && op != Op::ALLOC);
  const NodeType t = infer(op, src, declared);
  UOp u{op, t.dtype, t.space, t.rank, 0, t.len, 0, Scalar::zero(), {src.begin(), src.end()}};
  return intern(std::move(u));
}

const UOp* Graph::constant(DType d, Scalar v) {
  const NodeType t = infer(Op::CONST, {}, d);
  return intern(UOp{Op::CONST, t.dtype, t.space, 0, 0, 0, 0, normalize(d, v), {}});
}

const UOp* Graph::memory(Op op, DType d, std::span<const int64_t> shape, int64_t slot) {
  UOPFUZZ_CHECK(op == Op::BUFFER || op == Op::ALLOC);
  const NodeType t = infer(op, {}, d, shape, slot);
  return intern(UOp{op, t.dtype, t.space, t.rank, 0, t.len, slot, Scalar::zero(), {}});
}

}  // namespace uf

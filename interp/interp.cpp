// The interpreter: compile the order into a tape, run the tape, collect the BUFFERs.
#include "interp/interp.h"

#include <limits>

#include "interp/alu.h"

namespace uf {
namespace {

constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

// One BUFFER or ALLOC for the duration of a call.
struct Memory {
  const UOp* node;
  Values data;
  std::vector<uint8_t> written;  // ALLOC only: elements some STORE has written; empty for a BUFFER
};

enum class Kind : uint8_t { Alu, Index, Load, Store };

// One tape instruction. Slots index the flat value array; `at` is the node's position in `order` (its
// own slot, and how an UNDEFINED is traced back to its node). Unused operand slots repeat src[0].
struct Instr {
  Kind kind;
  Op op;
  DType dtype;    // the node's dtype
  DType operand;  // ALU: the value operands' dtype
  uint32_t at;
  uint32_t src[3];
  uint32_t mem;   // INDEX, LOAD, STORE: index into the memories
};
static_assert(sizeof(Instr) == 24);

std::string memory_text(const UOp* m) {
  return std::string(name(m->op)) + " " + name(m->dtype) + "[" + std::to_string(m->len) + "] slot=" +
         std::to_string(m->slot);
}

class Machine {
 public:
  Machine(const Program& p, const std::vector<const UOp*>& order) : p_(p), order_(order) { compile(); }

  RefResult run() {
    RefResult r;
    r.undefined = execute();
    if (r.undefined) return r;
    for (Memory& m : memories_) {
      if (m.node->op != Op::BUFFER) continue;
      if (!r.buffers.emplace(m.node->slot, std::move(m.data)).second)
        throw UserError("two different BUFFERs use slot " + std::to_string(m.node->slot));
    }
    return r;
  }

 private:
  void compile() {
    const size_t n = p_.graph->size();
    UOPFUZZ_CHECK(order_.size() < kNoSlot);
    slot_.assign(n, kNoSlot);
    memory_of_.assign(n, kNoSlot);
    values_.assign(order_.size(), Scalar::zero());
    tape_.reserve(order_.size());
    for (const UOp* b : p_.buffers) add_memory(b);
    for (uint32_t i = 0; i < order_.size(); ++i) compile_node(order_[i], i);
  }

  void add_memory(const UOp* m) {
    if (memory_of_[m->id] != kNoSlot) return;
    memory_of_[m->id] = static_cast<uint32_t>(memories_.size());
    Memory mem{m, {}, {}};
    if (m->op == Op::BUFFER) {
      mem.data = p_.initial(m);
      if (static_cast<int64_t>(mem.data.size()) != m->len)
        throw UserError("data " + std::to_string(m->slot) + ": " + std::to_string(mem.data.size()) +
                        " values for " + memory_text(m));
      for (Scalar& v : mem.data) v = normalize(m->dtype, v);
    } else {
      mem.data.assign(static_cast<size_t>(m->len), Scalar::zero());
      mem.written.assign(static_cast<size_t>(m->len), 0);
    }
    memories_.push_back(std::move(mem));
  }

  uint32_t slot_of(const UOp* src, const UOp* user) const {
    const uint32_t s = slot_[src->id];
    if (s == kNoSlot)
      throw InternalError("interpret: the order runs " + p_.node_name(user, &order_) + " (" + name(user->op) +
                          ") before its source " + p_.node_name(src, &order_));
    return s;
  }

  void compile_node(const UOp* u, uint32_t at) {
    Instr in{Kind::Alu, u->op, u->dtype, u->dtype, at, {0, 0, 0}, 0};
    for (size_t k = 0; k < u->src.size() && k < 3; ++k) in.src[k] = slot_of(u->src[k], u);
    for (size_t k = u->src.size(); k < 3; ++k) in.src[k] = in.src[0];
    for (size_t k = 3; k < u->src.size(); ++k) slot_of(u->src[k], u);  // AFTER/SINK: only check the order
    slot_[u->id] = at;
    switch (u->op) {
      case Op::CONST: values_[at] = u->value; return;
      case Op::BUFFER:
      case Op::ALLOC: add_memory(u); return;
      case Op::AFTER: slot_[u->id] = in.src[0]; return;  // computes nothing: it is its first source
      case Op::SINK: return;
      case Op::INDEX:
        in.kind = Kind::Index;
        in.src[0] = in.src[1];  // the index value; the memory is static
        break;
      case Op::LOAD: in.kind = Kind::Load; break;
      case Op::STORE: in.kind = Kind::Store; break;
      default:
        UOPFUZZ_CHECK(is_alu(u->op));
        in.operand = u->src[u->op == Op::WHERE ? 1 : 0]->dtype;
        break;
    }
    if (in.kind != Kind::Alu) in.mem = memory_of_[u->src[0]->base()->id];
    tape_.push_back(in);
  }

  std::optional<Undefined> execute() {
    Scalar* v = values_.data();
    for (const Instr& in : tape_) {
      switch (in.kind) {
        case Kind::Alu: {
          const Scalar operands[3] = {v[in.src[0]], v[in.src[1]], v[in.src[2]]};
          const AluResult r = exec_alu(in.op, in.dtype, in.operand, operands);
          if (!r.defined()) [[unlikely]]
            return Undefined{order_[in.at], undefined_reason(in.op, in.dtype, in.operand, operands)};
          v[in.at] = r.value;
          break;
        }
        case Kind::Index: {
          const int64_t i = v[in.src[0]].i;
          const Memory& m = memories_[in.mem];
          if (i < 0 || i >= m.node->len) [[unlikely]]
            return Undefined{order_[in.at], "INDEX " + std::to_string(i) + " out of bounds for " + memory_text(m.node)};
          v[in.at] = Scalar::of_int(i);
          break;
        }
        case Kind::Load: {
          const size_t i = static_cast<size_t>(v[in.src[0]].i);
          const Memory& m = memories_[in.mem];
          if (!m.written.empty() && !m.written[i]) [[unlikely]]
            return Undefined{order_[in.at], "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " +
                                                std::to_string(i) + " before any STORE"};
          v[in.at] = m.data[i];
          break;
        }
        case Kind::Store: {
          const size_t i = static_cast<size_t>(v[in.src[0]].i);
          Memory& m = memories_[in.mem];
          m.data[i] = v[in.src[1]];
          if (!m.written.empty()) m.written[i] = 1;
          break;
        }
      }
    }
    return std::nullopt;
  }

  const Program& p_;
  const std::vector<const UOp*>& order_;
  std::vector<uint32_t> slot_;       // by node id: where its value lives
  std::vector<uint32_t> memory_of_;  // by node id (BUFFER/ALLOC): index into memories_
  std::vector<Memory> memories_;
  std::vector<Scalar> values_;
  std::vector<Instr> tape_;
};

}  // namespace

RefResult interpret(const Program& p, const std::vector<const UOp*>& order) { return Machine(p, order).run(); }

RefResult interpret(const Program& p) { return interpret(p, linearize(p)); }

}  // namespace uf

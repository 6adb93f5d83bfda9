// The interpreter: compile the order into a tape, run the tape, collect the BUFFERs.
#include "interp/interp.h"

#include <algorithm>
#include <array>
#include <limits>

#include "interp/alu_ops.h"

namespace uf {
namespace {

constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

// One BUFFER or ALLOC for the duration of a call.
struct Memory {
  const UOp* node;
  Values data;
  std::vector<uint8_t> written;  // ALLOC only: elements some STORE has written; empty for a BUFFER
};

// What an instruction does, fixed when the tape is compiled, so running it is one dispatch: arithmetic
// ops by op and family (integer/bool or float), then the other ALU ops and the memory accesses.
using Code = uint8_t;
constexpr bool has_int_family(Op op) { return alu::is_arith(op) && info(op).operands != OperandClass::FLOAT; }
constexpr bool has_float_family(Op op) { return alu::is_arith(op) && info(op).operands != OperandClass::INT && info(op).operands != OperandClass::INT_BOOL; }
constexpr Code int_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op)); }
constexpr Code float_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op) + 1); }
enum : Code { kWhere = 2 * kNumOps, kCast, kBitcast, kIndex, kLoad, kStore };

// One tape instruction. Slots index the flat value array; `at` is the node's position in `order` (its
// own slot, and how an UNDEFINED is traced back to its node). Unused operand slots repeat src[0].
// INDEX keeps its index value in src[0]; LOAD and STORE their address in src[0] (STORE: value in src[1]).
struct Instr {
  Code code;
  DType dtype;    // the node's dtype
  DType operand;  // ALU: the value operands' dtype (CAST/BITCAST: the source)
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
    tape_.resize(order_.size());
    for (const UOp* b : p_.buffers) add_memory(b);
    size_t size = 0;
    for (uint32_t i = 0; i < order_.size(); ++i) size += compile_node(order_[i], i, tape_[size]);
    tape_.resize(size);
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

  [[noreturn]] void source_not_run(const UOp* user, const UOp* src) const {
    throw InternalError("interpret: the order runs " + p_.node_name(user, &order_) + " (" + name(user->op) +
                        ") before its source " + p_.node_name(src, &order_));
  }

  // An ALU node's code without branching on the op: a table gives the code for an integer operand and
  // whether a float operand selects the float family (the next code).
  struct AluCodeRule { Code base; bool by_family; };
  static constexpr auto kAluCode = [] {
    std::array<AluCodeRule, kNumOps> t{};
    for (int i = 0; i < kNumOps; ++i) t[i] = {int_code(static_cast<Op>(i)), true};
    t[static_cast<int>(Op::WHERE)] = {kWhere, false};
    t[static_cast<int>(Op::CAST)] = {kCast, false};
    t[static_cast<int>(Op::BITCAST)] = {kBitcast, false};
    return t;
  }();

  // Fills `in` and returns 1, or returns 0 for a node that needs no instruction.
  size_t compile_node(const UOp* u, uint32_t at, Instr& in) {
    const Op op = u->op;
    const size_t n = u->src.size();
    const UOp* const* src = u->src.data();
    if (is_alu(op)) [[likely]] {  // 1 to 3 sources: read them without a loop (missing ones repeat src[0])
      const uint32_t s[3] = {slot_[src[0]->id], slot_[src[n > 1 ? 1 : 0]->id], slot_[src[n > 2 ? 2 : 0]->id]};
      if (std::max({s[0], s[1], s[2]}) == kNoSlot) [[unlikely]] check_sources(u);
      const AluCodeRule rule = kAluCode[static_cast<int>(op)];
      in = {static_cast<Code>(rule.base + (rule.by_family & is_float(src[op == Op::WHERE ? 1 : 0]->dtype))),
            u->dtype, src[op == Op::WHERE ? 1 : 0]->dtype, at, {s[0], s[1], s[2]}, 0};
      slot_[u->id] = at;
      return 1;
    }
    check_sources(u);
    slot_[u->id] = at;
    switch (op) {
      case Op::CONST: values_[at] = u->value; return 0;
      case Op::BUFFER:
      case Op::ALLOC: add_memory(u); return 0;
      case Op::AFTER: slot_[u->id] = slot_[src[0]->id]; return 0;  // computes nothing: it is its first source
      case Op::SINK: return 0;
      case Op::INDEX:  // the index value; the memory is static
        in = {kIndex, u->dtype, u->dtype, at, {slot_[src[1]->id], 0, 0}, 0};
        break;
      case Op::LOAD: in = {kLoad, u->dtype, u->dtype, at, {slot_[src[0]->id], 0, 0}, 0}; break;
      case Op::STORE: in = {kStore, u->dtype, u->dtype, at, {slot_[src[0]->id], slot_[src[1]->id], 0}, 0}; break;
      default: UOPFUZZ_CHECK(!"a known op");
    }
    in.src[1] = in.code == kStore ? in.src[1] : in.src[0];
    in.src[2] = in.src[0];
    in.mem = memory_of_[src[0]->base()->id];
    return 1;
  }

  void check_sources(const UOp* u) const {
    for (const UOp* s : u->src)
      if (slot_[s->id] == kNoSlot) source_not_run(u, s);
  }

  Undefined alu_undefined(const Instr& in, const Scalar* operands) const {
    const UOp* u = order_[in.at];
    return {u, undefined_reason(u->op, in.dtype, in.operand, operands)};
  }

  std::optional<Undefined> execute() {
    Scalar* v = values_.data();
    for (const Instr& in : tape_) {
      const Scalar a = v[in.src[0]], b = v[in.src[1]], c = v[in.src[2]];
      AluResult r;
      switch (in.code) {
        // Arithmetic: the table's own family functions, the op fixed at compile time.
#define OP(N, arity, dtypes, rule, flags)                                                    \
  case int_code(Op::N):                                                                     \
    if constexpr (has_int_family(Op::N)) r = alu::int_op<Op::N>(in.dtype, in.operand, a, b, c); \
    break;                                                                                  \
  case float_code(Op::N):                                                                   \
    if constexpr (has_float_family(Op::N)) r = alu::float_op<Op::N>(in.dtype, a, b, c);     \
    break;
#include "core/ops.def"
#undef OP
        case kWhere: r = alu::where(a, b, c); break;
        case kCast: r = alu::cast(in.dtype, in.operand, a); break;
        case kBitcast: r = alu::bitcast(in.dtype, in.operand, a); break;
        case kIndex: {
          const Memory& m = memories_[in.mem];
          if (a.i < 0 || a.i >= m.node->len) [[unlikely]]
            return Undefined{order_[in.at], "INDEX " + std::to_string(a.i) + " out of bounds for " + memory_text(m.node)};
          v[in.at] = a;
          continue;
        }
        case kLoad: {
          const Memory& m = memories_[in.mem];
          const size_t i = static_cast<size_t>(a.i);
          if (!m.written.empty() && !m.written[i]) [[unlikely]]
            return Undefined{order_[in.at], "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " +
                                                std::to_string(i) + " before any STORE"};
          v[in.at] = m.data[i];
          continue;
        }
        case kStore: {
          Memory& m = memories_[in.mem];
          const size_t i = static_cast<size_t>(a.i);
          m.data[i] = b;
          if (!m.written.empty()) m.written[i] = 1;
          continue;
        }
        default: UOPFUZZ_CHECK(!"a compiled instruction");
      }
      if (!r.defined()) [[unlikely]] {
        const Scalar operands[3] = {a, b, c};
        return alu_undefined(in, operands);
      }
      v[in.at] = r.value;
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

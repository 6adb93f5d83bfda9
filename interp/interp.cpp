// The interpreter: compile the order into a tape, run the tape, collect the BUFFERs.
#include "interp/interp.h"

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <span>

#include "interp/alu_ops.h"

namespace uf {
namespace {

constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

// One BUFFER or ALLOC for the duration of a call: its elements are cells [first, first + len) of the
// machine's one cell array.
struct Memory {
  const UOp* node;
  size_t first;
};

// What an instruction does, fixed when the tape is compiled, so running it is one dispatch: arithmetic
// ops by op and family (integer/bool or float), then the other ALU ops and the memory accesses.
// (An enum, not a plain uint8_t: char-typed stores may alias anything and would force reloads.)
enum Code : uint8_t {};
constexpr bool has_int_family(Op op) { return alu::is_arith(op) && info(op).operands != OperandClass::FLOAT; }
constexpr bool has_float_family(Op op) {
  const OperandClass c = info(op).operands;
  return alu::is_arith(op) && c != OperandClass::INT && c != OperandClass::INT_BOOL;
}
constexpr Code int_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op)); }
constexpr Code float_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op) + 1); }
constexpr Code kWhere{2 * kNumOps}, kCast{kWhere + 1}, kBitcast{kWhere + 2}, kIndex{kWhere + 3}, kLoad{kWhere + 4},
    kStore{kWhere + 5};

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
    for (const Memory& m : memories_) {
      if (m.node->op != Op::BUFFER) continue;
      const auto first = cells_.begin() + static_cast<ptrdiff_t>(m.first);
      if (!r.buffers.emplace(m.node->slot, Values(first, first + m.node->len)).second)
        throw UserError("two different BUFFERs use slot " + std::to_string(m.node->slot));
    }
    return r;
  }

 private:
  void compile() {
    const size_t n = p_.graph->size();
    UOPFUZZ_CHECK(order_.size() < kNoSlot);
    slot_.assign(n, kNoSlot);
    // Neither array is cleared: a value slot is always written (CONST here, others by their instruction)
    // before any instruction reads it, and the tape is as long as the instructions written.
    values_ = std::make_unique_for_overwrite<Scalar[]>(order_.size());
    tape_ = std::make_unique_for_overwrite<Instr[]>(order_.size());
    memories_.reserve(16);  // typical programs: a few memories of a few elements, so no regrowth
    cells_.reserve(256);
    written_.reserve(256);
    for (const UOp* b : p_.buffers) add_memory(b);
    for (uint32_t i = 0; i < order_.size(); ++i) tape_size_ += compile_node(order_[i], i, tape_[tape_size_]);
  }

  void add_memory(const UOp* m) {
    if (slot_[m->id] != kNoSlot) return;
    slot_[m->id] = static_cast<uint32_t>(memories_.size());
    memories_.push_back({m, cells_.size()});
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
        throw UserError("data " + std::to_string(m->slot) + ": " + std::to_string(data->second.size()) +
                        " values for " + memory_text(m));
      for (const Scalar v : data->second) cells_.push_back(normalize(m->dtype, v));
    }
    written_.resize(written_.size() + len, 1);  // a BUFFER's every element is defined
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
    if (op == Op::BUFFER || op == Op::ALLOC) {
      add_memory(u);
      return 0;
    }
    slot_[u->id] = at;
    switch (op) {
      case Op::CONST: values_[at] = u->value; return 0;
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
    in.mem = slot_[src[0]->base()->id];
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
    Scalar* v = values_.get();
    for (const Instr& in : std::span(tape_.get(), tape_size_)) {
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
            return Undefined{order_[in.at],
                             "INDEX " + std::to_string(a.i) + " out of bounds for " + memory_text(m.node)};
          v[in.at] = a;
          continue;
        }
        case kLoad: {
          const Memory& m = memories_[in.mem];
          const size_t i = static_cast<size_t>(a.i);
          if (!written_[m.first + i]) [[unlikely]]
            return Undefined{order_[in.at], "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " +
                                                std::to_string(i) + " before any STORE"};
          v[in.at] = cells_[m.first + i];
          continue;
        }
        case kStore: {
          const size_t cell = memories_[in.mem].first + static_cast<size_t>(a.i);
          cells_[cell] = b;
          written_[cell] = 1;
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
  // By node id: where its value lives; for a BUFFER or ALLOC (which has no value), its index in memories_.
  std::vector<uint32_t> slot_;
  std::vector<Memory> memories_;
  Values cells_;                  // every element of every memory
  std::vector<uint8_t> written_;  // per cell: defined yet (BUFFER cells always; ALLOC cells once stored)
  std::unique_ptr<Scalar[]> values_;  // one slot per node of the order
  std::unique_ptr<Instr[]> tape_;
  size_t tape_size_ = 0;
};

}  // namespace

RefResult interpret(const Program& p, const std::vector<const UOp*>& order) { return Machine(p, order).run(); }

RefResult interpret(const Program& p) { return interpret(p, linearize(p)); }

}  // namespace uf

// The interpreter: one pass over the order, each node evaluated when it is reached, then the BUFFERs.
//
// Why no tape: the fuzz loop interprets each program once, so compiling the order into instructions
// first only wrote and re-read a copy of it. What a random program costs is the dispatch, which the
// branch predictor mostly gets wrong. So a node's dispatch code comes from its op and dtype alone (one
// table), loaded one node ahead: after a mispredicted dispatch the next target is already known, not a
// chain of dependent loads away (that alone took 28 to 19 ns a node). Values live in an array by node id.
#include "interp/interp.h"

#include <array>
#include <memory>

#include "interp/alu_ops.h"

namespace uf {
namespace {

// One BUFFER or ALLOC for the duration of a call: its elements are cells [first, first + len) of the
// machine's one cell array.
struct Memory {
  const UOp* node;
  size_t first;
  int64_t len;
};

// Dispatch codes: 2*op for every op, 2*op + 1 for the float family of arithmetic ops. (An enum, not a
// plain uint8_t: char-typed stores may alias anything and would force reloads.)
enum Code : uint8_t {};
constexpr bool is_comparison(Op op) { return is_alu(op) && info(op).result == ResultRule::BOOL; }
// Ops whose result dtype tells the family; comparisons choose theirs by the operand, after dispatch.
constexpr bool family_by_result(Op op) { return alu::is_arith(op) && !is_comparison(op); }
constexpr bool has_int_family(Op op) { return alu::is_arith(op) && info(op).operands != OperandClass::FLOAT; }
constexpr bool has_float_family(Op op) {
  const OperandClass c = info(op).operands;
  return alu::is_arith(op) && c != OperandClass::INT && c != OperandClass::INT_BOOL;
}
constexpr Code int_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op)); }
constexpr Code float_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op) + 1); }

// The code of a node from its op and dtype: one table load, no branch.
// Rows of 16 so the index is a shift.
constexpr int kCodeRow = 16;
static_assert(kNumDTypes <= kCodeRow);
constexpr auto kCode = [] {
  std::array<Code, kNumOps * kCodeRow> t{};
  for (int o = 0; o < kNumOps; ++o)
    for (int d = 0; d < kNumDTypes; ++d) {
      const Op op = static_cast<Op>(o);
      t[o * kCodeRow + d] = family_by_result(op) && is_float(static_cast<DType>(d)) ? float_code(op) : int_code(op);
    }
  return t;
}();

std::string memory_text(const UOp* m) {
  return std::string(name(m->op)) + " " + name(m->dtype) + "[" + std::to_string(m->len) + "] slot=" +
         std::to_string(m->slot);
}

class Machine {
 public:
  Machine(const Program& p, const std::vector<const UOp*>& order) : p_(p), order_(order) {
    const size_t n = p_.graph->size();
    values_ = std::make_unique<Scalar[]>(n);  // zeroed: nodes without a value (STORE) are still read
    ran_.assign(n, 0);
    memories_.reserve(16);  // typical programs: a few memories of a few elements, so no regrowth
    cells_.reserve(256);
    written_.reserve(256);
    for (const UOp* b : p_.buffers) add_memory(b);
  }

  RefResult run() {
    RefResult r;
    r.undefined = execute();
    if (r.undefined) return r;
    for (const Memory& m : memories_) {
      if (m.node->op != Op::BUFFER) continue;
      const auto first = cells_.begin() + static_cast<ptrdiff_t>(m.first);
      if (!r.buffers.emplace(m.node->slot, Values(first, first + m.len)).second)
        throw UserError("two different BUFFERs use slot " + std::to_string(m.node->slot));
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

  std::optional<Undefined> execute() {
    Scalar* const v = values_.get();
    uint8_t* const ran = ran_.data();
    const size_t count = order_.size();
    const UOp* const* const order = order_.data();
    auto code_of = [](const UOp* u) { return kCode[static_cast<size_t>(u->op) * kCodeRow + static_cast<size_t>(u->dtype)]; };
    Code next = count ? code_of(order[0]) : Code{};
    for (size_t i = 0; i < count; ++i) {
      const UOp* const u = order[i];
      const Code code = next;
      // The next node's code, before this dispatch: when this one is mispredicted, the next is ready.
      next = code_of(order[i + 1 < count ? i + 1 : i]);
      // Big programs: the order visits the arena in an interleaving the hardware prefetcher does not
      // follow, so fetch the node (both lines of it and its sources) some way ahead.
      const char* const ahead = reinterpret_cast<const char*>(order[i + kAhead < count ? i + kAhead : i]);
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 64);
      const UOp* const* const s = u->operands3();
      const uint32_t i0 = s[0]->id, i1 = s[1]->id, i2 = s[2]->id;
      // A node without sources "reads" itself, which has not run: it takes this branch, and passes.
      if (!(ran[i0] & ran[i1] & ran[i2])) [[unlikely]] check_sources(u);
      const Scalar a = v[i0], b = v[i1], c = v[i2];
      const DType result = u->dtype, operand = s[0]->dtype;  // WHERE ignores `operand`
      AluResult r;
      switch (code) {
        // ALU ops: the table's own family functions, the op fixed at compile time. Each case stores its
        // own result, so the UNDEFINED check is only compiled where the op can be undefined.
#define OP(N, arity, dtypes, rule, flags)                                                          \
  case int_code(Op::N):                                                                           \
    if constexpr (is_comparison(Op::N))                                                           \
      r = kIsFloat[static_cast<int>(operand)] ? alu::float_op<Op::N>(result, a, b, c)             \
                                              : alu::int_op<Op::N>(result, operand, a, b, c);     \
    else if constexpr (has_int_family(Op::N)) r = alu::int_op<Op::N>(result, operand, a, b, c);   \
    else if constexpr (Op::N == Op::WHERE) r = alu::where(a, b, c);                               \
    else if constexpr (Op::N == Op::CAST) r = alu::cast(result, operand, a);                      \
    else if constexpr (Op::N == Op::BITCAST) r = alu::bitcast(result, operand, a);                \
    else goto not_alu;                                                                            \
    if (!r.defined()) [[unlikely]] goto undefined;                                                \
    v[u->id] = r.value;                                                                           \
    ran[u->id] = 1;                                                                               \
    continue;                                                                                     \
  case float_code(Op::N):                                                                         \
    if constexpr (has_float_family(Op::N) && !is_comparison(Op::N)) {                             \
      r = alu::float_op<Op::N>(result, a, b, c);                                                  \
      if (!r.defined()) [[unlikely]] goto undefined;                                              \
      v[u->id] = r.value;                                                                         \
      ran[u->id] = 1;                                                                             \
      continue;                                                                                   \
    }                                                                                             \
    __builtin_unreachable();
#include "core/ops.def"
#undef OP
        default: __builtin_unreachable();  // every code comes from kCode
      }
    not_alu:
      if (u->src.size() > 3) [[unlikely]] check_sources(u);  // variadic: beyond the three checked above
      switch (u->op) {
        case Op::CONST: v[u->id] = u->value; break;
        case Op::BUFFER:
        case Op::ALLOC: add_memory(u); continue;
        case Op::AFTER: v[u->id] = a; break;  // computes nothing: it is its first source
        case Op::SINK: break;
        case Op::INDEX: {  // an address's value is its cell; a memory's is its index in memories_
          const Memory& m = memories_[a.u];
          if (b.i < 0 || b.i >= m.len) [[unlikely]] {
            check_rest(i);
            return Undefined{u, "INDEX " + std::to_string(b.i) + " out of bounds for " + memory_text(m.node)};
          }
          v[u->id] = Scalar::of_uint(m.first + static_cast<size_t>(b.i));
          break;
        }
        case Op::LOAD:
          if (!written_[a.u]) [[unlikely]] {
            const Memory& m = memories_[v[u->src[0]->base()->id].u];
            check_rest(i);
            return Undefined{u, "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " +
                                    std::to_string(a.u - m.first) + " before any STORE"};
          }
          v[u->id] = cells_[a.u];
          break;
        case Op::STORE:
          cells_[a.u] = b;
          written_[a.u] = 1;
          break;
        default: UOPFUZZ_CHECK(!"a known op");
      }
      ran[u->id] = 1;
      continue;
    undefined: {
      const Scalar operands[3] = {a, b, c};
      check_rest(i);
      return Undefined{u, undefined_reason(u->op, result, operand, operands)};
    }
    }
    return std::nullopt;
  }

  static constexpr size_t kAhead = 16;
  static constexpr auto kIsFloat = [] {
    std::array<bool, kNumDTypes> t{};
    for (int i = 0; i < kNumDTypes; ++i) t[i] = is_float(static_cast<DType>(i));
    return t;
  }();

  const Program& p_;
  const std::vector<const UOp*>& order_;
  std::unique_ptr<Scalar[]> values_;  // by node id; BUFFER/ALLOC: index into memories_
  std::vector<uint8_t> ran_;          // by node id: evaluated (or declared memory) yet
  std::vector<Memory> memories_;
  Values cells_;                  // every element of every memory
  std::vector<uint8_t> written_;  // per cell: defined yet (BUFFER cells always; ALLOC cells once stored)
};

}  // namespace

RefResult interpret(const Program& p, const std::vector<const UOp*>& order) { return Machine(p, order).run(); }

RefResult interpret(const Program& p) { return interpret(p, linearize(p)); }

}  // namespace uf

// The interpreter: one pass over the order, each node evaluated when it is reached, then the BUFFERs.
//
// Why no tape: the fuzz loop interprets each program once, so compiling the order into instructions
// first only wrote and re-read a copy of it. What a random program costs is the dispatch, which the
// branch predictor mostly gets wrong. So a node's dispatch code comes from its op and dtype alone (one
// table), loaded one node ahead: after a mispredicted dispatch the next target is already known, not a
// chain of dependent loads away (that alone took 28 to 19 ns a node). Fewer distinct targets mispredict
// less, so the total ops of each family (alu_ops.h) share one code: computing the whole group and picking
// one costs less than the jump it replaces (17 ns a node, from 19). Values live in an array by node id.
#include "interp/interp.h"

#include <array>
#include <utility>

#include "interp/alu_ops.h"
#include "interp/machine.h"

namespace uf {
namespace interp_machine {
namespace {

// Dispatch codes: 2*op for every op, 2*op + 1 for the float family of arithmetic ops. (An enum, not a
// plain uint8_t: char-typed stores may alias anything and would force reloads.)
enum Code : uint8_t {};
// Ops whose result dtype tells the family; comparisons choose theirs by the operand, after dispatch.
constexpr bool family_by_result(Op op) { return alu::is_arith(op) && !is_comparison(op); }
constexpr bool has_int_family(Op op) { return alu::is_arith(op) && info(op).operands != OperandClass::FLOAT; }
constexpr bool has_float_family(Op op) {
  const OperandClass c = info(op).operands;
  return alu::is_arith(op) && c != OperandClass::INT && c != OperandClass::INT_BOOL;
}
constexpr Code int_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op)); }
constexpr Code float_code(Op op) { return static_cast<Code>(2 * static_cast<int>(op) + 1); }
// The total ops of each family share one code (alu_ops.h): all computed, one picked by op.
constexpr Code kIntTotal = static_cast<Code>(2 * kNumOps), kFloatTotal = static_cast<Code>(2 * kNumOps + 1);
// Every node with a vector result (lanes > 1) takes one separate, plain path (Machine::vector_node).
constexpr Code kVector = static_cast<Code>(2 * kNumOps + 2);
static_assert(2 * kNumOps + 2 <= UINT8_MAX);

// The code of a node from its op and dtype: one table load, no branch.
// Rows of 32 so the index is a shift.
constexpr int kCodeRow = 32;
static_assert(kNumDTypes <= kCodeRow);
constexpr auto kCode = [] {
  std::array<Code, kNumOps * kCodeRow> t{};
  for (int o = 0; o < kNumOps; ++o)
    for (int d = 0; d < kNumDTypes; ++d) {
      const Op op = static_cast<Op>(o);
      const bool is_float_family = family_by_result(op) && is_float(static_cast<DType>(d));
      if (is_float_family)
        t[o * kCodeRow + d] = alu::is_total_float(op) ? kFloatTotal : float_code(op);
      else
        t[o * kCodeRow + d] = alu::is_total_int(op) && family_by_result(op) ? kIntTotal : int_code(op);
    }
  return t;
}();
// A total op's position in its family's group, by op (-1: not total in that family).
template <size_t N>
constexpr std::array<int8_t, kNumOps> positions_by_op(const std::array<Op, N>& group) {
  std::array<int8_t, kNumOps> t{};
  for (int o = 0; o < kNumOps; ++o) t[o] = static_cast<int8_t>(alu::position(group, static_cast<Op>(o)));
  return t;
}
constexpr auto kIntTotalPosition = positions_by_op(alu::kTotalIntOps);
constexpr auto kFloatTotalPosition = positions_by_op(alu::kTotalFloatOps);

}  // namespace

std::optional<Undefined> Machine::execute(size_t from, size_t to) {
  Scalar* const v = values_;
  uint8_t* const ran = ran_;
  const size_t count = to;
  const UOp* const* const order = order_.data();
  auto code_of = [](const UOp* u) {
    const Code c = kCode[static_cast<size_t>(u->op) * kCodeRow + static_cast<size_t>(u->dtype)];
    return u->lanes > 1 ? kVector : c;
  };
  Code next = from < count ? code_of(order[from]) : Code{};
  for (size_t i = from; i < count; ++i) {
    const UOp* const u = order[i];
    const Code code = next;
    // The next node's code, before this dispatch: when this one is mispredicted, the next is ready.
    next = code_of(order[i + 1 < count ? i + 1 : i]);
    const UOp* const* const s = u->operands3();
    const uint32_t i0 = s[0]->id, i1 = s[1]->id, i2 = s[2]->id;
    // A node without sources "reads" itself, which has not run: it takes this branch, and passes.
    if (!(ran[i0] & ran[i1] & ran[i2])) [[unlikely]]
      check_sources(u);
    const Scalar a = v[i0], b = v[i1], c = v[i2];
    const DType result = u->dtype, operand = s[0]->dtype;  // WHERE ignores `operand`
    AluResult r;
    switch (code) {
      // ALU ops: the table's own family functions, the op fixed at compile time. Each case stores its
      // own result, so the UNDEFINED check is only compiled where the op can be undefined.
#define OP(N, arity, dtypes, rule, flags)                                                     \
  case int_code(Op::N):                                                                       \
    if constexpr (is_comparison(Op::N))                                                       \
      r = kIsFloat[static_cast<int>(operand)] ? alu::float_op<Op::N>(result, a, b, c)         \
                                              : alu::int_op<Op::N>(result, operand, a, b, c); \
    else if constexpr (has_int_family(Op::N))                                                 \
      r = alu::int_op<Op::N>(result, operand, a, b, c);                                       \
    else if constexpr (Op::N == Op::WHERE)                                                    \
      r = alu::where(a, b, c);                                                                \
    else if constexpr (Op::N == Op::CAST)                                                     \
      r = alu::cast(result, operand, a);                                                      \
    else if constexpr (Op::N == Op::BITCAST)                                                  \
      r = alu::bitcast(result, operand, a);                                                   \
    else                                                                                      \
      goto not_alu;                                                                           \
    if (!r.defined()) [[unlikely]]                                                            \
      goto undefined;                                                                         \
    v[u->id] = r.value;                                                                       \
    ran[u->id] = 1;                                                                           \
    continue;                                                                                 \
  case float_code(Op::N):                                                                     \
    if constexpr (has_float_family(Op::N) && !is_comparison(Op::N)) {                         \
      r = alu::float_op<Op::N>(result, a, b, c);                                              \
      if (!r.defined()) [[unlikely]]                                                          \
        goto undefined;                                                                       \
      v[u->id] = r.value;                                                                     \
      ran[u->id] = 1;                                                                         \
      continue;                                                                               \
    }                                                                                         \
    __builtin_unreachable();
#include "core/ops.def"
#undef OP
      case kIntTotal:
        v[u->id] = wrap_int(result, alu::pick_int_total(kIntTotalPosition[static_cast<size_t>(u->op)], is_signed(operand), a, b,
                                                        c, std::make_index_sequence<std::size(alu::kTotalIntOps)>()));
        ran[u->id] = 1;
        continue;
      case kFloatTotal:
        v[u->id] = Scalar::of_float(
            alu::round_to(result, alu::pick_float_total(kFloatTotalPosition[static_cast<size_t>(u->op)], a.f, b.f, c.f,
                                                        std::make_index_sequence<std::size(alu::kTotalFloatOps)>())));
        ran[u->id] = 1;
        continue;
      case kVector:
        if (u->src.size() > 3) [[unlikely]]
          check_sources(u);
        if (auto why = vector_node(u)) [[unlikely]] {
          check_rest(i);
          return Undefined{u, std::move(*why)};
        }
        ran[u->id] = 1;
        continue;
      default: __builtin_unreachable();  // every code comes from kCode
    }
  not_alu:
    if (u->src.size() > 3) [[unlikely]]
      check_sources(u);  // variadic: beyond the three checked above
    switch (u->op) {
      case Op::CONST: v[u->id] = u->value; break;
      case Op::BUFFER:
      case Op::ALLOC: add_memory(u); continue;
      case Op::AFTER: v[u->id] = a; break;  // computes nothing: it is its first source
      case Op::SINK: break;
      case Op::RANGE:  // the loop, all its iterations; then on after its body
        if (auto why = run_loop(i)) return why;
        i = loops_.body_end[i] - 1;
        next = code_of(order[i + 1 < count ? i + 1 : i]);
        continue;
      case Op::END: break;  // its loops have run
      case Op::INDEX: {     // an address's value is its cell; a memory's is its index in memories_
        const Memory& m = memories_[a.u];
        if (b.i < 0 || b.i >= m.len) [[unlikely]] {
          if (!gated_only_.empty() && gated_only_[u->id]) {
            v[u->id] = Scalar::of_uint(kNoCell);
            break;
          }
          const UOp* mem = m.node;  // check_rest adds later memories: `m` may dangle after it
          check_rest(i);
          return Undefined{u, "INDEX " + std::to_string(b.i) + " out of bounds for " + memory_text(mem)};
        }
        v[u->id] = Scalar::of_uint(m.first + static_cast<size_t>(b.i));
        break;
      }
      case Op::LOAD:
        if (u->src.size() == 3) [[unlikely]] {  // gated: alt when the gate is false, the address unused
          if (!c.u) {
            v[u->id] = b;
            break;
          }
          if (a.u == kNoCell) return out_of_bounds(i);
        }
        if (!independent_.empty()) [[unlikely]]
          if (auto why = note_access(a.u, 1, false)) {
            check_rest(i);
            return Undefined{u, std::move(*why)};
          }
        if (!written_[a.u]) [[unlikely]] {
          const Memory& m = memories_[v[u->src[0]->base()->id].u];
          check_rest(i);
          return Undefined{u, "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " + std::to_string(a.u - m.first) +
                                  " before any STORE"};
        }
        v[u->id] = cells_[a.u];
        break;
      case Op::STORE:
        if (u->src[1]->lanes > 1) [[unlikely]] {
          if (auto why = vector_store(u)) {
            check_rest(i);
            return Undefined{u, std::move(*why)};
          }
          break;
        }
        if (u->src.size() == 3) [[unlikely]] {  // gated: nothing happens when the gate is false
          if (!c.u) break;
          if (a.u == kNoCell) return out_of_bounds(i);
        }
        if (!independent_.empty()) [[unlikely]]
          if (auto why = note_access(a.u, 1, true)) {
            check_rest(i);
            return Undefined{u, std::move(*why)};
          }
        cells_[a.u] = b;
        written_[a.u] = 1;
        if (records_approx_) [[unlikely]] note_origin(a.u, u->src[1]);
        break;
      case Op::GEP: v[u->id] = vec_lanes_[a.u + static_cast<size_t>(u->value.i)]; break;
      default: UOPFUZZ_CHECK(!"a known op");
    }
    ran[u->id] = 1;
    continue;
  undefined : {
    const Scalar operands[3] = {a, b, c};
    check_rest(i);
    return Undefined{u, undefined_reason(u->op, result, operand, operands)};
  }
  }
  return std::nullopt;
}

}  // namespace interp_machine

RefResult interpret(const Program& p, const std::vector<const UOp*>& order, const Limits& limits) {
  return interp_machine::Machine(p, order, nullptr, limits).run();
}

RefResult interpret(const Program& p, const Analysis& a, const Limits& limits) {
  return interp_machine::Machine(p, a.order, &a.loops, limits).run();
}

RefResult interpret(const Program& p, const Limits& limits) { return interpret(p, linearize(p), limits); }

}  // namespace uf

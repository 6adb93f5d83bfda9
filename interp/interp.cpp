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

#include "core/loops.h"
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
      if (is_float_family) t[o * kCodeRow + d] = alu::is_total_float(op) ? kFloatTotal : float_code(op);
      else t[o * kCodeRow + d] = alu::is_total_int(op) && family_by_result(op) ? kIntTotal : int_code(op);
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

std::string memory_text(const UOp* m) {
  return std::string(name(m->op)) + " " + name(m->dtype) + "[" + std::to_string(m->len) + "] slot=" +
         std::to_string(m->slot);
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

// The cell value of an address whose index is out of bounds but which only gated accesses use: not
// UNDEFINED until an access with a true gate uses it.
constexpr uint64_t kNoCell = UINT64_MAX;

bool has_loops_or_gates(const std::vector<const UOp*>& order) {
  for (const UOp* u : order)
    if (u->op == Op::RANGE || ((u->op == Op::LOAD || u->op == Op::STORE) && u->src.size() == 3)) return true;
  return false;
}

class Machine {
 public:
  Machine(const Program& p, const std::vector<const UOp*>& order)
      : p_(p), loops_(has_loops_or_gates(order) ? analyze_loops(p, order) : Loops{}),
        order_(loops_.any() ? loops_.schedule : order), arrays_(p.graph->size()), values_(arrays_.values()),
        ran_(arrays_.ran()) {
    if (!loops_.schedule.empty()) mark_gated_only_addresses();
    memories_.reserve(16);  // typical programs: a few memories of a few elements, so no regrowth
    cells_.reserve(256);
    written_.reserve(256);
    for (const UOp* b : p_.buffers) add_memory(b);
  }

  RefResult run() {
    RefResult r;
    r.undefined = execute(0, order_.size());
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

  // Runs order_[from, to): the whole program, or one iteration of a loop body (run_loop).
  std::optional<Undefined> execute(size_t from, size_t to) {
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
        case kIntTotal:
          v[u->id] = wrap_int(result, alu::pick_int_total(kIntTotalPosition[static_cast<size_t>(u->op)],
                                                          is_signed(operand), a, b, c,
                                                          std::make_index_sequence<std::size(alu::kTotalIntOps)>()));
          ran[u->id] = 1;
          continue;
        case kFloatTotal:
          v[u->id] = Scalar::of_float(alu::round_to(
              result, alu::pick_float_total(kFloatTotalPosition[static_cast<size_t>(u->op)], a.f, b.f, c.f,
                                            std::make_index_sequence<std::size(alu::kTotalFloatOps)>())));
          ran[u->id] = 1;
          continue;
        case kVector:
          if (u->src.size() > 3) [[unlikely]] check_sources(u);
          if (auto why = vector_node(u)) [[unlikely]] {
            check_rest(i);
            return Undefined{u, std::move(*why)};
          }
          ran[u->id] = 1;
          continue;
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
        case Op::RANGE:  // the loop, all its iterations; then on after its body
          if (auto why = run_loop(i)) return why;
          i = loops_.body_end[i] - 1;
          next = code_of(order[i + 1 < count ? i + 1 : i]);
          continue;
        case Op::END: break;  // its loops have run
        case Op::INDEX: {  // an address's value is its cell; a memory's is its index in memories_
          const Memory& m = memories_[a.u];
          if (b.i < 0 || b.i >= m.len) [[unlikely]] {
            if (!gated_only_.empty() && gated_only_[u->id]) {
              v[u->id] = Scalar::of_uint(kNoCell);
              break;
            }
            check_rest(i);
            return Undefined{u, "INDEX " + std::to_string(b.i) + " out of bounds for " + memory_text(m.node)};
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
          if (!written_[a.u]) [[unlikely]] {
            const Memory& m = memories_[v[u->src[0]->base()->id].u];
            check_rest(i);
            return Undefined{u, "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " +
                                    std::to_string(a.u - m.first) + " before any STORE"};
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
          cells_[a.u] = b;
          written_[a.u] = 1;
          break;
        case Op::GEP: v[u->id] = vec_lanes_[a.u + static_cast<size_t>(u->value.i)]; break;
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

  // One loop: the body order_[at + 1, body_end) once per iteration, in increasing order. A loop that runs
  // no iteration still counts its body as run (nothing outside the loop reads its values).
  [[gnu::noinline]] std::optional<Undefined> run_loop(size_t at) {
    const UOp* r = order_[at];
    const size_t body = at + 1, end = loops_.body_end[at];
    const Scalar n = values_[r->src[0]->id];
    const int64_t trips = is_signed(r->dtype) ? n.i : static_cast<int64_t>(std::min<uint64_t>(n.u, INT64_MAX));
    ran_[r->id] = 1;
    if (trips <= 0) {
      for (size_t i = body; i < end; ++i) {
        if (order_[i]->op == Op::BUFFER || order_[i]->op == Op::ALLOC) add_memory(order_[i]);
        ran_[order_[i]->id] = 1;
      }
      return std::nullopt;
    }
    iterations_.push_back({r, 0});
    for (int64_t k = 0; k < trips; ++k) {
      values_[r->id] = Scalar::of_int(k);  // k >= 0: the same bits for an unsigned RANGE
      iterations_.back().second = k;
      if (auto why = execute(body, end)) {
        if (!iteration_noted_) {  // the innermost loop sees every enclosing iteration
          iteration_noted_ = true;
          std::string where;
          for (const auto& [range, i] : iterations_)
            where += (where.empty() ? "" : ", ") + p_.node_name(range, &order_) + " = " + std::to_string(i);
          why->reason += " (in iteration " + where + ")";
        }
        return why;
      }
    }
    iterations_.pop_back();
    return std::nullopt;
  }

  // An access with a true gate through an address out of bounds (kNoCell) at order_[i].
  Undefined out_of_bounds(size_t i) {
    const UOp* u = order_[i];
    const UOp* index = u->src[0]->index_node();
    const Memory& m = memory_of(u->src[0]);
    check_rest(i);
    return Undefined{u, "INDEX " + std::to_string(values_[index->src[1]->id].i) + " out of bounds for " + memory_text(m.node)};
  }

  // INDEX nodes (and AFTERs of them) whose only users are gated accesses, as their address: their index is
  // checked by the access, when its gate is true (docs/semantics.md, gated memory).
  void mark_gated_only_addresses() {
    std::vector<uint8_t> other_use(p_.graph->size(), 0);
    bool any_gated = false;
    for (size_t i = order_.size(); i-- > 0;) {
      const UOp* u = order_[i];
      any_gated |= u->is_gated();
      for (size_t k = 0; k < u->src.size(); ++k) {
        const UOp* s = u->src[k];
        if (!s->is_memory() || s->rank != 0) continue;
        const bool passes = k == 0 && (u->is_gated() || (u->op == Op::AFTER && !other_use[u->id]));
        if (!passes) other_use[s->id] = 1;
      }
    }
    if (!any_gated) return;
    gated_only_.assign(p_.graph->size(), 0);
    for (const UOp* u : order_)
      if (u->op == Op::INDEX && !other_use[u->id]) gated_only_[u->id] = 1;
  }

  // Vectors, lane by lane (docs/semantics.md): a vector node's value is the offset of its lanes in
  // vec_lanes_. Off the scalar path on purpose: readable, and a scalar program never comes here.
  // Returns the reason when the node is UNDEFINED.
  [[gnu::noinline]] std::optional<std::string> vector_node(const UOp* u) {
    const size_t n = u->lanes, out = vec_lanes_.size();
    vec_lanes_.resize(out + n);
    values_[u->id] = Scalar::of_uint(out);
    switch (u->op) {
      case Op::CONST:
        for (size_t k = 0; k < n; ++k) vec_lanes_[out + k] = u->value;
        return std::nullopt;
      case Op::STACK:
        for (size_t k = 0; k < n; ++k) vec_lanes_[out + k] = values_[u->src[k]->id];
        return std::nullopt;
      case Op::LOAD: {
        const size_t cell = values_[u->src[0]->id].u;
        const Memory& m = memory_of(u->src[0]);
        if (cell + n > m.first + static_cast<size_t>(m.len))
          return "LOAD of " + std::to_string(n) + " lanes at element " + std::to_string(cell - m.first) +
                 " out of bounds for " + memory_text(m.node);
        for (size_t k = 0; k < n; ++k) {
          if (!written_[cell + k])
            return "LOAD of ALLOC slot " + std::to_string(m.node->slot) + " element " + std::to_string(cell + k - m.first) +
                   " before any STORE";
          vec_lanes_[out + k] = cells_[cell + k];
        }
        return std::nullopt;
      }
      default: break;
    }
    UOPFUZZ_CHECK(is_alu(u->op));
    const DType operand = u->op == Op::WHERE ? u->src[1]->dtype : u->src[0]->dtype;
    for (size_t k = 0; k < n; ++k) {
      Scalar ops[3] = {};
      for (size_t j = 0; j < u->src.size(); ++j) ops[j] = vec_lanes_[values_[u->src[j]->id].u + k];
      const AluResult r = exec_alu(u->op, u->dtype, operand, ops);
      if (!r.defined()) return undefined_reason(u->op, u->dtype, operand, ops) + " (lane " + std::to_string(k) + ")";
      vec_lanes_[out + k] = r.value;
    }
    return std::nullopt;
  }

  [[gnu::noinline]] std::optional<std::string> vector_store(const UOp* u) {
    const size_t cell = values_[u->src[0]->id].u, n = u->src[1]->lanes, from = values_[u->src[1]->id].u;
    const Memory& m = memory_of(u->src[0]);
    if (cell + n > m.first + static_cast<size_t>(m.len))
      return "STORE of " + std::to_string(n) + " lanes at element " + std::to_string(cell - m.first) +
             " out of bounds for " + memory_text(m.node);
    for (size_t k = 0; k < n; ++k) {
      cells_[cell + k] = vec_lanes_[from + k];
      written_[cell + k] = 1;
    }
    return std::nullopt;
  }

  const Memory& memory_of(const UOp* addr) const { return memories_[values_[addr->base()->id].u]; }

  static constexpr auto kIsFloat = [] {
    std::array<bool, kNumDTypes> t{};
    for (int i = 0; i < kNumDTypes; ++i) t[i] = is_float(static_cast<DType>(i));
    return t;
  }();

  const Program& p_;
  const Loops loops_;                      // empty for a program without loops or gated accesses
  const std::vector<const UOp*>& order_;   // the schedule (loops_.schedule) or the caller's order
  std::vector<uint8_t> gated_only_;        // by node id: an INDEX only gated accesses use (empty: none)
  std::vector<std::pair<const UOp*, int64_t>> iterations_;  // the loops running, outermost first
  bool iteration_noted_ = false;
  NodeArraysLease arrays_;
  Scalar* const values_;  // arrays_.values()
  uint8_t* const ran_;    // arrays_.ran()
  std::vector<Memory> memories_;
  Values cells_;                  // every element of every memory
  std::vector<uint8_t> written_;  // per cell: defined yet (BUFFER cells always; ALLOC cells once stored)
  Values vec_lanes_;              // the lanes of every vector node, one run of `lanes` per node
};

}  // namespace

RefResult interpret(const Program& p, const std::vector<const UOp*>& order) { return Machine(p, order).run(); }

RefResult interpret(const Program& p) { return interpret(p, linearize(p)); }

}  // namespace uf

// The Loop step: a kernel over fresh BUFFERs, in tinygrad's shapes (docs/semantics.md, "Loops").
//
// A loop nest of depth 1..3 (trip counts from kTripCounts, some loaded from a BUFFER at run time) with
// the flat index j = (r0*W1 + r1)*W2 + r2, reading an input at j, j+k, j // K, j % K, S*(j+k),
// (j // K + k) // (k+1), padded through a gated LOAD or masked after the load, and either mapping into an
// output (some stores gated), into the buffer it reads (a[j] = f(a[j+k])), or reducing into an
// accumulator (sum, max, product), in a nest once per outer iteration.
//
// Scope: a value computed inside a loop never escapes it. The value pools are truncated when a loop is
// closed, and operands inside a loop never load from earlier memories (their accesses would have to be
// ordered after the loop, through values of the loop). What a later step sees of a loop is its output
// BUFFER, with the loop's END recorded as a store at a computed index, so access() orders later
// accesses after the END (AFTER(buf, END)). Loaded data gets full facts: `--inputs` replaces it.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

constexpr int64_t kDivisors[] = {2, 3, 4, 5, 7, 8, 16};
constexpr int64_t kBigTrips[] = {32, 64, 128, 256};  // p_big_nest: a real workload's axes
constexpr int64_t kMaxScaledReach = 512;  // a nest of more iterations reads at an offset instead of a stride

// The stride S of a Scaled read S*(j+k): 2 or 3.
int64_t scale_of(int64_t K) { return 2 + K % 2; }

// The elements a read of shape r needs, for a flat index in 0..P-1.
int64_t read_len(LoopRead r, int64_t P, int64_t k, int64_t K) {
  switch (r) {
    case LoopRead::Offset: return P + k;
    case LoopRead::Div: return (P - 1) / K + 1;
    case LoopRead::Mod: return K;
    case LoopRead::Scaled: return scale_of(K) * (P - 1 + k) + 1;
    case LoopRead::DivOfDiv: return ((P - 1) / K + k) / (k + 1) + 1;
    default: return P;  // Flat, and the padded reads (out of bounds only where the gate is false)
  }
}

Scalar identity(Op op, DType d) {
  if (op == Op::MUL) return normalize(d, is_float(d) ? Scalar::of_float(1.0) : Scalar::of_int(1));
  if (op == Op::MAX && is_float(d)) return normalize(d, Scalar::of_float(-float_max(d)));
  if (op == Op::MAX) return normalize(d, Scalar::of_int(static_cast<int64_t>(dtype_range(d).lo)));
  return Scalar::zero();
}

}  // namespace

Gen::PoolMark Gen::mark_pools() const {
  PoolMark m{{}, values_.size(), vectors_.size()};
  for (const auto& p : pool_) m.pool.push_back(p.size());
  return m;
}

void Gen::truncate_pools(const PoolMark& m) {
  for (size_t d = 0; d < pool_.size(); ++d) pool_[d].resize(std::min(pool_[d].size(), m.pool[d]));
  values_.resize(std::min(values_.size(), m.values));
  vectors_.resize(std::min(vectors_.size(), m.vectors));
}

const UOp* Gen::fresh_buffer(DType d, int64_t len, bool output) {
  const int64_t slot = next_buffer_slot_++;
  const UOp* b = note(g.memory(Op::BUFFER, d, len, slot));
  prog.buffers.push_back(b);
  prog.data[slot] = buffer_data(d, len, !output || rng.chance(pol.p_random_output_data));
  Memory m;
  m.mem = b;
  m.output = output;
  m.elem.assign(static_cast<size_t>(len), full_facts(d));  // sound for every data set
  m.written.assign(static_cast<size_t>(len), 1);
  mems_.push_back(std::move(m));
  return b;
}

const UOp* Gen::loop_range(int64_t trips, const UOp* runtime_end, RangeKind kind) {
  const UOp* r = note(g.range(runtime_end ? runtime_end : i32(trips), next_axis_++, std::nullopt, kind));
  facts(r) = Facts{.ints = {0, std::max<int64_t>(trips - 1, 0)}};
  return r;
}

// j = (r0*W1 + r1)*W2 + r2: every combination of the ranges gets its own j in 0 .. W0*W1*W2 - 1.
const UOp* Gen::flat_index(std::span<const UOp* const> ranges, std::span<const int64_t> widths) {
  if (ranges.empty()) return i32(0);
  const UOp* j = ranges[0];
  for (size_t l = 1; l < ranges.size(); ++l) j = make(Op::ADD, {make(Op::MUL, {j, i32(widths[l])}), ranges[l]});
  return j;
}

// f(first, ...): the loaded value through a few ALU ops (operands: values of the loop and loop-invariant
// ones), the flat index mixed in, unused values of the body folded in, cast to `to`.
const UOp* Gen::loop_body_value(const UOp* first, DType to, const UOp* flat) {
  const size_t since = values_.size();
  const UOp* v = first;
  if (rng.chance(pol.p_range_operand)) v = combine(v->dtype, v, flat->dtype == v->dtype ? flat : cast_to(flat, v->dtype));
  const int64_t n = rng.range(pol.min_loop_ops, std::max(pol.min_loop_ops, pol.max_loop_ops));
  for (int64_t i = 0; i < n; ++i) {
    const UOp* next = alu_on(v);
    if (!next) break;
    v = next;
  }
  int folded = 0;
  for (size_t i = since; i < values_.size() && folded < pol.max_folded_loop_values; ++i) {
    const UOp* u = values_[i];
    if (u == v || uses_[u->id] != 0) continue;
    v = combine(v->dtype, v, u->dtype == v->dtype ? u : cast_to(u, v->dtype));
    ++folded;
  }
  return v->dtype == to ? v : cast_to(v, to);
}

const UOp* Gen::close_loops(const UOp* effect, std::span<const UOp* const> ranges) {
  if (ranges.empty()) return effect;
  if (ranges.size() == 1 || rng.chance(pol.p_end_each)) {
    for (size_t l = ranges.size(); l-- > 0;) effect = make(Op::END, {effect, ranges[l]});
    return effect;
  }
  std::vector<const UOp*> src{effect};
  src.insert(src.end(), ranges.begin(), ranges.end());
  return make(Op::END, src);
}

// The shape of a loop, drawn first: nest, trip counts, kind, dtype, reads and write. Null when the
// program's iteration budget is spent. The plan's iterations are charged to the budget.
std::optional<LoopPlan> Gen::draw_loop_plan() {
  const bool big = !big_nest_drawn_ && rng.chance(pol.p_big_nest);
  const int64_t budget = big ? pol.max_big_nest_iterations : pol.max_loop_iterations - loop_iterations_;
  if (budget < 1) return std::nullopt;
  LoopPlan plan;
  const int depth = std::max(0, rng.weighted(pol.loop_depth_weight)) + 1;
  plan.trips.resize(depth);
  int64_t cost = 0;
  for (int tries = 0; tries < 8; ++tries) {
    cost = 0;
    int64_t prod = 1;
    for (int l = 0; l < depth; ++l) {
      plan.trips[l] = big ? rng.pick(kBigTrips) : kTripCounts[std::max(0, rng.weighted(pol.trip_weight))];
      prod *= plan.trips[l];
      cost += prod;
    }
    if (cost <= budget) break;
  }
  if (cost > budget) {
    std::fill(plan.trips.begin(), plan.trips.end(), 1);
    cost = depth;
    if (cost > budget) return std::nullopt;
  }
  if (big) big_nest_drawn_ = true;
  else loop_iterations_ += cost;
  for (int64_t t : plan.trips) plan.P *= plan.widths.emplace_back(std::max<int64_t>(t, 1));

  plan.kind = static_cast<LoopKind>(std::max(0, rng.weighted(pol.loop_kind_weight)));
  auto reducible = [this](DType t) {
    for (Op op : kReduceOps)
      if (usable(op, t)) return true;
    return false;
  };
  if (plan.kind == LoopKind::Reduce && !reducible(DType::F32) && !reducible(DType::I32)) plan.kind = LoopKind::Map;
  const bool reduce = plan.kind == LoopKind::Reduce;
  plan.d = reduce ? pick_dtype(reducible) : pick_dtype([](DType) { return true; });
  plan.s = !reduce ? depth : depth > 1 && rng.chance(pol.p_reduce_inner) ? static_cast<int>(rng.range(1, depth - 1)) : 0;
  for (int l = 0; l < plan.s; ++l) plan.P_out *= plan.widths[l];

  auto draw_read = [&] {
    LoopAccess a{static_cast<LoopRead>(std::max(0, rng.weighted(pol.loop_read_weight))),
                 rng.range(1, std::max(1, pol.max_loop_offset)), rng.pick(kDivisors)};
    if (a.shape == LoopRead::Scaled && plan.P > kMaxScaledReach) a.shape = LoopRead::Offset;  // a small input
    return a;
  };
  plan.reads.push_back(draw_read());
  if (rng.chance(pol.p_second_read)) plan.reads.push_back(draw_read());
  for (const LoopAccess& r : plan.reads) plan.in_len = std::max(plan.in_len, read_len(r.shape, plan.P, r.k, r.K));
  plan.write.K = rng.pick(kDivisors);
  if (plan.kind == LoopKind::Map && rng.chance(pol.p_loop_write_div))
    plan.write.shape = rng.chance(pol.p_write_div) ? LoopRead::Div : LoopRead::Mod;
  plan.gated_store = !reduce || plan.s > 0 ? rng.chance(pol.p_gated_store) : false;
  plan.kinds = rng.chance(pol.p_loop_kinds);
  return plan;
}

// Trip counts loaded at run time (clamped into 0..N) and the loop's BUFFERs and accumulator: straight-line
// values, made before the loops.
LoopMemories Gen::loop_memories(const LoopPlan& plan) {
  LoopMemories mem;
  mem.ends.assign(plan.trips.size(), nullptr);
  for (int l = 0; l < plan.depth(); ++l) {
    if (plan.trips[l] < 1 || !rng.chance(pol.p_runtime_trips)) continue;
    fresh_buffer(DType::I32, 1, false);
    const UOp* x = load(mems_.back(), i32(0));
    mem.ends[l] = clamp_index(x, plan.trips[l] + 1);
  }
  if (plan.kind == LoopKind::SameBuffer) {
    mem.out = mem.in = fresh_buffer(plan.d, std::max(plan.in_len, plan.P), true);
    mem.out_mem = &mems_.back();
  } else {
    mem.in = fresh_buffer(plan.d, plan.in_len, false);
    if (plan.kind == LoopKind::Map || plan.s > 0) {
      const int64_t len = plan.kind == LoopKind::Map ? read_len(plan.write.shape, plan.P, 0, plan.write.K) : plan.P_out;
      mem.out = fresh_buffer(plan.d, len, true);
      mem.out_mem = &mems_.back();
    }
  }
  if (plan.kind == LoopKind::Reduce && pol.allow_alloc) mem.acc = note(g.memory(Op::ALLOC, plan.d, 1, next_alloc_slot_++));
  if (plan.kind == LoopKind::Reduce && !pol.allow_alloc) {  // --without alloc: a BUFFER no other step touches
    mem.acc = fresh_buffer(plan.d, 1, true);
    mems_.pop_back();
  }
  return mem;
}

// The RANGEs (an accumulator initialised between the outer levels and the reduced ones), the flat index,
// the loads and the body's value.
LoopNest Gen::open_loops(const LoopPlan& plan, const LoopMemories& mem, PoolMark& outer) {
  LoopNest nest;
  const bool alloc_acc = mem.acc && mem.acc->op == Op::ALLOC;
  for (int l = 0; l < plan.s; ++l) nest.ranges.push_back(loop_range(plan.trips[l], mem.ends[l], plan.level_kind(l, alloc_acc)));
  outer = mark_pools();
  const bool can_mask = !banned(Op::WHERE) && !banned(Op::CMPLT);  // --without OP bans it here too
  // An arange or a gather is a sum (tinygrad folds only ADD reductions of them): drawn first, it fixes the op.
  const bool arange = mem.acc && can_mask && !banned(Op::AND) && !banned(Op::CMPNE) && rng.chance(pol.p_arange);
  const bool gather = can_mask && !banned(Op::CMPNE) && rng.chance(pol.p_one_hot);
  if (mem.acc) {
    std::vector<Op> ops;
    for (Op op : kReduceOps)
      if (usable(op, plan.d)) ops.push_back(op);
    nest.rop = (arange || gather) && usable(Op::ADD, plan.d) ? Op::ADD : rng.pick(ops);
    const UOp* v = rng.chance(pol.p_identity_init) ? constant(plan.d, identity(nest.rop, plan.d)) : operand(plan.d);
    // In a nest the accumulator is initialised once per outer iteration: AFTER(acc, outer range).
    const UOp* at = plan.s > 0 ? make(Op::AFTER, {mem.acc, nest.ranges.back()}) : mem.acc;
    nest.init = make(Op::STORE, {make(Op::INDEX, {at, i32(0)}), v});
  }
  for (int l = plan.s; l < plan.depth(); ++l)
    nest.ranges.push_back(loop_range(plan.trips[l], mem.ends[l], plan.level_kind(l, alloc_acc)));
  nest.j = flat_index(nest.ranges, plan.widths);
  std::vector<const UOp*> loaded;
  for (const LoopAccess& r : plan.reads) {
    const UOp* gate = nullptr;
    const UOp* addr = make(Op::INDEX, {mem.in, loop_index(r, mem.in->len, nest.j, &gate)});
    loaded.push_back(gate ? make(Op::LOAD, {addr, operand(plan.d), gate}) : make(Op::LOAD, {addr}));
    if (r.shape == LoopRead::Masked && can_mask) loaded.back() = masked(loaded.back(), nest.j, plan.P, r.k);
  }
  const UOp* first = loaded.size() > 1 ? combine(plan.d, loaded[0], loaded[1]) : loaded[0];
  if (can_mask && usable(Op::ADD, plan.d) && rng.chance(pol.p_masked_term))
    first = make(Op::ADD, {first, masked(operand(plan.d), nest.j, plan.P, plan.reads[0].k)});
  nest.f = loop_body_value(first, plan.d, nest.j);
  if (gather) nest.f = one_hot(nest.f, nest.ranges.back());
  if (arange) nest.f = arange_term(plan, nest);
  return nest;
}

// Shape a's index at j in a spelling that tinygrad's symbolic rules rewrite (`uop/symbolic.py`: (x//c1)//c2,
// (x%y)%y, (y+x)+x*c and (y+x*c)+x, x//-1), else null: j // (a*b) as (j // a) // b, j % K as (j % K) % K,
// S*(j+k) as (S*k + j) + j*(S-1) or (S*k + j*(S-1)) + j, and a flat access reversed, (len-1) + j // -1.
const UOp* Gen::spelled_index(const LoopAccess& a, int64_t len, const UOp* j) {
  switch (a.shape) {
    case LoopRead::Flat: return make(Op::ADD, {i32(len - 1), make(Op::FLOORDIV, {j, i32(-1)})});
    case LoopRead::Div:
      if (a.K % 2 != 0 || a.K == 2) return nullptr;
      return make(Op::FLOORDIV, {make(Op::FLOORDIV, {j, i32(2)}), i32(a.K / 2)});
    case LoopRead::Mod: return make(Op::FLOORMOD, {make(Op::FLOORMOD, {j, i32(a.K)}), i32(a.K)});
    case LoopRead::Scaled: {
      const int64_t S = scale_of(a.K);
      const UOp* rest = make(Op::MUL, {j, i32(S - 1)});
      return a.k % 2 ? make(Op::ADD, {make(Op::ADD, {i32(S * a.k), j}), rest})  // the offset picks the spelling
                     : make(Op::ADD, {make(Op::ADD, {i32(S * a.k), rest}), j});
    }
    default: return nullptr;
  }
}

// The index of a read (or a map's write) of shape a at flat index j; a padded one sets *gate.
const UOp* Gen::loop_index(const LoopAccess& a, int64_t len, const UOp* j, const UOp** gate) {
  const UOp* x = j;
  if (rng.chance(pol.p_index_spelling))
    if (const UOp* spelled = spelled_index(a, len, j)) return clamp_index(spelled, len);
  switch (a.shape) {
    case LoopRead::Offset: x = make(Op::ADD, {j, i32(a.k)}); break;
    case LoopRead::Div: x = make(Op::FLOORDIV, {j, i32(a.K)}); break;
    case LoopRead::Mod: x = make(Op::FLOORMOD, {j, i32(a.K)}); break;
    case LoopRead::Scaled: x = make(Op::MUL, {i32(scale_of(a.K)), make(Op::ADD, {j, i32(a.k)})}); break;
    case LoopRead::DivOfDiv:
      x = make(Op::FLOORDIV, {make(Op::ADD, {make(Op::FLOORDIV, {j, i32(a.K)}), i32(a.k)}), i32(a.k + 1)});
      break;
    case LoopRead::PadAfter:
      x = make(Op::ADD, {j, i32(a.k)});
      *gate = make(Op::CMPLT, {x, i32(len)});
      return x;
    case LoopRead::PadBefore:
      x = make(Op::SUB, {j, i32(a.k)});
      *gate = rng.chance(pol.p_pad_gate_on_index) ? make(Op::CMPLT, {i32(a.k - 1), j}) : make(Op::CMPLT, {i32(-1), x});
      return x;
    default: break;
  }
  return clamp_index(x, len);  // in bounds already, but the facts prove it
}

// The store of v to the output at idx_flat (the body's j: the plan's write shape), closing `ranges`.
const UOp* Gen::loop_store(const LoopPlan& plan, const LoopMemories& mem, const LoopNest& nest, const UOp* idx_flat, const UOp* v,
                           std::span<const UOp* const> ranges) {
  const UOp* gate = nullptr;
  const UOp* idx = idx_flat == nest.j ? loop_index(plan.write, mem.out->len, nest.j, &gate) : clamp_index(idx_flat, mem.out->len);
  if (plan.gated_store) {
    if (rng.chance(pol.p_padded_store)) {  // a padded write: out of bounds where the gate is false
      idx = make(Op::ADD, {idx, i32(rng.range(0, std::max(1, pol.max_loop_offset)))});
      gate = make(Op::CMPLT, {idx, i32(mem.out->len)});
    } else {
      gate = make(Op::CMPNE, {make(Op::FLOORMOD, {ranges.back(), i32(rng.pick(kDivisors))}), i32(0)});
    }
  }
  const UOp* addr = make(Op::INDEX, {mem.out, idx});
  const UOp* st = gate ? make(Op::STORE, {addr, v, gate}) : make(Op::STORE, {addr, v});
  return close_loops(st, ranges);
}

std::pair<const UOp*, const UOp*> Gen::reduce_loop(const LoopPlan& plan, const LoopMemories& mem, const LoopNest& nest,
                                                   const PoolMark& outer) {
  const std::span<const UOp* const> inner(nest.ranges.begin() + plan.s, nest.ranges.end());
  std::vector<const UOp*> src{mem.acc, nest.init};
  src.insert(src.end(), inner.begin(), inner.end());
  const UOp* at = make(Op::INDEX, {make(Op::AFTER, src), i32(0)});
  const UOp* old = make(Op::LOAD, {at});
  const UOp* upd = rng.chance(pol.p_acc_old_first) ? make(nest.rop, {old, nest.f}) : make(nest.rop, {nest.f, old});
  const UOp* inner_end = close_loops(make(Op::STORE, {at, upd}), inner);
  truncate_pools(outer);
  const UOp* fin = make(Op::LOAD, {make(Op::INDEX, {make(Op::AFTER, {mem.acc, inner_end}), i32(0)})});
  if (plan.s == 0) return {nullptr, fin};
  const std::span<const UOp* const> outs(nest.ranges.begin(), nest.ranges.begin() + plan.s);
  const UOp* v = rng.chance(pol.p_combine_reduction) ? combine(plan.d, fin, operand(plan.d)) : fin;
  return {loop_store(plan, mem, nest, flat_index(outs, plan.widths), v, outs), nullptr};
}

void Gen::loop_step() {
  const std::optional<LoopPlan> plan = draw_loop_plan();
  if (!plan) return;
  const LoopMemories mem = loop_memories(*plan);
  const PoolMark outside = mark_pools();
  const UOp* end = nullptr;
  const UOp* total = nullptr;  // a whole-nest reduction's result
  {
    const NoLoadsInside inside(*this);
    PoolMark outer;
    const LoopNest nest = open_loops(*plan, mem, outer);
    if (mem.acc)
      std::tie(end, total) = reduce_loop(*plan, mem, nest, outer);
    else
      end = loop_store(*plan, mem, nest, nest.j, nest.f, nest.ranges);
    if (!total) truncate_pools(outside);
  }
  if (total) {  // a straight-line value after the loop: it stays an operand
    fresh_buffer(plan->d, 1, true);
    store(mems_.back(), i32(0), total);
    return;
  }
  mem.out_mem->accesses.push_back({end, -1, true, 1});  // later accesses of out are ordered after the loop
  stores_.push_back(end);
}

}  // namespace uf::gen

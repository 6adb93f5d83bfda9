// The Loop step: a kernel over fresh BUFFERs, in tinygrad's shapes (docs/semantics.md, "Loops").
//
// A loop nest of depth 1..3 (trip counts from kTripCounts, some loaded from a BUFFER at run time) with
// the flat index j = (r0*W1 + r1)*W2 + r2, reading an input at j, j+k, j // K, j % K or padded through a
// gated LOAD, and either mapping into an output (some stores gated), into the buffer it reads (a[j] =
// f(a[j+k])), or reducing into an accumulator (sum, max, product), in a nest once per outer iteration.
//
// Scope: a value computed inside a loop never escapes it. The value pools are truncated when a loop is
// closed, and operands inside a loop never load from earlier memories (their accesses would have to be
// ordered after the loop, through values of the loop). What a later step sees of a loop is its output
// BUFFER, with the loop's END recorded as a store at a computed index, so access() orders later
// accesses after the END (AFTER(buf, END)). Loaded data gets full facts: `--inputs` replaces it.
#include <algorithm>
#include <cmath>

#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

namespace {

constexpr int64_t kDivisors[] = {2, 3, 4, 5, 7, 8, 16};

// The elements a read of shape r needs, for a flat index in 0..P-1.
int64_t read_len(LoopRead r, int64_t P, int64_t k, int64_t K) {
  switch (r) {
    case LoopRead::Offset: return P + k;
    case LoopRead::Div: return (P - 1) / K + 1;
    case LoopRead::Mod: return K;
    default: return P;  // Flat, and the padded reads (out of bounds only where the gate is false)
  }
}

struct Read {
  LoopRead shape;
  int64_t k, K;
};

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

const UOp* Gen::loop_range(int64_t trips, const UOp* runtime_end) {
  const UOp* r = note(g.range(runtime_end ? runtime_end : i32(trips), next_axis_++));
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
    std::array<double, kNumOps> w{};
    for (int o = 0; o < kNumOps; ++o)
      if (is_alu(static_cast<Op>(o)) && op_accepts(static_cast<Op>(o), v->dtype)) w[o] = pol.op_weight[o];
    const int k = rng.weighted(w);
    if (k < 0) break;
    v = alu_node(static_cast<Op>(k), v->dtype, v);
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

void Gen::loop_step() {
  const int64_t budget = pol.max_loop_iterations - loop_iterations_;
  if (budget < 1) return;
  const int depth = std::max(0, rng.weighted(pol.loop_depth_weight)) + 1;
  std::vector<int64_t> trips(depth), widths(depth);
  int64_t cost = 0;
  for (int tries = 0; tries < 8; ++tries) {
    cost = 0;
    int64_t prod = 1;
    for (int l = 0; l < depth; ++l) {
      trips[l] = kTripCounts[std::max(0, rng.weighted(pol.trip_weight))];
      prod *= trips[l];
      cost += prod;
    }
    if (cost <= budget) break;
  }
  if (cost > budget) {
    std::fill(trips.begin(), trips.end(), 1);
    cost = depth;
    if (cost > budget) return;
  }
  loop_iterations_ += cost;
  int64_t P = 1;
  for (int l = 0; l < depth; ++l) P *= widths[l] = std::max<int64_t>(trips[l], 1);

  auto kind = static_cast<LoopKind>(std::max(0, rng.weighted(pol.loop_kind_weight)));
  auto reduces = [this](Op op, DType t) { return op_accepts(op, t) && !pol.op_banned[static_cast<size_t>(op)]; };
  auto reducible = [&](DType t) {
    for (Op op : kReduceOps)
      if (reduces(op, t)) return true;
    return false;
  };
  if (kind == LoopKind::Reduce && !reducible(DType::F32) && !reducible(DType::I32)) kind = LoopKind::Map;
  const DType d = kind == LoopKind::Reduce ? pick_dtype(reducible) : pick_dtype([](DType) { return true; });
  const int s = kind != LoopKind::Reduce ? depth : depth > 1 && rng.chance(pol.p_reduce_inner)
                                                       ? static_cast<int>(rng.range(1, depth - 1)) : 0;
  int64_t P_out = 1;
  for (int l = 0; l < s; ++l) P_out *= widths[l];

  auto draw_read = [&] {
    return Read{static_cast<LoopRead>(std::max(0, rng.weighted(pol.loop_read_weight))),
                rng.range(1, std::max(1, pol.max_loop_offset)), rng.pick(kDivisors)};
  };
  std::vector<Read> reads{draw_read()};
  if (rng.chance(pol.p_second_read)) reads.push_back(draw_read());
  int64_t in_len = 1;
  for (const Read& r : reads) in_len = std::max(in_len, read_len(r.shape, P, r.k, r.K));

  // The write of a map: out[j], sometimes out[j // K] or out[j % K].
  Read write{LoopRead::Flat, 1, rng.pick(kDivisors)};
  if (kind == LoopKind::Map && rng.chance(pol.p_loop_write_div))
    write.shape = rng.chance(pol.p_write_div) ? LoopRead::Div : LoopRead::Mod;
  const bool gated_store = kind != LoopKind::Reduce || s > 0 ? rng.chance(pol.p_gated_store) : false;

  // Trip counts loaded at run time, clamped into 0..N (before the loops: they are straight-line values).
  std::vector<const UOp*> ends(depth, nullptr);
  for (int l = 0; l < depth; ++l) {
    if (trips[l] < 1 || !rng.chance(pol.p_runtime_trips)) continue;
    fresh_buffer(DType::I32, 1, false);
    const UOp* x = load(mems_.back(), i32(0));
    ends[l] = clamp_index(x, trips[l] + 1);
  }
  // The memories, all made before the loops.
  const UOp* in = nullptr;
  const UOp* out = nullptr;
  Memory* out_mem = nullptr;
  if (kind == LoopKind::SameBuffer) {
    out = fresh_buffer(d, std::max(in_len, P), true);
    in = out;
    out_mem = &mems_.back();
  } else {
    in = fresh_buffer(d, in_len, false);
    if (kind == LoopKind::Map || s > 0) {
      out = fresh_buffer(d, kind == LoopKind::Map ? read_len(write.shape, P, 0, write.K) : P_out, true);
      out_mem = &mems_.back();
    }
  }
  const UOp* acc = nullptr;
  if (kind == LoopKind::Reduce && pol.allow_alloc) acc = note(g.memory(Op::ALLOC, d, 1, next_alloc_slot_++));
  if (kind == LoopKind::Reduce && !pol.allow_alloc) {  // --without alloc: a BUFFER no other step touches
    acc = fresh_buffer(d, 1, true);
    mems_.pop_back();
  }

  // Inside the loops operands never load from memory (their accesses could not be ordered after the loop).
  const PoolMark outside = mark_pools();
  const double load_leaf = pol.leaf_weight[static_cast<size_t>(Leaf::Load)];
  pol.leaf_weight[static_cast<size_t>(Leaf::Load)] = 0;
  std::vector<const UOp*> ranges;
  for (int l = 0; l < s; ++l) ranges.push_back(loop_range(trips[l], ends[l]));
  const PoolMark outer = mark_pools();
  const UOp* init = nullptr;
  Op rop = Op::ADD;
  if (acc) {
    std::vector<Op> ops;
    for (Op op : kReduceOps)
      if (reduces(op, d)) ops.push_back(op);
    rop = rng.pick(ops);
    const UOp* v = rng.chance(pol.p_identity_init) ? constant(d, identity(rop, d)) : operand(d);
    // In a nest the accumulator is initialised once per outer iteration: AFTER(acc, outer range).
    const UOp* at = s > 0 ? make(Op::AFTER, {acc, ranges.back()}) : acc;
    init = make(Op::STORE, {make(Op::INDEX, {at, i32(0)}), v});
  }
  for (int l = s; l < depth; ++l) ranges.push_back(loop_range(trips[l], ends[l]));
  const UOp* j = flat_index(ranges, widths);

  // The body: loads, f, and the store (or the accumulator update).
  auto index_of = [&](const Read& r, int64_t len, const UOp** gate) -> const UOp* {
    const UOp* x = j;
    switch (r.shape) {
      case LoopRead::Offset: x = make(Op::ADD, {j, i32(r.k)}); break;
      case LoopRead::Div: x = make(Op::FLOORDIV, {j, i32(r.K)}); break;
      case LoopRead::Mod: x = make(Op::FLOORMOD, {j, i32(r.K)}); break;
      case LoopRead::PadAfter:
        x = make(Op::ADD, {j, i32(r.k)});
        *gate = make(Op::CMPLT, {x, i32(len)});
        return x;
      case LoopRead::PadBefore:
        x = make(Op::SUB, {j, i32(r.k)});
        *gate = rng.chance(pol.p_pad_gate_on_index) ? make(Op::CMPLT, {i32(r.k - 1), j}) : make(Op::CMPLT, {i32(-1), x});
        return x;
      default: break;
    }
    return clamp_index(x, len);  // in bounds already, but the facts prove it
  };
  std::vector<const UOp*> loaded;
  for (const Read& r : reads) {
    const UOp* gate = nullptr;
    const UOp* x = index_of(r, in->len, &gate);
    const UOp* addr = make(Op::INDEX, {in, x});
    loaded.push_back(gate ? make(Op::LOAD, {addr, operand(d), gate}) : make(Op::LOAD, {addr}));
  }
  const UOp* first = loaded[0];
  if (loaded.size() > 1) first = combine(d, first, loaded[1]);
  const UOp* f = loop_body_value(first, d, j);

  const UOp* end = nullptr;
  auto store_out = [&](const UOp* idx_flat, const UOp* v, std::span<const UOp* const> rs) {
    const UOp* gate = nullptr;
    const UOp* idx = idx_flat == j ? index_of(write, out->len, &gate) : clamp_index(idx_flat, out->len);
    if (gated_store) {
      if (rng.chance(pol.p_padded_store)) {  // a padded write: out of bounds where the gate is false
        idx = make(Op::ADD, {idx, i32(rng.range(0, std::max(1, pol.max_loop_offset)))});
        gate = make(Op::CMPLT, {idx, i32(out->len)});
      } else {
        gate = make(Op::CMPNE, {make(Op::FLOORMOD, {rs.back(), i32(rng.pick(kDivisors))}), i32(0)});
      }
    }
    const UOp* addr = make(Op::INDEX, {out, idx});
    const UOp* st = gate ? make(Op::STORE, {addr, v, gate}) : make(Op::STORE, {addr, v});
    return close_loops(st, rs);
  };
  if (!acc) {
    end = store_out(j, f, ranges);
  } else {
    const std::span<const UOp* const> inner(ranges.begin() + s, ranges.end());
    std::vector<const UOp*> src{acc, init};
    src.insert(src.end(), inner.begin(), inner.end());
    const UOp* at = make(Op::INDEX, {make(Op::AFTER, src), i32(0)});
    const UOp* old = make(Op::LOAD, {at});
    const UOp* upd = rng.chance(pol.p_acc_old_first) ? make(rop, {old, f}) : make(rop, {f, old});
    const UOp* inner_end = close_loops(make(Op::STORE, {at, upd}), inner);
    truncate_pools(outer);
    const UOp* fin = make(Op::LOAD, {make(Op::INDEX, {make(Op::AFTER, {acc, inner_end}), i32(0)})});
    if (s > 0) {
      const std::span<const UOp* const> outs(ranges.begin(), ranges.begin() + s);
      const UOp* v = rng.chance(pol.p_combine_reduction) ? combine(d, fin, operand(d)) : fin;
      end = store_out(flat_index(outs, widths), v, outs);
    } else {
      pol.leaf_weight[static_cast<size_t>(Leaf::Load)] = load_leaf;
      out = fresh_buffer(d, 1, true);  // the reduction is a straight-line value: it stays an operand
      store(mems_.back(), i32(0), fin);
      return;
    }
  }
  truncate_pools(outside);
  pol.leaf_weight[static_cast<size_t>(Leaf::Load)] = load_leaf;
  out_mem->accesses.push_back({end, -1, true, 1});  // later accesses of out are ordered after the loop
  stores_.push_back(end);
}

}  // namespace uf::gen

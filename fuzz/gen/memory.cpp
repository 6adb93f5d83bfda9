// Memory: every LOAD and STORE goes through access(), which keeps the ordering rule of docs/semantics.md
// by construction, and the memory patterns built on it (scratch arrays, accumulator chains,
// read-modify-write, scatter, read-your-own-write).
//
// The rule: two accesses of one memory, at least one a STORE, whose indices may be equal, must be
// connected by a path. Accesses are made in program order, so a new access only needs paths from the
// earlier conflicting ones; those its sources do not already reach are named in an AFTER. Which earlier
// store a load sees is then fixed (the latest conflicting one), and the Facts of a load follow it.
#include "fuzz/gen/generator_impl.h"

namespace uf::gen {

bool Memory::all_written() const {
  for (uint8_t w : written)
    if (!w) return false;
  return true;
}

Memory* Gen::pick_memory(std::optional<DType> d, MemPick kind) {
  std::vector<Memory*> ok;
  for (Memory& m : mems_) {
    if (d && m.mem->dtype != *d) continue;
    const bool is_buffer = m.mem->op == Op::BUFFER;
    bool fit = false;
    switch (kind) {
      case MemPick::Output: fit = is_buffer && m.output; break;
      case MemPick::Buffer: fit = is_buffer; break;
      case MemPick::Readable:
        for (uint8_t w : m.written) fit = fit || w;
        break;
    }
    if (fit) ok.push_back(&m);
  }
  return ok.empty() ? nullptr : rng.pick(ok);
}

const UOp* Gen::load(Memory& m, const UOp* idx) { return access(m, idx, nullptr); }
const UOp* Gen::store(Memory& m, const UOp* idx, const UOp* value) { return access(m, idx, value); }

const UOp* Gen::access(Memory& m, const UOp* idx, const UOp* value, int lanes) {
  const bool is_store = value != nullptr;
  if (value) lanes = value->lanes;
  const int64_t ci = idx->op == Op::CONST ? idx->value.i : -1;
  ensure(ci + lanes <= m.mem->len, "constant index in bounds");
  ensure(lanes == 1 || ci >= 0, "vector accesses at constant indices");
  // What the new access's own sources already order. Accesses conflict when their element ranges
  // [index, index + lanes) may overlap.
  std::vector<const UOp*> conflicts, deps;
  for (const Access& a : m.accesses)
    if ((a.is_store || is_store) && (a.index < 0 || ci < 0 || (a.index < ci + lanes && ci < a.index + a.lanes)))
      conflicts.push_back(a.node);
  const uint32_t floor = conflicts.empty() ? 0 : conflicts.front()->id;  // older nodes reach no conflict
  new_stamp();
  mark_ancestors(idx, floor);
  if (value) mark_ancestors(value, floor);
  for (const UOp* c : conflicts)
    if (mark_[c->id] != stamp_) deps.push_back(c);
  if (deps.size() > 1 && !rng.chance(pol.p_keep_all_deps)) {
    // Name only the frontier: a dep that a later dep reaches is implied by it.
    std::vector<const UOp*> frontier;
    for (size_t i = deps.size(); i-- > 0;) {
      if (mark_[deps[i]->id] == stamp_) continue;
      frontier.push_back(deps[i]);
      mark_ancestors(deps[i], floor);
    }
    deps.assign(frontier.rbegin(), frontier.rend());
  }
  if (deps.empty() && !conflicts.empty() && rng.chance(pol.p_redundant_after)) deps.push_back(conflicts.back());
  if (deps.empty() && !is_store && !stores_.empty() && rng.chance(pol.p_spurious_after))
    deps.push_back(rng.pick(stores_));  // harmless extra order, on a memory that may not even be written

  if (!pol.allow_after && !deps.empty()) {  // --without after: not made; a load gives a constant instead
    if (is_store) return nullptr;
    return note(g.constant(m.mem->dtype, random_value(m.mem->dtype, pol.const_value_weight), lanes));
  }
  const UOp* addr = ordered_address(m, idx, deps);
  const uint32_t first_new = static_cast<uint32_t>(g.size());
  const UOp* node = is_store ? make(Op::STORE, {addr, value}) : note(g.make(Op::LOAD, {addr}, std::nullopt, lanes));
  if (node->id < first_new) return node;  // the very same access exists already
  record_access(m, node, ci, value, lanes);
  return node;
}

// The address of an access at `idx`, ordered after `deps` (through AFTER on the memory or on the INDEX).
const UOp* Gen::ordered_address(Memory& m, const UOp* idx, const std::vector<const UOp*>& deps) {
  if (deps.empty()) return make(Op::INDEX, {m.mem, idx});
  if (rng.chance(pol.p_after_on_index)) {
    std::vector<const UOp*> src{make(Op::INDEX, {m.mem, idx})};
    src.insert(src.end(), deps.begin(), deps.end());
    return make(Op::AFTER, src);
  }
  std::vector<const UOp*> src{m.mem};
  src.insert(src.end(), deps.begin(), deps.end());
  return make(Op::INDEX, {make(Op::AFTER, src), idx});
}

// A new access remembered, and what memory holds afterwards (a store) or what it read (a load).
void Gen::record_access(Memory& m, const UOp* node, int64_t ci, const UOp* value, int lanes) {
  const bool is_store = value != nullptr;
  m.accesses.push_back({node, ci, is_store, lanes});
  if (is_store) {
    stores_.push_back(node);
    if (ci >= 0) {
      for (int64_t e = ci; e < ci + lanes; ++e) {
        m.elem[e] = facts(value);  // later conflicting loads are ordered after this store: they see it
        m.written[e] = 1;
      }
    } else {
      for (Facts& e : m.elem) e = join(value->dtype, e, facts(value));
    }
    return;
  }
  Facts f = ci >= 0 ? m.elem[ci] : m.elem[0];
  const int64_t lo = ci >= 0 ? ci : 0, hi = ci >= 0 ? ci + lanes : static_cast<int64_t>(m.elem.size());
  for (int64_t e = lo; e < hi; ++e) f = join(node->dtype, f, m.elem[e]);
  facts(node) = f;
}

void Gen::load_step(bool dynamic) {
  Memory* m = pick_memory(std::nullopt, MemPick::Readable);
  if (m) load(*m, index_for(*m, dynamic));
}

// An ALLOC array: written element by element, then read (through AFTER) at constant or computed
// indices, sometimes overwritten at a computed index and read again.
void Gen::scratch_step() {
  const DType d = pick_dtype([](DType) { return true; });
  const int64_t n = rng.range(1, std::max(1, pol.max_alloc_len));
  mems_.push_back(Memory{note(g.memory(Op::ALLOC, d, n, next_alloc_slot_++)),
                         false,
                         {},
                         std::vector<Facts>(static_cast<size_t>(n), full_facts(d)),
                         std::vector<uint8_t>(static_cast<size_t>(n), 0)});
  Memory& m = mems_.back();
  for (int64_t e = 0; e < n; ++e) {
    if (e > 0 && rng.chance(pol.p_scratch_partial)) continue;
    const UOp* v = operand(d);
    store(m, i32(e), v);
  }
  const int64_t reads = rng.range(1, n);
  for (int64_t r = 0; r < reads; ++r) load(m, index_for(m, rng.chance(pol.p_dynamic_index)));
  if (m.all_written() && rng.chance(pol.p_scratch_overwrite)) {
    const UOp* idx = index_for(m, true);
    const UOp* v = operand(d);
    store(m, idx, v);
    load(m, index_for(m, rng.chance(pol.p_dynamic_index)));
  }
}

// An accumulator chain, a dot product: acc[0] = init; then repeatedly
// acc[0] = x_k * y_k + acc[0], each read of acc[0] through AFTER the previous store.
void Gen::accumulate_step() {
  const DType d = pick_dtype([](DType) { return true; });
  mems_.push_back(Memory{note(g.memory(Op::ALLOC, d, 1, next_alloc_slot_++)), false, {}, {full_facts(d)}, {0}});
  Memory& acc = mems_.back();
  const UOp* init = rng.chance(pol.p_acc_init_zero) ? constant(d, Scalar::zero()) : operand(d);
  store(acc, i32(0), init);
  Memory* xs = rng.chance(pol.p_acc_from_buffers) ? pick_memory(d, MemPick::Buffer) : nullptr;
  Memory* ys = rng.chance(pol.p_acc_from_buffers) ? pick_memory(d, MemPick::Buffer) : nullptr;
  const int64_t steps = rng.range(pol.min_acc_steps, std::max(pol.min_acc_steps, pol.max_acc_steps));
  for (int64_t k = 0; k < steps; ++k) {
    const UOp* v = load(acc, i32(0));
    const UOp* x = xs ? load(*xs, i32(k % xs->mem->len)) : operand(d);
    const UOp* y = ys ? load(*ys, i32(k % ys->mem->len)) : operand(d);
    auto kind = static_cast<AccUpdate>(rng.weighted(pol.acc_update_weight));
    if (is_bool(d) && kind == AccUpdate::MulAcc) kind = AccUpdate::AddMul;  // MULACC has no bool
    if (kind == AccUpdate::MulAcc && banned(Op::MULACC)) kind = AccUpdate::AddMul;
    if (kind == AccUpdate::AddMul && (banned(Op::ADD) || banned(Op::MUL))) kind = AccUpdate::Other;
    const UOp* u;
    if (kind == AccUpdate::MulAcc)
      u = make(Op::MULACC, {x, y, v});
    else if (kind == AccUpdate::AddMul)
      u = make(Op::ADD, {make(Op::MUL, {x, y}), v});
    else
      u = combine(d, v, x);
    store(acc, i32(0), u);
  }
  load(acc, i32(0));
}

// A BUFFER element loaded, updated, stored back: the store is ordered after the load by the data path,
// or (when the stored value does not depend on the load) by an AFTER naming the load.
void Gen::rmw_step() {
  Memory& m = *pick_memory(std::nullopt, MemPick::Output);
  const DType d = m.mem->dtype;
  const UOp* idx = index_for(m, rng.chance(pol.p_dynamic_index));
  const UOp* v = load(m, idx);
  const UOp* other = operand(d);
  const UOp* u = rng.chance(pol.p_war_store) ? other : combine(d, v, other);
  store(m, idx, u);
}

void Gen::scatter_step() {
  Memory& m = *pick_memory(std::nullopt, MemPick::Output);
  const UOp* idx = index_for(m, true);
  const UOp* v = operand(m.mem->dtype);
  store(m, idx, v);
}

// Write an output element, then read the output back (the same or another element) through AFTER.
void Gen::store_reload_step() {
  Memory& m = *pick_memory(std::nullopt, MemPick::Output);
  const UOp* idx = index_for(m, rng.chance(pol.p_dynamic_index));
  const UOp* v = operand(m.mem->dtype);
  store(m, idx, v);
  load(m, index_for(m, rng.chance(pol.p_dynamic_index)));
}

}  // namespace uf::gen

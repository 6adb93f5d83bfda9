// Program helpers, the linearizer and the verifier.
#include "core/program.h"

#include <algorithm>
#include <stdexcept>

#include "core/loops.h"

namespace uf {

const UOp* Program::buffer(int64_t slot) const {
  for (const UOp* b : buffers)
    if (b->slot == slot) return b;
  return nullptr;
}

Values Program::initial(const UOp* b) const {
  if (auto it = data.find(b->slot); it != data.end()) return it->second;
  return Values(static_cast<size_t>(b->len), Scalar::zero());
}

const std::string* Program::meta_value(const std::string& key) const {
  for (const auto& [k, v] : meta)
    if (k == key) return &v;
  return nullptr;
}

void Program::set_meta(const std::string& key, const std::string& value) {
  for (auto& [k, v] : meta)
    if (k == key) {
      v = value;
      return;
    }
  meta.emplace_back(key, value);
}

std::string Program::node_name(const UOp* u, const std::vector<const UOp*>* order) const {
  if (auto it = origin.find(u); it != origin.end()) return "%" + std::to_string(it->second.id);
  if (order)
    for (size_t i = 0; i < order->size(); ++i)
      if ((*order)[i] == u) return "%" + std::to_string(i);
  return std::string("<") + name(u->op) + ">";
}

std::vector<const UOp*> linearize(const Program& p) {
  const Graph& g = *p.graph;
  std::vector<uint8_t> live(g.size(), 0);
  for (const UOp* b : p.buffers) live[g.own(b)->id] = 1;
  // Sources are made before their users, so one sweep down from the SINK marks everything it reaches.
  if (p.sink) {
    live[g.own(p.sink)->id] = 1;
    for (size_t id = size_t{p.sink->id} + 1; id-- > 0;)
      if (live[id])
        for (const UOp* s : g.node(id)->src) live[s->id] = 1;
  }
  std::vector<const UOp*> order;
  order.reserve(g.size());
  for (size_t id = 0; id < live.size(); ++id)
    if (live[id]) order.push_back(g.node(id));
  return order;
}

const Origin& OriginMap::at(const UOp* u) const {
  const iterator it = find(u);
  if (it == end()) throw std::out_of_range("OriginMap::at: no origin for this node");
  return it->second;
}

void Program::collect_buffers() {
  const size_t listed = buffers.size();
  if (sink) {
    Program tmp;
    tmp.graph = graph;
    tmp.sink = sink;
    for (const UOp* u : linearize(tmp))
      if (u->op == Op::BUFFER) buffers.push_back(u);
  }
  try {
    sort_buffers();
  } catch (...) {
    buffers.resize(listed);
    throw;
  }
}

void Program::sort_buffers() {
  std::vector<const UOp*> all = buffers;  // `buffers` stays as it was if this throws
  std::sort(all.begin(), all.end(),
            [](const UOp* a, const UOp* b) { return a->slot != b->slot ? a->slot < b->slot : a->id < b->id; });
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i]->slot == all[i - 1]->slot)
      throw UserError("two different BUFFERs use slot " + std::to_string(all[i]->slot) + " (" + node_name(all[i - 1]) + ", " +
                          node_name(all[i]) + ")",
                      origin.count(all[i]) ? origin.at(all[i]).line : 0);
  buffers = std::move(all);
}

namespace {

struct Access {
  const UOp* node;   // the LOAD or STORE
  const UOp* index;  // the INDEX it goes through
  size_t pos;        // position in the linear order
  bool is_store;
  int lanes;  // elements touched: index .. index + lanes - 1 (a vector access: its lanes)
};

// Two accesses may touch the same element unless their indices are two constants whose element ranges
// [i, i + lanes) do not overlap.
bool may_alias(const Access& a, const Access& b) {
  const UOp* ia = a.index->src[1];
  const UOp* ib = b.index->src[1];
  if (ia->op != Op::CONST || ib->op != Op::CONST) return true;
  return ia->value.i < ib->value.i + b.lanes && ib->value.i < ia->value.i + a.lanes;
}

int access_lanes(const UOp* u) { return u->op == Op::STORE ? u->src[1]->lanes : u->lanes; }

}  // namespace

namespace {

// Where a node is and what it is called, for messages.
struct Namer {
  const Program& p;
  const std::vector<const UOp*>& order;
  int line(const UOp* u) const {
    auto it = p.origin.find(u);
    return it == p.origin.end() ? 0 : it->second.line;
  }
  std::string name(const UOp* u) const { return p.node_name(u, &order); }
};

// The accesses of each memory (BUFFER/ALLOC), memories in first-seen order so that the first error
// reported is deterministic.
struct AccessesByMemory {
  std::unordered_map<const UOp*, std::vector<Access>> of;
  std::vector<const UOp*> memories;

  void add(const UOp* u, size_t pos) {
    if (u->op != Op::LOAD && u->op != Op::STORE) return;
    const UOp* mem = u->src[0]->base();
    auto& list = of[mem];
    if (list.empty()) memories.push_back(mem);
    list.push_back({u, u->src[0]->index_node(), pos, u->op == Op::STORE, access_lanes(u)});
  }
};

// Check 1: one SINK, last in the order, and no other SINK anywhere.
void check_sink_is_last(const Program& p, const std::vector<const UOp*>& order) {
  if (!p.sink || order.empty() || order.back() != p.sink) throw UserError("a program needs one SINK, last");
}
void check_sink_is_root(const Program& p, const Namer& at, const UOp* u) {
  if (u->op == Op::SINK && u != p.sink) throw UserError("SINK " + at.name(u) + " is not the program's root", at.line(u));
}

// Check 2: an INDEX by a constant stays inside its memory.
void check_constant_index(const Namer& at, const UOp* u) {
  if (u->op != Op::INDEX) return;
  const UOp* idx = u->src[1];
  const int64_t len = u->src[0]->len;
  if (idx->op == Op::CONST && (idx->value.i < 0 || idx->value.i >= len))
    throw UserError("INDEX " + at.name(u) + ": constant index " + std::to_string(idx->value.i) + " out of bounds for " +
                        uf::name(u->base()->op) + " " + uf::name(u->dtype) + "[" + std::to_string(u->base()->len) + "]",
                    at.line(u));
}

// Check 2b: a vector LOAD or STORE at a constant index touches elements i .. i + lanes - 1, all in bounds.
void check_constant_vector_access(const Namer& at, const UOp* u) {
  if ((u->op != Op::LOAD && u->op != Op::STORE) || access_lanes(u) <= 1) return;
  const UOp* index = u->src[0]->index_node();
  if (!index || index->src[1]->op != Op::CONST) return;
  const int64_t i = index->src[1]->value.i, n = access_lanes(u), len = index->base()->len;
  if (i + n > len)
    throw UserError(std::string(uf::name(u->op)) + " " + at.name(u) + ": " + std::to_string(n) + " lanes at constant index " +
                        std::to_string(i) + " out of bounds for " + uf::name(index->base()->op) + " " + uf::name(index->dtype) +
                        "[" + std::to_string(len) + "]",
                    at.line(u));
}

// Check 3: every data line names a BUFFER and fills it exactly.
void check_data_lines(const Program& p) {
  for (const auto& [slot, vals] : p.data) {
    const UOp* b = p.buffer(slot);
    if (!b) throw UserError("data " + std::to_string(slot) + ": no BUFFER with that slot");
    if (static_cast<int64_t>(vals.size()) != b->len)
      throw UserError("data " + std::to_string(slot) + ": " + std::to_string(vals.size()) + " values for " + name(b->dtype) +
                      "[" + std::to_string(b->len) + "]");
  }
}

// For the accesses acc[chunk, chunk + 64): bit k - chunk of mask[i] is set when order[i] is acc[k]'s
// node or depends on it. Entries before acc[chunk]'s position are left as they are.
void mark_reached(const std::vector<const UOp*>& order, const std::vector<int64_t>& pos, const std::vector<Access>& acc,
                  size_t chunk, std::vector<uint64_t>& mask) {
  const size_t end = std::min(acc.size(), chunk + 64);
  const size_t first = acc[chunk].pos;
  std::fill(mask.begin() + first, mask.end(), 0);
  std::vector<int> bit_of(order.size() - first, -1);
  for (size_t k = chunk; k < end; ++k) bit_of[acc[k].pos - first] = static_cast<int>(k - chunk);
  for (size_t i = first; i < order.size(); ++i) {
    uint64_t m = 0;
    for (const UOp* s : order[i]->src)
      if (pos[s->id] >= static_cast<int64_t>(first)) m |= mask[pos[s->id]];
    if (bit_of[i - first] >= 0) m |= uint64_t{1} << bit_of[i - first];
    mask[i] = m;
  }
}

// Check 4, the ordering rule: two accesses of one memory, at least one a STORE, that may touch the same
// element need a path between them. Reachability is computed 64 accesses at a time: one pass over the
// linear order with a 64-bit ancestor mask per node, so memory stays O(nodes).
void check_access_order(const Namer& at, const AccessesByMemory& accesses) {
  const std::vector<const UOp*>& order = at.order;
  std::vector<int64_t> pos(at.p.graph->size(), -1);
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]->id] = static_cast<int64_t>(i);
  std::vector<uint64_t> mask(order.size());
  for (const UOp* mem : accesses.memories) {
    const auto& acc = accesses.of.at(mem);
    if (std::none_of(acc.begin(), acc.end(), [](const Access& a) { return a.is_store; })) continue;
    for (size_t chunk = 0; chunk < acc.size(); chunk += 64) {
      mark_reached(order, pos, acc, chunk, mask);
      for (size_t k = chunk; k < std::min(acc.size(), chunk + 64); ++k) {
        for (size_t j = k + 1; j < acc.size(); ++j) {
          const Access& a = acc[k];
          const Access& b = acc[j];
          if (!(a.is_store || b.is_store) || !may_alias(a, b)) continue;
          if (mask[b.pos] >> (k - chunk) & 1) continue;
          throw UserError(std::string(name(a.node->op)) + " " + at.name(a.node) + " and " + name(b.node->op) + " " +
                              at.name(b.node) + " may touch the same element of " + name(mem->op) + " slot " +
                              std::to_string(mem->slot) + " with no path between them (order them with AFTER)",
                          at.line(b.node));
        }
      }
    }
  }
}

}  // namespace

bool verifies(const Program& p) {
  try {
    verify(p);
    return true;
  } catch (const UserError&) { return false; }
}

void verify(const Program& p, const std::vector<const UOp*>& order) {
  const Namer at{p, order};
  check_sink_is_last(p, order);
  // Checks 1 and 2 node by node, in order, so the first bad node is the one reported.
  AccessesByMemory accesses;
  for (size_t i = 0; i < order.size(); ++i) {
    check_sink_is_root(p, at, order[i]);
    check_constant_index(at, order[i]);
    check_constant_vector_access(at, order[i]);
    accesses.add(order[i], i);
  }
  check_data_lines(p);
  if (has_loops(order)) analyze_loops(p, order);  // the loop rules (core/loops.h)
  check_opts(p, order);
  check_access_order(at, accesses);
}

}  // namespace uf

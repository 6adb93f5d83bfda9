// The straight-line shrink passes of the registry (fuzz/oracle/passes.def), and the reducer's cost.
#include "fuzz/oracle/shrink.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <map>

#include "core/rewrite.h"
#include "fuzz/oracle/passes.h"
#include "fuzz/oracle/shrink_loops.h"

namespace uf {

namespace {

// The halves of [0, n), then its quarters, eighths, ... down to pairs (ddmin's chunks), as [from, to).
template <class Fn>
void for_each_chunk(size_t n, Fn&& fn) {
  for (size_t chunk = n / 2; chunk >= 2; chunk /= 2)
    for (size_t from = 0; from + chunk <= n; from += chunk) fn(from, from + chunk);
}

int64_t complexity(DType d, Scalar v) {
  if (v.u == 0) return 0;  // 0, +0.0, false
  if (is_float(d) ? v.f == 1.0 : v.u == 1) return 1;
  return 2 + static_cast<int64_t>(format_scalar(d, v).size());
}

// Simpler spellings of v: 0, 1, and shorter numbers (fewer digits), each strictly less complex.
std::vector<Scalar> simpler_values(DType d, Scalar v) {
  std::vector<Scalar> out;
  auto offer = [&](Scalar s) {
    s = normalize(d, s);
    if (complexity(d, s) >= complexity(d, v)) return;
    for (Scalar o : out)
      if (o.u == s.u) return;
    out.push_back(s);
  };
  offer(Scalar::zero());
  offer(is_float(d) ? Scalar::of_float(1.0) : Scalar::of_uint(1));
  if (is_float(d)) {
    if (std::isfinite(v.f)) {
      for (int digits = 1; digits <= 3; ++digits) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.*g", digits, v.f);
        offer(parse_scalar(d, buf).value);
      }
      offer(Scalar::of_float(std::trunc(v.f)));
    }
  } else if (is_signed(d)) {
    offer(Scalar::of_int(v.i / 10));
    offer(Scalar::of_int(v.i / 2));
    if (v.i < 0 && v.i != INT64_MIN) offer(Scalar::of_int(-v.i));  // -INT64_MIN is not an int64
  } else if (is_unsigned(d)) {
    offer(Scalar::of_uint(v.u / 10));
    offer(Scalar::of_uint(v.u / 2));
  }
  return out;
}

bool is_value(const UOp* u) { return !u->is_memory() && !is_void(u->dtype); }

Program with_sink(const PassInput& in, const std::vector<const UOp*>& effects) {
  Program q = in.p;
  q.sink = in.p.graph->make(Op::SINK, std::span<const UOp* const>(effects));
  return q;
}

// Memory -> the largest constant index any live INDEX uses (0 when only computed indices are used).
std::unordered_map<const UOp*, int64_t> max_index(const std::vector<const UOp*>& order) {
  std::unordered_map<const UOp*, int64_t> m;
  for (const UOp* u : order)
    if (u->op == Op::INDEX) {
      int64_t& x = m.try_emplace(u->base(), 0).first->second;
      if (u->src[1]->op == Op::CONST) x = std::max<int64_t>(x, u->src[1]->value.i);
    }
  return m;
}

// Lane k of vector v as a scalar, folding GEP of STACK and of CONST.
const UOp* lane_of(Graph& g, const UOp* v, int k) {
  if (v->op == Op::STACK) return v->src[static_cast<size_t>(k)];
  if (v->op == Op::CONST) return g.constant(v->dtype, v->value);
  return g.gep(v, k);
}

void narrow(const PassInput& in, int n, int m) {
  Graph& g = *in.p.graph;
  try {
    Program q = in.p;
    q.origin.clear();
    std::vector<const UOp*> mapped(g.size() + 1, nullptr);
    for (const UOp* u : in.order) {
      std::vector<const UOp*> src;
      for (const UOp* s : u->src) src.push_back(mapped[s->id]);
      const UOp* r;
      if (u->lanes == n) {
        if (u->op == Op::CONST)
          r = g.constant(u->dtype, u->value, m);
        else if (u->op == Op::STACK)
          r = m == 1 ? src[0] : g.make(Op::STACK, std::span<const UOp* const>(src.data(), static_cast<size_t>(m)));
        else
          r = g.make(u->op, src, u->dtype, m);
      } else if (u->op == Op::GEP && u->src[0]->lanes == n) {
        const int k = std::min(static_cast<int>(u->value.i), m - 1);
        r = m == 1 ? src[0] : g.gep(src[0], k, u->dtype);
      } else {
        r = rebuild(g, u, src);
      }
      mapped[u->id] = r;
    }
    q.sink = mapped[in.p.sink->id];
    for (const UOp*& b : q.buffers) b = mapped[b->id];
    in.add(std::move(q));
  } catch (const TypeError&) {}
}

}  // namespace

// Keep one store; drop one; or let a store give way to the effects its address's AFTER waits for, so
// that a chain STORE c <- AFTER <- STORE b <- AFTER <- STORE a shrinks from its end.
void sink_steps(const PassInput& in) {
  const auto& effects = in.p.sink->src;
  if (effects.size() > 2)
    for (const UOp* e : effects) in.add(with_sink(in, {e}));
  // Drop a half, then each quarter, eighth, ... (ddmin's complements): with many irrelevant stores a
  // slow target accepts a big step in a few checks instead of one store per round.
  for_each_chunk(effects.size(), [&](size_t from, size_t to) {
    std::vector<const UOp*> rest(effects.begin(), effects.begin() + static_cast<long>(from));
    rest.insert(rest.end(), effects.begin() + static_cast<long>(to), effects.end());
    in.add(with_sink(in, rest));
  });
  for (size_t i = 0; i < effects.size(); ++i) {
    std::vector<const UOp*> rest(effects.begin(), effects.end());
    rest.erase(rest.begin() + static_cast<long>(i));
    if (effects.size() > 1) in.add(with_sink(in, rest));
    const UOp* e = effects[i];
    if (e->op != Op::STORE || e->src[0]->op != Op::INDEX || e->src[0]->src[0]->op != Op::AFTER) continue;
    for (const UOp* d : std::span(e->src[0]->src[0]->src).subspan(1))
      if ((d->op == Op::STORE || d->op == Op::END) && std::find(rest.begin(), rest.end(), d) == rest.end()) rest.push_back(d);
    in.add(with_sink(in, rest));
  }
}

// Replace a node by an operand of the same type (closest to the SINK first); drop AFTER dependencies.
void operand_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  for (auto it = in.order.rbegin(); it != in.order.rend(); ++it) {
    const UOp* u = *it;
    if (u == in.p.sink) continue;
    for (const UOp* s : u->src)
      if (s->dtype == u->dtype && s->space == u->space && s->rank == u->rank && s->lanes == u->lanes)
        offer_substitution(in, {{u, s}});
    if (u->op == Op::AFTER && u->src.size() > 2)
      for (size_t j = 1; j < u->src.size(); ++j) {
        std::vector<const UOp*> src(u->src.begin(), u->src.end());
        src.erase(src.begin() + static_cast<long>(j));
        offer_substitution(in, {{u, g.make(Op::AFTER, std::span<const UOp* const>(src))}});
      }
  }
}

// A LOAD replaced by a value some STORE writes to the same element (store-to-load forwarding): scratch
// memory round trips disappear.
void forward_steps(const PassInput& in) {
  std::map<std::pair<const UOp*, int64_t>, std::vector<const UOp*>> stored;  // (memory, index) -> values
  for (const UOp* u : in.order)
    if (u->op == Op::STORE)
      if (const UOp* idx = u->src[0]->index_node(); idx && idx->src[1]->op == Op::CONST)
        stored[{idx->base(), idx->src[1]->value.i}].push_back(u->src[1]);
  for (auto it = in.order.rbegin(); it != in.order.rend(); ++it) {
    const UOp* u = *it;
    if (u->op != Op::LOAD) continue;
    const UOp* idx = u->src[0]->index_node();
    if (!idx || idx->src[1]->op != Op::CONST) continue;
    if (auto s = stored.find({idx->base(), idx->src[1]->value.i}); s != stored.end())
      for (const UOp* v : s->second) offer_substitution(in, {{u, v}});
  }
}

// A value replaced by a CAST of an operand's operand (skipping one step of a chain of conversions or
// arithmetic): long CAST chains that only carry a value to an output collapse.
void cast_bypass_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  for (auto it = in.order.rbegin(); it != in.order.rend(); ++it) {
    const UOp* u = *it;
    if (!is_value(u) || u->op == Op::CONST || u->op == Op::LOAD) continue;
    for (const UOp* s : u->src)
      for (const UOp* t : s->src)
        if (is_value(t) && t->op != Op::CONST && t->lanes == u->lanes)
          offer_substitution(in, {{u, t->dtype == u->dtype ? t : g.make(Op::CAST, {t}, u->dtype)}});
  }
}

void constant_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  for (auto it = in.order.rbegin(); it != in.order.rend(); ++it) {
    const UOp* u = *it;
    if (!is_value(u) || u->op == Op::CONST) continue;
    if (auto v = in.values.find(u); v != in.values.end()) offer_substitution(in, {{u, g.constant(u->dtype, v->second)}});
  }
}

// BUFFERs nothing indexes: all at once, then one at a time.
void unused_buffers_steps(const PassInput& in) {
  const auto used = max_index(in.order);
  std::vector<const UOp*> unused;
  for (const UOp* b : in.p.buffers)
    if (!used.count(b)) unused.push_back(b);
  auto without = [&](const std::vector<const UOp*>& drop) {
    Program q = in.p;
    for (const UOp* b : drop) {
      std::erase(q.buffers, b);
      q.data.erase(b->slot);
    }
    in.add(std::move(q));
  };
  if (unused.size() > 1) without(unused);
  for (const UOp* b : unused) without({b});
}

void shorten_buffer_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  auto max_index = uf::max_index(in.order);
  for (const UOp* m : in.order) {
    if ((m->op != Op::BUFFER && m->op != Op::ALLOC) || !max_index.count(m)) continue;
    const int64_t len = max_index[m] + 1;
    if (len >= m->len) continue;
    try {
      Program q = substitute(in.p, {{m, g.memory(m->op, m->dtype, len, m->slot)}});
      if (auto d = q.data.find(m->slot); m->op == Op::BUFFER && d != q.data.end()) d->second.resize(static_cast<size_t>(len));
      in.add(std::move(q));
    } catch (const TypeError&) {}
  }
}

void literal_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  for (const UOp* u : in.order)
    if (u->op == Op::CONST)
      for (Scalar s : simpler_values(u->dtype, u->value)) offer_substitution(in, {{u, g.constant(u->dtype, s)}});
  for (const auto& [slot, vals] : in.p.data) {
    const UOp* b = in.p.buffer(slot);
    if (!b) continue;
    Program zeros = in.p;
    zeros.data.erase(slot);
    in.add(std::move(zeros));
    std::vector<std::vector<Scalar>> simpler(vals.size());
    for (size_t i = 0; i < vals.size(); ++i) simpler[i] = simpler_values(b->dtype, vals[i]);
    // Each value of a half, then of each quarter, eighth, ... at its simplest at once (ddmin's subsets):
    // most values of a buffer do not matter, and one step each cost a slow target a check per value.
    for_each_chunk(vals.size(), [&](size_t from, size_t to) {
      const auto first = simpler.begin() + static_cast<long>(from), last = simpler.begin() + static_cast<long>(to);
      if (std::all_of(first, last, [](const std::vector<Scalar>& s) { return s.empty(); })) return;
      Program q = in.p;
      Values& values = q.data[b->slot];
      for (size_t i = from; i < to; ++i)
        if (!simpler[i].empty()) values[i] = simpler[i][0];
      in.add(std::move(q));
    });
    for (size_t i = 0; i < vals.size(); ++i)
      for (Scalar s : simpler[i]) {
        Program q = in.p;
        q.data[slot][i] = s;
        in.add(std::move(q));
      }
  }
}

void vector_steps(const PassInput& in) {
  Graph& g = *in.p.graph;
  // Scalarize: every GEP of one vector ALU op at once, so the vector op itself can die.
  std::unordered_map<const UOp*, std::vector<const UOp*>> geps;
  for (const UOp* u : in.order)
    if (u->op == Op::GEP && is_alu(u->src[0]->op)) geps[u->src[0]].push_back(u);
  for (auto it = in.order.rbegin(); it != in.order.rend(); ++it) {
    const auto found = geps.find(*it);
    if (found == geps.end()) continue;
    const UOp* v = found->first;
    try {
      std::unordered_map<const UOp*, const UOp*> replace;
      for (const UOp* gep : found->second) {
        std::vector<const UOp*> src;
        for (const UOp* s : v->src) src.push_back(lane_of(g, s, static_cast<int>(gep->value.i)));
        replace[gep] = g.make(v->op, std::span<const UOp* const>(src), v->dtype);
      }
      in.add(substitute(in.p, replace));
    } catch (const TypeError&) {}
  }
  // Narrow: every vector of N lanes to M lanes (M = 1: scalars), the whole program at once.
  std::vector<int> widths;
  for (const UOp* u : in.order)
    if (u->is_vector() && std::find(widths.begin(), widths.end(), u->lanes) == widths.end()) widths.push_back(u->lanes);
  for (int n : widths)
    for (int m : {1, n / 2, n - 1})
      if (m >= 1 && m < n && (m != n - 1 || n - 1 != n / 2) && (m != n / 2 || n / 2 != 1)) narrow(in, n, m);
}

ProgramCost program_cost(const Program& p) {
  ProgramCost c;
  for (const UOp* u : linearize(p)) {
    if (u->op == Op::CONST)
      c.complexity += complexity(u->dtype, u->value);
    else
      ++c.nodes;
    if (u->op == Op::BUFFER || u->op == Op::ALLOC) c.elements += u->len;
    c.lanes += u->lanes - 1;
    if (u->op == Op::RANGE) c.iterations = std::min(kRuntimeTrips * 64, c.iterations + trip_count(u));
    c.gates += u->is_gated();
    c.kinds += u->op == Op::RANGE && u->range_kind() != RangeKind::Loop;
  }
  if (p.opts)
    for (const OptStep& o : *p.opts) c.opts += 1 + std::max<int64_t>(o.arg, 0);
  for (const auto& [slot, vals] : p.data)
    if (const UOp* b = p.buffer(slot))
      for (Scalar v : vals) c.complexity += complexity(b->dtype, v);
  return c;
}

}  // namespace uf

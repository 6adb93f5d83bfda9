// The loop shrink passes (rows of fuzz/oracle/passes.def): loops removed or merged, trip counts lowered,
// accumulators and gates dropped.
#include "fuzz/oracle/shrink_loops.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/loops.h"
#include "core/rewrite.h"
#include "fuzz/oracle/passes.h"

namespace uf {

namespace {

// The integer value of a CONST of an integer dtype, clamped to [0, kRuntimeTrips - 1].
int64_t const_trips(const UOp* c) {
  if (is_unsigned(c->dtype)) return static_cast<int64_t>(std::min<uint64_t>(c->value.u, kRuntimeTrips - 1));
  return std::clamp<int64_t>(c->value.i, 0, kRuntimeTrips - 1);
}

bool contains(std::span<const UOp* const> v, const UOp* u) { return std::find(v.begin(), v.end(), u) != v.end(); }

// Rebuilds `p` bottom-up with `pick(u, src)` choosing u's replacement from its rebuilt sources (nullptr:
// the default). The default keeps loop bookkeeping consistent once a RANGE is gone or merged: an END
// closes only the distinct RANGEs among its sources, and becomes its effect when none is left or when
// its effect (an END) already closes them all; an AFTER drops dependencies that became CONSTs, and
// becomes its memory when none is left. Throws TypeError like substitute().
template <class Pick>
Program rewrite(const Program& p, const std::vector<const UOp*>& order, Pick pick) {
  Graph& g = *p.graph;
  Program q = p;
  q.origin.clear();
  std::unordered_map<const UOp*, const UOp*> mapped;
  std::vector<const UOp*> src;
  for (const UOp* u : order) {
    src.clear();
    for (const UOp* s : u->src) src.push_back(mapped.at(s));
    const UOp* m = pick(u, src);
    if (!m && u->op == Op::END) {
      std::vector<const UOp*> ranges;
      for (size_t i = 1; i < src.size(); ++i)
        if (src[i]->op == Op::RANGE && !contains(ranges, src[i])) ranges.push_back(src[i]);
      const UOp* effect = src[0];
      bool closed = effect->op == Op::END;
      for (const UOp* r : ranges) closed = closed && contains(effect->src.subspan(1), r);
      if (ranges.empty() || closed) {
        m = effect;
      } else {
        ranges.insert(ranges.begin(), effect);
        src = std::move(ranges);
      }
    } else if (!m && u->op == Op::AFTER) {
      std::erase_if(src, [&](const UOp* s) { return s != src[0] && s->op == Op::CONST; });
      if (src.size() == 1) m = src[0];
    }
    if (!m) m = std::equal(src.begin(), src.end(), u->src.begin(), u->src.end()) ? u : rebuild(g, u, src);
    mapped[u] = m;
  }
  q.sink = mapped.at(p.sink);
  for (const UOp*& b : q.buffers) b = mapped.at(b);
  return q;
}

template <class Pick>
void offer(const PassInput& s, Pick pick) {
  try {
    s.add(rewrite(s.p, s.order, pick));
  } catch (const TypeError&) {
    // A rebuilt node no longer type-checks: not a candidate.
  }
}

std::vector<const UOp*> ranges_of(const std::vector<const UOp*>& order) {
  std::vector<const UOp*> out;
  for (const UOp* u : order)
    if (u->op == Op::RANGE) out.push_back(u);
  return out;
}

}  // namespace

int64_t trip_count(const UOp* range) {
  const UOp* end = range->src[0];
  return end->op == Op::CONST ? const_trips(end) : kRuntimeTrips;
}

// A loop removed: its RANGE becomes CONST 0 (one iteration, the first), or, in a nest, the
// enclosing RANGE of the same dtype (the loop level merged into its parent). ENDs drop it; an END left
// closing nothing becomes its effect; AFTERs drop it as a dependency.
void remove_loop_steps(const PassInput& s) {
  const std::vector<const UOp*> ranges = ranges_of(s.order);
  if (ranges.empty()) return;
  Graph& g = *s.p.graph;
  // Innermost loops first: removing one seldom changes what the outer loops compute.
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    const UOp* r = *it;
    const UOp* zero = g.constant(r->dtype, Scalar::zero());
    offer(s, [&](const UOp* u, const std::vector<const UOp*>&) { return u == r ? zero : nullptr; });
  }
  const Loops loops = analyze_loops(s.p, s.order);
  for (size_t k = loops.ranges.size(); k-- > 0;) {
    const int parent = loops.parent[k];
    if (parent < 0) continue;
    const UOp* r = loops.ranges[k];
    const UOp* outer = loops.ranges[static_cast<size_t>(parent)];
    if (outer->dtype != r->dtype) continue;
    // Nothing before r changes, so `outer` (earlier in the order) is its own rebuilt node.
    offer(s, [&](const UOp* u, const std::vector<const UOp*>&) { return u == r ? outer : nullptr; });
  }
}

// A trip count lowered: a CONST end to 1, 2, n/2 or n-1; a computed end to CONST 1 or to its
// reference value.
void trip_count_steps(const PassInput& s) {
  Graph& g = *s.p.graph;
  for (const UOp* r : ranges_of(s.order)) {
    const UOp* end = r->src[0];
    std::vector<int64_t> counts;
    if (end->op == Op::CONST) {
      const int64_t n = const_trips(end);
      for (int64_t m : {int64_t{1}, int64_t{2}, n / 2, n - 1})
        if (m >= 1 && m < n && !std::count(counts.begin(), counts.end(), m)) counts.push_back(m);
    } else {
      counts.push_back(1);
      if (auto v = s.values.find(end); v != s.values.end()) {
        const UOp* c = g.constant(end->dtype, v->second);
        if (const int64_t m = const_trips(c); m != 1) counts.push_back(m);
      }
    }
    for (int64_t m : counts) {
      try {
        const UOp* shorter = g.range(g.constant(end->dtype, Scalar::of_int(m)), r->value.i, r->dtype, r->range_kind());
        offer_substitution(s, {{r, shorter}});
      } catch (const TypeError&) {}
    }
  }
}

// An accumulator dropped: the loads of an ALLOC element read its top-level init value instead
// (every load, or only those inside loops: the reduction becomes "the last iteration's value").
void accumulator_steps(const PassInput& s) {
  bool any_alloc = false;
  for (const UOp* u : s.order) any_alloc |= u->op == Op::ALLOC;
  if (!any_alloc) return;
  const Loops loops = analyze_loops(s.p, s.order);
  auto top_level = [&](const UOp* u) { return u->id >= loops.innermost.size() || loops.innermost[u->id] < 0; };
  // (ALLOC, constant index) -> its loads, and the values top-level STOREs write there.
  std::map<std::pair<const UOp*, int64_t>, std::vector<const UOp*>> loads, inits;
  for (const UOp* u : s.order) {
    if (u->op != Op::LOAD && u->op != Op::STORE) continue;
    const UOp* idx = u->src[0]->index_node();
    if (!idx || idx->base()->op != Op::ALLOC || idx->src[1]->op != Op::CONST || u->is_vector()) continue;
    if (u->op == Op::STORE && u->src[1]->is_vector()) continue;
    const std::pair<const UOp*, int64_t> key{idx->base(), idx->src[1]->value.i};
    if (u->op == Op::LOAD)
      loads[key].push_back(u);
    else if (top_level(u) && top_level(u->src[1]))
      inits[key].push_back(u->src[1]);
  }
  for (const auto& [key, values] : inits) {
    const auto l = loads.find(key);
    if (l == loads.end()) continue;
    for (const UOp* v : values)
      for (const bool inside_only : {false, true}) {
        std::unordered_map<const UOp*, const UOp*> replace;
        for (const UOp* load : l->second)
          if (load->dtype == v->dtype && (!inside_only || !top_level(load))) replace[load] = v;
        if (!replace.empty() && (!inside_only || replace.size() < l->second.size())) offer_substitution(s, replace);
      }
  }
}

// A LOAD through AFTER(…, STORE) of the same element reads the stored value, and the STORE,
// which the AFTER kept alive, stays as an effect of the SINK (closed by an END over its loops). Turns an
// accumulator read back after its update into the update's value, keeping the update.
void forward_keeping_steps(const PassInput& s) {
  Graph& g = *s.p.graph;
  std::optional<Loops> loops;
  for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
    const UOp* u = *it;
    if (u->op != Op::LOAD || u->is_vector() || u->src[0]->op != Op::INDEX) continue;
    const UOp* idx = u->src[0];
    std::vector<const UOp*> stores, chain{idx->src[0]};
    while (!chain.empty()) {  // the STOREs the address's AFTERs name, to the same element
      const UOp* a = chain.back();
      chain.pop_back();
      if (a->op != Op::AFTER) continue;
      chain.push_back(a->src[0]);
      for (const UOp* d : a->src.subspan(1)) {
        if (d->op == Op::STORE && !d->is_gated() && d->src[1]->dtype == u->dtype && !d->src[1]->is_vector())
          if (const UOp* sx = d->src[0]->index_node(); sx && sx->base() == idx->base() && sx->src[1] == idx->src[1])
            stores.push_back(d);
      }
    }
    for (const UOp* st : stores) {
      try {
        Program q = substitute(s.p, {{u, st->src[1]}});
        if (!loops) loops = analyze_loops(s.p, s.order);
        std::vector<const UOp*> end{st};
        for (int k : loops->loops_of(st)) end.push_back(loops->ranges[static_cast<size_t>(k)]);
        std::vector<const UOp*> effects(q.sink->src.begin(), q.sink->src.end());
        effects.push_back(end.size() == 1 ? st : g.make(Op::END, std::span<const UOp* const>(end)));
        q.sink = g.make(Op::SINK, std::span<const UOp* const>(effects));
        s.add(std::move(q));
      } catch (const TypeError&) {}
    }
  }
}

// A copy out of a loop, STORE(a, LOAD(INDEX(AFTER(m, END(STORE(m[i], v), ranges)), i))), becomes
// the loop storing v to `a` itself, END(STORE(a, v), ranges): the accumulator between them disappears.
void copy_out_steps(const PassInput& s) {
  Graph& g = *s.p.graph;
  for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
    const UOp* c = *it;
    if (c->op != Op::STORE || c->is_gated() || c->src[1]->op != Op::LOAD || c->src[1]->is_gated()) continue;
    const UOp* load = c->src[1];
    const UOp* idx = load->src[0];
    if (idx->op != Op::INDEX || idx->src[0]->op != Op::AFTER) continue;
    for (const UOp* e : idx->src[0]->src.subspan(1)) {
      if (e->op != Op::END) continue;
      std::vector<const UOp*> ranges(e->src.begin() + 1, e->src.end());
      const UOp* st = e->src[0];
      while (st->op == Op::END) {
        ranges.insert(ranges.begin(), st->src.begin() + 1, st->src.end());
        st = st->src[0];
      }
      const UOp* sx = st->src[0]->index_node();
      if (st->is_gated() || !sx || sx->base() != idx->base() || sx->src[1] != idx->src[1] ||
          st->src[1]->dtype != c->src[0]->dtype || st->src[1]->is_vector())
        continue;
      try {
        ranges.insert(ranges.begin(), g.make(Op::STORE, {c->src[0], st->src[1]}));
        offer_substitution(s, {{c, g.make(Op::END, std::span<const UOp* const>(ranges))}});
      } catch (const TypeError&) {}
    }
  }
}

// For values inside loops (which have no single reference value): a value becomes a RANGE of its
// loops of the same dtype (innermost first), CONST 0 or CONST 1.
void loop_value_steps(const PassInput& s) {
  bool any = false;
  for (const UOp* u : s.order) any |= u->op == Op::RANGE;
  if (!any) return;
  Graph& g = *s.p.graph;
  const Loops loops = analyze_loops(s.p, s.order);
  for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
    const UOp* u = *it;
    if (u->is_memory() || is_void(u->dtype) || u->is_vector() || u->op == Op::CONST || u->op == Op::RANGE) continue;
    if (u->id >= loops.innermost.size() || loops.innermost[u->id] < 0 || s.values.count(u)) continue;
    const std::vector<int> around = loops.loops_of(u);
    for (auto k = around.rbegin(); k != around.rend(); ++k)
      if (const UOp* r = loops.ranges[static_cast<size_t>(*k)]; r->dtype == u->dtype) offer_substitution(s, {{u, r}});
    offer_substitution(s, {{u, g.constant(u->dtype, Scalar::zero())}});
    offer_substitution(s, {{u, g.constant(u->dtype, is_float(u->dtype) ? Scalar::of_float(1.0) : Scalar::of_uint(1))}});
  }
}

// Gates: a gated LOAD becomes ungated or its alt; a gated STORE loses its gate.
void gate_steps(const PassInput& s) {
  Graph& g = *s.p.graph;
  for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
    const UOp* u = *it;
    if (!u->is_gated()) continue;
    try {
      if (u->op == Op::LOAD) {
        offer_substitution(s, {{u, u->src[1]}});
        offer_substitution(s, {{u, g.make(Op::LOAD, {u->src[0]}, u->dtype)}});
      } else {
        offer_substitution(s, {{u, g.make(Op::STORE, {u->src[0], u->src[1]})}});
      }
    } catch (const TypeError&) {}
  }
}

}  // namespace uf

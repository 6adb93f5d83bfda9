// The probe program (probe.h).
#include "core/probe.h"

#include <algorithm>
#include <limits>
#include <map>

#include "core/int_range.h"

namespace uf {

namespace {

// Elements one in-loop value may take, and all of them together: enough for every iteration of the
// loops the generator writes below depth 2, small enough that a probe run costs about what the program does.
constexpr int64_t kMaxPerValue = 2048;
constexpr int64_t kMaxInLoops = 1 << 17;

// The most iterations a loop can run: its constant end, or the bound on a computed end; -1 if unknown.
int64_t most_trips(const UOp* range, std::span<const IntRange> bounds) {
  const UOp* end = range->src[0];
  int128 v = 0;
  if (end->op == Op::CONST)
    v = int_value(end->dtype, end->value);
  else if (end->id < bounds.size())
    v = bounds[end->id].hi;
  else
    return -1;
  return v <= 0 ? 0 : v >= kMaxPerValue ? kMaxPerValue : static_cast<int64_t>(v);
}

// A value no iteration of `range` has: -1, or the largest value of an unsigned dtype.
Scalar never_an_iteration(DType d) {
  if (is_signed(d)) return Scalar::of_int(-1);
  return Scalar::of_uint(bits(d) >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits(d)) - 1);
}

class Instrumenter {
 public:
  Instrumenter(const Program& p, ProbeScope scope, const std::vector<const UOp*>& order, const Loops& loops,
               std::span<const IntRange> bounds, std::span<const bool> dtypes = {})
      : probe_{p, {}}, g_(*probe_.program.graph), scope_(scope), bounds_(bounds), dtypes_(dtypes), order_(order), loops_(loops) {
    position_.assign(p.graph->size(), 0);
    for (size_t i = 0; i < loops_.schedule.size(); ++i) position_[loops_.schedule[i]->id] = static_cast<int64_t>(i);
    next_slot_ = p.buffers.empty() ? 0 : p.buffers.back()->slot + 1;
    effects_.assign(p.sink->src.begin(), p.sink->src.end());
  }

  Probe run() {
    std::map<DType, std::vector<Lane>> top_level;
    for (const UOp* u : order_) {
      if (!probed(u)) continue;
      if (!u->is_vector() && in_loop(u))
        probe_in_loop(u);
      else if (!u->is_vector())
        top_level[u->dtype].push_back({u, u});
      else  // (loop bodies hold no vectors)
        for (int k = 0; k < u->lanes; ++k) top_level[u->dtype].push_back({g_.gep(u, k), u, k});
    }
    for (const auto& [d, list] : top_level) probe_top_level(d, list);
    Program& q = probe_.program;
    q.sink = g_.make(Op::SINK, std::span<const UOp* const>(effects_));
    q.expect.clear();
    q.got.clear();
    std::stable_sort(probe_.points.begin(), probe_.points.end(),
                     [](const ProbePoint& a, const ProbePoint& b) { return a.position < b.position; });
    return std::move(probe_);
  }

 private:
  bool in_loop(const UOp* u) const { return loops_.any() && loops_.innermost[u->id] >= 0; }

  bool probed(const UOp* u) const {
    if (is_void(u->dtype)) return false;
    if (!dtypes_.empty() && !dtypes_[static_cast<size_t>(u->dtype)]) return false;
    if (scope_ == ProbeScope::computed && (in_loop(u) || u->is_vector())) return false;  // vectors: by their GEPs
    if (u->is_vector() && in_loop(u)) return false;
    if (u->op == Op::CONST) return scope_ == ProbeScope::every_value;
    return !u->is_memory();
  }

  const UOp* add_buffer(DType d, int64_t len, Values data) {
    const UOp* b = g_.memory(Op::BUFFER, d, len, next_slot_++);
    probe_.program.buffers.push_back(b);
    probe_.program.data[b->slot] = std::move(data);
    return b;
  }

  // A scalar to store, and the node it is a value of (a vector's lanes are stored one GEP each).
  struct Lane {
    const UOp* stored;
    const UOp* node;
    int lane = -1;
  };

  // Outside loops: one buffer per dtype, one constant index per value.
  void probe_top_level(DType d, const std::vector<Lane>& list) {
    const UOp* b = add_buffer(d, static_cast<int64_t>(list.size()), Values(list.size(), Scalar::zero()));
    for (size_t k = 0; k < list.size(); ++k) {
      const auto idx = static_cast<int64_t>(k);
      const UOp* at = g_.make(Op::INDEX, {b, g_.constant(DType::I32, Scalar::of_int(idx))});
      effects_.push_back(g_.make(Op::STORE, {at, list[k].stored}));
      probe_.points.push_back({list[k].node, b->slot, idx, 1, position_[list[k].node->id], {}, list[k].lane});
    }
  }

  // Inside loops: a buffer of its own, indexed by the iterations of the innermost loops whose trip counts
  // are known (with room for one iteration too many), as long as it stays within kMaxPerValue.
  void probe_in_loop(const UOp* u) {
    const std::vector<int> chain = loops_.loops_of(u);
    ProbePoint point{u, 0, 0, 1, position_[u->id], {}};
    for (int l : chain) point.loops.push_back({position_[loops_.ranges[l]->id], 0, 0});
    for (size_t k = chain.size(); k-- > 0;) {
      const int64_t trips = most_trips(loops_.ranges[chain[k]], bounds_);
      if (trips < 0 || point.count * (trips + 1) > kMaxPerValue || in_loops_ + point.count * (trips + 1) > kMaxInLoops) break;
      point.loops[k].stride = point.count;
      point.loops[k].extent = trips + 1;
      point.count *= trips + 1;
    }
    // Every iteration of a kind=global loop must write its own element (docs/semantics.md, "Loop kinds"):
    // a value whose layout cannot give it one is not probed.
    for (size_t k = 0; k < chain.size(); ++k)
      if (point.loops[k].stride == 0 && loops_.ranges[chain[k]]->range_kind() == RangeKind::Global) return;
    in_loops_ += point.count;
    const Values data(static_cast<size_t>(point.count), u->op == Op::RANGE ? never_an_iteration(u->dtype) : Scalar::zero());
    const UOp* b = add_buffer(u->dtype, point.count, data);
    point.slot = b->slot;
    const UOp* index = nullptr;
    for (size_t k = 0; k < chain.size(); ++k) {
      if (point.loops[k].stride == 0) continue;
      const UOp* r = loops_.ranges[chain[k]];
      const UOp* term = r->dtype == DType::I32 ? r : g_.make(Op::CAST, {r}, DType::I32);
      if (point.loops[k].stride != 1)
        term = g_.make(Op::MUL, {term, g_.constant(DType::I32, Scalar::of_int(point.loops[k].stride))});
      index = index ? g_.make(Op::ADD, {index, term}) : term;
    }
    if (!index) index = g_.constant(DType::I32, Scalar::zero());
    const UOp* effect = g_.make(Op::STORE, {g_.make(Op::INDEX, {b, index}), u});
    for (size_t k = chain.size(); k-- > 0;) effect = g_.make(Op::END, {effect, loops_.ranges[chain[k]]});
    effects_.push_back(effect);
    probe_.points.push_back(std::move(point));
  }

  Probe probe_;
  Graph& g_;
  ProbeScope scope_;
  std::span<const IntRange> bounds_;
  std::span<const bool> dtypes_;  // empty: every dtype
  const std::vector<const UOp*>& order_;
  const Loops& loops_;
  std::vector<int64_t> position_;  // by node id: position in the schedule
  std::vector<const UOp*> effects_;
  int64_t next_slot_ = 0;
  int64_t in_loops_ = 0;  // elements given to in-loop values so far
};

}  // namespace

Probe instrument(const Program& p, ProbeScope scope, std::span<const IntRange> bounds, std::span<const bool> dtypes) {
  const std::vector<const UOp*> order = linearize(p);
  return Instrumenter(p, scope, order, analyze_loops(p, order), bounds, dtypes).run();
}

Probe instrument(const Program& p, const Analysis& a, ProbeScope scope) {
  return Instrumenter(p, scope, a.order, a.loops, a.bounds).run();
}

std::vector<int64_t> probe_time(const ProbePoint& point, int64_t element) {
  std::vector<int64_t> key;
  const int64_t offset = element - point.index;
  for (const ProbeLoop& l : point.loops) {
    key.push_back(l.position);
    key.push_back(l.stride ? offset / l.stride % l.extent : std::numeric_limits<int64_t>::max());
  }
  key.push_back(point.position);
  return key;
}

}  // namespace uf

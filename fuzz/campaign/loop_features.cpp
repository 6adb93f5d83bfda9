// Loop features from the one loop analysis (core/loops.h) over the live nodes.
#include "fuzz/campaign/loop_features.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "core/loops.h"

namespace uf {

std::string_view describe(LoopFeature f) {
  static constexpr std::string_view kText[] = {
#define UOPFUZZ_X(id, text) text,
      UOPFUZZ_LOOP_FEATURES(UOPFUZZ_X)
#undef UOPFUZZ_X
  };
  return kText[static_cast<size_t>(f)];
}

namespace {

LoopFeature trip_class(const UOp* range) {
  const UOp* end = range->src[0];
  if (end->op != Op::CONST) return LoopFeature::TripRuntime;
  const int64_t n = is_signed(end->dtype) ? end->value.i : static_cast<int64_t>(end->value.u & INT64_MAX);
  if (n <= 0) return LoopFeature::TripZero;
  if (n == 1) return LoopFeature::TripOne;
  if (n < 8) return LoopFeature::TripShort;
  if (n <= 16) return LoopFeature::Trip16;
  if (n <= 32) return LoopFeature::Trip32;
  if (n <= 64) return LoopFeature::Trip64;
  return LoopFeature::TripLong;
}

// A STORE in a loop into an ALLOC of a value computed from a LOAD of that same ALLOC: an accumulator
// update, whose kind is the op that combines (MULACC's last operand is the accumulator: a sum). Other
// combining ops are not a feature of their own: the generator builds the three kinds tinygrad has.
std::optional<LoopFeature> reduction(const UOp* store) {
  const UOp* acc = store->src[0]->base();
  const UOp* v = store->src[1];
  if (acc->op != Op::ALLOC || !is_alu(v->op)) return std::nullopt;
  bool reads_acc = false;
  for (const UOp* s : v->src) reads_acc |= s->op == Op::LOAD && s->src[0]->base() == acc;
  if (!reads_acc) return std::nullopt;
  switch (v->op) {
    case Op::ADD:
    case Op::MULACC: return LoopFeature::ReduceSum;
    case Op::MAX: return LoopFeature::ReduceMax;
    case Op::MUL: return LoopFeature::ReduceProduct;
    default: return std::nullopt;
  }
}

}  // namespace

std::array<bool, kNumLoopFeatures> loop_features(const Program& p, const std::vector<const UOp*>& order) {
  std::array<bool, kNumLoopFeatures> f{};
  if (!has_loops(order)) return f;
  const Loops loops = analyze_loops(p, order);
  auto set = [&f](LoopFeature x) { f[static_cast<size_t>(x)] = true; };
  int deepest = 0;
  for (size_t k = 0; k < loops.ranges.size(); ++k) {
    int depth = 1;
    for (int q = loops.parent[k]; q >= 0; q = loops.parent[q]) ++depth;
    deepest = std::max(deepest, depth);
    set(trip_class(loops.ranges[k]));
  }
  if (deepest > 0) set(deepest == 1 ? LoopFeature::Depth1 : deepest == 2 ? LoopFeature::Depth2 : LoopFeature::Depth3);
  std::set<std::pair<int, const UOp*>> loaded, stored;  // (loop, BUFFER) accessed in it
  for (const UOp* u : order) {
    if (u->op != Op::LOAD && u->op != Op::STORE) continue;
    if (u->is_gated()) set(u->op == Op::LOAD ? LoopFeature::GatedLoad : LoopFeature::GatedStore);
    const int loop = loops.innermost[u->id];
    if (loop < 0) continue;
    const UOp* mem = u->src[0]->base();
    if (mem->op == Op::BUFFER) (u->op == Op::LOAD ? loaded : stored).insert({loop, mem});
    if (u->op == Op::STORE)
      if (auto r = reduction(u)) set(*r);
  }
  for (const auto& access : stored)
    if (loaded.count(access)) set(LoopFeature::SameBuffer);
  return f;
}

}  // namespace uf

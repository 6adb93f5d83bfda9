// Loop features of a program, for coverage next to op×dtype (issue 14): how deep its loops nest, how long
// they run (by trip-count class: the classes a vectorizer treats differently), which reductions they
// compute into accumulators, and which memory shapes they use. One table: adding a feature is one row.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/program.h"

namespace uf {

#define UOPFUZZ_LOOP_FEATURES(X)                                  \
  X(Depth1, "nest depth 1")                                       \
  X(Depth2, "nest depth 2")                                       \
  X(Depth3, "nest depth 3+")                                      \
  X(TripZero, "trip count 0")                                     \
  X(TripOne, "trip count 1")                                      \
  X(TripShort, "trip count 2..7 (shorter than an 8-lane vector)") \
  X(Trip16, "trip count 8..16")                                   \
  X(Trip32, "trip count 17..32")                                  \
  X(Trip64, "trip count 33..64")                                  \
  X(TripLong, "trip count over 64")                               \
  X(TripRuntime, "runtime trip count")                            \
  X(ReduceSum, "reduction sum")                                   \
  X(ReduceMax, "reduction max")                                   \
  X(ReduceProduct, "reduction product")                           \
  X(GatedLoad, "gated load")                                      \
  X(GatedStore, "gated store")                                    \
  X(SameBuffer, "one buffer read and written in a loop")

enum class LoopFeature : uint8_t {
#define UOPFUZZ_X(id, text) id,
  UOPFUZZ_LOOP_FEATURES(UOPFUZZ_X)
#undef UOPFUZZ_X
      kCount
};
constexpr size_t kNumLoopFeatures = static_cast<size_t>(LoopFeature::kCount);

std::string_view describe(LoopFeature f);

// The features of the nodes of `order` (linearize(p): the live nodes), each at most once; none for a
// program without loops.
std::array<bool, kNumLoopFeatures> loop_features(const Program& p, const std::vector<const UOp*>& order);

}  // namespace uf

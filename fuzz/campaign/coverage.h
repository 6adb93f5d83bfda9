// Coverage: which (op, dtype) pairs and which CAST/BITCAST (from, to) pairs the live nodes of the
// generated programs exercised. Mergeable across programs and workers; the fuzzer reports summary().
//
// The dtype of a pair is the operand dtype: what the op computes on (a comparison's operands, not its
// bool result; WHERE's values; a STORE's value; a CAST's source). Memory ops and CONST count by their
// own dtype. SINK is not counted. Loops count by feature (loop_features.h), once per program.
//
// Vectors count separately, by their scalar dtype, in `op_dtype_vector` (the summary's `op×dtype
// (vector)`): a node with a vector result, a GEP, and a STORE of a vector. GEP and STACK exist only there.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/program.h"
#include "fuzz/campaign/loop_features.h"

namespace uf {

struct Coverage {
  std::array<uint64_t, kNumOps * kNumDTypes> op_dtype{};
  std::array<uint64_t, kNumDTypes * kNumDTypes> cast{};
  std::array<uint64_t, kNumDTypes * kNumDTypes> bitcast{};
  std::array<uint64_t, kNumOps * kNumDTypes> op_dtype_vector{};
  std::array<uint64_t, kNumLoopFeatures> loop_feature{};  // programs with each loop feature
  uint64_t programs = 0;
  uint64_t programs_with_loops = 0;

  // Counts the nodes of linearize(p): dead code is not coverage.
  void add(const Program& p);
  void merge(const Coverage& other);

  struct Count {
    size_t covered, total;
  };
  Count op_dtype_count() const;
  Count cast_count() const;
  Count bitcast_count() const;
  Count op_dtype_vector_count() const;
  Count loop_feature_count() const;
  // "460/460 op×dtype pairs, ..., 70/70 BITCAST pairs, 17/17 loop features, loops in 2100 of 3000 programs"
  std::string summary() const;
  // The pairs never seen, e.g. "SHL i8", "CAST f16->u64", "BITCAST u16->f16", "ADD f32 (vector)", and the
  // loop features, e.g. "loop: reduction max".
  std::vector<std::string> missing() const;

  // Every pair of the scalar op×dtype table and of the CAST table with how often it ran, zeros included,
  // for the summary's `coverage_counts` (a report draws one heat-map cell per entry).
  struct PairCount {
    std::string row, column;
    uint64_t count;
  };
  std::vector<PairCount> op_dtype_pairs() const;  // row: op, column: operand dtype
  std::vector<PairCount> cast_pairs() const;      // row: source dtype, column: target dtype
};

}  // namespace uf

// Coverage counting over live nodes.
#include "fuzz/campaign/coverage.h"

namespace uf {

namespace {

size_t at(Op op, DType d) { return static_cast<size_t>(op) * kNumDTypes + static_cast<size_t>(d); }
size_t at(DType a, DType b) { return static_cast<size_t>(a) * kNumDTypes + static_cast<size_t>(b); }

// The dtype a node computes on (see coverage.h), or void for nodes that are not counted.
DType operand_dtype(const UOp* u) {
  switch (u->op) {
    case Op::SINK: return DType::Void;
    case Op::STORE: return u->src[1]->dtype;
    case Op::WHERE: return u->src[1]->dtype;
    default: return is_alu(u->op) ? u->src[0]->dtype : u->dtype;
  }
}

bool vector_only(Op op) { return op == Op::GEP || op == Op::STACK; }
// Loops are not (op, dtype) pairs: their features are counted on their own (issue 14, item 8).
bool loop_op(Op op) { return op == Op::RANGE || op == Op::END; }

// Whether (op, d) is a pair of the scalar table, and of the vector table.
bool scalar_pair(Op op, DType d) { return !vector_only(op) && !loop_op(op) && op_accepts(op, d); }
bool vector_pair(Op op, DType d) {
  if (is_void(d)) return false;
  if (op == Op::CONST || op == Op::LOAD || op == Op::STORE || vector_only(op)) return true;
  return is_alu(op) && op_accepts(op, d);
}

bool counts_as_vector(const UOp* u) {
  return u->is_vector() || u->op == Op::GEP || (u->op == Op::STORE && u->src[1]->is_vector());
}

}  // namespace

void Coverage::add(const Program& p) {
  ++programs;
  const std::vector<const UOp*> order = linearize(p);
  const auto features = loop_features(p, order);
  bool any_loop = false;
  for (size_t i = 0; i < kNumLoopFeatures; ++i) loop_feature[i] += features[i];
  for (const UOp* u : order) any_loop |= u->op == Op::RANGE;
  programs_with_loops += any_loop;
  for (const UOp* u : order) {
    const DType d = operand_dtype(u);
    if (is_void(d)) continue;
    if (counts_as_vector(u)) {
      ++op_dtype_vector[at(u->op, d)];
      continue;
    }
    ++op_dtype[at(u->op, d)];
    if (u->op == Op::CAST) ++cast[at(d, u->dtype)];
    if (u->op == Op::BITCAST) ++bitcast[at(d, u->dtype)];
  }
}

void Coverage::merge(const Coverage& o) {
  for (size_t i = 0; i < op_dtype.size(); ++i) op_dtype[i] += o.op_dtype[i];
  for (size_t i = 0; i < cast.size(); ++i) cast[i] += o.cast[i];
  for (size_t i = 0; i < bitcast.size(); ++i) bitcast[i] += o.bitcast[i];
  for (size_t i = 0; i < op_dtype_vector.size(); ++i) op_dtype_vector[i] += o.op_dtype_vector[i];
  for (size_t i = 0; i < loop_feature.size(); ++i) loop_feature[i] += o.loop_feature[i];
  programs += o.programs;
  programs_with_loops += o.programs_with_loops;
}

namespace {

// The (op, dtype) pairs `counted` can hold under the rule `is_pair`, and how many of them were reached.
Coverage::Count count_pairs(const std::array<uint64_t, kNumOps * kNumDTypes>& counted, bool (*is_pair)(Op, DType)) {
  Coverage::Count c{0, 0};
  for (int o = 0; o < kNumOps; ++o)
    for (DType d : kValueDTypes)
      if (is_pair(static_cast<Op>(o), d)) {
        ++c.total;
        c.covered += counted[at(static_cast<Op>(o), d)] > 0;
      }
  return c;
}

}  // namespace

Coverage::Count Coverage::op_dtype_count() const { return count_pairs(op_dtype, scalar_pair); }
Coverage::Count Coverage::op_dtype_vector_count() const { return count_pairs(op_dtype_vector, vector_pair); }

Coverage::Count Coverage::loop_feature_count() const {
  Count c{0, kNumLoopFeatures};
  for (uint64_t n : loop_feature) c.covered += n > 0;
  return c;
}

Coverage::Count Coverage::cast_count() const {
  Count c{0, 0};
  for (DType a : kValueDTypes)
    for (DType b : kValueDTypes) {
      ++c.total;
      c.covered += cast[at(a, b)] > 0;
    }
  return c;
}

Coverage::Count Coverage::bitcast_count() const {
  Count c{0, 0};
  for (DType a : kValueDTypes)
    for (DType b : kValueDTypes)
      if (bitcast_legal(a, b)) {
        ++c.total;
        c.covered += bitcast[at(a, b)] > 0;
      }
  return c;
}

std::string Coverage::summary() const {
  auto part = [](Count c, const char* what) { return std::to_string(c.covered) + "/" + std::to_string(c.total) + " " + what; };
  return part(op_dtype_count(), "op×dtype pairs, ") + part(op_dtype_vector_count(), "op×dtype (vector) pairs, ") +
         part(cast_count(), "CAST pairs, ") + part(bitcast_count(), "BITCAST pairs, ") +
         part(loop_feature_count(), "loop features, loops in ") + std::to_string(programs_with_loops) + " of " +
         std::to_string(programs) + " programs";
}

std::vector<std::string> Coverage::missing() const {
  std::vector<std::string> out;
  for (int o = 0; o < kNumOps; ++o)
    for (DType d : kValueDTypes)
      if (scalar_pair(static_cast<Op>(o), d) && op_dtype[at(static_cast<Op>(o), d)] == 0)
        out.push_back(std::string(name(static_cast<Op>(o))) + " " + name(d));
  for (int o = 0; o < kNumOps; ++o)
    for (DType d : kValueDTypes)
      if (vector_pair(static_cast<Op>(o), d) && op_dtype_vector[at(static_cast<Op>(o), d)] == 0)
        out.push_back(std::string(name(static_cast<Op>(o))) + " " + name(d) + " (vector)");
  for (DType a : kValueDTypes)
    for (DType b : kValueDTypes) {
      if (cast[at(a, b)] == 0) out.push_back(std::string("CAST ") + name(a) + "->" + name(b));
      if (bitcast_legal(a, b) && bitcast[at(a, b)] == 0) out.push_back(std::string("BITCAST ") + name(a) + "->" + name(b));
    }
  for (size_t i = 0; i < kNumLoopFeatures; ++i)
    if (loop_feature[i] == 0) out.push_back("loop: " + std::string(describe(static_cast<LoopFeature>(i))));
  return out;
}

std::vector<Coverage::PairCount> Coverage::op_dtype_pairs() const {
  std::vector<PairCount> out;
  for (int o = 0; o < kNumOps; ++o)
    for (DType d : kValueDTypes)
      if (scalar_pair(static_cast<Op>(o), d))
        out.push_back({name(static_cast<Op>(o)), name(d), op_dtype[at(static_cast<Op>(o), d)]});
  return out;
}

std::vector<Coverage::PairCount> Coverage::cast_pairs() const {
  std::vector<PairCount> out;
  for (DType a : kValueDTypes)
    for (DType b : kValueDTypes) out.push_back({name(a), name(b), cast[at(a, b)]});
  return out;
}

}  // namespace uf

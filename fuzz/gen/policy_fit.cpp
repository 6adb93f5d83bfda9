#include "fuzz/gen/policy_fit.h"

#include <cmath>
#include <numeric>
#include <unordered_map>

#include "core/loops.h"

namespace uf {

namespace {

// The dtype an ALU node computes on: its source's for a conversion or comparison, a WHERE's values'.
DType operand_dtype(const UOp* u) {
  if (u->op == Op::WHERE) return u->src[1]->dtype;
  if (is_conversion(u->op) || is_comparison(u->op)) return u->src[0]->dtype;
  return u->dtype;
}

size_t trip_class(int64_t trips) {
  const auto distance = [trips](size_t k) { return std::abs(std::log2(trips + 1.0) - std::log2(kTripCounts[k] + 1.0)); };
  size_t best = 0;
  for (size_t k = 1; k < kTripCounts.size(); ++k)
    if (distance(k) < distance(best)) best = k;
  return best;
}

// A constant 0, false or +0.0.
bool is_zero_const(const UOp* u) { return u->op == Op::CONST && u->value.u == 0; }

bool is_logical_not(const UOp* u) {
  return u->op == Op::CMPNE && is_bool(u->src[0]->dtype) && u->src[1]->op == Op::CONST && u->src[1]->value.i != 0;
}

// The idioms the generator's idiom knobs draw (a mask of a mask, a one-hot select, logical nots).
void count_idioms(const UOp* u, bool in_loop, KernelShapes& s, bool& one_hot) {
  if ((u->op == Op::AND || u->op == Op::OR) && is_bool(u->dtype)) {
    s.logic_operands += 2;
    s.nots += is_logical_not(u->src[0]) + is_logical_not(u->src[1]);
  }
  if (u->op != Op::WHERE) return;
  const Op cond = u->src[0]->op;
  one_hot |= in_loop && (cond == Op::CMPNE || cond == Op::CMPEQ);
  if (!is_zero_const(u->src[1]) && !is_zero_const(u->src[2])) return;
  s.masks += 1;
  s.masks_twice += cond == Op::AND || u->src[1]->op == Op::WHERE || u->src[2]->op == Op::WHERE;
}

// What an index expression is made of, over the nodes below it (whether it runs in a loop: loops.h).
struct IndexFacts {
  bool div = false, mod = false;
};

void count_kernel(const Program& p, KernelShapes& s) {
  const std::vector<const UOp*> order = linearize(p);
  const Loops loops = analyze_loops(p, order);
  std::unordered_map<const UOp*, IndexFacts> facts;
  int ranges = 0;
  bool one_hot = false;
  for (const UOp* u : order) {
    count_idioms(u, !loops.loops_of(u).empty(), s, one_hot);
    IndexFacts f{u->op == Op::FLOORDIV, u->op == Op::FLOORMOD};
    if (!u->is_memory())
      for (const UOp* x : u->src)
        if (const auto it = facts.find(x); it != facts.end()) f.div |= it->second.div, f.mod |= it->second.mod;
    facts[u] = f;
    if (is_alu(u->op)) {
      s.ops[static_cast<size_t>(u->op)] += 1;
      s.dtypes[static_cast<size_t>(operand_dtype(u))] += 1;
    }
    if (is_binary_alu(u->op) && info(u->op).result == ResultRule::SAME) {
      s.binary += 1;
      s.nested += u->src[0]->op == u->op || u->src[1]->op == u->op;
    }
    if (is_unary_alu(u->op) && !is_conversion(u->op)) {
      s.unary += 1;
      s.unary_of_affine += u->src[0]->op == Op::ADD || u->src[0]->op == Op::MUL;
    }
    if (u->op == Op::RANGE) {
      ++ranges;
      if (u->src[0]->op == Op::CONST) s.trips[trip_class(u->src[0]->value.i)] += 1;
    }
    if (u->op == Op::LOAD && u->src[0]->index_node() != nullptr) {
      const UOp* index = u->src[0]->index_node()->src[1];
      if (loops.loops_of(index).empty()) continue;  // not a loop's read
      const IndexFacts& i = facts[index];
      auto& r = s.reads;
      if (u->is_gated()) {
        r[static_cast<size_t>(LoopRead::PadAfter)] += 0.5;
        r[static_cast<size_t>(LoopRead::PadBefore)] += 0.5;
      } else {
        const bool offset = index->op == Op::ADD && (index->src[0]->op == Op::CONST || index->src[1]->op == Op::CONST);
        const LoopRead kind = i.div ? LoopRead::Div : i.mod ? LoopRead::Mod : offset ? LoopRead::Offset : LoopRead::Flat;
        r[static_cast<size_t>(kind)] += 1;
      }
    }
  }
  if (ranges > 0) s.depths[static_cast<size_t>(std::min(ranges, 3) - 1)] += 1;
  s.loop_kernels += ranges > 0;
  s.one_hot += ranges > 0 && one_hot;
}

// (1 - weight) * base + weight * measured, the measured table scaled to the base's total; an entry the
// base zeroes stays zero (a --without op), unless every_entry (a shape class the default leaves to the fit),
// and a table with nothing measured stays the base's.
template <class Table>
void blend(Table& base, const Table& measured, double weight, bool every_entry = false) {
  double base_total = 0, measured_total = 0;
  for (size_t k = 0; k < base.size(); ++k)
    if (base[k] > 0 || every_entry) base_total += base[k], measured_total += measured[k];
  if (measured_total <= 0) return;
  for (size_t k = 0; k < base.size(); ++k)
    if (base[k] > 0 || every_entry) base[k] = (1 - weight) * base[k] + weight * measured[k] * base_total / measured_total;
}

}  // namespace

KernelShapes measure_shapes(const std::vector<Program>& kernels) {
  KernelShapes s;
  for (const Program& p : kernels) {
    count_kernel(p, s);
    ++s.kernels;
  }
  return s;
}

GenPolicy fit_policy(const GenPolicy& base, const KernelShapes& shapes, double weight) {
  GenPolicy p = base;
  blend(p.op_weight, shapes.ops, weight);
  blend(p.dtype_weight, shapes.dtypes, weight);
  blend(p.loop_depth_weight, shapes.depths, weight);
  blend(p.trip_weight, shapes.trips, weight, /*every_entry=*/true);  // the powers of two, 0 by default
  blend(p.loop_read_weight, shapes.reads, weight);
  const auto share = [weight](double& knob, double part, double whole) {
    if (whole > 0) knob = (1 - weight) * knob + weight * part / whole;
  };
  share(p.p_nest_op, shapes.nested, shapes.binary);
  share(p.p_unary_of_affine, shapes.unary_of_affine, shapes.unary);
  share(p.p_not_operand, shapes.nots, shapes.logic_operands);
  share(p.p_one_hot, shapes.one_hot, shapes.loop_kernels);
  share(p.p_mask_twice, shapes.masks_twice, shapes.masks);
  return p;
}

}  // namespace uf

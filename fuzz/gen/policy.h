// GenPolicy: every probability, weight and size the program generator uses, in one place.
//
// The generator (fuzz/gen/) has no probability or size of its own: it asks the policy. A campaign can tune
// the defaults; swarm() then gives each program a random subset of ops, dtypes and features, so that
// rare combinations (say, f16 with shifts and no ADD to drown them out) get dense coverage
// (Groce et al., "Swarm Testing", ISSTA 2012).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/ops.h"
#include "fuzz/gen/rng.h"

namespace uf {

// One step of the generator's main loop.
enum class Step : uint8_t {
  Alu, Chain, Load, Gather, Scratch, Accumulate, ReadModifyWrite, Scatter, StoreReload, Vector, Loop, kCount
};
// Where an operand of a needed dtype comes from.
enum class Leaf : uint8_t { Reuse, Const, Load, Cast, kCount };
// Which kind of random value a constant or a data element gets (values.cpp): an edge value, a small one,
// raw bits; a full-precision value of moderate magnitude (whose products and sums are inexact: what
// contraction and double-rounding bugs need); a fraction in (-1, 1) (TRUNC's and CAST's sign-of-zero
// cases); a value one ulp around a rounding boundary (floats: a tie of a narrower float format; integers:
// next to a multiple of a small divisor or a shift width).
enum class ValueKind : uint8_t { Edge, Small, Bits, Precise, Fraction, Boundary, kCount };
// How a computed i32 is brought into 0..len-1 before it indexes memory.
enum class IndexClamp : uint8_t { FloorMod, AndMask, CModOfMax, WhereInRange, kCount };
// The shift amount of SHL/SHR (a signed amount that may be negative is UNDEFINED, so it is shaped).
enum class ShiftAmount : uint8_t { Operand, ConstInRange, ConstWide, AndMask, FloorMod, MaxZero, kCount };
// A numerator made provably non-negative (exercises a renderer's non-negative fast path).
enum class Numerator : uint8_t { CastU8, CastBool, AndMask, MaxZero, kCount };
// The divisor of FLOORDIV/FLOORMOD/CDIV/CMOD.
enum class Divisor : uint8_t { Operand, ConstPositive, ConstNegative, ConstEdge, kCount };
// How a float that may be NaN or +-inf is made safe before CAST to an int (or NaN-free before BITCAST).
enum class FloatGuard : uint8_t { WhereAnd, WhereMul, Constant, kCount };
// The update of an accumulator chain (a dot product: acc = a*b + acc).
enum class AccUpdate : uint8_t { MulAcc, AddMul, Other, kCount };
// The element a loop reads for its flat index j (in a nest j = (r0*W1 + r1)*W2 + r2): j, j+k, j // K,
// j % K, or a padded read j+k / j-k through a gated LOAD (the index out of bounds where the gate is false).
enum class LoopRead : uint8_t { Flat, Offset, Div, Mod, PadAfter, PadBefore, kCount };
// What a loop computes: an elementwise map into an output, the same into the buffer it reads (at an
// offset: a[j] = f(a[j+k])), or a reduction (sum, max, product) into an accumulator.
enum class LoopKind : uint8_t { Map, SameBuffer, Reduce, kCount };
// The trip count classes of a loop (vectorizer epilogues: 0, 1, around powers of two).
inline constexpr std::array<int64_t, 10> kTripCounts = {0, 1, 3, 7, 15, 17, 31, 33, 63, 65};

template <class E>
constexpr size_t count_of() { return static_cast<size_t>(E::kCount); }
// A weight per enumerator of E, indexed by its value (what Rng::weighted draws from).
template <class E>
using Weights = std::array<double, count_of<E>()>;

template <class E>
struct WeightOf {
  E value;
  double weight;
};

// A weight table written as {enumerator, weight} pairs, so that reordering an enum cannot silently
// permute the probabilities. Every enumerator must appear exactly once; consteval makes a missing or
// repeated one a compile error.
template <class E, size_t N>
consteval Weights<E> weights_by_value(const WeightOf<E> (&pairs)[N]) {
  static_assert(N == count_of<E>(), "a weight table names every enumerator");
  Weights<E> w{};
  std::array<bool, count_of<E>()> seen{};
  for (const WeightOf<E>& p : pairs) {
    const auto i = static_cast<size_t>(p.value);
    if (i >= count_of<E>() || seen[i]) throw "a weight table names an enumerator twice";
    seen[i] = true;
    w[i] = p.weight;
  }
  return w;
}

constexpr std::array<double, kNumOps> default_op_weights() {
  std::array<double, kNumOps> w{};
  auto set = [&w](Op op, double v) { w[static_cast<size_t>(op)] = v; };
  for (Op op : {Op::ADD, Op::SUB, Op::MUL, Op::CMPLT, Op::WHERE}) set(op, 1.0);
  for (Op op : {Op::MAX, Op::CMPNE, Op::CMPEQ, Op::AND, Op::FLOORDIV, Op::FLOORMOD}) set(op, 0.8);
  for (Op op : {Op::NEG, Op::OR, Op::XOR, Op::SHL, Op::SHR, Op::CDIV, Op::CMOD, Op::MULACC}) set(op, 0.6);
  for (Op op : {Op::RECIP, Op::SQRT, Op::EXP2, Op::LOG2, Op::SIN, Op::TRUNC, Op::POW}) set(op, 0.5);
  set(Op::CAST, 2.5);  // casts tie the dtypes together and have the most pairs to cover
  set(Op::BITCAST, 1.0);
  return w;
}

constexpr std::array<double, kNumDTypes> default_dtype_weights() {
  std::array<double, kNumDTypes> w{};
  for (DType d : kValueDTypes) w[static_cast<size_t>(d)] = 1.0;
  w[static_cast<size_t>(DType::I32)] = 1.5;  // the index dtype, and C's own int
  w[static_cast<size_t>(DType::F32)] = 1.5;
  return w;
}

struct GenPolicy {
  // ---- size
  int min_steps = 6, max_steps = 40;  // steps per program, drawn log-uniformly in [min, max]
  int max_nodes = 4000;                // no new step once the graph has this many nodes
  int min_inputs = 1, max_inputs = 4;  // BUFFERs the program reads
  int min_outputs = 1, max_outputs = 3;  // BUFFERs the program writes
  int max_len = 8;                     // typical BUFFER length, drawn in [1, max_len]
  int max_long_len = 64;               // occasional long BUFFER
  double p_long_buffer = 0.08;
  int max_alloc_len = 8;
  int min_acc_steps = 2, max_acc_steps = 8;

  // ---- ops and dtypes: an ALU op and operand dtype are drawn with weight op_weight * dtype_weight
  std::array<double, kNumOps> op_weight = default_op_weights();  // only ALU ops are read
  std::array<double, kNumDTypes> dtype_weight = default_dtype_weights();
  // --without OP: besides not being drawn, the op is not built where another does as well (a reduction's
  // or an accumulator's op, a fold); index arithmetic and guards still use their own ops.
  std::array<bool, kNumOps> op_banned{};

  // ---- what each step does
  Weights<Step> step_weight = weights_by_value<Step>({{Step::Alu, 10.0},
                                                      {Step::Chain, 0.3},
                                                      {Step::Load, 1.5},
                                                      {Step::Gather, 0.8},
                                                      {Step::Scratch, 0.6},
                                                      {Step::Accumulate, 0.5},
                                                      {Step::ReadModifyWrite, 0.5},
                                                      {Step::Scatter, 0.3},
                                                      {Step::StoreReload, 0.4},
                                                      {Step::Vector, 0.8},
                                                      {Step::Loop, 1.0}});
  int min_chain_len = 8, max_chain_len = 80;  // a Chain step: ops each on the previous result

  // ---- vectors (a Vector step: one lane-wise op on DTYPExN operands, lanes taken out by GEP or stored)
  // With the step weight above and the swarm's thinning, about two programs in five have a vector op.
  int max_lanes = 8;               // lanes drawn in 2..max_lanes (mostly 2, 4, 8)
  double p_vector_load = 0.35;     // an operand of a total op is a vector LOAD (else a STACK of scalars)
  double p_vector_reuse = 0.25;    // ... or an earlier vector of its type
  double p_vector_broadcast = 0.1; // ... or a vector CONST
  double p_gep_lane = 0.6;         // each lane of the result is taken out by a GEP (a scalar for later ops)
  double p_vector_store = 0.4;     // the result is stored whole, by a vector STORE

  // ---- loops (a Loop step: a kernel over fresh BUFFERs; docs/design.md, "Loops")
  // Most programs have a loop: the swarm keeps the Loop step with p_keep_loop (not p_keep_step), and a
  // program that kept it makes one of its steps a Loop with p_force_loop (more come from step_weight).
  double p_keep_loop = 0.85;
  double p_force_loop = 0.85;
  int64_t max_loop_iterations = 4096;  // per program: every loop's iterations, a nest's products included
  std::array<double, 3> loop_depth_weight = {3.0, 3.0, 1.5};  // nest depth 1, 2, 3
  std::array<double, kTripCounts.size()> trip_weight = {0.6, 1.0, 1.5, 1.5, 1.5, 1.5, 1.0, 1.0, 0.8, 0.8};
  double p_runtime_trips = 0.2;  // a level's trip count is loaded from a BUFFER and clamped into 0..N
  Weights<LoopKind> loop_kind_weight =
      weights_by_value<LoopKind>({{LoopKind::Map, 2.0}, {LoopKind::SameBuffer, 1.0}, {LoopKind::Reduce, 2.5}});
  // A reduction in a nest reduces the inner loops, its accumulator initialised once per outer iteration
  // (what a renderer that initialises once per kernel gets wrong); else it reduces the whole nest.
  double p_reduce_inner = 0.8;
  Weights<LoopRead> loop_read_weight = weights_by_value<LoopRead>({{LoopRead::Flat, 2.0},
                                                                   {LoopRead::Offset, 1.5},
                                                                   {LoopRead::Div, 1.0},
                                                                   {LoopRead::Mod, 1.0},
                                                                   {LoopRead::PadAfter, 1.0},
                                                                   {LoopRead::PadBefore, 1.0}});
  int max_loop_offset = 3;         // k of j+k, j-k in 1..max_loop_offset
  double p_second_read = 0.6;      // the body reads a second element
  double p_range_operand = 0.4;    // the flat index, cast to the body's dtype, is an operand
  int min_loop_ops = 1, max_loop_ops = 5;  // ALU ops on the loaded value per body
  double p_gated_store = 0.2;      // the body's store to its output is gated
  double p_loop_write_div = 0.15;  // a map writes out[j // K] or out[j % K] (several iterations, one element)
  double p_identity_init = 0.8;    // an accumulator starts at its op's identity (else an operand)
  double p_end_each = 0.5;         // a nest closed by one END per RANGE (else one END closing all)
  int max_folded_loop_values = 3;  // unused body values folded into the body's store

  // ---- operands
  Weights<Leaf> leaf_weight =
      weights_by_value<Leaf>({{Leaf::Reuse, 6.0}, {Leaf::Const, 1.5}, {Leaf::Load, 2.5}, {Leaf::Cast, 1.0}});
  double p_recent = 0.3;      // reuse one of the last few values of the dtype: deep chains
  int recent_window = 3;
  double p_unused = 0.35;     // reuse a value nothing uses yet: keeps most of the graph live
  double p_dynamic_index = 0.3;  // an access with a computed index (else a constant)

  // ---- values of constants and data
  Weights<ValueKind> const_value_weight = weights_by_value<ValueKind>({{ValueKind::Edge, 3.0},
                                                                      {ValueKind::Small, 4.0},
                                                                      {ValueKind::Bits, 1.0},
                                                                      {ValueKind::Precise, 2.5},
                                                                      {ValueKind::Fraction, 1.0},
                                                                      {ValueKind::Boundary, 1.0}});
  Weights<ValueKind> data_value_weight = weights_by_value<ValueKind>({{ValueKind::Edge, 2.0},
                                                                     {ValueKind::Small, 3.0},
                                                                     {ValueKind::Bits, 1.5},
                                                                     {ValueKind::Precise, 4.0},
                                                                     {ValueKind::Fraction, 1.5},
                                                                     {ValueKind::Boundary, 1.5}});
  int precise_exponent = 4;     // Precise floats have a random significand and exponent in [-4, 4]
  int small_int = 16;           // Small ints lie in [-small_int, small_int] ([0, 2*small_int] unsigned)
  int small_float = 16;         // Small floats are quarters in [-small_float, small_float]
  double p_edge_special = 0.3;  // an edge value is inf/NaN/the dtype's max (floats) or range end (ints)
  double p_random_output_data = 0.5;  // an output BUFFER starts with random data (else zeros)

  // ---- integer and float shapes
  Weights<IndexClamp> clamp_weight = weights_by_value<IndexClamp>({{IndexClamp::FloorMod, 3.0},
                                                                   {IndexClamp::AndMask, 2.0},
                                                                   {IndexClamp::CModOfMax, 1.0},
                                                                   {IndexClamp::WhereInRange, 1.0}});
  Weights<ShiftAmount> shift_weight = weights_by_value<ShiftAmount>({{ShiftAmount::Operand, 2.0},
                                                                     {ShiftAmount::ConstInRange, 2.0},
                                                                     {ShiftAmount::ConstWide, 0.7},
                                                                     {ShiftAmount::AndMask, 1.5},
                                                                     {ShiftAmount::FloorMod, 0.7},
                                                                     {ShiftAmount::MaxZero, 0.5}});
  double p_nonneg_numerator = 0.35;
  Weights<Numerator> numerator_weight = weights_by_value<Numerator>({{Numerator::CastU8, 2.0},
                                                                     {Numerator::CastBool, 0.5},
                                                                     {Numerator::AndMask, 2.0},
                                                                     {Numerator::MaxZero, 1.5}});
  Weights<Divisor> divisor_weight = weights_by_value<Divisor>({{Divisor::Operand, 2.0},
                                                               {Divisor::ConstPositive, 2.0},
                                                               {Divisor::ConstNegative, 1.5},
                                                               {Divisor::ConstEdge, 1.0}});
  Weights<FloatGuard> guard_weight = weights_by_value<FloatGuard>(
      {{FloatGuard::WhereAnd, 3.0}, {FloatGuard::WhereMul, 1.0}, {FloatGuard::Constant, 0.3}});
  double p_unguarded = 0.0;   // skip a needed guard: the program may be UNDEFINED (wasted, so 0)
  double p_identity_cast = 0.5;  // keep a drawn CAST/BITCAST to the operand's own dtype (else redraw)
  double p_pow_operand_exponent = 0.25;  // a float POW's exponent is any operand (else a small constant)
  double p_narrow_cast_edge = 0.6;  // a CAST to f16, bf16 or an fp8 converts an edge value of its source
  double p_swap_operands = 0.5;  // a guard's two comparisons in the other order

  // ---- memory patterns and ordering shapes
  double p_scratch_partial = 0.2;    // leave some scratch elements unwritten (reads avoid them)
  double p_scratch_overwrite = 0.4;  // overwrite a scratch element at a computed index, then re-read
  Weights<AccUpdate> acc_update_weight =
      weights_by_value<AccUpdate>({{AccUpdate::MulAcc, 2.0}, {AccUpdate::AddMul, 1.5}, {AccUpdate::Other, 1.0}});
  double p_acc_init_zero = 0.5;
  double p_acc_from_buffers = 0.7;   // accumulator factors are loads of input elements k (a dot product)
  double p_war_store = 0.3;          // read-modify-write stores a value independent of the load
  double p_after_on_index = 0.15;    // AFTER(INDEX(m, i), deps) instead of INDEX(AFTER(m, deps), i)
  double p_redundant_after = 0.1;    // AFTER naming an access a data path already orders
  double p_keep_all_deps = 0.2;      // name every conflicting access, not only the latest ones
  double p_spurious_after = 0.03;    // a read-only load through AFTER naming an unrelated store
  // What a target lacks (--without alloc / after): scratch and accumulator steps go, a loop reduction
  // accumulates in a BUFFER of its own; without AFTER an access that would need one is not made.
  bool allow_alloc = true;
  bool allow_after = true;

  // ---- program shape
  double p_fill_output = 0.5;        // each output element gets its own store at the end
  double p_consume_unused = 0.9;     // a value nothing uses is stored to an output at the end
  double p_fold_unused = 0.6;        // ... after folding it with another unused value of its dtype
  double p_dead_code = 0.4;          // some nodes not reachable from the SINK
  int max_dead_nodes = 6;
  double p_dead_store = 0.4;         // one of them a STORE
  double p_untouched_buffer = 0.05;  // a BUFFER nothing reads or writes (still a parameter)
  // Also store every intermediate value (core/probe.h), so a wrong value a later op hides still shows.
  // Not always: the extra stores change what the optimizer does, and compiler bugs need plain kernels.
  // An observed kernel gets observed_steps_percent of the steps: its stores about double its nodes and
  // keep every value live, which makes it several times dearer to compile.
  double p_observe_intermediates = 0.1;
  int observed_steps_percent = 50;

  // ---- swarm: what each program keeps
  double p_swarm = 0.9;        // restrict this program at all
  double p_keep_op = 0.55;
  double p_keep_dtype = 0.5;
  double p_keep_step = 0.6;    // each memory step kind
  double p_keep_feature = 0.7;  // edge values, dynamic indices, guards' variety, dead code, ...
};

// A random restriction of `base`: a subset of ALU ops, dtypes, step kinds and features, never empty.
GenPolicy swarm(const GenPolicy& base, Rng& rng);

// What a target does not support, by name (without.cpp): a structural feature (`loop`, `vector`, `alloc`,
// `after`, `gated`, `dynamic-index`, ...: none of it is generated), an ALU op (`mulacc`: the generator
// draws it no more) or a value dtype (`f16`: drawn no more; i32 indices, bool comparisons, and u8, f64
// and i64 inside some shapes still appear).
// UserError for an unknown name, listing the valid ones.
void without(GenPolicy& p, std::string_view name);
std::vector<std::string> without_names();

}  // namespace uf

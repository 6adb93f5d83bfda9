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

// The policy's enums, each from one list of enumerators that also gives their JSON names (enum_names).
#define UF_ENUMERATOR(e) e,
#define UF_ENUMERATOR_NAME(e) #e,
#define UF_POLICY_ENUM(E, LIST)                          \
  enum class E : uint8_t { LIST(UF_ENUMERATOR) kCount }; \
  constexpr std::array<const char*, static_cast<size_t>(E::kCount)> enum_names(E) { return {LIST(UF_ENUMERATOR_NAME)}; }

// One step of the generator's main loop.
#define UF_STEPS(X) \
  X(Alu) X(Chain) X(Load) X(Gather) X(Scratch) X(Accumulate) X(ReadModifyWrite) X(Scatter) X(StoreReload) X(Vector) X(Loop)
UF_POLICY_ENUM(Step, UF_STEPS)
// Where an operand of a needed dtype comes from.
#define UF_LEAVES(X) X(Reuse) X(Const) X(Load) X(Cast)
UF_POLICY_ENUM(Leaf, UF_LEAVES)
// Which kind of random value a constant or a data element gets (values.cpp): an edge value, a small one,
// raw bits; a full-precision value of moderate magnitude (whose products and sums are inexact: what
// contraction and double-rounding bugs need); a fraction in (-1, 1) (TRUNC's and CAST's sign-of-zero
// cases); a value one ulp around a rounding boundary (floats: a tie of a narrower float format; integers:
// next to a multiple of a small divisor or a shift width).
#define UF_VALUE_KINDS(X) X(Edge) X(Small) X(Bits) X(Precise) X(Fraction) X(Boundary) X(Approx)
UF_POLICY_ENUM(ValueKind, UF_VALUE_KINDS)
// How a computed i32 is brought into 0..len-1 before it indexes memory.
#define UF_INDEX_CLAMPS(X) X(FloorMod) X(AndMask) X(CModOfMax) X(WhereInRange)
UF_POLICY_ENUM(IndexClamp, UF_INDEX_CLAMPS)
// The shift amount of SHL/SHR (a signed amount that may be negative is UNDEFINED, so it is shaped).
#define UF_SHIFT_AMOUNTS(X) X(Operand) X(ConstInRange) X(ConstWide) X(AndMask) X(FloorMod) X(MaxZero)
UF_POLICY_ENUM(ShiftAmount, UF_SHIFT_AMOUNTS)
// A numerator made provably non-negative (exercises a renderer's non-negative fast path).
#define UF_NUMERATORS(X) X(CastU8) X(CastBool) X(AndMask) X(MaxZero)
UF_POLICY_ENUM(Numerator, UF_NUMERATORS)
// The divisor of FLOORDIV/FLOORMOD/CDIV/CMOD.
#define UF_DIVISORS(X) X(Operand) X(ConstPositive) X(ConstNegative) X(ConstEdge)
UF_POLICY_ENUM(Divisor, UF_DIVISORS)
// How a float that may be NaN or +-inf is made safe before CAST to an int (or NaN-free before BITCAST).
#define UF_FLOAT_GUARDS(X) X(WhereAnd) X(WhereMul) X(Constant)
UF_POLICY_ENUM(FloatGuard, UF_FLOAT_GUARDS)
// How a WHERE is written: one select, two selects of complementary zero branches summed
// (c ? t : 0) + (c ? 0 : f), or a maximum written as a select on a comparison with a constant
// (a < x ? x : a, x < a ? a : x).
#define UF_WHERE_SHAPES(X) X(Select) X(ZeroSplit) X(MaxOfConst)
UF_POLICY_ENUM(WhereShape, UF_WHERE_SHAPES)
// The update of an accumulator chain (a dot product: acc = a*b + acc).
#define UF_ACC_UPDATES(X) X(MulAcc) X(AddMul) X(Other)
UF_POLICY_ENUM(AccUpdate, UF_ACC_UPDATES)
// The element a loop reads for its flat index j (in a nest j = (r0*W1 + r1)*W2 + r2): j, j+k, j // K,
// j % K, a padded read j+k / j-k through a gated LOAD (the index out of bounds where the gate is false),
// j masked after the load (WHERE(j < M, a[j], 0) or WHERE(k-1 < j, 0, a[j]): tinygrad's front end writes
// its pads so), a strided read S*(j+k), or a split division (j // K + k) // (k+1).
#define UF_LOOP_READS(X) X(Flat) X(Offset) X(Div) X(Mod) X(PadAfter) X(PadBefore) X(Masked) X(Scaled) X(DivOfDiv)
UF_POLICY_ENUM(LoopRead, UF_LOOP_READS)
// What a loop computes: an elementwise map into an output, the same into the buffer it reads (at an
// offset: a[j] = f(a[j+k])), or a reduction (sum, max, product) into an accumulator.
#define UF_LOOP_KINDS(X) X(Map) X(SameBuffer) X(Reduce)
UF_POLICY_ENUM(LoopKind, UF_LOOP_KINDS)
// The optimization actions the generator can draw for an `opts` line (docs/format.md), by tinygrad's OptOps
// names; a target's handshake `opts` says which of them it takes (the others get weight 0).
#define UF_OPT_ACTIONS(X) X(UPCAST) X(UNROLL) X(THREAD) X(PADTO) X(NOLOCALS) X(LOCAL) X(GROUP) X(GROUPTOP) X(SWAP)
UF_POLICY_ENUM(OptAction, UF_OPT_ACTIONS)
// The trip count classes of a loop: vectorizer epilogues (0, 1, around powers of two), then the powers of
// two themselves, tinygrad's shapes, which its optimizer's amounts divide (appended: weight 0 by default).
inline constexpr std::array<int64_t, 15> kTripCounts = {0, 1, 3, 7, 15, 17, 31, 33, 63, 65, 4, 8, 16, 32, 64};

template <class E>
constexpr size_t count_of() {
  return static_cast<size_t>(E::kCount);
}
// A weight per enumerator of E, indexed by its value (what Rng::weighted draws from). Distinct types,
// not plain std::arrays, so that the JSON side knows each table's keys from its type alone.
template <class E>
struct Weights : std::array<double, count_of<E>()> {};
// A T per op (only ALU ops are read) and per dtype (only value dtypes): JSON objects keyed by name.
template <class T>
struct PerOp : std::array<T, kNumOps> {};
template <class T>
struct PerDType : std::array<T, kNumDTypes> {};
// Plain weight arrays (JSON arrays): loop nest depth 1..3; kTripCounts; 1-, 2-, 4-byte float formats.
using DepthWeights = std::array<double, 3>;
using TripWeights = std::array<double, kTripCounts.size()>;
using FormatWeights = std::array<double, 3>;
using SizeArms = std::array<double, 3>;

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

constexpr PerOp<double> default_op_weights() {
  PerOp<double> w{};
  auto set = [&w](Op op, double v) { w[static_cast<size_t>(op)] = v; };
  for (Op op : {Op::ADD, Op::SUB, Op::MUL, Op::CMPLT, Op::WHERE}) set(op, 1.0);
  for (Op op : {Op::MAX, Op::CMPNE, Op::CMPEQ, Op::AND, Op::FLOORDIV, Op::FLOORMOD}) set(op, 0.8);
  for (Op op : {Op::NEG, Op::OR, Op::XOR, Op::SHL, Op::SHR, Op::CDIV, Op::CMOD, Op::MULACC}) set(op, 0.6);
  for (Op op : {Op::RECIP, Op::SQRT, Op::EXP2, Op::LOG2, Op::SIN, Op::TRUNC, Op::POW}) set(op, 0.5);
  set(Op::CAST, 2.5);  // casts tie the dtypes together and have the most pairs to cover
  set(Op::BITCAST, 1.0);
  return w;
}

constexpr PerDType<double> default_dtype_weights() {
  PerDType<double> w{};
  for (DType d : kValueDTypes) w[static_cast<size_t>(d)] = 1.0;
  w[static_cast<size_t>(DType::I32)] = 1.5;  // the index dtype, and C's own int
  w[static_cast<size_t>(DType::F32)] = 1.5;
  return w;
}

// Every probability, weight and size of the generator: one member per row of policy.def.
struct GenPolicy {
#define KNOB(type, name, default_value, swarm, without, doc) type name = default_value;
#include "fuzz/gen/policy.def"
};

// A random restriction of `base`: a subset of ALU ops, dtypes, step kinds and features, never empty.
GenPolicy swarm(const GenPolicy& base, Rng& rng);

// What a target does not support, by name (without.cpp): a structural feature (`loop`, `vector`, `alloc`,
// `after`, `gated`, `dynamic-index`, ...: none of it is generated), an ALU op (`mulacc`: the generator
// draws it no more) or a value dtype (`f16`: drawn no more; i32 indices, bool comparisons, and u8, f64
// and i64 inside some shapes still appear).
// UserError for an unknown name, listing the valid ones.
// `OP:int` bans an ALU op on integer operands only.
void without(GenPolicy& p, std::string_view name);
// Whether p may build op on operands of dtype d: op_accepts(op, d) and no `--without OP:int` on an integer d.
bool policy_accepts(const GenPolicy& p, Op op, DType d);
std::vector<std::string> without_names();
// Whether without() takes `name`: one of without_names() (any case), or `OP:int` for an op on integers.
bool is_without_name(std::string_view name);
struct Program;
// The first thing of `p` that a `--without` name excludes ("SIN", "dtype f16", "RANGE"), or "": a program
// from elsewhere (a seed file, a mutant) is held to what the target lacks, as the generator is. The
// generator's own shapes are not checked (dead-code, dynamic-index, observed, runtime-trips).
std::string without_violation(const Program& p, const std::vector<std::string>& names);

}  // namespace uf

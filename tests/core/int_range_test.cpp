// The integer range domain: a few exact answers the analyses rely on, and its soundness contract as a
// property: each transfer function's range contains the exact result for random members of random
// operand ranges. The oracle is the unbounded-integer model of the integer ops (boost cpp_int, in
// tests/support/int_model.h).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/int_range.h"
#include "core/uop.h"
#include "tests/support/int_model.h"

namespace uf::testing {
namespace {

constexpr int128 kTwo64 = int128{1} << 64;

bool same(IntRange a, IntRange b) { return a.lo == b.lo && a.hi == b.hi; }

std::string text(int128 v) {
  if (v < 0) return "-" + text(-v);
  std::string s;
  do s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  while (v /= 10);
  return s;
}

std::string text(IntRange r) { return "[" + text(r.lo) + ", " + text(r.hi) + "]"; }

TEST(CoreIntRange, DtypeRangesAreWholeDtypes) {
  EXPECT_TRUE(same(dtype_range(DType::Bool), {0, 1}));
  EXPECT_TRUE(same(dtype_range(DType::I8), {-128, 127}));
  EXPECT_TRUE(same(dtype_range(DType::U64), {0, kTwo64 - 1}));
  EXPECT_TRUE(same(dtype_range(DType::I64), {-kTwo64 / 2, kTwo64 / 2 - 1}));
  EXPECT_TRUE(int_value(DType::U64, Scalar::of_uint(~uint64_t{0})) == kTwo64 - 1);
  EXPECT_TRUE(int_value(DType::I64, Scalar::of_int(-5)) == -5);
}

TEST(CoreIntRange, WrapKeepsOnlyWhatFits) {
  EXPECT_TRUE(same(wrap({3, 5}, DType::U8), {3, 5}));
  EXPECT_TRUE(same(wrap({0, 256}, DType::U8), {0, 255}));
  EXPECT_TRUE(same(wrap({-1, 0}, DType::U8), {0, 255}));
  EXPECT_TRUE(same(add({100, 100}, {27, 28}, DType::I8), {-128, 127}));          // 128 wraps
  EXPECT_TRUE(same(mulacc({16, 16}, {8, 8}, {-128, -128}, DType::I8), {0, 0}));  // wrapped once, at the end
  EXPECT_TRUE(same(hull({-3, 1}, {5, 9}), {-3, 9}));
  EXPECT_TRUE(contains(IntRange{0, 7}, IntRange{2, 7}));
  EXPECT_FALSE(contains(IntRange{0, 7}, IntRange{-1, 3}));
}

TEST(CoreIntRange, ProductsThatMightLeaveInt128GiveTheWholeDtype) {
  const IntRange u64 = dtype_range(DType::U64);
  EXPECT_TRUE(same(mul(u64, u64, DType::U64), u64));
  EXPECT_TRUE(same(mul({0, 1 << 20}, {0, 1 << 20}, DType::I64), {0, int128{1} << 40}));
}

TEST(CoreIntRange, PreciseAnswersTheAnalysesRelyOn) {
  EXPECT_TRUE(same(floormod({3, 5}, {10, 10}, DType::I32), {3, 5}));  // already reduced
  EXPECT_TRUE(same(floormod({-3, 5}, {10, 10}, DType::I32), {0, 9}));
  EXPECT_TRUE(same(floormod({-3, 5}, {-4, 4}, DType::I32), {-3, 5}));  // b may be 0: a itself
  EXPECT_TRUE(same(cmod({-7, 20}, {4, 4}, DType::I32), {-3, 3}));
  EXPECT_TRUE(same(cmod({-7, 20}, {0, 0}, DType::I32), {-7, 20}));
  EXPECT_TRUE(same(floordiv({-7, 7}, {2, 2}, DType::I32), {-4, 3}));
  EXPECT_TRUE(same(cdiv({-7, 7}, {2, 2}, DType::I32), {-3, 3}));
  EXPECT_TRUE(same(floordiv({-7, 7}, {-1, 3}, DType::I32), {-7, 7}));
  EXPECT_TRUE(same(floordiv({-128, 0}, {-1, -1}, DType::I8), {-128, 127}));  // MIN / -1 wraps
  EXPECT_TRUE(same(shl({1, 3}, {2, 2}, DType::I32), {4, 12}));
  EXPECT_TRUE(same(shl({1, 3}, {32, 32}, DType::I32), {0, 0}));
  EXPECT_TRUE(same(shr({-9, 4}), {-9, 4}));
  EXPECT_TRUE(same(bit_and({-5, 5}, {0, 12}, DType::I32), {0, 12}));
  EXPECT_TRUE(same(or_xor({0, 5}, {0, 8}, DType::I32), {0, 15}));
  EXPECT_TRUE(same(maximum({-5, 5}, {0, 2}), {0, 5}));
}

// ---- the soundness contract

// A value of d: a small number (tiny ones often, so that ends of different operands meet), one near an
// end of the dtype, or any bit pattern.
int128 value_of(DType d) {
  const IntRange whole = dtype_range(d);
  int128 v = 0;
  switch (*rc::gen::inRange(0, 4)) {
    case 0: v = *rc::gen::inRange(-16, 17); break;
    case 1: v = *rc::gen::inRange(-300, 301); break;
    case 2: {
      const int inward = *rc::gen::inRange(0, 3);
      v = *rc::gen::arbitrary<bool>() ? whole.lo + inward : whole.hi - inward;
      break;
    }
    default: v = int_value(d, normalize(d, Scalar::of_uint(*rc::gen::arbitrary<uint64_t>())));
  }
  return std::clamp(v, whole.lo, whole.hi);
}

// A range of d (often a single value: known divisors and shift amounts) and one of its members.
struct Operand {
  IntRange range;
  int128 member;
};

Operand operand_of(DType d) {
  const int128 x = value_of(d);
  int128 y = x;
  switch (*rc::gen::inRange(0, 4)) {
    case 0: break;
    case 1: y = std::clamp<int128>(x + *rc::gen::inRange(-16, 17), dtype_range(d).lo, dtype_range(d).hi); break;
    default: y = value_of(d);
  }
  const IntRange r{std::min(x, y), std::max(x, y)};
  switch (*rc::gen::inRange(0, 3)) {
    case 0: return {r, r.lo};
    case 1: return {r, r.hi};
    default: return {r, r.lo + int128{*rc::gen::arbitrary<uint64_t>()} % (r.hi - r.lo + 1)};
  }
}

Scalar scalar_of(DType d, int128 v) {
  return is_signed(d) ? Scalar::of_int(static_cast<int64_t>(v)) : Scalar::of_uint(static_cast<uint64_t>(v));
}

// The exact result by the model; for a negative shift amount, which the reference calls UNDEFINED, what
// the C helpers return (SHL 0, SHR a).
int128 exact_result(Op op, DType d, const int128* v) {
  const Scalar s[3] = {scalar_of(d, v[0]), scalar_of(d, v[1]), scalar_of(d, v[2])};
  const auto r = python_int_op(op, d, d, s);
  if (!r) return op == Op::SHL ? 0 : v[0];
  return int_value(d, *r);
}

const std::vector<Op> kOps = {Op::ADD, Op::SUB, Op::MUL, Op::MULACC,   Op::NEG,  Op::MAX,      Op::AND, Op::OR,
                              Op::XOR, Op::SHL, Op::SHR, Op::FLOORDIV, Op::CDIV, Op::FLOORMOD, Op::CMOD};
const std::vector<DType> kIntDTypes = {DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
                                       DType::U8,   DType::U16, DType::U32, DType::U64};

// Many draws per run: a wrong bound often shows only for a few residues or a few meeting ends.
RC_GTEST_PROP(CoreIntRange, TransferFunctionsContainTheExactResult, ()) {
  for (int draw = 0; draw < 25; ++draw)
    for (Op op : kOps) {
      const DType d = *rc::gen::elementOf(kIntDTypes);
      if (!op_accepts(op, d)) continue;
      const Operand o[3] = {operand_of(d), operand_of(d), operand_of(d)};
      const IntRange ranges[3] = {o[0].range, o[1].range, o[2].range};
      const int128 members[3] = {o[0].member, o[1].member, o[2].member};
      const IntRange got = transfer(op, d, std::span<const IntRange>(ranges, static_cast<size_t>(info(op).arity)));
      const int128 want = exact_result(op, d, members);
      if (!contains(got, want))
        RC_FAIL(std::string(name(op)) + " " + name(d) + " of " + text(members[0]) + " in " + text(ranges[0]) + ", " +
                text(members[1]) + " in " + text(ranges[1]) + ", " + text(members[2]) + " in " + text(ranges[2]) + " is " +
                text(want) + ", outside " + text(got));
    }
}

RC_GTEST_PROP(CoreIntRange, CastContainsTheConvertedValue, ()) {
  const DType from = *rc::gen::elementOf(kIntDTypes), to = *rc::gen::elementOf(kIntDTypes);
  const Operand a = operand_of(from);
  const Scalar s[1] = {scalar_of(from, a.member)};
  const int128 want = int_value(to, *python_int_op(Op::CAST, to, from, s));
  RC_ASSERT(contains(wrap(a.range, to), want));
}

RC_GTEST_PROP(CoreIntRange, HullContainsBothArms, ()) {
  const DType d = *rc::gen::elementOf(kIntDTypes);
  const Operand a = operand_of(d), b = operand_of(d);
  RC_ASSERT(contains(hull(a.range, b.range), a.member));
  RC_ASSERT(contains(hull(a.range, b.range), b.member));
}

}  // namespace
}  // namespace uf::testing

// Properties of the integer ops: agreement with the unbounded-integer model on random operands (edge
// values included), and the floor division identity through whole interpreted programs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <limits>

#include "interp/alu.h"
#include "interp/interp.h"
#include "tests/support/int_model.h"

namespace uf::testing {
namespace {

const std::vector<DType> kIntDTypes = {DType::I8, DType::I16, DType::I32, DType::I64,
                                       DType::U8, DType::U16, DType::U32, DType::U64};
const std::vector<Op> kIntOps = {Op::ADD, Op::SUB, Op::MUL, Op::MAX, Op::CMPLT,    Op::CMPNE,    Op::CMPEQ, Op::NEG,  Op::AND,
                                 Op::OR,  Op::XOR, Op::SHL, Op::SHR, Op::FLOORDIV, Op::FLOORMOD, Op::CDIV,  Op::CMOD, Op::MULACC};

// Raw 64-bit patterns that become the edges of every width once normalized (MIN, MAX, -1, shift widths...).
const std::vector<uint64_t> kIntEdges = {0,
                                         1,
                                         2,
                                         3,
                                         7,
                                         8,
                                         9,
                                         15,
                                         16,
                                         17,
                                         31,
                                         32,
                                         33,
                                         63,
                                         64,
                                         65,
                                         127,
                                         128,
                                         129,
                                         255,
                                         256,
                                         0x7fff,
                                         0x8000,
                                         0xffff,
                                         0x10000,
                                         0x7fffffff,
                                         0x80000000,
                                         0xffffffff,
                                         0x100000000,
                                         0x7fffffffffffffff,
                                         0x8000000000000000,
                                         0xffffffffffffffff,
                                         0xfffffffffffffffe,
                                         0xffffffffffffff80,
                                         0xffffffffffff8000,
                                         0xffffffff80000000,
                                         0xffffffffffffff7f};

rc::Gen<Scalar> gen_int(DType d) {
  auto raw = rc::gen::weightedOneOf<uint64_t>({
      {2, rc::gen::elementOf(kIntEdges)},
      {2, rc::gen::arbitrary<uint64_t>()},
      {1, rc::gen::map(rc::gen::inRange<int64_t>(-300, 300), [](int64_t v) { return static_cast<uint64_t>(v); })},
  });
  return rc::gen::map(raw, [d](uint64_t v) { return normalize(d, Scalar::of_uint(v)); });
}

const std::vector<double> kFloatEdges = {0.0,
                                         -0.0,
                                         0.5,
                                         -0.5,
                                         0.9999999999999999,
                                         -0.9999999999999999,
                                         1.5,
                                         -1.5,
                                         127.9,
                                         128.0,
                                         -128.5,
                                         -129.0,
                                         255.5,
                                         256.0,
                                         32767.5,
                                         65504.0,
                                         65535.9,
                                         65536.0,
                                         2147483647.0,
                                         2147483648.0,
                                         -2147483648.0,
                                         -2147483649.0,
                                         4294967295.5,
                                         4294967296.0,
                                         0x1p53 + 2,
                                         0x1p63,
                                         -0x1p63,
                                         0x1p64,
                                         -0x1p64,
                                         9.3e18,
                                         1.9e19,
                                         -1.9e19,
                                         1e300,
                                         -1e300,
                                         3.4028234663852886e+38,
                                         1.7976931348623157e+308,
                                         -1.7976931348623157e+308,
                                         5e-324,
                                         std::numeric_limits<double>::quiet_NaN(),
                                         INFINITY,
                                         -INFINITY};

rc::Gen<Scalar> gen_float(DType d) {
  auto raw = rc::gen::weightedOneOf<double>({
      {2, rc::gen::elementOf(kFloatEdges)},
      {1, rc::gen::map(rc::gen::arbitrary<uint64_t>(), [](uint64_t b) { return std::bit_cast<double>(b); })},
      {2, rc::gen::apply([](int64_t m, int e) { return std::ldexp(static_cast<double>(m), e); }, rc::gen::arbitrary<int64_t>(),
                         rc::gen::inRange(-70, 20))},
  });
  return rc::gen::map(raw, [d](double v) { return normalize(d, Scalar::of_float(v)); });
}

rc::Gen<Scalar> gen_value(DType d) {
  if (is_float(d)) return gen_float(d);
  if (is_bool(d)) return rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Scalar::of_uint(b); });
  return gen_int(d);
}

std::string show_case(Op op, DType result, DType operand, const Scalar* o, int arity) {
  std::string s = std::string(name(op)) + " " + name(operand) + ">" + name(result);
  for (int k = 0; k < arity; ++k) s += " " + format_scalar(operand, o[k]);
  return s;
}

// Checks `count` random operand tuples of `op` against the model.
void check_against_model(Op op, DType result, DType operand, const std::vector<Scalar>& values) {
  const int arity = info(op).arity;
  for (size_t k = 0; k + arity <= values.size(); k += arity) {
    const Scalar* o = &values[k];
    const AluResult got = exec_alu(op, result, operand, o);
    const std::optional<Scalar> want = python_int_op(op, result, operand, o);
    const bool same = got.defined() == want.has_value() && (!want || same_value(result, got.value, *want));
    if (!same)
      RC_FAIL(show_case(op, result, operand, o, arity) + ": interpreter " +
              (got.defined() ? format_scalar(result, got.value) : "UNDEFINED") + ", model " +
              (want ? format_scalar(result, *want) : "UNDEFINED"));
  }
}

RC_GTEST_PROP(InterpIntModel, IntegerOpsAgree, ()) {
  const Op op = *rc::gen::elementOf(kIntOps);
  std::vector<DType> dtypes = kIntDTypes;
  if (info(op).operands == OperandClass::ANY || info(op).operands == OperandClass::INT_BOOL) dtypes.push_back(DType::Bool);
  const DType d = *rc::gen::elementOf(dtypes);
  RC_TAG(name(op));
  const DType result = info(op).result == ResultRule::BOOL ? DType::Bool : d;
  const auto values = *rc::gen::container<std::vector<Scalar>>(3 * 256, gen_value(d));
  check_against_model(op, result, d, values);
}

RC_GTEST_PROP(InterpIntModel, CastsToIntegersAgree, ()) {
  const DType from = *rc::gen::elementOf(std::vector<DType>(std::begin(kValueDTypes), std::end(kValueDTypes)));
  std::vector<DType> targets = kIntDTypes;
  targets.push_back(DType::Bool);
  const DType to = *rc::gen::elementOf(targets);
  RC_TAG(is_float(from) ? "from float" : "from int");
  const auto values = *rc::gen::container<std::vector<Scalar>>(256, gen_value(from));
  check_against_model(Op::CAST, to, from, values);
}

// Deterministic complement to the random tuples: every pair of edge values, every op, every dtype
// (MULACC's addend from a few edges), so corners like i64 MIN // -1 are always checked.
TEST(InterpIntModel, EveryPairOfEdgeValuesAgrees) {
  std::vector<DType> dtypes = kIntDTypes;
  dtypes.push_back(DType::Bool);
  const std::vector<uint64_t> addends = {0, 1, 0xffffffffffffffff, 0x8000000000000000};
  size_t checked = 0;
  for (const Op op : kIntOps) {
    for (const DType d : dtypes) {
      if (is_bool(d) && info(op).operands == OperandClass::INT) continue;
      if (is_bool(d) && op == Op::MULACC) continue;
      const DType result = info(op).result == ResultRule::BOOL ? DType::Bool : d;
      for (const uint64_t x : kIntEdges)
        for (const uint64_t y : kIntEdges)
          for (const uint64_t z : op == Op::MULACC ? addends : std::vector<uint64_t>{0}) {
            const Scalar o[3] = {normalize(d, Scalar::of_uint(x)), normalize(d, Scalar::of_uint(y)),
                                 normalize(d, Scalar::of_uint(z))};
            const AluResult got = exec_alu(op, result, d, o);
            const std::optional<Scalar> want = python_int_op(op, result, d, o);
            ASSERT_EQ(got.defined(), want.has_value()) << show_case(op, result, d, o, info(op).arity);
            if (want) {
              ASSERT_TRUE(same_value(result, got.value, *want))
                  << show_case(op, result, d, o, info(op).arity) << ": interpreter " << format_scalar(result, got.value)
                  << ", model " << format_scalar(result, *want);
            }
            ++checked;
          }
    }
  }
  EXPECT_GT(checked, 100000u);
}

// a == (a // b) * b + a % b with the interpreter's own (wrapping) ops, run as a program; the remainder
// also takes b's sign and is smaller than b in magnitude, as Python's is.
RC_GTEST_PROP(InterpFloorDivision, IdentityHoldsInEveryIntegerDtype, ()) {
  const DType d = *rc::gen::elementOf(kIntDTypes);
  const Scalar a = *gen_int(d);
  const Scalar b = *rc::gen::suchThat(gen_int(d), [](Scalar v) { return v.u != 0; });
  Program p;
  Graph& g = *p.graph;
  const UOp* zero = g.constant(DType::I32, Scalar::of_int(0));
  const UOp* one = g.constant(DType::I32, Scalar::of_int(1));
  const UOp* in = g.memory(Op::BUFFER, d, 2, 1);
  p.data[1] = {a, b};
  const UOp* va = g.make(Op::LOAD, {g.make(Op::INDEX, {in, zero})});
  const UOp* vb = g.make(Op::LOAD, {g.make(Op::INDEX, {in, one})});
  const UOp* q = g.make(Op::FLOORDIV, {va, vb});
  const UOp* r = g.make(Op::FLOORMOD, {va, vb});
  const UOp* back = g.make(Op::ADD, {g.make(Op::MUL, {q, vb}), r});
  const UOp* out = g.memory(Op::BUFFER, d, 2, 0);
  const UOp* s0 = g.make(Op::STORE, {g.make(Op::INDEX, {out, zero}), back});
  const UOp* s1 = g.make(Op::STORE, {g.make(Op::INDEX, {out, one}), r});
  p.sink = g.make(Op::SINK, {s0, s1});
  p.collect_buffers();
  verify(p);
  const RefResult res = interpret(p);
  RC_ASSERT(!res.undefined.has_value());
  const Values& o = res.buffers.at(0);
  RC_ASSERT(o[0].u == a.u);
  const Scalar rem = o[1];
  if (is_signed(d)) {
    RC_ASSERT(rem.i == 0 || (rem.i < 0) == (b.i < 0));
    RC_ASSERT(rem.i == 0 || (rem.i < 0 ? rem.i > b.i : rem.i < b.i));
  } else {
    RC_ASSERT(rem.u < b.u);
  }
}

}  // namespace
}  // namespace uf::testing

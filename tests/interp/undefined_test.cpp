// UNDEFINED: which node, and a reason that says exactly what went wrong; and the memory model around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "interp/interp.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

Program parse(const std::string& body) {
  Program p = parse_program("uops 1\n" + body);
  verify(p);
  return p;
}

// The file id of the node the interpreter reported, and its reason.
std::pair<int, std::string> undefined_at(const Program& p, const RefResult& r) {
  if (!r.undefined) return {-1, ""};
  return {p.origin.at(r.undefined->node).id, r.undefined->reason};
}

// Memories after the failing INDEX: checking the rest of the program adds them, which once moved the
// memory table under the reason's reference to the failing one (a crash, or a wrong name).
TEST(InterpUndefined, IndexOutOfBoundsBeforeLaterMemories) {
  std::string text =
      "%0 = BUFFER i32[4] slot=0\n"
      "%1 = CONST i32 9\n"
      "%2 = CONST i32 0\n"
      "%3 = INDEX i32 %0 %2\n"
      "%4 = LOAD i32 %3\n"
      "%5 = INDEX i32 %0 %4\n"
      "%6 = LOAD i32 %5\n";
  std::string sink = " %6";  // %6 is only a value: store it 40 times, into 40 later BUFFERs
  for (int k = 0; k < 40; ++k) {
    const int b = 7 + 3 * k;
    text += "%" + std::to_string(b) + " = BUFFER i32[1] slot=" + std::to_string(k + 1) + "\n";
    text += "%" + std::to_string(b + 1) + " = INDEX i32 %" + std::to_string(b) + " %2\n";
    text += "%" + std::to_string(b + 2) + " = STORE void %" + std::to_string(b + 1) + " %6\n";
    sink = " %" + std::to_string(b + 2) + (k ? sink : "");
  }
  text += "%127 = SINK void" + sink + "\n";
  Program p = parse(text);
  p.data[0] = {Scalar::of_int(9), Scalar::of_int(0), Scalar::of_int(0), Scalar::of_int(0)};
  const RefResult r = interpret(p);
  EXPECT_EQ(undefined_at(p, r), std::make_pair(5, std::string("INDEX 9 out of bounds for BUFFER i32[4] slot=0")));
}

TEST(InterpUndefined, LoadOfAllocBeforeAnyStore) {
  const Program p = parse(
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = ALLOC f32[4] slot=2\n"
      "%2 = CONST i32 0\n"
      "%3 = INDEX f32 %1 %2\n"
      "%4 = LOAD f32 %3\n"
      "%5 = INDEX f32 %0 %2\n"
      "%6 = STORE void %5 %4\n"
      "%7 = SINK void %6\n");
  const RefResult r = interpret(p);
  EXPECT_EQ(undefined_at(p, r), std::make_pair(4, std::string("LOAD of ALLOC slot 2 element 0 before any STORE")));
  EXPECT_TRUE(r.buffers.empty());
}

// Element 1 was written, element 0 was not: written flags are per element.
const char* kPartlyWrittenAlloc =
    "%0 = BUFFER f32[1] slot=0\n"
    "%1 = ALLOC f32[2] slot=5\n"
    "%2 = CONST i32 1\n"
    "%3 = INDEX f32 %1 %2\n"
    "%4 = CONST f32 2.5\n"
    "%5 = STORE void %3 %4\n"
    "%6 = AFTER f32 %1 %5\n"
    "%7 = CONST i32 IDX\n"
    "%8 = INDEX f32 %6 %7\n"
    "%9 = LOAD f32 %8\n"
    "%10 = CONST i32 0\n"
    "%11 = INDEX f32 %0 %10\n"
    "%12 = STORE void %11 %9\n"
    "%13 = SINK void %12\n";

std::string with_index(const char* text, const std::string& idx) {
  std::string s = text;
  s.replace(s.find("IDX"), 3, idx);
  return s;
}

TEST(InterpUndefined, AllocTracksWrittenElementsOneByOne) {
  const Program written = parse(with_index(kPartlyWrittenAlloc, "1"));
  const RefResult ok = interpret(written);
  ASSERT_FALSE(ok.undefined) << ok.undefined->reason;
  EXPECT_EQ(ok.buffers.at(0).at(0).f, 2.5);

  const Program unwritten = parse(with_index(kPartlyWrittenAlloc, "0"));
  EXPECT_EQ(undefined_at(unwritten, interpret(unwritten)),
            std::make_pair(9, std::string("LOAD of ALLOC slot 5 element 0 before any STORE")));
}

// The index comes from memory, so the verifier cannot see it; the INDEX itself is UNDEFINED.
const char* kLoadedIndex =
    "%0 = BUFFER f32[4] slot=0\n"
    "%1 = BUFFER i32[1] slot=1\n"
    "%2 = CONST i32 0\n"
    "%3 = INDEX i32 %1 %2\n"
    "%4 = LOAD i32 %3\n"
    "%5 = INDEX f32 %0 %4\n"
    "%6 = CONST f32 1.0\n"
    "%7 = STORE void %5 %6\n"
    "%8 = SINK void %7\n";

TEST(InterpUndefined, OutOfBoundsLoadedIndex) {
  for (const auto& [idx, defined] : std::vector<std::pair<std::string, bool>>{
           {"7", false}, {"4", false}, {"-1", false}, {"-2147483648", false}, {"3", true}, {"0", true}}) {
    SCOPED_TRACE(idx);
    const Program p = parse(std::string(kLoadedIndex) + "data 1 = " + idx + "\n");
    const RefResult r = interpret(p);
    if (defined) {
      ASSERT_FALSE(r.undefined) << r.undefined->reason;
      Values want(4, Scalar::of_float(0.0));
      want[std::stoi(idx)] = Scalar::of_float(1.0);
      EXPECT_EQ(r.buffers.at(0).size(), 4u);
      for (size_t i = 0; i < 4; ++i) EXPECT_EQ(r.buffers.at(0)[i].f, want[i].f);
    } else {
      EXPECT_EQ(undefined_at(p, r), std::make_pair(5, "INDEX " + idx + " out of bounds for BUFFER f32[4] slot=0"));
    }
  }
}

// %4 (CAST of nan to i32) is not reachable from the SINK: it never runs, and the program is defined.
const char* kDeadUndefined =
    "%0 = BUFFER f32[1] slot=0\n"
    "%1 = CONST i32 0\n"
    "%2 = INDEX f32 %0 %1\n"
    "%3 = CONST f32 nan\n"
    "%4 = CAST i32 %3\n"
    "%5 = CONST f32 3.0\n"
    "%6 = STORE void %2 %5\n"
    "%7 = SINK void %6\n";

TEST(InterpUndefined, DeadCodeIsNotRun) {
  const Program p = parse(kDeadUndefined);
  const RefResult r = interpret(p);
  ASSERT_FALSE(r.undefined) << r.undefined->reason;
  EXPECT_EQ(r.buffers.at(0).at(0).f, 3.0);

  // The same node, when an order does run it, is UNDEFINED: the dead code really was skipped.
  std::vector<const UOp*> order = linearize(p);
  const UOp* cast = nullptr;
  for (const auto& [node, origin] : p.origin)
    if (origin.id == 4) cast = node;
  ASSERT_NE(cast, nullptr);
  order.insert(order.end() - 1, {cast->src[0], cast});
  EXPECT_EQ(undefined_at(p, interpret(p, order)), std::make_pair(4, std::string("CAST of nan to i32")));
}

TEST(InterpUndefined, AluReasonsNameTheOpAndTheValue) {
  struct Case {
    Op op;
    DType result;
    DType operand;
    std::vector<Scalar> operands;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {Op::CAST, DType::I32, DType::F32, {Scalar::of_float(NAN)}, "CAST of nan to i32"},
      {Op::CAST, DType::U8, DType::F64, {Scalar::of_float(-INFINITY)}, "CAST of -inf to u8"},
      {Op::CAST, DType::I64, DType::F16, {Scalar::of_float(INFINITY)}, "CAST of inf to i64"},
      {Op::SHL, DType::I32, DType::I32, {Scalar::of_int(1), Scalar::of_int(-1)}, "SHL by negative amount -1"},
      {Op::SHR, DType::I8, DType::I8, {Scalar::of_int(5), Scalar::of_int(-128)}, "SHR by negative amount -128"},
      {Op::BITCAST, DType::I32, DType::F32, {Scalar::of_float(NAN)}, "BITCAST of nan (f32 to i32)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reason);
    AluCase one_case;
    one_case.op = c.op;
    one_case.operand_dtypes.assign(c.operands.size(), c.operand);
    one_case.operands = c.operands;
    one_case.result_dtype = c.result;
    for (bool from_memory : {false, true}) {
      const AluProgram one = one_op_program(one_case, from_memory);
      const RefResult r = interpret(one.program);
      ASSERT_TRUE(r.undefined);
      EXPECT_EQ(r.undefined->node, one.nodes[0]);
      EXPECT_EQ(r.undefined->reason, c.reason);
    }
  }
}

TEST(InterpUndefined, FirstUndefinedNodeInTheOrderIsReported) {
  const Program p = parse(
      "%0 = BUFFER i32[2] slot=0\n"
      "%1 = CONST i32 0\n"
      "%2 = INDEX i32 %0 %1\n"
      "%3 = CONST f32 inf\n"
      "%4 = CAST i32 %3\n"
      "%5 = STORE void %2 %4\n"
      "%6 = CONST i32 1\n"
      "%7 = INDEX i32 %0 %6\n"
      "%8 = CONST i32 -3\n"
      "%9 = SHL i32 %6 %8\n"
      "%10 = STORE void %7 %9\n"
      "%11 = SINK void %5 %10\n");
  EXPECT_EQ(undefined_at(p, interpret(p)).first, 4);
  std::vector<const UOp*> order = linearize(p);  // move the SHL chain before the CAST chain
  std::stable_partition(order.begin(), order.end() - 1, [&](const UOp* u) {
    const int id = p.origin.at(u).id;
    return id == 0 || id >= 6;
  });
  EXPECT_EQ(undefined_at(p, interpret(p, order)), std::make_pair(9, std::string("SHL by negative amount -3")));
}

TEST(InterpMemory, EveryBufferIsInTheResultEvenUnreached) {
  Program p = parse(
      "%0 = BUFFER u8[2] slot=3\n"
      "%1 = BUFFER i16[1] slot=0\n"
      "%2 = CONST i32 0\n"
      "%3 = INDEX i16 %1 %2\n"
      "%4 = CONST i16 -7\n"
      "%5 = STORE void %3 %4\n"
      "%6 = SINK void %5\n"
      "data 3 = 9 250\n");
  const RefResult r = interpret(p);
  ASSERT_FALSE(r.undefined);
  ASSERT_EQ(r.buffers.size(), 2u);
  EXPECT_EQ(r.buffers.at(0).at(0).i, -7);
  EXPECT_EQ(r.buffers.at(3).at(0).u, 9u);
  EXPECT_EQ(r.buffers.at(3).at(1).u, 250u);
}

TEST(InterpMemory, StoresAreOrderedThroughAfterAndLaterStoresWin) {
  const Program p = parse(
      "%0 = BUFFER i32[1] slot=0\n"
      "%1 = CONST i32 0\n"
      "%2 = INDEX i32 %0 %1\n"
      "%3 = LOAD i32 %2\n"
      "%4 = CONST i32 10\n"
      "%5 = ADD i32 %3 %4\n"
      "%6 = STORE void %2 %5\n"
      "%7 = AFTER i32 %0 %6\n"
      "%8 = INDEX i32 %7 %1\n"
      "%9 = LOAD i32 %8\n"
      "%10 = MUL i32 %9 %9\n"
      "%11 = AFTER i32 %8 %9\n"
      "%12 = STORE void %11 %10\n"
      "%13 = SINK void %12\n"
      "data 0 = 2147483646\n");
  const RefResult r = interpret(p);
  ASSERT_FALSE(r.undefined);
  const uint32_t after_add = 2147483646u + 10u;  // i32 arithmetic wraps: the same bits as u32
  EXPECT_EQ(r.buffers.at(0).at(0).i, static_cast<int32_t>(after_add * after_add));
}

TEST(InterpApi, RejectsAnOrderThatRunsANodeBeforeItsSource) {
  const Program p = parse(kDeadUndefined);
  std::vector<const UOp*> order = linearize(p);
  std::reverse(order.begin(), order.end());
  EXPECT_THROW(interpret(p, order), InternalError);
  EXPECT_FALSE(interpret(parse(with_index(kPartlyWrittenAlloc, "1"))).undefined);  // the thread's interpreter is free again
}

TEST(InterpApi, RejectsDataOfTheWrongLength) {
  Program p = parse(kDeadUndefined);
  p.data[0] = {Scalar::of_float(1.0), Scalar::of_float(2.0)};
  EXPECT_THROW(interpret(p), UserError);                                           // thrown while the call sets up its memory
  EXPECT_FALSE(interpret(parse(with_index(kPartlyWrittenAlloc, "1"))).undefined);  // the thread's interpreter is free again
}

}  // namespace
}  // namespace uf::testing

// The type rules: every type-rule message, interning, and inference of dtype/shape/address space.
#include <gtest/gtest.h>

#include "core/text.h"

namespace uf::testing {
namespace {

class TypeRules : public ::testing::Test {
 protected:
  Graph g;
  const UOp* c(DType d, double v) {
    return g.constant(d, is_float(d) ? Scalar::of_float(v) : Scalar::of_int(static_cast<int64_t>(v)));
  }
  const UOp* buf(int slot, int64_t n, DType d = DType::F32) { return g.memory(Op::BUFFER, d, n, slot); }
  const UOp* idx(int64_t i) { return c(DType::I32, static_cast<double>(i)); }
};

#define EXPECT_TYPE_ERROR(expr, message)                                        \
  do {                                                                          \
    try {                                                                       \
      (void)(expr);                                                             \
      FAIL() << "no error; expected: " << (message);                            \
    } catch (const TypeError& e) { EXPECT_EQ(std::string(e.what()), message); } \
  } while (0)

TEST_F(TypeRules, ChapterMessages) {
  const UOp* a = buf(0, 4);
  const UOp* ai = buf(1, 4, DType::I32);
  const UOp* one = g.make(Op::ADD, {c(DType::F32, 1.0), c(DType::F32, 2.0)});
  EXPECT_TYPE_ERROR(g.make(Op::LOAD, {one}), "LOAD needs memory");
  EXPECT_TYPE_ERROR(g.make(Op::STORE, {g.make(Op::INDEX, {ai, idx(0)}), c(DType::F32, 1.0)}), "STORE of f32 into i32");
  EXPECT_TYPE_ERROR(g.make(Op::INDEX, {a, c(DType::F32, 1.0)}), "INDEX indices are i32 scalars");
  const UOp* la = g.make(Op::LOAD, {g.make(Op::INDEX, {a, idx(0)})});
  const UOp* lai = g.make(Op::LOAD, {g.make(Op::INDEX, {ai, idx(0)})});
  EXPECT_TYPE_ERROR(g.make(Op::ADD, {la, lai}), "ADD: dtype mismatch f32 vs i32 (use CAST)");
  EXPECT_TYPE_ERROR(g.make(Op::FLOORDIV, {la, g.make(Op::LOAD, {g.make(Op::INDEX, {a, idx(1)})})}), "FLOORDIV is integer only");
  const int64_t shape[] = {2, 2};
  EXPECT_TYPE_ERROR(g.memory(Op::BUFFER, DType::F32, shape, 0), "BUFFER is flat");
  EXPECT_TYPE_ERROR(g.make(Op::INDEX, {a, idx(0), idx(1)}), "INDEX: 2 indices into shape (4,)");
  // Accepted, on purpose: bounds are the verifier's business, not the type system's.
  EXPECT_NO_THROW(g.make(Op::LOAD, {g.make(Op::INDEX, {a, idx(7)})}));
}

TEST_F(TypeRules, MoreRules) {
  const UOp* a = buf(0, 4);
  const UOp* x = g.make(Op::LOAD, {g.make(Op::INDEX, {a, idx(0)})});
  EXPECT_TYPE_ERROR(g.make(Op::STORE, {g.make(Op::ADD, {x, x}), x}), "STORE needs memory");
  EXPECT_TYPE_ERROR(g.make(Op::ADD, {x}), "ADD takes 2 sources, got 1");
  EXPECT_TYPE_ERROR(g.make(Op::RECIP, {idx(1)}), "RECIP is float only");
  EXPECT_TYPE_ERROR(g.make(Op::AND, {x, x}), "AND is integer or bool only");
  EXPECT_TYPE_ERROR(g.make(Op::MULACC, {c(DType::Bool, 1), c(DType::Bool, 1), c(DType::Bool, 0)}),
                    "MULACC is integer or float only");
  EXPECT_TYPE_ERROR(g.make(Op::WHERE, {x, x, x}), "WHERE condition must be bool, got f32");
  EXPECT_TYPE_ERROR(g.make(Op::BITCAST, {x}, DType::I16), "BITCAST f32 to i16: sizes differ");
  EXPECT_TYPE_ERROR(g.make(Op::BITCAST, {c(DType::Bool, 1)}, DType::U8), "BITCAST of bool is not defined");
  EXPECT_TYPE_ERROR(g.make(Op::CAST, {x}), "CAST needs a value dtype");
  EXPECT_TYPE_ERROR(g.make(Op::ADD, {x, x}, DType::I32), "ADD: result is f32, not i32");
  EXPECT_TYPE_ERROR(g.make(Op::ADD, {a, a}), "ADD needs values, not memory (LOAD it first)");
  EXPECT_TYPE_ERROR(g.make(Op::AFTER, {a}), "AFTER takes memory and at least one dependency");
  EXPECT_TYPE_ERROR(g.make(Op::AFTER, {x, x}), "AFTER needs memory");
  EXPECT_TYPE_ERROR(g.make(Op::LOAD, {a}), "LOAD needs an address (INDEX), not shape (4,)");
  EXPECT_TYPE_ERROR(g.memory(Op::ALLOC, DType::F32, 0, 0), "ALLOC length must be at least 1");
  EXPECT_TYPE_ERROR(
      g.memory(Op::BUFFER, DType::F32, kMaxBufferLen + 1, 0),
      "BUFFER length " + std::to_string(kMaxBufferLen + 1) + " is too large (max " + std::to_string(kMaxBufferLen) + ")");
}

TEST_F(TypeRules, Inference) {
  const UOp* a = buf(0, 4);
  const UOp* p = g.make(Op::INDEX, {a, idx(2)});
  EXPECT_EQ(a->space, AddrSpace::GLOBAL);
  EXPECT_EQ(a->rank, 1);
  EXPECT_EQ(p->space, AddrSpace::GLOBAL);
  EXPECT_EQ(p->rank, 0);
  const UOp* v = g.make(Op::LOAD, {p});
  EXPECT_EQ(v->space, AddrSpace::ALU);
  EXPECT_EQ(v->dtype, DType::F32);
  const UOp* st = g.make(Op::STORE, {p, v});
  EXPECT_EQ(st->dtype, DType::Void);
  const UOp* t = g.memory(Op::ALLOC, DType::I8, 3, 0);
  EXPECT_EQ(t->space, AddrSpace::LOCAL);
  const UOp* after = g.make(Op::AFTER, {t, st});
  EXPECT_EQ(after->space, AddrSpace::LOCAL);
  EXPECT_EQ(after->len, 3);
  EXPECT_EQ(g.make(Op::CMPLT, {v, v})->dtype, DType::Bool);
  EXPECT_EQ(g.make(Op::CAST, {v}, DType::U16)->dtype, DType::U16);
  EXPECT_EQ(g.make(Op::INDEX, {after, idx(1)})->base(), t);
}

TEST_F(TypeRules, Interning) {
  const UOp* a = buf(0, 4);
  EXPECT_EQ(a, buf(0, 4));
  EXPECT_NE(a, buf(1, 4));
  EXPECT_NE(a, buf(0, 5));
  EXPECT_NE(a, g.memory(Op::ALLOC, DType::F32, 4, 0));
  const UOp* l1 = g.make(Op::LOAD, {g.make(Op::INDEX, {a, idx(2)})});
  const UOp* l2 = g.make(Op::LOAD, {g.make(Op::INDEX, {buf(0, 4), idx(2)})});
  EXPECT_EQ(l1, l2);
  EXPECT_EQ(g.make(Op::ADD, {l1, l2}), g.make(Op::ADD, {l1, l1}));
  EXPECT_NE(g.make(Op::SUB, {l1, l1}), g.make(Op::ADD, {l1, l1}));
  EXPECT_NE(c(DType::F32, 0.0), c(DType::F32, -0.0));  // -0.0 is a different value
  EXPECT_NE(c(DType::F32, 1.0), c(DType::F64, 1.0));
  EXPECT_EQ(c(DType::F32, 0.1), g.constant(DType::F32, Scalar::of_float(static_cast<float>(0.1))));  // rounded to the dtype
  EXPECT_EQ(g.constant(DType::U8, Scalar::of_int(-1)), g.constant(DType::U8, Scalar::of_uint(255)));
}

TEST(TypeRulesText, ErrorsCarryFileAndLine) {
  const char* text =
      "uops 1\n"
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = CONST i32 0\n"
      "%2 = INDEX f32 %0 %1\n"
      "%3 = LOAD f32 %2\n"
      "%4 = CONST i32 1\n"
      "%5 = ADD f32 %3 %4\n";
  try {
    parse_program(text, "bad.uop");
    FAIL();
  } catch (const UserError& e) { EXPECT_EQ(located("bad.uop", e), "bad.uop:7: ADD: dtype mismatch f32 vs i32 (use CAST)"); }
}

}  // namespace
}  // namespace uf::testing

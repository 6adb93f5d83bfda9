// `--without NAME` (fuzz/gen/without.cpp): every name is accepted, an unknown one is a UserError that
// lists the valid names, and what a name removes is absent from the programs: a feature's nodes, a
// dtype's values (beyond the index dtype i32 and comparisons' bool, which the structure itself needs),
// an ALU op from what the generator draws.
#include <gtest/gtest.h>

#include "core/text.h"
#include "fuzz/gen/generator.h"

namespace uf::testing {
namespace {

constexpr uint64_t kPrograms = 60;

std::vector<Program> programs_without(const std::string& name) {
  GenPolicy p;
  without(p, name);
  std::vector<Program> out;
  for (uint64_t s = 0; s < kPrograms; ++s) out.push_back(generate(s, p));
  return out;
}

bool any_node(const std::vector<Program>& ps, const std::function<bool(const Program&, const UOp*)>& has) {
  for (const Program& p : ps)
    for (size_t i = 0; i < p.graph->size(); ++i)
      if (has(p, p.graph->node(i))) return true;
  return false;
}

TEST(Without, UnknownNameListsTheValidOnes) {
  GenPolicy p;
  try {
    without(p, "alloca");
    FAIL() << "no error";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown name 'alloca'"), std::string::npos) << m;
    for (const std::string& n : without_names()) EXPECT_NE(m.find(" " + n), std::string::npos) << n;
  }
}

TEST(Without, FeaturesAreAbsent) {
  EXPECT_FALSE(any_node(programs_without("loop"), [](const Program&, const UOp* u) { return u->op == Op::RANGE; }));
  EXPECT_FALSE(any_node(programs_without("vector"), [](const Program&, const UOp* u) { return u->is_vector(); }));
  for (const Program& p : programs_without("observed")) EXPECT_EQ(p.meta_value("observed"), nullptr);
}

// Shapes still convert through a few dtypes the generator no longer draws: i32 (indices), bool
// (comparisons), u8 (a non-negative numerator: CAST to u8), f64 (rounding edges of narrow casts) and
// i64 (wide intermediates). Every other dtype is gone entirely.
TEST(Without, EachDtypeIsAbsent) {
  for (DType d : kValueDTypes) {
    if (d == DType::I32 || d == DType::Bool || d == DType::U8 || d == DType::F64 || d == DType::I64) continue;
    const auto ps = programs_without(name(d));
    EXPECT_FALSE(any_node(ps, [d](const Program&, const UOp* u) { return u->dtype == d; })) << name(d);
  }
}

// An op taken out is drawn no more; the structure still builds some ops itself (index arithmetic,
// guards, casts to the memory's dtype), so the test is on ops the structure never builds.
TEST(Without, EachOpIsNoLongerDrawn) {
  for (Op op : {Op::POW, Op::SIN, Op::EXP2, Op::LOG2, Op::SQRT, Op::RECIP, Op::TRUNC, Op::XOR, Op::CDIV, Op::BITCAST}) {
    std::string n = name(op);
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto ps = programs_without(n);
    EXPECT_FALSE(any_node(ps, [op](const Program&, const UOp* u) { return u->op == op; })) << n;
  }
}

TEST(Without, EveryNameIsAccepted) {
  for (const std::string& n : without_names()) {
    GenPolicy p;
    EXPECT_NO_THROW(without(p, n)) << n;
  }
}

}  // namespace
}  // namespace uf::testing

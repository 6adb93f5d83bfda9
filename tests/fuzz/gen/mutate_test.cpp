// Program mutations (fuzz/gen/mutate.h): every result reads and verifies, most differ from their input,
// each row of the table applies, and the result carries no expect, got or meta lines.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/mutate.h"

namespace uf::testing {
namespace {

TEST(Mutate, EveryMutantIsValidAndMostDiffer) {
  Rng rng(3);
  size_t differ = 0, applied = 0;
  std::set<std::string> changed_lines;
  for (uint64_t s = 0; s < 200; ++s) {
    Program p = generate(s);
    p.expect = p.data;
    const std::optional<Program> q = mutate_program(p, rng);
    if (!q) continue;
    ++applied;
    verify(*q);
    EXPECT_TRUE(q->meta.empty() && q->expect.empty() && q->got.empty());
    const std::vector<std::string> a = lines(bare_text(p)), b = lines(bare_text(*q));
    differ += a != b;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      if (a[i] == b[i]) continue;
      const std::vector<std::string> w = words(b[i]);  // `data SLOT ...` or `%N = OP DTYPE ...`
      changed_lines.insert(w[0] == "data" ? "data" : w.size() > 2 ? w[2] : "?");
    }
  }
  EXPECT_GE(applied, 190u);
  EXPECT_GE(differ, 150u);  // an op swapped to the same op of another name, a value to itself: rare
  EXPECT_TRUE(changed_lines.count("data") && changed_lines.count("CONST")) << changed_lines.size();
}

// Every row of the table makes valid mutants; `grow` adds a node and its constant before the use, `operand`
// points an operand at another node: both keep the number of ALU nodes' uses consistent (they verify).
// `one-hot` adds a WHERE on `c != RANGE`, `not` a CMPNE with true.
TEST(Mutate, EveryRowApplies) {
  Rng rng(5);
  std::map<std::string, int> made;
  int grown = 0, one_hot = 0, negated = 0;
  auto count = [](const Program& x, auto want) {
    int n = 0;
    for (const UOp* u : linearize(x)) n += want(u);
    return n;
  };
  auto is_one_hot = [](const UOp* u) {
    return u->op == Op::WHERE && u->src[0]->op == Op::CMPNE && u->src[0]->src[1]->op == Op::RANGE;
  };
  auto is_not = [](const UOp* u) { return u->op == Op::CMPNE && u->src[1]->op == Op::CONST && u->src[1]->dtype == DType::Bool; };
  for (uint64_t s = 0; s < 400; ++s) {
    const Program p = generate(s);
    std::string row;
    const std::optional<Program> q = mutate_program(p, rng, &row);
    if (!q) continue;
    ++made[row];
    const size_t before = lines(bare_text(p)).size(), after = lines(bare_text(*q)).size();
    if (row == "grow") {
      // Mostly one node more (two, unless the constant is one p has); the grown op may be one p has too,
      // then hash-consing merges its user with an existing node.
      EXPECT_NE(bare_text(p), bare_text(*q));
      grown += after >= before + 1;
    } else if (row == "operand") {
      EXPECT_NE(bare_text(p), bare_text(*q));
    } else if (row == "one-hot") {
      one_hot += count(*q, is_one_hot) > count(p, is_one_hot);
    } else if (row == "not") {
      negated += count(*q, is_not) > count(p, is_not);
    }
  }
  for (const std::string& name : mutation_names()) EXPECT_GT(made[name], 0) << name;
  EXPECT_GE(grown * 10, made["grow"] * 9) << grown << " of " << made["grow"] << " grows added a node";
  EXPECT_EQ(one_hot, made["one-hot"]);
  EXPECT_EQ(negated, made["not"]);
}

TEST(Mutate, ValuesAreOfTheirDtype) {
  Rng rng(1);
  for (int i = 0; i < 1000; ++i)
    for (DType d : {DType::I8, DType::U16, DType::F16, DType::F32, DType::Bool}) {
      const Scalar v = mutation_value(d, rng);
      EXPECT_EQ(format_scalar(d, v), format_scalar(d, normalize(d, v)));
    }
}

}  // namespace
}  // namespace uf::testing

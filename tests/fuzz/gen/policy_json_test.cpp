// GenPolicy as JSON (fuzz/gen/policy_json.cpp): printing and reading back is the identity, a partial
// policy changes what it names (and the generated programs), and each kind of bad value is refused
// naming its key; docs/format.md's table of knobs is the generated one.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/program.h"
#include "core/uop.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/policy_json.h"

namespace uf::testing {
namespace {

TEST(PolicyJson, PrintedPolicyReadsBackUnchanged) {
  GenPolicy changed;
  without(changed, "alloc");
  without(changed, "mulacc");
  const nlohmann::json j = policy_to_json(changed);
  GenPolicy back;
  apply_policy_json(back, j);
  EXPECT_EQ(policy_to_json(back), j);
  EXPECT_NE(policy_to_json(GenPolicy{}), j);
  EXPECT_EQ(j["step_weight"]["Alu"], 10.0);
  EXPECT_EQ(j["op_weight"]["ADD"], 1.0);
  EXPECT_FALSE(j["op_weight"].contains("LOAD"));  // only ALU ops
  EXPECT_EQ(j["dtype_weight"]["f32"], 1.5);
  EXPECT_EQ(j["trip_weight"].size(), kTripCounts.size());
  EXPECT_EQ(j["allow_alloc"], false);
}

size_t count_op(const std::vector<Program>& ps, Op op) {
  size_t n = 0;
  for (const Program& p : ps)
    for (size_t i = 0; i < p.graph->size(); ++i) n += p.graph->node(i)->op == op;
  return n;
}

std::vector<Program> programs(const GenPolicy& p) {
  std::vector<Program> out;
  for (uint64_t s = 0; s < 100; ++s) out.push_back(generate(s, p));
  return out;
}

// A partial policy: the op it zeroes is drawn no more (SIN is built nowhere else), the rest is default.
TEST(PolicyJson, PartialPolicyChangesWhatItNames) {
  GenPolicy p;
  apply_policy_json(p, nlohmann::json::parse(R"({"op_weight": {"SIN": 0, "MULACC": 0}, "op_banned": {"MULACC": true}})"));
  nlohmann::json want = policy_to_json(GenPolicy{});
  want["op_weight"]["SIN"] = 0.0;
  want["op_weight"]["MULACC"] = 0.0;
  want["op_banned"]["MULACC"] = true;
  EXPECT_EQ(policy_to_json(p), want);
  const auto base = programs(GenPolicy{}), changed = programs(p);
  EXPECT_GT(count_op(base, Op::SIN), 0u);
  EXPECT_GT(count_op(base, Op::MULACC), 0u);
  EXPECT_EQ(count_op(changed, Op::SIN), 0u);
  EXPECT_EQ(count_op(changed, Op::MULACC), 0u);
  for (const Program& prog : changed) EXPECT_TRUE(verifies(prog));
}

std::string error_of(const std::string& text) {
  GenPolicy p;
  try {
    apply_policy_json(p, nlohmann::json::parse(text));
  } catch (const UserError& e) { return e.what(); }
  return "";
}

TEST(PolicyJson, BadValuesNameTheirKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"max_step": 3})", "max_step: unknown key"},
      {R"({"max_steps": 2.5})", "max_steps: expected an integer"},
      {R"({"max_steps": -1})", "max_steps: expected a non-negative integer"},
      {R"({"p_swarm": 1.5})", "p_swarm: a probability must lie in [0, 1]"},
      {R"({"p_swarm": "x"})", "p_swarm: expected a number"},
      {R"({"step_weight": {"Alu": -1}})", "step_weight.Alu: a weight must not be negative"},
      {R"({"step_weight": {"Alus": 1}})", "step_weight: unknown name 'Alus'"},
      {R"({"step_weight": [1]})", "step_weight: expected an object keyed by name"},
      {R"({"shift_weight": {"Operand": 0, "ConstInRange": 0, "ConstWide": 0, "AndMask": 0, "FloorMod": 0, "MaxZero": 0}})",
       "shift_weight: every weight is 0"},
      {R"({"op_weight": {"LOAD": 1}})", "op_weight: unknown name 'LOAD'"},
      {R"({"dtype_weight": {"f17": 1}})", "dtype_weight: unknown name 'f17'"},
      {R"({"op_banned": {"ADD": 1}})", "op_banned.ADD: expected true or false"},
      {R"({"trip_weight": [1, 2]})", "trip_weight: expected an array of 15"},
      {R"({"trip_weight": [1, 1, 1, 1, 1, 1, 1, 1, 1, -1, 0, 0, 0, 0, 0]})", "trip_weight[9]: a weight must not be negative"},
      {R"({"min_steps": 41})", "min_steps: 41 is above max_steps (40)"},
      {R"({"min_outputs": 0})", "min_outputs: a program writes at least one BUFFER"},
      {R"({"size_arms_percent": [0, 50, 100]})", "size_arms_percent: each percent must lie in (0, 100]"},
      {R"({"size_arms_percent": [25, 50, 101]})", "size_arms_percent: each percent must lie in (0, 100]"},
      {R"({"size_discount": 0})", "size_discount: must lie in (0, 1]"},
      {R"({"p_size_explore": 2})", "p_size_explore: a probability must lie in [0, 1]"},
      {R"([1])", "expected a JSON object"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = error_of(text);
    EXPECT_EQ(got.rfind(want, 0), 0u) << text << " gave '" << got << "'";
  }
  EXPECT_EQ(error_of(R"({"min_steps": 40, "p_swarm": 1, "step_weight": {"Alu": 0}})"), "");
}

// docs/format.md's table of knobs is generated from policy.def (`uopfuzz policy --markdown`), between
// two marker lines; a row added to the table without regenerating the docs fails here.
TEST(PolicyJson, DocsTableIsCurrent) {
  std::ifstream in(UOPFUZZ_FORMAT_MD);
  ASSERT_TRUE(in) << UOPFUZZ_FORMAT_MD;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str(), begin = "<!-- policy table: begin -->\n", end = "<!-- policy table: end -->";
  const size_t a = doc.find(begin), b = doc.find(end);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(doc.substr(a + begin.size(), b - a - begin.size()), policy_markdown())
      << "regenerate docs/format.md's policy table with `uopfuzz policy --markdown`";
}

}  // namespace
}  // namespace uf::testing

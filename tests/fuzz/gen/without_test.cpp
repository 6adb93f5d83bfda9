// `--without NAME` (fuzz/gen/without.cpp): every name is accepted, an unknown one is a UserError that
// lists the valid names, and what a name removes is absent from 200 generated programs. The check is
// data-driven over without_names(): a name added without a check here fails CheckedNames.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "core/program.h"
#include "core/text.h"
#include "core/uop.h"
#include "fuzz/gen/generator.h"

namespace uf::testing {
namespace {

constexpr uint64_t kPrograms = 200;

std::vector<Program> programs_without(const std::string& names) {
  GenPolicy p;
  for (size_t at = 0; at < names.size();) {
    const size_t comma = std::min(names.find(',', at), names.size());
    without(p, names.substr(at, comma - at));
    at = comma + 1;
  }
  std::vector<Program> out;
  for (uint64_t s = 0; s < kPrograms; ++s) out.push_back(generate(s, p));
  return out;
}

std::string describe(const UOp* u) {
  std::string s = "%" + std::to_string(u->id) + " = " + name(u->op) + " " + name(u->dtype);
  for (const UOp* x : u->src) s += std::string(" ") + name(x->op) + ":" + name(x->dtype);
  return s;
}

// A check names the first node of a program that the name should have removed ("" when none).
using Check = std::function<std::string(const Program&)>;

Check no_node(std::function<bool(const Program&, const UOp*)> bad) {
  return [bad](const Program& p) -> std::string {
    for (size_t i = 0; i < p.graph->size(); ++i)
      if (bad(p, p.graph->node(i))) return describe(p.graph->node(i));
    return "";
  };
}

// by node id: whether the node depends on a RANGE (a loop's own index arithmetic)
std::vector<bool> in_loop(const Program& p) {
  std::vector<bool> r(p.graph->size());
  for (size_t i = 0; i < p.graph->size(); ++i) {
    const UOp* u = p.graph->node(i);
    r[i] = u->op == Op::RANGE;
    for (const UOp* s : u->src) r[i] = r[i] || r[s->id];
  }
  return r;
}

std::vector<bool> reached(const Program& p) {
  std::vector<bool> r(p.graph->size());
  std::vector<const UOp*> stack{p.sink};
  while (!stack.empty()) {
    const UOp* u = stack.back();
    stack.pop_back();
    if (r[u->id]) continue;
    r[u->id] = true;
    for (const UOp* s : u->src) stack.push_back(s);
  }
  return r;
}

bool index_or_bool(DType d) { return d == DType::I32 || d == DType::Bool; }

// An op the structure itself builds (index arithmetic on i32, guards of a float before a CAST or a
// BITCAST: comparisons with a constant or of x with itself, WHERE(c, x, k)) stays in those places only.
bool structural(const UOp* u) {
  bool ok = true;
  for (const UOp* s : u->src) ok = ok && index_or_bool(s->dtype);
  if (ok) return true;
  if (is_comparison(u->op)) return u->src[0]->op == Op::CONST || u->src[1]->op == Op::CONST || u->src[0] == u->src[1];
  if (u->op == Op::WHERE) return u->src[1]->op == Op::CONST || u->src[2]->op == Op::CONST;
  return false;
}

std::map<std::string, Check> feature_checks() {
  std::map<std::string, Check> c;
  c["loop"] = no_node([](const Program&, const UOp* u) { return u->op == Op::RANGE; });
  c["vector"] = no_node([](const Program&, const UOp* u) { return u->is_vector(); });
  c["observed"] = [](const Program& p) -> std::string { return p.meta_value("observed") ? "meta observed" : ""; };
  c["alloc"] = no_node([](const Program&, const UOp* u) { return u->op == Op::ALLOC; });
  c["after"] = no_node([](const Program&, const UOp* u) { return u->op == Op::AFTER; });
  c["gated"] =
      no_node([](const Program&, const UOp* u) { return (u->op == Op::LOAD || u->op == Op::STORE) && u->src.size() == 3; });
  c["dynamic-index"] = [](const Program& p) -> std::string {
    const std::vector<bool> loop = in_loop(p);
    for (size_t i = 0; i < p.graph->size(); ++i) {
      const UOp* u = p.graph->node(i);
      if (u->op == Op::INDEX && u->src[1]->op != Op::CONST && !loop[u->src[1]->id]) return describe(u);
    }
    return "";
  };
  c["runtime-trips"] = no_node([](const Program&, const UOp* u) { return u->op == Op::RANGE && u->src[0]->op != Op::CONST; });
  c["opts"] = [](const Program& p) -> std::string { return p.opts ? "an opts line" : ""; };
  c["dead-code"] = [](const Program& p) -> std::string {
    const std::vector<bool> live = reached(p);
    for (size_t i = 0; i < p.graph->size(); ++i)
      if (p.graph->node(i)->op == Op::STORE && !live[i]) return describe(p.graph->node(i));
    return "";
  };
  return c;
}

Check check_for(const std::string& n) {
  const auto features = feature_checks();
  if (const auto it = features.find(n); it != features.end()) return it->second;
  if (const auto d = parse_dtype(n)) {
    // Shapes still convert through a few dtypes: i32 (indices, a runtime trip count) and bool
    // (comparisons) are everywhere, but never ALLOC'd; u8 (a non-negative numerator) and i64 (wide
    // intermediates) only as constants and casts.
    if (*d == DType::I32 || *d == DType::Bool)
      return no_node([d](const Program&, const UOp* u) { return u->op == Op::ALLOC && u->dtype == *d; });
    const bool cast_only = *d == DType::U8 || *d == DType::I64;
    return no_node([d, cast_only](const Program&, const UOp* u) {
      return u->dtype == *d && !(cast_only && (u->op == Op::CONST || u->op == Op::CAST));
    });
  }
  std::string upper = n;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (const auto op = parse_op(upper); op && *op != Op::CAST)
    return no_node([op](const Program&, const UOp* u) { return u->op == *op && !structural(u); });
  return nullptr;  // CAST: see CastIsMostlyGone
}

// A program from elsewhere (a seed file, a mutant) against a --without set: the first thing it names.
TEST(Without, ViolationNamesWhatTheTargetLacks) {
  const Program p = parse_program(
      "uops 2\n%0 = BUFFER f16[2] slot=0\n%1 = CONST i32 2\n%2 = RANGE i32 0 %1\n%3 = INDEX f16 %0 %2\n"
      "%4 = LOAD f16 %3\n%5 = SIN f16 %4\n%6 = STORE void %3 %5\n%7 = END void %6 %2\n%8 = SINK void %7\n",
      "t.uop");
  EXPECT_EQ(without_violation(p, {}), "");
  EXPECT_EQ(without_violation(p, {"mulacc", "vector", "alloc"}), "");
  EXPECT_EQ(without_violation(p, {"sin"}), "SIN");
  EXPECT_EQ(without_violation(p, {"F16"}), "dtype f16");
  EXPECT_EQ(without_violation(p, {"loop"}), "RANGE");
}

// `OP:int` (tinygrad's integer POW goes through floats): the op is gone from integer operands only, and a
// program from elsewhere is held to it; a name that is no ALU op on integers is unknown.
TEST(Without, IntOnlyBanKeepsTheFloatOp) {
  size_t float_pows = 0;
  for (const Program& p : programs_without("pow:int"))
    for (size_t i = 0; i < p.graph->size(); ++i) {
      const UOp* u = p.graph->node(i);
      if (u->op != Op::POW) continue;
      ASSERT_FALSE(is_int(u->src[0]->dtype)) << "seed " << *p.meta_value("seed") << ": " << describe(u);
      ++float_pows;
    }
  EXPECT_GT(float_pows, 20u);
  const Program p = parse_program(
      "uops 2\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 3\n%2 = CONST i32 2\n%3 = POW i32 %1 %2\n"
      "%4 = CONST i32 0\n%5 = INDEX i32 %0 %4\n%6 = STORE void %5 %3\n%7 = SINK void %6\n",
      "t.uop");
  EXPECT_EQ(without_violation(p, {"pow:int"}), "POW on i32");
  EXPECT_EQ(without_violation(p, {"sin:int", "f32"}), "");
  GenPolicy policy;
  EXPECT_THROW(without(policy, "sin:int"), UserError);  // SIN takes no integer
  EXPECT_THROW(without(policy, "loop:int"), UserError);
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

TEST(Without, CheckedNames) {
  for (const std::string& n : without_names())
    if (n != "cast") {
      EXPECT_TRUE(check_for(n)) << "no check for --without " << n;
    }
}

TEST(Without, EachNameIsAbsent) {
  for (const std::string& n : without_names()) {
    const Check check = check_for(n);
    if (!check) continue;
    const auto ps = programs_without(n);
    for (const Program& p : ps) {
      ASSERT_TRUE(verifies(p)) << "--without " << n << ": seed " << *p.meta_value("seed") << " does not verify";
      const std::string bad = check(p);
      if (!bad.empty()) {
        ADD_FAILURE() << "--without " << n << ": seed " << *p.meta_value("seed") << " has " << bad;
        break;
      }
    }
  }
}

// CAST ties every dtype to the memory it is stored in and to the i32 of an index, so those stay (about
// half of all CASTs); the drawn ones, cast leaves and cast numerators go.
TEST(Without, CastIsMostlyGone) {
  auto casts = [](const std::vector<Program>& ps) {
    size_t n = 0;
    for (const Program& p : ps)
      for (size_t i = 0; i < p.graph->size(); ++i) n += p.graph->node(i)->op == Op::CAST;
    return n;
  };
  const size_t all = casts(programs_without("mulacc")), without = casts(programs_without("cast"));
  EXPECT_LT(without * 5, all * 3) << without << " of " << all;
}

// `--without alloc` (a target without kernel-local memory) still reaches every other feature.
TEST(Without, AllocKeepsTheRest) {
  const auto ps = programs_without("alloc");
  const auto features = feature_checks();
  for (const auto& [n, check] : features) {
    if (n == "alloc" || n == "opts") continue;  // opts lines need p_opts (fuzz --opts random sets it), 0 here
    bool seen = false;
    for (size_t i = 0; i < ps.size() && !seen; ++i) seen = !check(ps[i]).empty();
    EXPECT_TRUE(seen) << "--without alloc: no program has " << n;
  }
  bool reduction = false;  // a loop reduction accumulates in a BUFFER instead
  for (const Program& p : ps) {
    const std::vector<bool> loop = in_loop(p);
    for (size_t i = 0; i < p.graph->size() && !reduction; ++i) {
      const UOp* u = p.graph->node(i);
      reduction = u->op == Op::AFTER && u->src[0]->op == Op::BUFFER && loop[i];
    }
  }
  EXPECT_TRUE(reduction) << "--without alloc: no loop reduction";
}

// A CAST to a narrow float is often fed a rounding edge of a wider dtype, f64 mostly: for a target
// without f64 (tinygrad's x86 backend with long emulated) it comes from the operand's dtype instead, so
// no f64 node is left at all (a CONST f64 made every such program an unrenderable one).
TEST(Without, NarrowCastEdgesComeFromDtypesTheTargetHas) {
  GenPolicy p;
  p.p_narrow_cast_edge = 1;
  without(p, "f64");
  size_t narrow_casts = 0;
  for (uint64_t s = 0; s < kPrograms; ++s) {
    const Program program = generate(s, p);
    for (size_t i = 0; i < program.graph->size(); ++i) {
      const UOp* u = program.graph->node(i);
      ASSERT_NE(u->dtype, DType::F64) << "seed " << s << ": " << describe(u);
      narrow_casts += u->op == Op::CAST && (u->dtype == DType::F16 || u->dtype == DType::BF16);
    }
  }
  EXPECT_GT(narrow_casts, 50u);  // the shape was drawn, not avoided
}

TEST(Without, SeveralNamesTogether) {
  const auto ps = programs_without("alloc,after,gated,vector");
  for (const Program& p : ps)
    for (const char* n : {"alloc", "after", "gated", "vector"}) EXPECT_EQ(check_for(n)(p), "") << n;
}

TEST(Without, EveryNameIsAccepted) {
  for (const std::string& n : without_names()) {
    GenPolicy p;
    EXPECT_NO_THROW(without(p, n)) << n;
    std::string upper = n;  // names are case-insensitive
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_NO_THROW(without(p, upper)) << upper;
  }
}

}  // namespace
}  // namespace uf::testing

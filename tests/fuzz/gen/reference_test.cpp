// The generator against the reference interpreter: generated programs are almost never UNDEFINED, and
// the generator's Facts are sound (every live value the reference computes lies within the facts the
// generator kept for its node; guards are placed by the facts, so an unsound fact is an UNDEFINED
// program waiting to happen).
#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/generator_impl.h"
#include "interp/alu.h"
#include "interp/interp.h"

namespace uf::testing {
namespace {

std::string show(DType d, const gen::Facts& f) {
  std::ostringstream s;
  if (is_float(d))
    s << "[" << f.flo << ", " << f.fhi << "]" << (f.nan ? " or nan" : "");
  else
    s << "[" << static_cast<long double>(f.ints.lo) << ", " << static_cast<long double>(f.ints.hi) << "]";
  return s.str();
}

bool within(DType d, const gen::Facts& f, Scalar v) {
  if (is_float(d)) return std::isnan(v.f) ? f.nan : (f.flo <= v.f && v.f <= f.fhi);
  return contains(f.ints, int_value(d, v));
}

// Runs p node by node; returns "" or the first node whose value breaks its facts.
std::string check_facts(uint64_t seed) {
  gen::Gen g(seed, GenPolicy{});
  const Program p = g.run();
  std::unordered_map<const UOp*, std::vector<Scalar>> mem;
  std::unordered_map<const UOp*, std::vector<Scalar>> val;  // the lanes of each value (one for scalars)
  std::unordered_map<const UOp*, int64_t> addr;
  const auto order = linearize(p);
  for (const UOp* b : p.buffers) mem[b] = p.initial(b);
  for (size_t i = 0; i < order.size(); ++i) {
    const UOp* u = order[i];
    // This evaluator is straight-line: it checks a program up to its first loop (the loop step's facts
    // are checked by generator_loops_test.cpp's bounds and by the interpreter on every program).
    if (u->op == Op::RANGE) return "";
    const size_t n = u->lanes;
    std::vector<Scalar> v(n);
    switch (u->op) {
      case Op::ALLOC: mem[u].assign(static_cast<size_t>(u->len), Scalar::zero()); continue;
      case Op::CONST: v.assign(n, u->value); break;
      case Op::INDEX: addr[u] = val[u->src[1]][0].i; continue;
      case Op::LOAD:
        for (size_t k = 0; k < n; ++k) v[k] = mem[u->src[0]->base()][addr[u->src[0]->index_node()] + k];
        break;
      case Op::STORE:
        for (size_t k = 0; k < val[u->src[1]].size(); ++k)
          mem[u->src[0]->base()][addr[u->src[0]->index_node()] + k] = val[u->src[1]][k];
        continue;
      case Op::GEP: v[0] = val[u->src[0]][static_cast<size_t>(u->value.i)]; break;
      case Op::STACK:
        for (size_t k = 0; k < n; ++k) v[k] = val[u->src[k]][0];
        break;
      default:
        if (!is_alu(u->op)) continue;
        for (size_t k = 0; k < n; ++k) {
          std::vector<Scalar> ops;
          for (const UOp* s : u->src) ops.push_back(val[s][k]);
          const DType od = u->op == Op::WHERE ? u->src[1]->dtype : u->src[0]->dtype;
          const AluResult r = exec_alu(u->op, u->dtype, od, ops.data());
          if (!r.defined()) return "";  // the UNDEFINED-rate test reports these
          v[k] = r.value;
        }
    }
    val[u] = v;
    for (size_t k = 0; k < n; ++k)
      if (u->op != Op::CONST && !within(u->dtype, g.facts(u), v[k])) {
        std::ostringstream s;
        s << "seed " << seed << ": node %" << i << " " << name(u->op) << " " << type_name(u->dtype, u->lanes) << " lane " << k
          << " = " << format_scalar(u->dtype, v[k]) << " outside " << show(u->dtype, g.facts(u)) << "; sources:";
        for (const UOp* src : u->src)
          if (!src->is_memory())
            s << " " << format_scalar(src->dtype, val[src][std::min(k, val[src].size() - 1)]) << " in "
              << show(src->dtype, g.facts(src));
        return s.str() + "\n" + print_program(p);
      }
  }
  return "";
}

// UOPFUZZ_FACTS_SEEDS=N checks more seeds (a longer run than CI's).
TEST(GeneratorReference, FactsAreSound) {
  const char* env = std::getenv("UOPFUZZ_FACTS_SEEDS");
  const uint64_t n = env ? std::strtoull(env, nullptr, 10) : 2000;
  for (uint64_t s = 0; s < n; ++s) {
    const std::string err = check_facts(s);
    ASSERT_EQ(err, "");
  }
}

// docs/semantics.md: a good generator makes UNDEFINED rare. The brief's bar is 5%; by construction it is ~0.
TEST(GeneratorReference, UndefinedRateIsLow) {
  constexpr int kSeeds = 2000;
  int undefined = 0;
  std::map<std::string, int> reasons;
  for (uint64_t s = 0; s < kSeeds; ++s) {
    const RefResult r = interpret(generate(s));
    if (!r.undefined) continue;
    ++undefined;
    const std::string& why = r.undefined->reason;
    reasons[why.substr(0, why.find_first_of("0123456789"))]++;
  }
  const double rate = 100.0 * undefined / kSeeds;
  std::printf("UNDEFINED: %d of %d programs (%.2f%%)\n", undefined, kSeeds, rate);
  for (const auto& [why, n] : reasons) std::printf("  %5d  %s\n", n, why.c_str());
  RecordProperty("undefined_percent", std::to_string(rate));
  EXPECT_LT(rate, 5.0);
}

}  // namespace
}  // namespace uf::testing

// The generator's loop kernels: most programs have a loop, every loop shape occurs, the programs verify
// and interpret, their iterations stay within the policy's bound, and UNDEFINED stays rare. Shapes are
// read off the programs with core/loops.h, not from the generator's internals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/loops.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/generator_impl.h"
#include "interp/interp.h"

namespace uf::testing {
namespace {

constexpr uint64_t kSeeds = 300;

// The memory an access's address names (through INDEX and AFTER).
const UOp* memory_of(const UOp* addr) {
  while (addr->op == Op::AFTER || addr->op == Op::INDEX) addr = addr->src[0];
  return addr;
}

// An upper bound of an i32 end expression: a sound interval evaluation (loads: anything).
int128 upper_bound(const UOp* u, std::map<const UOp*, gen::Facts>& memo) {
  std::function<gen::Facts(const UOp*)> eval = [&](const UOp* x) -> gen::Facts {
    if (auto it = memo.find(x); it != memo.end()) return it->second;
    gen::Facts f = gen::full_facts(x->dtype);
    if (x->op == Op::CONST) {
      f = gen::const_facts(x->dtype, x->value);
    } else if (is_alu(x->op)) {
      std::vector<gen::Facts> src;
      for (const UOp* s : x->src) src.push_back(eval(s));
      std::vector<const gen::Facts*> ptr;
      for (const gen::Facts& s : src) ptr.push_back(&s);
      f = gen::alu_facts(x, ptr);
      // WHERE(x < C && ..., x, k): the clamp of a run-time trip count; x's arm is below C.
      if (x->op == Op::WHERE && (x->src[0]->op == Op::AND || x->src[0]->op == Op::MUL))
        for (const UOp* c : x->src[0]->src)
          if (c->op == Op::CMPLT && c->src[0] == x->src[1] && c->src[1]->op == Op::CONST)
            f.ints.hi = std::max<int128>(c->src[1]->value.i - 1, src[2].ints.hi);
    }
    return memo[x] = f;
  };
  return eval(u).ints.hi;
}

struct Shapes {
  bool loop = false, depth2 = false, depth3 = false, accumulator = false, acc_per_outer = false;
  bool gated_load = false, gated_store = false, same_buffer = false, runtime_trips = false;
  std::set<int64_t> trips;
  int128 iterations = 0;  // an upper bound over every data set
};

Shapes shapes_of(const Program& p) {
  Shapes s;
  const std::vector<const UOp*> order = linearize(p);
  const Loops loops = analyze_loops(p, order);
  s.loop = loops.any();
  std::vector<int128> bound(loops.ranges.size(), 0);
  std::map<const UOp*, gen::Facts> memo;
  for (size_t k = 0; k < loops.ranges.size(); ++k) {
    const UOp* r = loops.ranges[k];
    int depth = 1;
    for (int q = loops.parent[k]; q >= 0; q = loops.parent[q]) ++depth;
    s.depth2 = s.depth2 || depth == 2;
    s.depth3 = s.depth3 || depth == 3;
    const UOp* end = r->src[0];
    if (end->op == Op::CONST)
      s.trips.insert(end->value.i);
    else
      s.runtime_trips = true;
    const int128 own = std::max<int128>(0, upper_bound(end, memo));
    bound[k] = own * (loops.parent[k] >= 0 ? bound[loops.parent[k]] : 1);
    s.iterations += bound[k];
  }
  std::map<const UOp*, std::set<int>> alloc_store_loops;
  std::map<const UOp*, std::set<int>> loaded_in, stored_in;
  for (const UOp* u : order) {
    if (u->op != Op::LOAD && u->op != Op::STORE) continue;
    const int in = u->id < loops.innermost.size() ? loops.innermost[u->id] : -1;
    const UOp* mem = memory_of(u->src[0]);
    if (u->op == Op::LOAD && u->src.size() == 3) s.gated_load = true;
    if (u->op == Op::STORE && u->src.size() == 3) s.gated_store = true;
    if (in < 0) continue;
    if (u->op == Op::STORE && mem->op == Op::ALLOC) alloc_store_loops[mem].insert(in);
    if (mem->op == Op::BUFFER) (u->op == Op::LOAD ? loaded_in : stored_in)[mem].insert(in);
  }
  for (const auto& [mem, ls] : alloc_store_loops) {
    s.accumulator = true;
    s.acc_per_outer = s.acc_per_outer || ls.size() >= 2;  // initialised in an outer loop, updated in an inner one
  }
  for (const auto& [mem, ls] : stored_in)
    for (int l : ls) s.same_buffer = s.same_buffer || (loaded_in.count(mem) && loaded_in[mem].count(l));
  return s;
}

TEST(GeneratorLoops, MostProgramsLoopAndEveryShapeOccurs) {
  const GenPolicy pol;
  int with_loop = 0, undefined = 0, depth2 = 0, depth3 = 0, acc = 0, acc_outer = 0, gl = 0, gs = 0, same = 0, runtime = 0;
  std::map<int64_t, int> trips;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = generate(seed, pol);
    ASSERT_NO_THROW(verify(p)) << "seed " << seed;
    const Shapes s = shapes_of(p);
    EXPECT_LE(s.iterations, pol.max_loop_iterations) << "seed " << seed;
    EXPECT_EQ(data_sets_for(p, 16), 16) << "seed " << seed;  // an ordinary program runs on every data set
    const RefResult r = interpret(p);
    EXPECT_FALSE(r.over_budget);
    undefined += r.undefined.has_value();
    with_loop += s.loop;
    depth2 += s.depth2;
    depth3 += s.depth3;
    acc += s.accumulator;
    acc_outer += s.acc_per_outer;
    gl += s.gated_load;
    gs += s.gated_store;
    same += s.same_buffer;
    runtime += s.runtime_trips;
    for (int64_t t : s.trips) ++trips[t];
  }
  std::printf(
      "of %d programs: loop %d, depth 2 %d, depth 3 %d, accumulator %d (per outer iteration %d), "
      "gated load %d, gated store %d, same buffer %d, runtime trips %d, UNDEFINED %d\n",
      static_cast<int>(kSeeds), with_loop, depth2, depth3, acc, acc_outer, gl, gs, same, runtime, undefined);
  for (const auto& [t, n] : trips) std::printf("  trip count %lld: %d programs\n", static_cast<long long>(t), n);
  EXPECT_GE(with_loop, static_cast<int>(kSeeds) / 2);
  for (int n : {depth2, depth3, acc, acc_outer, gl, gs, same, runtime}) EXPECT_GE(n, 5);
  EXPECT_GE(acc_outer, acc / 4);  // the nest shape that catches a once-per-kernel initialisation is common
  for (size_t k = 0; k < kTripCounts.size(); ++k) {  // the classes the default policy weighs
    if (GenPolicy{}.trip_weight[k] > 0) {
      EXPECT_GE(trips[kTripCounts[k]], 1) << "trip count " << kTripCounts[k];
    }
  }
  EXPECT_LE(undefined, static_cast<int>(kSeeds) / 20);
}

// Kinds by construction (docs/semantics.md, "Loop kinds"): no generated kind=global loop is found not
// independent as the reference runs it; and with p_opts every drawn step names a RANGE of the kind its
// action works on, with an amount dividing the trip count (PADTO: one that does not).
TEST(GeneratorLoops, KindsAreRightByConstructionAndStepsFitTheirRanges) {
  GenPolicy pol;
  pol.p_opts = 1.0;
  int global = 0, reduce = 0, with_opts = 0, steps = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = generate(seed, pol);
    ASSERT_NO_THROW(verify(p)) << "seed " << seed;
    const RefResult r = interpret(p);
    ASSERT_FALSE(r.undefined && r.undefined->bad_program) << "seed " << seed << ": " << r.undefined->reason;
    std::map<int64_t, const UOp*> ranges;
    for (const UOp* u : linearize(p))
      if (u->op == Op::RANGE) ranges[u->value.i] = u;
    for (const auto& [axis, u] : ranges) {
      global += u->range_kind() == RangeKind::Global;
      reduce += u->range_kind() == RangeKind::Reduce;
    }
    if (!p.opts) continue;
    ++with_opts;
    for (const OptStep& o : *p.opts) {
      ++steps;
      if (o.axis < 0) continue;
      const UOp* u = ranges.at(o.axis);
      const RangeKind want = o.action == "UNROLL" || o.action == "GROUP" || o.action == "GROUPTOP" ? RangeKind::Reduce
                             : o.action == "PADTO"                                                    ? u->range_kind()
                                                                                                      : RangeKind::Global;
      EXPECT_EQ(u->range_kind(), want) << "seed " << seed << " " << format_opt(o);
      ASSERT_EQ(u->src[0]->op, Op::CONST) << "seed " << seed << " " << format_opt(o);
      const int64_t trips = u->src[0]->value.i;
      if (o.action == "SWAP") continue;
      EXPECT_EQ(trips % o.arg == 0, o.action != "PADTO") << "seed " << seed << " " << format_opt(o);
    }
  }
  std::printf("of %d programs: %d global RANGEs, %d reduce RANGEs, %d opts lines of %d steps\n", static_cast<int>(kSeeds),
              global, reduce, with_opts, steps);
  EXPECT_GE(global, static_cast<int>(kSeeds) / 4);
  EXPECT_GE(reduce, static_cast<int>(kSeeds) / 8);
  EXPECT_GE(with_opts, static_cast<int>(kSeeds) / 3);
}

// A stingy bound holds too: loops shrink or go away, never exceed it.
TEST(GeneratorLoops, IterationBoundHolds) {
  GenPolicy pol;
  pol.max_loop_iterations = 40;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    const Program p = generate(seed, pol);
    ASSERT_NO_THROW(verify(p)) << "seed " << seed;
    EXPECT_LE(shapes_of(p).iterations, 40) << "seed " << seed;
  }
}

// p_big_nest: one nest per program the size of a real workload's kernel (trip counts 32 to 256), within its
// own bound and beside the ordinary budget; some reach the 256K iterations tinygrad's heuristic threads.
TEST(GeneratorLoops, BigNestsKeepTheirOwnBound) {
  GenPolicy pol;
  pol.p_big_nest = 1;
  int big = 0, threadable = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Program p = generate(seed, pol);
    ASSERT_NO_THROW(verify(p)) << "seed " << seed;
    const Shapes s = shapes_of(p);
    EXPECT_LE(s.iterations, pol.max_big_nest_iterations + pol.max_loop_iterations) << "seed " << seed;
    big += s.trips.count(128) + s.trips.count(256) > 0;
    threadable += s.iterations >= (int128{1} << 18);
    int64_t elements = 0;
    for (const UOp* b : p.buffers) elements += b->len;
    const int sets = data_sets_for(p, 16);  // `--inputs 16` copies fit kDataSetElements, at least one
    EXPECT_TRUE(sets >= 1 && sets <= 16 && (sets == 1 || sets * elements <= kDataSetElements)) << "seed " << seed;
    EXPECT_EQ(sets < 16, 16 * (elements + 1) > kDataSetElements) << "seed " << seed;
    if (seed % 10 == 0) {
      EXPECT_FALSE(interpret(p).over_budget);
    }
  }
  std::printf("of 60 programs: %d with a trip count of 128 or 256, %d of at least 2^18 iterations\n", big, threadable);
  EXPECT_GE(big, 15);
  EXPECT_GE(threadable, 2);
}

// p_big_nest_own_optimizer leaves a program with a workload-sized nest without a drawn sequence (the
// target's heuristic or search picks); at 0 such programs get one as any other loop program.
TEST(GeneratorLoops, BigNestsLeftToTheTargetsOptimizer) {
  GenPolicy pol;
  pol.p_big_nest = 1;
  pol.p_opts = 1;
  for (double own : {0.0, 1.0}) {
    pol.p_big_nest_own_optimizer = own;
    int looped = 0, with_opts = 0;
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const Program p = generate(seed, pol);
      const Shapes s = shapes_of(p);
      if (!s.loop) continue;
      ++looped;
      with_opts += p.opts.has_value() && !p.opts->empty();
    }
    EXPECT_GE(looped, 20);
    if (own == 0) {
      EXPECT_GE(with_opts, looped * 3 / 4) << "of " << looped;
    } else {
      EXPECT_EQ(with_opts, 0) << "of " << looped;
    }
  }
}

// The shapes of tinygrad's front end that its rewrite rules are written for, each in some programs (read
// off the nodes): a load masked by a WHERE with a zero arm, a masked term added (j < M ? x : 0), a
// strided index S*(j+k), a split division (x // c + a) // d, two selects of complementary zero arms
// summed, and a maximum written as a select.
TEST(GeneratorLoops, FrontEndShapesOccur) {
  auto is = [](const UOp* u, Op op) { return u->op == op; };
  auto zero = [](const UOp* u) { return u->op == Op::CONST && u->value.bits() == 0; };
  std::map<std::string, int> programs;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = generate(seed, GenPolicy{});
    std::set<std::string> found;
    for (const UOp* u : linearize(p)) {
      if (is(u, Op::WHERE) && ((is(u->src[1], Op::LOAD) && zero(u->src[2])) || (zero(u->src[1]) && is(u->src[2], Op::LOAD))))
        found.insert("masked load");
      if (is(u, Op::ADD) && !is(u->src[0], Op::WHERE) && is(u->src[1], Op::WHERE) && is(u->src[1]->src[0], Op::CMPLT) &&
          !is(u->src[1]->src[1], Op::LOAD) && zero(u->src[1]->src[2]))
        found.insert("masked term");
      if (is(u, Op::INDEX) && is(u->src[1], Op::MUL) && is(u->src[1]->src[0], Op::CONST) && is(u->src[1]->src[1], Op::ADD))
        found.insert("strided index");
      if (is(u, Op::FLOORDIV) && is(u->src[0], Op::ADD) && is(u->src[0]->src[0], Op::FLOORDIV)) found.insert("split division");
      if (is(u, Op::ADD) && is(u->src[0], Op::WHERE) && is(u->src[1], Op::WHERE) && u->src[0]->src[0] == u->src[1]->src[0] &&
          zero(u->src[0]->src[2]) && zero(u->src[1]->src[1]))
        found.insert("complementary selects");
      if (is(u, Op::WHERE) && is(u->src[0], Op::CMPLT)) {
        const UOp* a = u->src[0]->src[0];
        const UOp* b = u->src[0]->src[1];
        if (u->src[1] == b && u->src[2] == a && (is(a, Op::CONST) || is(b, Op::CONST))) found.insert("maximum as a select");
      }
    }
    for (const std::string& f : found) ++programs[f];
  }
  for (const char* f : {"masked load", "masked term", "strided index", "split division", "complementary selects", "maximum as a select"})
    EXPECT_GE(programs[f], 5) << f << " in " << programs[f] << " of " << kSeeds << " programs";
}

}  // namespace
}  // namespace uf::testing

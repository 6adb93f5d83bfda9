// Benchmark inputs: the straight-line program, generated sets, a known failing program.
#include "bench/workloads.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "fuzz/gen/generator.h"
#include "fuzz/oracle/oracle.h"
#include "fuzz/gen/rng.h"
#include "interp/interp.h"

extern char** environ;

namespace uf::bench {

Settings& settings() {
  static Settings s;
  return s;
}

namespace {

// A small ring of recent values per lane: operands come from the last few values, so chains are deep
// but not one single line; a third of the operands are the lane's loads again, which keeps fresh bits
// flowing in (otherwise MUL/AND chains collapse the ints to 0 and the floats to inf/NaN).
struct Lane {
  std::vector<const UOp*> loads, recent;
  const UOp* last() const { return recent.back(); }
  void push(const UOp* u) {
    if (recent.size() == 16) recent.erase(recent.begin());
    recent.push_back(u);
  }
  const UOp* pick(Rng& rng) const {
    return rng.below(3) == 0 ? loads[rng.below(loads.size())] : recent[rng.below(recent.size())];
  }
};

}  // namespace

Program straight_line(size_t nodes, uint64_t seed) { return mixed_kernel(nodes, -1, seed); }

Program mixed_kernel(size_t nodes, int64_t trips, uint64_t seed) {
  Program p;
  Graph& g = *p.graph;
  Rng rng(seed);
  constexpr int64_t kLen = 8;
  const bool loop = trips >= 0;
  const int64_t rows = loop ? trips : 1;  // the loop's iteration k reads row k of the inputs, writes out[k]
  const UOp* in_i = g.memory(Op::BUFFER, DType::I32, kLen * rows, 0);
  const UOp* in_f = g.memory(Op::BUFFER, DType::F32, kLen * rows, 1);
  const UOp* out_i = g.memory(Op::BUFFER, DType::I32, rows, 2);
  const UOp* out_f = g.memory(Op::BUFFER, DType::F32, rows, 3);
  Values di, df;
  for (int64_t k = 0; k < kLen * rows; ++k) {
    di.push_back(Scalar::of_int(static_cast<int64_t>(rng.below(33)) - 16));
    df.push_back(Scalar::of_float((static_cast<double>(rng.below(129)) - 64) / 4));
  }
  p.data[0] = di;
  p.data[1] = df;
  auto i32 = [&g](int64_t v) { return g.constant(DType::I32, Scalar::of_int(v)); };
  const UOp* range = loop ? g.range(i32(trips), 0) : nullptr;
  const UOp* row = loop ? g.make(Op::MUL, {range, i32(kLen)}) : nullptr;
  auto at = [&](const UOp* mem, int64_t i) { return g.make(Op::INDEX, {mem, row ? g.make(Op::ADD, {row, i32(i)}) : i32(i)}); };
  Lane li, lf;
  for (int64_t k = 0; k < kLen; ++k) {
    li.loads.push_back(g.make(Op::LOAD, {at(in_i, k)}));
    lf.loads.push_back(g.make(Op::LOAD, {at(in_f, k)}));
    li.push(li.loads.back());
    lf.push(lf.loads.back());
  }
  static constexpr Op kIntOps[] = {Op::ADD, Op::SUB, Op::MUL, Op::MAX, Op::XOR, Op::AND, Op::OR};
  static constexpr Op kFloatOps[] = {Op::ADD, Op::SUB, Op::MUL, Op::MAX};
  const size_t body_end = nodes > 8 ? nodes - 8 : 0;  // room for the stores and the SINK
  while (g.size() < body_end) {
    const uint64_t r = rng.below(100);
    if (r < 50) {
      li.push(g.make(kIntOps[rng.below(std::size(kIntOps))], {li.last(), li.pick(rng)}));
    } else if (r < 85) {
      const Op op = kFloatOps[rng.below(std::size(kFloatOps))];  // MUL only by a load: no runaway to inf
      lf.push(g.make(op, {lf.last(), op == Op::MUL ? lf.loads[rng.below(lf.loads.size())] : lf.pick(rng)}));
    } else if (r < 92) {  // lanes meet: i32 -> f32 (exact for every i32 the range of a cast needs)
      const UOp* c = g.make(Op::CAST, {li.last()}, DType::F32);
      lf.push(g.make(Op::ADD, {lf.last(), c}));
    } else {  // a comparison feeding a select
      const UOp* cond = g.make(Op::CMPLT, {lf.last(), lf.pick(rng)});
      li.push(g.make(Op::WHERE, {cond, li.last(), li.pick(rng)}));
    }
  }
  const UOp* out_at = loop ? range : i32(0);
  const UOp* s0 = g.make(Op::STORE, {g.make(Op::INDEX, {out_i, out_at}), li.last()});
  const UOp* s1 = g.make(Op::STORE, {g.make(Op::INDEX, {out_f, out_at}), lf.last()});
  p.sink = loop ? g.make(Op::SINK, {g.make(Op::END, {s0, range}), g.make(Op::END, {s1, range})}) : g.make(Op::SINK, {s0, s1});
  p.buffers = {in_i, in_f, out_i, out_f};
  p.set_meta("bench", (loop ? "loop_kernel " + std::to_string(trips) + " x " : "straight_line ") + std::to_string(nodes));
  return p;
}

std::vector<Program> generated(size_t count, uint64_t first_seed) {
  std::vector<Program> ps;
  ps.reserve(count);
  for (size_t i = 0; i < count; ++i) ps.push_back(generate(first_seed + i));
  return ps;
}

size_t live_nodes(const Program& p) { return linearize(p).size(); }

size_t live_nodes(const std::vector<Program>& ps) {
  size_t n = 0;
  for (const Program& p : ps) n += live_nodes(p);
  return n;
}

std::string fresh_cache_dir() {
  static std::atomic<int> counter{0};
  const std::string dir = settings().cache_root + "/c" + std::to_string(counter++);
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
  ::setenv("UOPFUZZ_CACHE_DIR", dir.c_str(), 1);
  return dir;
}

CompiledPathConfig broken_config() {
  ::setenv("UOPFUZZ", settings().uopfuzz.c_str(), 1);  // the plug-in script calls `$UOPFUZZ render`
  CompiledPathConfig cfg;
  cfg.renderer_cmd = "sh " + settings().source_dir + "/tests/fuzz/campaign/broken_renderer.sh";
  return cfg;
}

const Failing& failing_program() {
  static const Failing found = [] {
    const CompiledPathConfig cfg = broken_config();
    // Only programs that multiply integers can fail under this renderer: screen by the op table first,
    // then confirm in batches (each plug-in call spawns a shell, so keep the batches small).
    std::vector<Program> pool;
    for (uint64_t seed = 1; seed < 2000 && pool.size() < 64; ++seed) {
      Program p = generate(seed);
      bool int_mul = false;
      for (const UOp* u : linearize(p)) int_mul |= (u->op == Op::MUL || u->op == Op::MULACC) && is_int(u->dtype);
      if (int_mul) pool.push_back(std::move(p));
    }
    for (size_t at = 0; at < pool.size(); at += 8) {
      std::vector<const Program*> batch;
      for (size_t i = at; i < std::min(pool.size(), at + 8); ++i) batch.push_back(&pool[i]);
      const std::vector<Finding> r = check(batch, cfg);
      for (size_t i = 0; i < batch.size(); ++i)
        if (r[i].defined() && r[i].observation.verdict == Verdict::mismatch)
          return Failing{*batch[i], r[i].observation.signature};
    }
    throw std::runtime_error("no failing program found under the broken renderer");
  }();
  return found;
}

int spawn_quiet(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) throw std::runtime_error("cannot run " + argv[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace uf::bench

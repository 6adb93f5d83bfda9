// The generator's main loop: buffers, steps, outputs, dead code, SINK; and the public entry points.
#include "fuzz/gen/generator.h"

#include <algorithm>
#include <cstdlib>

#include "core/probe.h"
#include "core/uop.h"
#include "fuzz/gen/generator_impl.h"

namespace uf {

uint64_t program_seed(uint64_t campaign_seed, uint64_t worker, uint64_t index) {
  // Three chained splitmix64 mixes: each input moves every output bit.
  uint64_t s = campaign_seed;
  uint64_t h = splitmix64(s);
  s = h ^ (worker * 0xD1B54A32D192ED03ull);
  h = splitmix64(s);
  s = h ^ (index * 0x8CB92BA72F3D8DD7ull);
  return splitmix64(s);
}

Program generate(uint64_t seed, const GenPolicy& base) { return gen::Gen(Choices{seed, {}}, base).run(); }
Program generate(const Choices& choices, const GenPolicy& base, std::vector<uint64_t>* record) {
  return gen::Gen(choices, base, record).run();
}

std::map<int64_t, Values> input_data(const Program& p, uint64_t seed, uint64_t input, const GenPolicy& base) {
  return input_data(p, Choices{seed, {}}, input, base);
}

int data_sets_for(const Program& p, int inputs) {
  int64_t elements = 1;
  for (const UOp* b : p.buffers) elements += b->len;
  return static_cast<int>(std::clamp<int64_t>(kDataSetElements / elements, 1, inputs));
}

std::vector<std::map<int64_t, Values>> other_data_sets(const Program& p, int count, const GenPolicy& base) {
  const std::string* seed_text = p.meta_value("seed");
  const uint64_t seed = seed_text ? std::strtoull(seed_text->c_str(), nullptr, 10) : 1;
  std::vector<std::map<int64_t, Values>> out;
  for (int input = 1; input <= count; ++input) out.push_back(input_data(p, seed, static_cast<uint64_t>(input), base));
  return out;
}

std::map<int64_t, Values> input_data(const Program& p, const Choices& choices, uint64_t input, const GenPolicy& base) {
  gen::Gen g(choices, base);  // draws the program's swarm policy, as generate(choices) did
  uint64_t mixed = choices.seed ^ (input * 0x9E3779B97F4A7C15ull);
  g.rng = Rng(splitmix64(mixed));
  std::map<int64_t, Values> data;
  for (const UOp* b : p.buffers) data[b->slot] = g.buffer_data(b->dtype, b->len, true);
  return data;
}

namespace gen {

void Gen::ensure(bool ok, const char* what) {
  if (!ok) throw InternalError(std::string("generator: ") + what);
}

Gen::Gen(const Choices& choices, const GenPolicy& base, std::vector<uint64_t>* record)
    : choices_(choices), rng(choices_.seed, choices_.draws, record), pol(swarm(base, rng)), seed(choices.seed), g(*prog.graph), pool_(kNumDTypes) {
  for (DType d : kValueDTypes) target_dtypes_[static_cast<size_t>(d)] = base.dtype_weight[static_cast<size_t>(d)] > 0;
  // An ALU op is drawn with its weight times the weight of the dtypes it accepts.
  for (Op op : kAluOps) {
    const auto o = static_cast<size_t>(op);
    double dw = 0;
    for (DType d : kValueDTypes)
      if (policy_accepts(pol, op, d)) dw += pol.dtype_weight[static_cast<size_t>(d)];
    alu_weight_[o] = pol.op_weight[o] * dw;
  }
}

// Every node goes through here: facts, use counts and the value pools follow the graph.
const UOp* Gen::note(const UOp* u) {
  if (u->id < seen_) return u;  // interned: an existing node, already noted
  ensure(u->id == seen_, "node ids are dense");
  ++seen_;
  uses_.push_back(0);
  for (const UOp* s : u->src) ++uses_[s->id];
  Facts f;
  if (u->op == Op::CONST) {
    f = const_facts(u->dtype, u->value);
  } else if (u->op == Op::GEP) {
    f = facts_[u->src[0]->id];  // a vector's facts hold for each of its lanes
  } else if (u->op == Op::STACK) {
    f = facts_[u->src[0]->id];
    for (const UOp* s : u->src) f = join(u->dtype, f, facts_[s->id]);
  } else if (is_alu(u->op)) {
    std::vector<const Facts*> src;
    for (const UOp* s : u->src) src.push_back(&facts_[s->id]);
    f = alu_facts(u, src);
  } else {
    f = full_facts(u->dtype);  // a LOAD's facts are set by access(), which knows the memory
  }
  facts_.push_back(f);
  if (u->is_vector()) {
    if (u->op != Op::CONST) vectors_.push_back(u);
  } else if (!u->is_memory() && !is_void(u->dtype) && u->op != Op::CONST) {
    pool_[static_cast<size_t>(u->dtype)].push_back(u);
    values_.push_back(u);
  }
  return u;
}

const UOp* Gen::make(Op op, std::span<const UOp* const> src, std::optional<DType> declared) {
  return note(g.make(op, src, declared));
}

const UOp* Gen::constant(DType d, Scalar v) { return note(g.constant(d, v)); }

void Gen::mark_ancestors(const UOp* root, uint32_t floor) {
  std::vector<const UOp*> stack{root};
  while (!stack.empty()) {
    const UOp* u = stack.back();
    stack.pop_back();
    if (u->id < floor || mark_[u->id] == stamp_) continue;
    mark_[u->id] = stamp_;
    for (const UOp* s : u->src) stack.push_back(s);
  }
}

void Gen::new_stamp() {
  mark_.resize(g.size(), 0);
  ++stamp_;
}

void Gen::make_buffers() {
  const int n_in = static_cast<int>(rng.range(pol.min_inputs, pol.max_inputs));
  const int n_out = static_cast<int>(rng.range(pol.min_outputs, pol.max_outputs));
  const int n_untouched = rng.chance(pol.p_untouched_buffer) ? 1 : 0;
  const int total = n_in + n_out + n_untouched;
  std::vector<int64_t> slots(static_cast<size_t>(total));
  for (int i = 0; i < total; ++i) slots[i] = i;
  for (int i = total - 1; i > 0; --i) std::swap(slots[i], slots[rng.below(i + 1)]);  // roles get mixed slots
  for (int i = 0; i < total; ++i) {
    const DType d = pick_dtype([](DType) { return true; });
    const int64_t len = rng.range(1, rng.chance(pol.p_long_buffer) ? pol.max_long_len : pol.max_len);
    const UOp* b = note(g.memory(Op::BUFFER, d, len, slots[i]));
    prog.buffers.push_back(b);
    const bool output = i >= n_in && i < n_in + n_out;
    Values data = buffer_data(d, len, !output || rng.chance(pol.p_random_output_data));
    if (i < n_in + n_out) {
      Memory m;
      m.mem = b;
      m.output = output;
      for (Scalar v : data) m.elem.push_back(const_facts(d, v));
      m.written.assign(static_cast<size_t>(len), 1);
      mems_.push_back(std::move(m));
    }
    prog.data[slots[i]] = std::move(data);
  }
  next_buffer_slot_ = total;
}

// Values nothing uses would be dead: fold some together and store them, so the graph stays live.
void Gen::finish_outputs() {
  std::vector<Memory*> outs;
  for (Memory& m : mems_)
    if (m.output) outs.push_back(&m);
  std::vector<std::vector<const UOp*>> unused(kNumDTypes);
  for (const UOp* v : values_)
    if (uses_[v->id] == 0) unused[static_cast<size_t>(v->dtype)].push_back(v);
  for (DType d : kValueDTypes) {
    auto& list = unused[static_cast<size_t>(d)];
    while (list.size() > 1 && rng.chance(pol.p_fold_unused)) {
      const UOp* b = list.back();
      list.pop_back();
      list.back() = combine(d, list.back(), b);
    }
    for (const UOp* v : list) {
      if (!rng.chance(pol.p_consume_unused)) continue;
      Memory& m = *rng.pick(outs);
      const UOp* w = v->dtype == m.mem->dtype ? v : cast_to(v, m.mem->dtype);
      store(m, index_for(m, rng.chance(pol.p_dynamic_index)), w);
    }
  }
  for (Memory* m : outs)
    for (int64_t e = 0; e < m->mem->len && m->mem->len <= pol.max_long_len; ++e)
      if (rng.chance(pol.p_fill_output)) {
        const UOp* v = operand(m->mem->dtype);
        store(*m, i32(e), v);
      }
  if (stores_.empty()) {
    const UOp* v = operand(outs.front()->mem->dtype);
    store(*outs.front(), i32(0), v);
  }
  if (stores_.empty()) {  // --without after: that store needed an AFTER, and a fresh BUFFER needs none
    const DType d = outs.front()->mem->dtype;
    const UOp* v = operand(d);
    fresh_buffer(d, 1, true);
    store(mems_.back(), i32(0), v);
  }
}

// Nodes not reachable from the SINK: they must never run (an interpreter or renderer that walks the
// whole graph instead of the SINK's order would show it).
void Gen::dead_code() {
  if (!rng.chance(pol.p_dead_code)) return;
  const int n = static_cast<int>(rng.range(1, std::max(1, pol.max_dead_nodes)));
  for (int i = 0; i < n; ++i) alu_step();
  if (rng.chance(pol.p_dead_store)) {
    const Memory& m = mems_[rng.below(mems_.size())];
    const UOp* v = constant(m.mem->dtype, random_value(m.mem->dtype, pol.const_value_weight));
    make(Op::STORE, {make(Op::INDEX, {m.mem, i32(static_cast<int64_t>(rng.below(m.mem->len)))}), v});
  }
}

// The SINK names every store that no other named store already reaches.
const UOp* Gen::make_sink() {
  new_stamp();
  std::vector<const UOp*> roots;
  for (size_t i = stores_.size(); i-- > 0;) {
    if (mark_[stores_[i]->id] == stamp_) continue;
    roots.push_back(stores_[i]);
    mark_ancestors(stores_[i]);
  }
  std::reverse(roots.begin(), roots.end());
  return make(Op::SINK, roots);
}

// Log-uniform without libm (whose last bit may differ between machines): a bit length, then a value.
int64_t Gen::log_uniform(int64_t lo, int64_t hi) {
  auto bitlen = [](int64_t x) {
    int n = 0;
    for (; x; x >>= 1) ++n;
    return n;
  };
  const int k = static_cast<int>(rng.range(bitlen(lo), bitlen(hi)));
  const int64_t a = std::max(lo, int64_t{1} << (k - 1)), b = std::min(hi, (int64_t{1} << k) - 1);
  return rng.range(a, std::max(a, b));
}

Program Gen::run() {
  make_buffers();
  const bool observed = rng.chance(pol.p_observe_intermediates);
  int64_t steps = log_uniform(std::max(1, pol.min_steps), std::max(pol.min_steps, pol.max_steps));
  if (observed) steps = std::max<int64_t>(1, steps * std::clamp(pol.observed_steps_percent, 0, 100) / 100);
  // Most programs have a loop (policy.h): one step is made a Loop, more may be drawn.
  const bool loops = pol.step_weight[static_cast<size_t>(Step::Loop)] > 0;
  const int64_t forced = loops && rng.chance(pol.p_force_loop) ? static_cast<int64_t>(rng.below(steps)) : -1;
  for (int64_t i = 0; i < steps && static_cast<int64_t>(g.size()) < pol.max_nodes; ++i) {
    const Step step = i == forced ? Step::Loop : static_cast<Step>(rng.weighted(pol.step_weight));
    switch (step) {
      case Step::Loop: loop_step(); break;
      case Step::Chain: chain_step(); break;
      case Step::Load: load_step(false); break;
      case Step::Gather: load_step(true); break;
      case Step::Scratch: scratch_step(); break;
      case Step::Accumulate: accumulate_step(); break;
      case Step::ReadModifyWrite: rmw_step(); break;
      case Step::Scatter: scatter_step(); break;
      case Step::StoreReload: store_reload_step(); break;
      case Step::Vector: vector_step(); break;
      default: alu_step(); break;
    }
  }
  finish_outputs();
  dead_code();
  prog.sink = make_sink();
  prog.collect_buffers();
  // opts.cpp: the program's optimization sequence; a workload-sized nest is mostly left to the target's own
  // optimizer (tinygrad's heuristic branches on exactly those sizes)
  if (!big_nest_drawn_ || !rng.chance(pol.p_big_nest_own_optimizer)) uf::draw_opts(prog, pol, rng);
  prog.set_meta("seed", std::to_string(seed));
  prog.set_meta("generator", std::to_string(kGeneratorVersion));
  if (observed) {
    prog = instrument(prog, ProbeScope::computed, {}, target_dtypes_).program;  // probes only in the target's dtypes
    prog.set_meta("observed", "intermediates");
  }
  return std::move(prog);
}

}  // namespace gen
}  // namespace uf

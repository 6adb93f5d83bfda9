#include "tests/support/random_programs.h"

#include <array>
#include <map>

#include "tests/support/int_model.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

// Core's random program: loads of 1-3 BUFFERs, then `size` attempts at an ALU node.
void random_inputs(Program& p, std::mt19937_64& rng, int nbuf, std::vector<const UOp*>& vals) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  Graph& g = *p.graph;
  for (int b = 0; b < nbuf; ++b) {
    const DType d = kValueDTypes[pick(std::size(kValueDTypes))];
    const int64_t len = 1 + static_cast<int64_t>(pick(4));
    const UOp* buf = g.memory(Op::BUFFER, d, len, b);
    p.buffers.push_back(buf);  // input buffers belong to the program even when nothing live reads them
    Values data;
    for (int64_t i = 0; i < len; ++i) data.push_back(normalize(d, Scalar::of_uint(rng())));
    if (is_float(d))
      for (auto& v : data) v = normalize(d, Scalar::of_float(static_cast<double>(static_cast<int32_t>(rng())) / 7.0));
    p.data[b] = data;
    for (int64_t i = 0; i < len; ++i)
      vals.push_back(g.make(Op::LOAD, {g.make(Op::INDEX, {buf, g.constant(DType::I32, Scalar::of_int(i))})}));
  }
}

void random_alu_nodes(Graph& g, std::mt19937_64& rng, int size, std::vector<const UOp*>& vals) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int i = 0; i < size; ++i) {
    const UOp* a = vals[pick(vals.size())];
    const DType d = a->dtype;
    const Op op = kAluOps[pick(kAluOps.size())];
    const UOp* same = nullptr;
    for (int tries = 0; tries < 8 && !same; ++tries) {
      const UOp* c = vals[pick(vals.size())];
      if (c->dtype == d) same = c;
    }
    if (!same) same = g.constant(d, normalize(d, Scalar::of_uint(rng() % 5)));
    const UOp* r = nullptr;
    if (op == Op::CAST)
      r = g.make(Op::CAST, {a}, kValueDTypes[pick(std::size(kValueDTypes))]);
    else if (op == Op::BITCAST || !op_accepts(op, d))
      continue;
    else if (op == Op::WHERE)
      r = g.make(Op::WHERE, {g.make(Op::CMPLT, {a, same}), a, same});
    else if (info(op).arity == 1)
      r = g.make(op, {a});
    else if (info(op).arity == 2)
      r = g.make(op, {a, same});
    else
      r = g.make(op, {a, same, a});
    vals.push_back(r);
  }
}

// Scratch: tmp[0] = v; out[0] = tmp[0] read through AFTER, out[1] = v; out2[0] = a value from the middle.
void random_outputs(Program& p, int nbuf, const std::vector<const UOp*>& vals) {
  Graph& g = *p.graph;
  std::vector<const UOp*> effects;
  const UOp* v = vals.back();
  const UOp* tmp = g.memory(Op::ALLOC, v->dtype, 2, 0);
  const UOp* zero = g.constant(DType::I32, Scalar::zero());
  const UOp* w = g.make(Op::STORE, {g.make(Op::INDEX, {tmp, zero}), v});
  const UOp* back = g.make(Op::LOAD, {g.make(Op::INDEX, {g.make(Op::AFTER, {tmp, w}), zero})});
  const UOp* out = g.memory(Op::BUFFER, v->dtype, 3, nbuf);
  effects.push_back(g.make(Op::STORE, {g.make(Op::INDEX, {out, zero}), back}));
  const UOp* one = g.constant(DType::I32, Scalar::of_int(1));
  const UOp* u = vals[vals.size() / 2];
  const UOp* out2 = g.memory(Op::BUFFER, u->dtype, 1, nbuf + 1);
  effects.push_back(g.make(Op::STORE, {g.make(Op::INDEX, {out2, zero}), u}));
  effects.push_back(g.make(Op::STORE, {g.make(Op::INDEX, {out, one}), v}));
  p.sink = g.make(Op::SINK, std::span<const UOp* const>(effects));
}

constexpr DType kInts[] = {DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64};

// The integer program's generator state: the builder, the random source and the pool of values.
struct IntProgramMaker {
  std::mt19937_64& rng;
  Builder b;
  std::vector<const UOp*> pool;

  size_t pick(size_t n) { return static_cast<size_t>(rng() % n); }
  Scalar value(DType d) {  // mostly the edges of the dtype's range
    const cpp_int lo = is_signed(d) ? -(cpp_int(1) << (bits(d) - 1)) : cpp_int(0);
    const cpp_int hi = is_signed(d) ? (cpp_int(1) << (bits(d) - 1)) - 1 : (cpp_int(1) << bits(d)) - 1;
    const cpp_int special[] = {0, 1, 2, 3, 7, -1, -2, -7, lo, hi, lo + 1, hi - 1};
    cpp_int v = pick(3) ? special[pick(std::size(special))] : cpp_int(static_cast<int64_t>(rng()));
    return truncate(d, v);
  }
  const UOp* same_dtype(DType d) {
    std::vector<const UOp*> c;
    for (const UOp* u : pool)
      if (u->dtype == d) c.push_back(u);
    return c[pick(c.size())];
  }
  void inputs() {
    for (size_t k = 0; k < std::size(kInts); ++k) {
      const DType d = kInts[k];
      const UOp* buf = b.buffer(d, 4, static_cast<int64_t>(k));
      Values& data = b.p.data[static_cast<int64_t>(k)];
      for (int i = 0; i < 4; ++i) {
        data.push_back(value(d));
        pool.push_back(b.load(buf, i));
      }
    }
  }
  const UOp* step();
  RandomIntProgram finish();
};

const UOp* IntProgramMaker::step() {
  static constexpr Op binary[] = {Op::ADD, Op::SUB, Op::MUL,      Op::MAX,      Op::AND,  Op::OR,  Op::XOR,
                                  Op::SHR, Op::SHL, Op::FLOORDIV, Op::FLOORMOD, Op::CDIV, Op::CMOD};
  const UOp* x = pool[pick(pool.size())];
  const DType d = x->dtype;
  switch (pick(6)) {
    case 0: return b.op(Op::CAST, {x}, kInts[pick(std::size(kInts))]);
    case 1: return b.op(Op::NEG, {x});
    case 2: return b.op(Op::WHERE, {b.op(Op::CMPLT, {x, same_dtype(d)}), x, same_dtype(d)});
    case 3: {  // a small positive constant divisor: the fast path's territory
      const Op o = std::array{Op::FLOORDIV, Op::FLOORMOD, Op::CDIV, Op::CMOD}[pick(4)];
      return b.op(o, {x, b.c(d, truncate(d, cpp_int(1 + pick(9))))});
    }
    case 4: return b.op(Op::MULACC, {x, same_dtype(d), same_dtype(d)});
    default: return b.op(binary[pick(std::size(binary))], {x, same_dtype(d)});
  }
}

RandomIntProgram IntProgramMaker::finish() {
  RandomIntProgram rp;
  std::map<DType, std::vector<const UOp*>> by;
  for (const UOp* u : pool) by[u->dtype].push_back(u);
  std::vector<const UOp*> stores;
  for (auto& [d, list] : by) {
    const UOp* out = b.buffer(d, static_cast<int64_t>(list.size()), 100 + static_cast<int64_t>(d));
    for (size_t i = 0; i < list.size(); ++i) {
      stores.push_back(b.store(out, static_cast<int64_t>(i), list[i]));
      rp.observed.push_back(list[i]);
      rp.at.emplace_back(d, i);
    }
  }
  rp.p = b.finish(stores);
  return rp;
}

}  // namespace

Program random_program(uint64_t seed, int size) {
  std::mt19937_64 rng(seed);
  Program p;
  std::vector<const UOp*> vals;
  const int nbuf = 1 + static_cast<int>(rng() % 3);
  random_inputs(p, rng, nbuf, vals);
  random_alu_nodes(*p.graph, rng, size, vals);
  random_outputs(p, nbuf, vals);
  p.meta.emplace_back("seed", std::to_string(seed));
  p.collect_buffers();
  return p;
}

RandomIntProgram random_int_program(std::mt19937_64& rng) {
  IntProgramMaker m{rng, {}, {}};
  m.inputs();
  for (int step = 0; step < 24; ++step) m.pool.push_back(m.step());
  return m.finish();
}

}  // namespace uf::testing

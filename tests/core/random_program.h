// A small random program builder for core's property tests: well-typed by construction, using the op
// table to pick ops a dtype accepts. Independent of fuzz/'s generator on purpose (it tests core, not it).
#pragma once
#include <random>

#include "core/program.h"

namespace uf::testing {

// Builds a program of roughly `size` ALU nodes over a few buffers, with an ALLOC written then read
// through AFTER, stores into an output buffer, and some dead nodes.
inline Program random_program(uint64_t seed, int size) {
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  Program p;
  Graph& g = *p.graph;
  std::vector<const UOp*> vals;
  std::vector<const UOp*> effects;
  const int nbuf = 1 + static_cast<int>(pick(3));
  for (int b = 0; b < nbuf; ++b) {
    const DType d = kValueDTypes[pick(std::size(kValueDTypes))];
    const int64_t len = 1 + static_cast<int64_t>(pick(4));
    const UOp* buf = g.memory(Op::BUFFER, d, len, b);
    p.buffers.push_back(buf);  // input buffers belong to the program even when nothing live reads them
    Values data;
    for (int64_t i = 0; i < len; ++i) data.push_back(normalize(d, Scalar::of_uint(rng())));
    if (is_float(d)) for (auto& v : data) v = normalize(d, Scalar::of_float(static_cast<double>(static_cast<int32_t>(rng())) / 7.0));
    p.data[b] = data;
    for (int64_t i = 0; i < len; ++i)
      vals.push_back(g.make(Op::LOAD, {g.make(Op::INDEX, {buf, g.constant(DType::I32, Scalar::of_int(i))})}));
  }
  for (int i = 0; i < size; ++i) {
    const UOp* a = vals[pick(vals.size())];
    const DType d = a->dtype;
    const Op op = static_cast<Op>(static_cast<int>(Op::ADD) + pick(static_cast<int>(Op::BITCAST) - static_cast<int>(Op::ADD) + 1));
    const UOp* same = nullptr;
    for (int tries = 0; tries < 8 && !same; ++tries) { const UOp* c = vals[pick(vals.size())]; if (c->dtype == d) same = c; }
    if (!same) same = g.constant(d, normalize(d, Scalar::of_uint(rng() % 5)));
    const UOp* r = nullptr;
    if (op == Op::CAST) r = g.make(Op::CAST, {a}, kValueDTypes[pick(std::size(kValueDTypes))]);
    else if (op == Op::BITCAST || !op_accepts(op, d)) continue;
    else if (op == Op::WHERE) r = g.make(Op::WHERE, {g.make(Op::CMPLT, {a, same}), a, same});
    else if (info(op).arity == 1) r = g.make(op, {a});
    else if (info(op).arity == 2) r = g.make(op, {a, same});
    else r = g.make(op, {a, same, a});
    vals.push_back(r);
  }
  // Scratch: tmp[0] = v; out[k] = tmp[0] read through AFTER.
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
  p.meta.emplace_back("seed", std::to_string(seed));
  p.collect_buffers();
  return p;
}

}  // namespace uf::testing

#include "core/rewrite.h"

namespace uf {

const UOp* rebuild(Graph& g, const UOp* u, std::span<const UOp* const> src) {
  if (u->op == Op::CONST || u->op == Op::BUFFER || u->op == Op::ALLOC) return u;
  if (u->op == Op::GEP) return g.gep(src[0], static_cast<int>(u->value.i), u->dtype);
  if (u->op == Op::RANGE) return g.range(src[0], u->value.i, u->dtype, u->range_kind());
  return g.make(u->op, src, u->dtype, u->lanes);
}

Program substitute(const Program& p, const std::unordered_map<const UOp*, const UOp*>& replace) {
  Program out = p;
  out.origin.clear();  // node ids of the old file no longer describe the new graph
  std::vector<const UOp*> mapped(p.graph->size() + 1, nullptr);
  std::vector<const UOp*> src;
  for (const UOp* u : linearize(p)) {
    const UOp* m;
    if (auto it = replace.find(u); it != replace.end()) {
      m = it->second;
    } else {
      src.clear();
      bool changed = false;
      for (const UOp* s : u->src) {
        src.push_back(mapped[s->id]);
        changed |= src.back() != s;
      }
      m = changed ? rebuild(*p.graph, u, src) : u;
    }
    if (u->id >= mapped.size()) mapped.resize(u->id + 1);
    mapped[u->id] = m;
  }
  out.sink = mapped[p.sink->id];
  for (const UOp*& b : out.buffers) b = mapped[b->id];
  return out;
}

}  // namespace uf

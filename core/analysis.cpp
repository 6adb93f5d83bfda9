// A program's facts, computed once (analysis.h).
#include "core/analysis.h"

#include "core/int_bounds.h"

namespace uf {

Analysis analyze(const Program& p) {
  Analysis a;
  a.order = linearize(p);
  a.loops = analyze_loops(p, a.order);
  a.bounds = int_bounds(a.order, p.graph->size());
  return a;
}

}  // namespace uf

// Graph rewriting: rebuild a program bottom-up with some nodes replaced (tinygrad's `substitute`).
// Nodes are immutable, so a rewrite builds new nodes in the same Graph; unchanged subgraphs are shared.
#pragma once
#include <unordered_map>

#include "core/program.h"

namespace uf {

// Returns `p` with every node `u` in `replace` swapped for `replace.at(u)` (built in p.graph), and every
// node above a replaced one rebuilt through the factory. Replacements are taken as they are: their own
// sources are not rewritten. Throws TypeError if a rebuilt node no longer type-checks. BUFFERs of `p`
// that are replaced are replaced in p.buffers too; data lines stay keyed by slot.
Program substitute(const Program& p, const std::unordered_map<const UOp*, const UOp*>& replace);

// Rebuilds one node with new sources (CONST/BUFFER/ALLOC are leaves and come back unchanged).
const UOp* rebuild(Graph& g, const UOp* u, std::span<const UOp* const> src);

}  // namespace uf

// A program: a SINK-rooted graph plus the data that travels with it in a .uop file.
//
// The program's buffers are every BUFFER it declares, reachable from the SINK or not: a buffer that
// nothing reads or writes is still a kernel parameter and still part of the result (its final contents
// equal its initial ones). Nodes not reachable from the SINK (other than BUFFERs) are dead and never run.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/uop.h"

namespace uf {

using Values = std::vector<Scalar>;

// Where a node came from in a file, for messages.
struct Origin {
  int id;    // the %ID the file gave it (its first definition)
  int line;  // 1-based line of that definition
};

struct Program {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  const UOp* sink = nullptr;
  std::vector<const UOp*> buffers;  // every BUFFER, ascending slot, slots distinct
  std::vector<std::pair<std::string, std::string>> meta;  // in file order
  std::map<int64_t, Values> data, expect, got;             // by slot
  std::string filename;                                    // for messages; empty when not from a file
  std::unordered_map<const UOp*, Origin> origin;

  const UOp* buffer(int64_t slot) const;
  Values initial(const UOp* buffer) const;  // its data line, or zeros
  const std::string* meta_value(const std::string& key) const;
  void set_meta(const std::string& key, const std::string& value);  // replaces the first, else appends
  // "%ID" for messages: the file's ID when known, else the position in `order` (if given).
  std::string node_name(const UOp* u, const std::vector<const UOp*>* order = nullptr) const;
  // Adds BUFFERs reachable from the SINK to `buffers` (kept sorted); checks that slots are distinct.
  void collect_buffers();
};

// The deterministic linear order: every BUFFER first by slot, then a depth-first post-order from the
// SINK visiting sources left to right. Iterative, so arbitrarily long chains are fine. The SINK is last.
std::vector<const UOp*> linearize(const Program& p);

// Checks what the type rules cannot see node by node: constant indices in bounds, data lines of the
// right length, and the ordering rule of SEMANTICS.md (conflicting accesses to one BUFFER/ALLOC must be
// connected by a path). Throws UserError naming the nodes (with the file line when known).
void verify(const Program& p, const std::vector<const UOp*>& order);
inline void verify(const Program& p) { verify(p, linearize(p)); }

}  // namespace uf

// A program: a SINK-rooted graph plus the data that travels with it in a .uop file.
//
// The program's buffers are every BUFFER it declares, reachable from the SINK or not: a buffer that
// nothing reads or writes is still a kernel parameter and still part of the result (its final contents
// equal its initial ones). Nodes not reachable from the SINK (other than BUFFERs) are dead and never run.
#pragma once
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/opts.h"
#include "core/uop.h"

namespace uf {

using Values = std::vector<Scalar>;

// Where a node came from in a file, for messages.
struct Origin {
  int id;    // the %ID the file gave it (its first definition)
  int line;  // 1-based line of that definition
};

// Origins by node, as a vector indexed by UOp::id: the reader adds one per node line, and a hash map
// cost a node allocation each (and as much again to free). The interface is the map subset in use.
// Keys must be nodes of the program's graph.
class OriginMap {
 public:
  using value_type = std::pair<const UOp*, Origin>;
  class iterator {  // skips the ids without an origin
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = OriginMap::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;
    iterator(pointer at, pointer end) : at_(at), end_(end) { skip(); }
    reference operator*() const { return *at_; }
    pointer operator->() const { return at_; }
    iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const { return at_ == o.at_; }

   private:
    void skip() {
      while (at_ != end_ && !at_->first) ++at_;
    }
    pointer at_, end_;
  };

  iterator begin() const { return {by_id_.data(), by_id_.data() + by_id_.size()}; }
  iterator end() const { return {by_id_.data() + by_id_.size(), by_id_.data() + by_id_.size()}; }
  iterator find(const UOp* u) const {
    if (u->id < by_id_.size() && by_id_[u->id].first == u) return {by_id_.data() + u->id, by_id_.data() + by_id_.size()};
    return end();
  }
  size_t count(const UOp* u) const { return find(u) != end() ? 1 : 0; }
  const Origin& at(const UOp* u) const;  // std::out_of_range when absent
  // Keeps an existing origin (a node's first definition); returns whether `o` was added.
  bool try_emplace(const UOp* u, Origin o) {
    if (u->id >= by_id_.size())  // to the whole capacity: one fill per (geometric) regrowth, not one per node
      by_id_.resize(std::max<size_t>(u->id + 1, by_id_.capacity()), value_type{nullptr, {}});
    if (by_id_[u->id].first) return false;
    by_id_[u->id] = {u, o};
    ++size_;
    return true;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void reserve(size_t nodes) { by_id_.reserve(nodes); }
  void clear() {
    by_id_.clear();
    size_ = 0;
  }

 private:
  std::vector<value_type> by_id_;  // first == nullptr: no origin
  size_t size_ = 0;
};

struct Program {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  const UOp* sink = nullptr;
  std::vector<const UOp*> buffers;                        // every BUFFER, ascending slot, slots distinct
  std::vector<std::pair<std::string, std::string>> meta;  // in file order
  std::map<int64_t, Values> data, expect, got;            // by slot
  std::optional<OptSequence> opts;                        // the `opts` line; none: the target's own optimizer
  int opts_line = 0;                                      // its line in the file, for messages
  std::string filename;                                   // for messages; empty when not from a file
  OriginMap origin;

  const UOp* buffer(int64_t slot) const;
  Values initial(const UOp* buffer) const;  // its data line, or zeros
  const std::string* meta_value(const std::string& key) const;
  void set_meta(const std::string& key, const std::string& value);  // replaces the first, else appends
  // "%ID" for messages: the file's ID when known, else the position in `order` (if given).
  std::string node_name(const UOp* u, const std::vector<const UOp*>* order = nullptr) const;
  // Adds BUFFERs reachable from the SINK to `buffers` (kept sorted); checks that slots are distinct.
  void collect_buffers();
  // Sorts `buffers` by slot, drops repeats, checks that slots are distinct: collect_buffers without the
  // graph walk, for a caller that already listed every BUFFER (the reader).
  void sort_buffers();
};

// The deterministic linear order: the program's BUFFERs and every node the SINK reaches, in creation
// order (node id). Sources are always made before their users, so this is a topological order; for a
// parsed file it is the file's own order minus dead code. It also walks the graph's arena front to back,
// which the hardware prefetcher follows (the interpreter streams a 100k-node program from memory).
std::vector<const UOp*> linearize(const Program& p);

// Checks what the type rules cannot see node by node: constant indices in bounds, data lines of the
// right length, and the ordering rule of docs/semantics.md (conflicting accesses to one BUFFER/ALLOC must be
// connected by a path). Throws UserError naming the nodes (with the file line when known).
void verify(const Program& p, const std::vector<const UOp*>& order);
inline void verify(const Program& p) { verify(p, linearize(p)); }
// verify() as a yes/no, for callers that sort out candidates (the reducer) rather than report them.
bool verifies(const Program& p);

}  // namespace uf

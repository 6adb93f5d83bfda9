// The loop analysis (see loops.h): range sets node by node, the nest, then each block's items in
// dependence order (ties by linear position, so a file's own order is kept where it can be).
#include "core/loops.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace uf {

namespace {

using Set = std::vector<int>;  // loop numbers, ascending

void merge_into(Set& a, const Set& b) {
  // Most sets along a chain are equal or empty: no allocation for those (the interpreter analyses every
  // program it runs).
  if (b.empty() || a == b) return;
  if (a.empty()) {
    a = b;
    return;
  }
  Set out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  a = std::move(out);
}
bool contains(const Set& s, int k) { return std::binary_search(s.begin(), s.end(), k); }

class Analysis {
 public:
  Analysis(const Program& p, const std::vector<const UOp*>& order) : p_(p), order_(order) {}

  Loops run() {
    const size_t n = p_.graph->size();
    pos_.assign(n, -1);
    loop_number_.assign(n, -1);
    for (size_t i = 0; i < order_.size(); ++i) {
      pos_[order_[i]->id] = static_cast<int>(i);
      if (order_[i]->op == Op::RANGE) {
        loop_number_[order_[i]->id] = static_cast<int>(out_.ranges.size());
        out_.ranges.push_back(order_[i]);
      }
    }
    ranges_.assign(n, {});
    closed_.assign(n, {});
    for (const UOp* u : order_) range_sets(u);
    nest();
    out_.innermost.assign(n, -1);
    for (const UOp* u : order_) {
      const Set& s = ranges_[u->id];
      if (!s.empty()) out_.innermost[u->id] = s.back();
      check_on_one_chain(u);
      if (u->op == Op::END) check_end_closes_inner_loops(u);
      if (u == p_.sink && !s.empty())
        fail(u, "SINK " + name(u) + " runs inside the loop of RANGE " + name(out_.ranges[s.back()]) + ": close it with END");
    }
    schedule();
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const UOp* u, const std::string& msg) const {
    auto it = p_.origin.find(u);
    throw UserError(msg, it == p_.origin.end() ? 0 : it->second.line);
  }
  std::string name(const UOp* u) const { return p_.node_name(u, &order_); }

  // The ranges u runs under and the ranges closed before it; a source's range that u's dependencies
  // closed means a value carried out of its loop.
  void range_sets(const UOp* u) {
    Set& s = ranges_[u->id];
    Set& closed = closed_[u->id];
    for (const UOp* src : u->src) {
      merge_into(s, ranges_[src->id]);
      merge_into(closed, closed_[src->id]);
    }
    Set closes;  // an END's own ranges
    if (u->op == Op::END)
      for (size_t i = 1; i < u->src.size(); ++i) closes.push_back(loop_number_[u->src[i]->id]);
    std::sort(closes.begin(), closes.end());
    for (const UOp* src : u->src)
      for (int r : ranges_[src->id])
        if (contains(closed, r) && !contains(closes, r))
          fail(u, name(u) + " uses " + name(src) + ", a value of the loop of RANGE " + name(out_.ranges[r]) +
                      ", after that loop is closed (only memory carries values out of a loop)");
    merge_into(closed, closes);
    if (u->op == Op::RANGE) merge_into(s, {loop_number_[u->id]});
    if (closed.empty()) return;
    Set open;
    std::set_difference(s.begin(), s.end(), closed.begin(), closed.end(), std::back_inserter(open));
    s = std::move(open);
  }

  // A loop's parent is the latest range seen just before it in any node's set.
  void nest() {
    out_.parent.assign(out_.ranges.size(), -1);
    for (const UOp* u : order_) {
      const Set& s = ranges_[u->id];
      for (size_t i = 1; i < s.size(); ++i) out_.parent[s[i]] = std::max(out_.parent[s[i]], s[i - 1]);
    }
  }

  void check_on_one_chain(const UOp* u) const {
    const Set& s = ranges_[u->id];
    if (s.empty()) return;
    int at = s.back();
    for (size_t i = s.size() - 1; i-- > 0;) {
      while (at > s[i]) at = out_.parent[at];
      if (at != s[i])
        fail(u, name(u) + " runs under RANGE " + name(out_.ranges[s[i]]) + " and RANGE " + name(out_.ranges[s.back()]) +
                    ", but the loop of the second is not nested in the loop of the first");
    }
  }

  bool inside(int inner, int outer) const {
    for (int at = inner; at >= 0; at = out_.parent[at])
      if (at == outer) return true;
    return false;
  }

  void check_end_closes_inner_loops(const UOp* u) const {
    for (int open : ranges_[u->id])
      for (size_t i = 1; i < u->src.size(); ++i)
        if (inside(open, loop_number_[u->src[i]->id]))
          fail(u, "END " + name(u) + " closes RANGE " + name(u->src[i]) + " but not RANGE " + name(out_.ranges[open]) +
                      " inside it");
  }

  // Where u is an item: the loop it runs in, except that a RANGE stands for its whole loop in its parent's.
  int home(const UOp* u) const { return u->op == Op::RANGE ? out_.parent[loop_number_[u->id]] : out_.innermost[u->id]; }
  int depth(int loop) const {
    int d = 0;
    for (; loop >= 0; loop = out_.parent[loop]) ++d;
    return d;
  }
  // The item of block `block` that holds u (u itself, or the RANGE of the loop holding it).
  const UOp* item_in(const UOp* u, int block) const {
    int at = home(u);
    if (at == block) return u;
    while (out_.parent[at] != block) at = out_.parent[at];
    return out_.ranges[at];
  }

  void schedule() {
    const size_t blocks = out_.ranges.size() + 1;  // block k+1: loop k; block 0: the top level
    std::vector<std::vector<const UOp*>> items(blocks);
    std::vector<std::vector<const UOp*>> users(p_.graph->size());
    std::vector<int> waiting(p_.graph->size(), 0);
    for (const UOp* u : order_) {
      items[home(u) + 1].push_back(u);
      for (const UOp* s : u->src) {
        int a = home(u), b = home(s);  // their common block
        for (int da = depth(a), db = depth(b); da > db; --da) a = out_.parent[a];
        for (int da = depth(a), db = depth(b); db > da; --db) b = out_.parent[b];
        while (a != b) a = out_.parent[a], b = out_.parent[b];
        const UOp* from = item_in(s, a);
        const UOp* to = item_in(u, a);
        if (from == to) continue;
        users[from->id].push_back(to);
        ++waiting[to->id];
      }
    }
    out_.schedule.reserve(order_.size());
    out_.body_end.assign(order_.size(), 0);
    emit(0, items, users, waiting);
  }

  void emit(size_t block, const std::vector<std::vector<const UOp*>>& items, const std::vector<std::vector<const UOp*>>& users,
            std::vector<int>& waiting) {
    auto later = [&](const UOp* a, const UOp* b) { return pos_[a->id] > pos_[b->id]; };
    std::priority_queue<const UOp*, std::vector<const UOp*>, decltype(later)> ready(later);
    for (const UOp* u : items[block])
      if (waiting[u->id] == 0) ready.push(u);
    size_t done = 0;
    while (!ready.empty()) {
      const UOp* u = ready.top();
      ready.pop();
      ++done;
      const size_t at = out_.schedule.size();
      out_.schedule.push_back(u);
      if (u->op == Op::RANGE) {
        emit(static_cast<size_t>(loop_number_[u->id]) + 1, items, users, waiting);
        out_.body_end[at] = static_cast<uint32_t>(out_.schedule.size());
      }
      for (const UOp* v : users[u->id])
        if (--waiting[v->id] == 0) ready.push(v);
    }
    if (done != items[block].size()) {
      const UOp* stuck = nullptr;
      for (const UOp* u : items[block])
        if (waiting[u->id] > 0 && (!stuck || pos_[u->id] < pos_[stuck->id])) stuck = u;
      fail(stuck, name(stuck) + " waits for a loop that waits for it (loops ordered after each other both ways)");
    }
  }

  const Program& p_;
  const std::vector<const UOp*>& order_;
  std::vector<int> pos_, loop_number_;
  std::vector<Set> ranges_, closed_;  // by node id
  Loops out_;
};

}  // namespace

bool has_loops(const std::vector<const UOp*>& order) {
  return std::any_of(order.begin(), order.end(), [](const UOp* u) { return u->op == Op::RANGE; });
}

std::vector<int> Loops::loops_of(const UOp* u) const {
  std::vector<int> out;
  if (u->id >= innermost.size()) return out;
  for (int at = innermost[u->id]; at >= 0; at = parent[at]) out.push_back(at);
  std::reverse(out.begin(), out.end());
  return out;
}

Loops analyze_loops(const Program& p, const std::vector<const UOp*>& order) {
  if (!has_loops(order)) {
    Loops l;
    l.schedule = order;
    return l;
  }
  return Analysis(p, order).run();
}

}  // namespace uf

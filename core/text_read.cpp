// The .uop reader. One pass over the lines; data/expect/got lines are resolved once the buffers are known.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <unordered_set>

#include "core/text.h"
#include "core/text_lex.h"

namespace uf {

namespace {

using lex::quote;
using lex::split;
using lex::to_id;
using lex::to_int;
using lex::trim;

inline constexpr int64_t kMaxTotalElements = int64_t{1} << 25;  // all BUFFERs and ALLOCs together

struct ValuesLine {
  int line;
  std::string key;
  int64_t slot;
  std::vector<std::string_view> values;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& filename) : text_(text) { p_.filename = filename; }

  Program run() {
    // One node a line at most: reserve for that (capped, so a file of blank lines cannot claim memory).
    size_t lines = 1;  // memchr: std::count is a byte loop at -O2
    for (const char *p = text_.data(), *end = p + text_.size();
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))); ++p)
      ++lines;
    lines = std::min<size_t>(lines, 1 << 20);
    p_.graph->reserve(lines);
    p_.origin.reserve(lines);
    ids_.reserve(lines);
    size_t start = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      ++line_;
      line(text_.substr(start, end - start));
      start = end + 1;
    }
    if (!header_) throw UserError("empty file: expected 'uops 1'", 1);
    if (!p_.sink) throw UserError("no SINK: the last node must be the SINK", last_content_line_);
    p_.sort_buffers();  // every BUFFER has its own node line, so all are listed already
    for (const ValuesLine& v : pending_) values(v);
    return std::move(p_);
  }

 private:
  [[noreturn]] void fail(const std::string& msg) { throw UserError(msg, line_); }

  void line(std::string_view raw) {
    if (header_ && fast_node(raw)) return;
    if (raw.find('\0') != std::string_view::npos) fail("NUL byte in text");
    std::string_view s = trim(raw);
    if (const MetaLine m = parse_meta_line(s); m.is_meta) {
      if (m.error) fail(m.error);
      p_.meta.emplace_back(m.key, m.value);
      return;
    }
    if (size_t hash = s.find('#'); hash != std::string_view::npos) s = trim(s.substr(0, hash));
    if (s.empty()) return;
    last_content_line_ = line_;
    split(s, tok_);
    if (!header_) {
      if (tok_[0] != "uops") fail("expected 'uops 1' as the first line, got " + quote(s));
      if (tok_.size() != 2 || (tok_[1] != "1" && tok_[1] != "2"))
        fail("unsupported format version (this reader knows 'uops 1' and 'uops 2')");
      version_ = tok_[1][0] - '0';
      header_ = true;
      return;
    }
    if (tok_[0][0] == '%')
      node();
    else if (tok_[0] == "data" || tok_[0] == "expect" || tok_[0] == "got")
      values_line();
    else if (tok_[0] == "opts")
      opts_line();
    else if (tok_[0] == "uops")
      fail("second 'uops' header");
    else
      fail("unknown line " + quote(s));
  }

  const UOp* source(std::string_view t) {
    int64_t id;
    if (t.size() < 2 || t[0] != '%' || !to_id(t.substr(1), id)) fail("expected a source like %3, got " + quote(t));
    if (id < 0 || id >= static_cast<int64_t>(ids_.size()))
      fail("unknown node " + std::string(t) + " (sources must be earlier nodes)");
    return ids_[id];
  }

  void node() {
    int64_t id;
    if (!to_id(tok_[0].substr(1), id)) fail("bad node id " + quote(tok_[0]));
    if (id != static_cast<int64_t>(ids_.size()))
      fail("node ids must be 0, 1, 2, ... in order: expected %" + std::to_string(ids_.size()) + ", got " + std::string(tok_[0]));
    if (p_.sink) fail("node after the SINK: the SINK must be the last node");
    if (tok_.size() < 4 || tok_[1] != "=") fail("expected '%ID = OP DTYPE ...'");
    auto op = parse_op(tok_[2]);
    if (!op && tok_[2] == "VECTORIZE") op = Op::STACK;  // tinygrad's older name
    if (!op) fail("unknown op " + quote(tok_[2]));
    const UOp* u = nullptr;
    try {
      if (*op == Op::BUFFER || *op == Op::ALLOC)
        u = memory(*op);
      else if (*op == Op::CONST)
        u = constant();
      else if (*op == Op::GEP)
        u = gep();
      else if (*op == Op::RANGE)
        u = range();
      else
        u = generic(*op);
    } catch (const TypeError& e) { fail(e.what()); }
    if (const char* feature = needs_version_2(u); version_ < 2 && feature)
      fail(std::string(feature) + " in a version 1 file (" +
           (u->op == Op::RANGE || u->op == Op::END ? "loops need" : "gated memory needs") + " 'uops 2')");
    if (version_ < 2 && (u->is_vector() || *op == Op::GEP || *op == Op::STACK))
      fail("vector " + type_name(u->op == Op::GEP ? u->src[0]->dtype : u->dtype, u->op == Op::GEP ? u->src[0]->lanes : u->lanes) +
           " in a version 1 file (vectors need 'uops 2')");
    define(u, id);
  }

  // What of `u` only a version 2 file may use besides vectors (loops, gated memory), or nullptr.
  static const char* needs_version_2(const UOp* u) {
    if (u->op == Op::RANGE) return "RANGE";
    if (u->op == Op::END) return "END";
    if (u->is_gated()) return u->op == Op::LOAD ? "gated LOAD" : "gated STORE";
    return nullptr;
  }

  void define(const UOp* u, int64_t id) {
    ids_.push_back(u);
    p_.origin.try_emplace(u, Origin{static_cast<int>(id), line_});
    if (u->op == Op::BUFFER) p_.buffers.push_back(u);
    if (u->op == Op::SINK) p_.sink = u;
  }

  // Digits at p (at most 18, so no overflow); advances p. False, p unchanged, if there are none.
  static bool digits(const char*& p, const char* end, int64_t& v) {
    const char* q = p;
    const char* const limit = end - p > 18 ? p + 18 : end;
    int64_t r = 0;
    for (unsigned d; q < limit && (d = static_cast<unsigned char>(*q) - unsigned{'0'}) <= 9; ++q) r = r * 10 + d;
    if (q == p || (q < end && static_cast<unsigned>(static_cast<unsigned char>(*q) - '0') <= 9)) return false;
    p = q;
    v = r;
    return true;
  }

  // The common line, `%ID = OP DTYPE %A %B ...` in canonical spacing for an op with sources, in one
  // pass and without tokens (node lines are nearly all of a big file). Anything else, or anything the
  // general path would reject before building the node, returns false having changed nothing: the
  // general path then reads the line and gives its exact message. Every byte is checked as part of an
  // expected token, so a NUL, '#', tab or '\r' also falls back.
  bool fast_node(std::string_view raw) {
    const char* p = raw.data();
    const char* const end = p + raw.size();
    int64_t id;
    if (p == end || *p++ != '%' || !digits(p, end, id) || id != static_cast<int64_t>(ids_.size()) || p_.sink) return false;
    if (end - p < 3 || p[0] != ' ' || p[1] != '=' || p[2] != ' ') return false;
    p += 3;
    auto word = [&] {
      const char* t = p;
      while (p < end && *p != ' ') ++p;
      return std::string_view(t, static_cast<size_t>(p - t));
    };
    const auto op = parse_op(word());
    if (!op || *op == Op::BUFFER || *op == Op::ALLOC || *op == Op::CONST || *op == Op::GEP || *op == Op::RANGE || p == end)
      return false;  // those carry arguments: the general path reads them
    ++p;
    const auto d = parse_dtype(word());
    if (!d) return false;
    src_.clear();
    while (p < end) {
      int64_t s;
      if (end - p < 3 || p[0] != ' ' || p[1] != '%') return false;
      p += 2;
      if (!digits(p, end, s) || s >= static_cast<int64_t>(ids_.size()) || (p < end && *p != ' ')) return false;
      src_.push_back(ids_[static_cast<size_t>(s)]);
    }
    last_content_line_ = line_;
    const UOp* u = nullptr;
    try {
      u = p_.graph->make(*op, src_, *d, 1);  // a scalar dtype was written: vectors take the general path
    } catch (const TypeError& e) { fail(e.what()); }
    if (version_ < 2 && needs_version_2(u)) return false;  // the general path gives the message
    define(u, id);
    return true;
  }

  DType dtype(std::string_view t) {
    auto d = parse_dtype(t);
    if (!d) fail("unknown dtype " + quote(t));
    return *d;
  }

  // DTYPE or DTYPExN (a vector, N in 2..16).
  std::pair<DType, int> vdtype(std::string_view t) {
    if (auto d = parse_dtype(t)) return {*d, 1};
    const size_t x = t.rfind('x');
    int n = 0;
    if (x == std::string_view::npos || x == 0 || !to_int(t.substr(x + 1), n) || t[x + 1] == '+' || t[x + 1] == '-')
      fail("unknown dtype " + quote(t));
    const DType d = dtype(t.substr(0, x));
    if (n < 2 || n > kMaxLanes) fail("vector dtype " + quote(t) + ": lanes must be 2 to " + std::to_string(kMaxLanes));
    if (is_void(d)) fail("vector dtype " + quote(t) + ": no vector of void");
    return {d, n};
  }

  const UOp* gep() {
    // %ID = GEP DTYPE LANE %SRC
    if (tok_.size() != 6) fail("GEP needs 'GEP DTYPE LANE %SRC'");
    const auto [d, lanes] = vdtype(tok_[3]);
    int64_t lane;
    if (!to_int(tok_[4], lane)) fail("bad GEP lane " + quote(tok_[4]));
    if (lanes != 1) fail("GEP: result is a scalar, not " + type_name(d, lanes));
    return p_.graph->gep(source(tok_[5]), static_cast<int>(std::clamp<int64_t>(lane, -1, kMaxLanes)), d);
  }

  const UOp* range() {
    // %ID = RANGE DTYPE AXIS %END [kind=KIND]
    if (tok_.size() != 6 && tok_.size() != 7) fail("RANGE needs 'RANGE DTYPE AXIS %END [kind=KIND]'");
    const DType d = dtype(tok_[3]);
    int64_t axis;
    if (!to_int(tok_[4], axis) || axis < 0 || axis > kMaxSlot) fail("bad RANGE axis " + quote(tok_[4]));
    RangeKind kind = RangeKind::Loop;
    if (tok_.size() == 7) {
      const std::string_view k = tok_[6];
      const auto* names = std::begin(kRangeKindNames);
      const auto* at = std::find_if(names, std::end(kRangeKindNames), [&](const char* n) { return k == std::string("kind=") + n; });
      if (at == std::end(kRangeKindNames)) fail("bad RANGE kind " + quote(k) + " (kind=loop, kind=global or kind=reduce)");
      kind = static_cast<RangeKind>(at - names);
    }
    return p_.graph->range(source(tok_[5]), axis, d, kind);
  }

  // opts STEP ...: the optimization sequence (core/opts.h), at most one line.
  void opts_line() {
    if (p_.opts) fail("second opts line");
    p_.opts.emplace();
    p_.opts_line = line_;
    for (size_t i = 1; i < tok_.size(); ++i) {
      const auto o = parse_opt(tok_[i]);
      if (!o) fail("bad opts step " + quote(tok_[i]) + " (NAME, NAME:AXIS or NAME:AXIS:ARG, NAME in capitals)");
      p_.opts->push_back(*o);
    }
  }

  const UOp* memory(Op op) {
    std::string_view t = tok_[3];
    const size_t lb = t.find('[');
    if (lb == std::string_view::npos || t.back() != ']') fail(std::string(name(op)) + " needs DTYPE[LEN], got " + quote(t));
    const DType d = dtype(t.substr(0, lb));
    std::vector<int64_t> shape;
    std::string_view dims = t.substr(lb + 1, t.size() - lb - 2);
    while (true) {
      const size_t comma = dims.find(',');
      int64_t n;
      if (!to_int(dims.substr(0, comma), n)) fail("bad length in " + quote(t));
      shape.push_back(n);
      if (comma == std::string_view::npos) break;
      dims = dims.substr(comma + 1);
    }
    if (tok_.size() != 5 || tok_[4].substr(0, 5) != "slot=") fail(std::string(name(op)) + " needs 'slot=K' after its shape");
    int64_t slot;
    if (!to_int(tok_[4].substr(5), slot)) fail("bad slot " + quote(tok_[4]));
    const UOp* u = p_.graph->memory(op, d, shape, slot);
    if (seen_memory_.insert(u).second && (total_elements_ += u->len) > kMaxTotalElements)
      fail("buffers too large in total (more than " + std::to_string(kMaxTotalElements) + " elements)");
    return u;
  }

  const UOp* constant() {
    const auto [d, lanes] = vdtype(tok_[3]);
    if (tok_.size() != 5) fail("CONST needs exactly one value");
    if (is_void(d)) fail("CONST needs a value dtype");
    auto r = parse_scalar(d, tok_[4]);
    if (r.error) fail(std::string("CONST ") + name(d) + " " + quote(tok_[4]) + ": " + r.error);
    return p_.graph->constant(d, r.value, lanes);
  }

  const UOp* generic(Op op) {
    const auto [d, lanes] = vdtype(tok_[3]);
    src_.clear();
    for (size_t i = 4; i < tok_.size(); ++i) src_.push_back(source(tok_[i]));
    return p_.graph->make(op, src_, d, lanes);
  }

  void values_line() {
    // KEY SLOT = v v v
    if (tok_.size() < 3 || tok_[2] != "=") fail(std::string(tok_[0]) + " needs '" + std::string(tok_[0]) + " SLOT = v ...'");
    int64_t slot;
    if (!to_int(tok_[1], slot)) fail("bad slot " + quote(tok_[1]));
    pending_.push_back({line_, std::string(tok_[0]), slot, {tok_.begin() + 3, tok_.end()}});
  }

  void values(const ValuesLine& v) {
    line_ = v.line;
    const UOp* b = p_.buffer(v.slot);
    if (!b) fail(v.key + " " + std::to_string(v.slot) + ": no BUFFER with slot " + std::to_string(v.slot));
    auto& target = v.key == "data" ? p_.data : v.key == "expect" ? p_.expect : p_.got;
    if (target.count(v.slot)) fail("second " + v.key + " line for slot " + std::to_string(v.slot));
    if (static_cast<int64_t>(v.values.size()) != b->len)
      fail(v.key + " " + std::to_string(v.slot) + ": " + std::to_string(v.values.size()) + " values for " + name(b->dtype) + "[" +
           std::to_string(b->len) + "]");
    Values out;
    out.reserve(v.values.size());
    for (size_t i = 0; i < v.values.size(); ++i) {
      auto r = parse_scalar(b->dtype, v.values[i]);
      if (r.error)
        fail(v.key + " " + std::to_string(v.slot) + ": value " + std::to_string(i) + " " + quote(v.values[i]) + ": " + r.error);
      out.push_back(r.value);
    }
    target.emplace(v.slot, std::move(out));
  }

  std::string_view text_;
  Program p_;
  int line_ = 0;
  int last_content_line_ = 1;
  bool header_ = false;
  int version_ = 1;
  std::vector<std::string_view> tok_;
  std::vector<const UOp*> ids_, src_;
  std::vector<ValuesLine> pending_;
  std::unordered_set<const UOp*> seen_memory_;
  int64_t total_elements_ = 0;
};

}  // namespace

Program parse_program(std::string_view text, const std::string& filename) { return Reader(text, filename).run(); }

std::string located(const std::string& filename, const UserError& e) {
  return filename + (e.line > 0 ? ":" + std::to_string(e.line) : "") + ": " + e.what();
}

}  // namespace uf

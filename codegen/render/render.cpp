// The walk over the linear order that turns a program into one C function (see render.h).
#include "codegen/render/render.h"

#include <map>

#include "codegen/render/rules.h"
#include "core/int_bounds.h"

namespace uf {

namespace {

// An inlined expression longer than this is named instead: it bounds both the nesting depth the C
// compiler sees and the copying a long chain of single-use nodes would otherwise cost (quadratic).
constexpr size_t kMaxInline = 200;
// Scratch arrays go on the stack until a kernel's ALLOCs reach this many bytes; the rest are calloc'd.
constexpr int64_t kStackBudget = 64 * 1024;

const char* const kKeywords[] = {"auto",     "break",  "case",   "char",     "const",    "continue", "default",  "do",
                                 "double",   "else",   "enum",   "extern",   "float",    "for",      "goto",     "if",
                                 "inline",   "int",    "long",   "register", "restrict", "return",   "short",    "signed",
                                 "sizeof",   "static", "struct", "switch",   "typedef",  "union",    "unsigned", "void",
                                 "volatile", "while",  "bool",   "true",     "false",    "main"};

class Renderer {
 public:
  Renderer(const Program& p, const Analysis& a, const std::string& fn, const RenderOptions& opts)
      : p_(p), fn_(fn), opts_(opts), bounds_(a.bounds), order_(a.order), loops_(a.loops) {}

  std::string run() {
    const size_t n = p_.graph->size();
    uses_.assign(n, 0);
    for (const UOp* u : order_)
      for (const UOp* s : u->src) ++uses_[s->id];
    expr_.assign(n, std::string());
    named_.assign(n, false);
    // Loops: the schedule's nested blocks as plain `for` loops (a RANGE opens one, its body_end closes it).
    std::vector<size_t> closing;  // body ends of the open loops, innermost last
    for (size_t i = 0; i < loops_.schedule.size(); ++i) {
      while (!closing.empty() && closing.back() == i) close_loop(closing);
      const UOp* u = loops_.schedule[i];
      if (u->op == Op::RANGE) {
        open_loop(u);
        closing.push_back(loops_.body_end[i]);
        continue;
      }
      node(u);
    }
    while (!closing.empty()) close_loop(closing);

    std::string out = "void " + fn_ + "(";
    for (size_t i = 0; i < p_.buffers.size(); ++i) {
      const UOp* b = p_.buffers[i];
      if (i) out += ", ";
      out += std::string(c_param_type(b->dtype)) + "* restrict data" + std::to_string(b->slot);
    }
    if (p_.buffers.empty()) out += "void";
    out += ") {\n";
    for (const std::string& l : lines_) out += "  " + l + "\n";
    for (const std::string& h : heap_) out += "  free(" + h + ");\n";
    out += "}\n";
    return out;
  }

 private:
  std::string fresh(const char* prefix) { return prefix + std::to_string(++counter_); }

  void emit_line(std::string line) { lines_.push_back(indent_ + std::move(line)); }

  // `for (T ridxN = 0; ridxN < END; ridxN++) {`: counting up from 0 never overflows (ridxN < END <= max),
  // and a plain induction variable is what the vectorizer looks for.
  void open_loop(const UOp* r) {
    const std::string v = fresh("ridx");
    emit_line("for (" + std::string(c_value_type(r->dtype)) + " " + v + " = 0; " + v + " < " + expr_[r->src[0]->id] + "; " + v +
              "++) {");
    expr_[r->id] = v;
    named_[r->id] = true;
    indent_ += "  ";
  }
  void close_loop(std::vector<size_t>& closing) {
    closing.pop_back();
    indent_.resize(indent_.size() - 2);
    emit_line("}");
  }

  void name_value(const UOp* u, const char* prefix, const std::string& value) {
    const std::string v = fresh(prefix);
    emit_line(std::string(c_value_type(u->dtype, opts_)) + " " + v + " = " + value + ";");
    expr_[u->id] = v;
    named_[u->id] = true;
  }

  void name_vector(const UOp* u, const std::string& value) {
    const std::string v = fresh("vec");
    emit_line(c_vector_type(u->dtype, u->lanes) + " " + v + " = " + value + ";");
    expr_[u->id] = v;
    named_[u->id] = true;
  }

  // A vector node (lanes > 1) or a GEP: always named, so a lane-by-lane rule reads `v[k]`, never a copy.
  void vector(const UOp* u) {
    std::vector<std::string> ops;
    for (const UOp* s : u->src) ops.push_back(expr_[s->id]);
    const std::string e = vector_expr(u, ops);
    if (u->op == Op::GEP) {
      if (uses_[u->id] > 1)
        name_value(u, "alu", e);
      else
        expr_[u->id] = e;
      return;
    }
    name_vector(u, e);
  }

  // `&m[i]` for a vector access of `lanes` elements at address `addr`: the index is clamped to
  // 0 .. len - lanes unless the bounds prove it there (out of bounds is UNDEFINED: any element will do, but
  // the kernel must never leave its arrays).
  std::string vector_address(const UOp* addr, int lanes, std::string* index = nullptr) {
    const UOp* ix = addr->index_node();
    const UOp* mem = ix->base();
    const UOp* idx = ix->src[1];
    std::string i = expr_[idx->id];
    if (!named_[idx->id] && idx->op != Op::CONST) {
      name_value(idx, "alu", i);
      i = expr_[idx->id];
    }
    const IntRange r = bounds_[idx->id];
    if (r.lo < 0 || r.hi > mem->len - lanes) i = "uf_idx(" + i + "," + std::to_string(mem->len - lanes + 1) + ")";
    if (index) *index = i;
    return expr_[ix->src[0]->id];
  }

  void vector_load(const UOp* u) {
    std::string i;
    const std::string m = vector_address(u->src[0], u->lanes, &i);
    const std::string T = c_vector_type(u->dtype, u->lanes);
    if (bits_buffer(u->src[0])) {  // narrow floats: each lane from its bits
      std::string e = "((" + T + "){";
      for (int k = 0; k < u->lanes; ++k)
        e += (k ? ", " : "") + std::string("uf_frombits_") + name(u->dtype) + "(" + m + "[" + i + "+" + std::to_string(k) + "])";
      name_vector(u, e + "})");
      return;
    }
    name_vector(u, "{0}");
    emit_line("memcpy(&" + expr_[u->id] + ", &" + m + "[" + i + "], " + std::to_string(u->lanes) + " * sizeof " + m + "[0]);");
  }

  void vector_store(const UOp* u) {
    const UOp* val = u->src[1];
    std::string i;
    const std::string m = vector_address(u->src[0], val->lanes, &i);
    const std::string& v = expr_[val->id];
    if (bits_buffer(u->src[0])) {
      for (int k = 0; k < val->lanes; ++k)
        emit_line(m + "[" + i + "+" + std::to_string(k) + "] = uf_bits_" + name(val->dtype) + "(" + v + "[" + std::to_string(k) +
                  "]);");
      return;
    }
    emit_line("memcpy(&" + m + "[" + i + "], &" + v + ", " + std::to_string(val->lanes) + " * sizeof " + m + "[0]);");
  }

  static bool scalar_alloc(const UOp* mem) { return mem->op == Op::ALLOC && mem->len == 1; }

  void alloc(const UOp* u) {
    int& seen = alloc_names_[u->slot];
    std::string v = "acc" + std::to_string(u->slot);
    if (++seen > 1) v += "_" + std::to_string(seen);
    expr_[u->id] = v;
    // Scratch keeps the soft value type in every mode: vector loads and stores copy it as float lanes.
    const std::string T = c_value_type(u->dtype);
    const int64_t size = u->len * (carried_as_float(u->dtype) ? 4 : bytes(u->dtype));  // scratch holds floats
    if (u->len == 1) {
      emit_line(T + " " + v + " = 0;");
    } else if (stack_used_ + size <= kStackBudget) {
      stack_used_ += size;
      emit_line(T + " " + v + "[" + std::to_string(u->len) + "] = {0};");
    } else {
      emit_line(T + "* " + v + " = (" + T + "*)calloc(" + std::to_string(u->len) + ", sizeof(" + T + "));");
      emit_line("if (!" + v + ") abort();");
      heap_.push_back(v);
    }
  }

  void index(const UOp* u) {
    const UOp* mem = u->base();
    const std::string& m = expr_[u->src[0]->id];
    if (scalar_alloc(mem)) {  // the only element; any other index is UNDEFINED
      expr_[u->id] = m;
      return;
    }
    const UOp* idx = u->src[1];
    std::string i = expr_[idx->id];
    // An index expression pasted into several LOAD/STORE lines would be duplicated: name it once.
    if (uses_[u->id] > 1 && !named_[idx->id] && idx->op != Op::CONST) {
      name_value(idx, "alu", i);
      i = expr_[idx->id];
    }
    const IntRange r = bounds_[idx->id];
    if (r.lo < 0 || r.hi >= mem->len) i = "uf_idx(" + i + "," + std::to_string(mem->len) + ")";
    expr_[u->id] = m + "[" + i + "]";
  }

  // A BUFFER of narrow floats holds their bits: the value a LOAD gives or a STORE takes goes through them.
  static bool bits_buffer(const UOp* addr) {
    const UOp* mem = addr->base();
    return mem->op == Op::BUFFER && carried_as_float(mem->dtype);
  }

  void alu(const UOp* u) {
    std::vector<std::string> ops;
    ops.reserve(u->src.size());
    for (const UOp* s : u->src) ops.push_back(expr_[s->id]);
    const std::string e = alu_expr(u, ops, division_fast_path(u, bounds_), opts_);
    if (uses_[u->id] > 1 || e.size() > kMaxInline)
      name_value(u, "alu", e);
    else
      expr_[u->id] = e;
  }

  void node(const UOp* u) {
    if (u->op == Op::LOAD && u->is_vector()) return vector_load(u);
    if (u->op == Op::STORE && u->src[1]->is_vector()) return vector_store(u);
    if (u->is_vector() || u->op == Op::GEP) return vector(u);
    switch (u->op) {
      case Op::CONST: expr_[u->id] = c_constant(u->dtype, u->value, opts_); break;
      case Op::BUFFER: expr_[u->id] = "data" + std::to_string(u->slot); break;
      case Op::ALLOC: alloc(u); break;
      case Op::AFTER: expr_[u->id] = expr_[u->src[0]->id]; break;
      case Op::INDEX: index(u); break;
      case Op::LOAD: {
        const std::string& a = expr_[u->src[0]->id];
        std::string e = bits_buffer(u->src[0]) ? "uf_frombits_" + helper_tag(u->dtype, opts_) + "(" + a + ")" : a;
        // Gated: C's conditional evaluates the load only when the gate is true, like the reference.
        if (u->is_gated()) e = "(" + expr_[u->src[2]->id] + " ? " + e + " : " + expr_[u->src[1]->id] + ")";
        name_value(u, "val", e);
        break;
      }
      case Op::STORE: {
        const std::string& v = expr_[u->src[1]->id];
        const DType d = u->src[1]->dtype;
        const std::string stored = bits_buffer(u->src[0]) ? "uf_bits_" + helper_tag(d, opts_) + "(" + v + ")" : v;
        const std::string gate = u->is_gated() ? "if (" + expr_[u->src[2]->id] + ") " : "";
        emit_line(gate + expr_[u->src[0]->id] + " = " + stored + ";");
        break;
      }
      case Op::SINK:
      case Op::END: break;  // END: the schedule closes the loop
      default: alu(u); break;
    }
  }

  const Program& p_;
  const std::string& fn_;
  const RenderOptions opts_;
  std::vector<int> uses_;
  const std::vector<IntRange>& bounds_;
  const std::vector<const UOp*>& order_;
  const Loops& loops_;
  std::vector<std::string> expr_;
  std::vector<bool> named_;
  std::vector<std::string> lines_, heap_;
  std::string indent_;  // two spaces per open loop
  std::map<int64_t, int> alloc_names_;
  int counter_ = 0;
  int64_t stack_used_ = 0;
};

}  // namespace

bool is_c_identifier(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  for (const char* k : kKeywords)
    if (s == k) return false;
  return true;
}

namespace {

void check_function_name(const std::string& fn_name) {
  if (!is_c_identifier(fn_name) || fn_name.rfind("uf_", 0) == 0 || fn_name.rfind("__", 0) == 0)
    throw UserError("render: '" + fn_name + "' is not a usable C function name");
}

}  // namespace

std::string render_function(const Program& p, const Analysis& a, const std::string& fn_name, const RenderOptions& opts) {
  check_function_name(fn_name);
  return Renderer(p, a, fn_name, opts).run();
}

std::string render_function(const Program& p, const std::string& fn_name, const RenderOptions& opts) {
  check_function_name(fn_name);  // before the analysis, whose loop errors would otherwise come first
  return Renderer(p, analyze(p), fn_name, opts).run();
}

std::string render_c(const Program& p, const std::string& fn_name, const RenderOptions& opts) {
  return render_prelude(opts) + "\n" + render_function(p, fn_name, opts);
}

}  // namespace uf

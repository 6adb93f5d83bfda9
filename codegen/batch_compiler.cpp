// Batched compiling with bisection on failure.
#include "codegen/batch_compiler.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "codegen/languages.h"
#include "codegen/runtime/remarks.h"

namespace uf {

namespace {

// A plug-in's renders as one translation unit (its handshake's one_unit): the whole lines they all begin
// with (a prelude) once, then the rest of each. Alone, each unit is still exactly the plug-in's output.
std::string one_unit(const std::vector<const Unit*>& units) {
  const std::string& first = units[0]->source;
  size_t common = first.size();
  for (const Unit* u : units)
    common = static_cast<size_t>(std::mismatch(first.begin(),
                                               first.begin() + static_cast<std::ptrdiff_t>(std::min(common, u->source.size())),
                                               u->source.begin())
                                     .first -
                                 first.begin());
  const size_t line_end = common == 0 ? std::string::npos : first.rfind('\n', common - 1);
  const size_t prefix = line_end == std::string::npos ? 0 : line_end + 1;
  std::string tu = first.substr(0, prefix);
  for (const Unit* u : units) tu += "\n" + u->source.substr(prefix);
  return tu;
}


// One compiler call's limit: compile_timeout_s, and never past the budget (render_stop_at, and the
// seconds a campaign keeps to compile its last batch): a compiler that hangs on a reduction's candidate
// or a culprit's configuration costs that search its deadline, not the campaign its budget.
constexpr double kCompileAfterStopS = 2;
double compile_timeout(const CompiledPathConfig& cfg) {
  if (!cfg.render_stop_at) return cfg.compile_timeout_s;
  const double left = std::chrono::duration<double>(*cfg.render_stop_at - std::chrono::steady_clock::now()).count();
  return std::min(cfg.compile_timeout_s, left + kCompileAfterStopS);
}

class BatchCompiler {
 public:
  BatchCompiler(const CompiledPathConfig& cfg, std::vector<std::vector<KernelOutcome>>& out) : cfg_(cfg), out_(out) {
    opt_.cc = cfg.cc;
    opt_.cflags = cfg.cflags;
    opt_.remarks = cfg.remarks;
    if (!builtin()) opt_.kind = language_row(cfg.renderer_description.language).source;
  }

  std::vector<Group> run(const std::vector<const Unit*>& units) {
    if (!units.empty()) compile(units);
    return std::move(groups_);
  }

 private:
  bool builtin() const { return cfg_.renderer_cmd.empty(); }

  // Where a unit's lines are in the translation units of one compiler call (for its remarks).
  struct Span {
    int file = 0, first = 1, last = 0;  // 1-based lines first..last of source kFILE
  };

  std::vector<std::string> sources(const std::vector<const Unit*>& units, std::vector<Span>& spans) const {
    std::vector<std::string> s;
    spans.assign(units.size(), Span{});
    const UnitBatching batching = language_row(cfg_.renderer_description.language).batching;
    if (builtin() || batching == UnitBatching::concatenated) {
      // one translation unit: built-in, the prelude once, then every function; images, independent asm blocks
      std::string tu = builtin() ? render_prelude(cfg_.render) : "";
      for (size_t i = 0; i < units.size(); ++i) {
        if (builtin()) tu += "\n";
        spans[i].first = line_count(tu) + 1;
        tu += units[i]->source;
        spans[i].last = line_count(tu);
      }
      s.push_back(std::move(tu));
    } else if (batching == UnitBatching::one_unit && cfg_.renderer_description.one_unit && units.size() > 1) {
      s.push_back(one_unit(units));  // its remarks are not told apart (spans stay empty)
    } else {
      for (size_t i = 0; i < units.size(); ++i) {
        s.push_back(units[i]->source);
        spans[i] = Span{static_cast<int>(i), 1, line_count(units[i]->source)};
      }
    }
    return s;
  }

  static int line_count(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

  // Each unit's remarks, numbers and names normalised (remarks.h), as its kernel's features.
  void remarks_as_features(const std::vector<const Unit*>& units, const std::vector<Span>& spans, const std::string& diagnostics) {
    std::vector<std::set<std::string>> found(units.size());
    for (const Remark& r : parse_remarks(diagnostics))
      for (size_t i = 0; i < units.size(); ++i)
        if (r.file == spans[i].file && r.line >= spans[i].first && r.line <= spans[i].last) found[i].insert(r.feature);
    for (size_t i = 0; i < units.size(); ++i)
      for (KernelOutcome& o : out_[units[i]->index]) o.features.insert(o.features.end(), found[i].begin(), found[i].end());
  }

  void fail(const Unit* u, const std::string& message) {
    for (KernelOutcome& o : out_[u->index]) {  // every data set of the kernel
      o.status = KernelStatus::compile_error;
      o.message = message;
    }
  }

  // Cut by the budget (compile_timeout): says nothing about the target, so not a finding.
  void out_of_time(const std::vector<const Unit*>& units) {
    for (const Unit* u : units) {
      fail(u, "the compiler was stopped at the end of the time budget");
      for (KernelOutcome& o : out_[u->index]) o.out_of_time = true;
    }
  }

  void compile(const std::vector<const Unit*>& units) {
    opt_.timeout_s = compile_timeout(cfg_);
    if (opt_.timeout_s <= 0) return out_of_time(units);
    std::vector<Span> spans;
    const CompileResult r = compile_shared(sources(units, spans), opt_);
    if (r.ok) {
      if (opt_.remarks) remarks_as_features(units, spans, r.remarks);
      groups_.push_back({r.so_path, units});
      return;
    }
    if (r.timed_out && compile_timeout(cfg_) <= 0) return out_of_time(units);  // no bisection after the budget
    if (units.size() == 1) {
      fail(units[0], r.message);
      return;
    }
    // Before bisecting, make sure a trivial unit compiles: bad flags fail everything the same way.
    if (!checked_setup_) {
      checked_setup_ = true;
      const CompileResult t = compile_shared({builtin() ? render_prelude(cfg_.render) : empty_unit(opt_.kind)}, opt_);
      if (!t.ok) { setup_error_ = "the compiler fails even on an empty translation unit (check --cc/--cflags):\n" + t.message; }
    }
    if (!setup_error_.empty()) {
      for (const Unit* u : units) fail(u, setup_error_);
      return;
    }
    const size_t half = units.size() / 2;
    compile({units.begin(), units.begin() + static_cast<std::ptrdiff_t>(half)});
    compile({units.begin() + static_cast<std::ptrdiff_t>(half), units.end()});
  }

  const CompiledPathConfig& cfg_;
  std::vector<std::vector<KernelOutcome>>& out_;
  CompileOptions opt_;
  std::vector<Group> groups_;
  bool checked_setup_ = false;
  std::string setup_error_;
};

}  // namespace

std::vector<Group> compile_units(const std::vector<const Unit*>& units, const CompiledPathConfig& cfg,
                                 std::vector<std::vector<KernelOutcome>>& out) {
  return BatchCompiler(cfg, out).run(units);
}

}  // namespace uf

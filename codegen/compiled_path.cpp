// run_compiled: rendering, then compiling (batch_compiler.h), then sandboxed runs.
#include "codegen/compiled_path.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "codegen/batch_compiler.h"
#include "codegen/languages.h"
#include "codegen/plugin.h"
#include "codegen/runtime/native.h"
#include "codegen/plugin_server.h"
#include "codegen/render/render.h"
#include "codegen/runtime/sandbox.h"
#include "core/error.h"
#include "core/stopwatch.h"

namespace uf {

namespace {

// A shared object that does not load because of the machine rather than the code: the cache directory
// on a noexec file system, the entry removed under us, no memory to map it. Throws UserError then; a
// missing symbol (the code calls a function nobody defines) stays a compile error, a finding.
void check_load_environment(const std::string& so_path, const std::string& message) {
  static constexpr const char* kSigns[] = {"failed to map segment", "cannot open shared object file", "Cannot allocate memory",
                                           "Permission denied", "Operation not permitted"};
  for (const char* sign : kSigns)
    if (message.find(sign) != std::string::npos)
      throw UserError("cannot load compiled code from " + so_path + " (" + message +
                      "); is the cache directory on a noexec file system, or out of memory? Set UOPFUZZ_CACHE_DIR "
                      "to another directory");
}

// When a plug-in run or request must end: after render_timeout_s, or sooner when the budget ends first.
std::chrono::steady_clock::time_point render_deadline(const CompiledPathConfig& cfg) {
  const auto by_timeout = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                 std::chrono::duration<double>(cfg.render_timeout_s));
  return cfg.render_stop_at ? std::min(by_timeout, *cfg.render_stop_at) : by_timeout;
}
double render_timeout(const CompiledPathConfig& cfg) {
  return std::max(0.0, std::chrono::duration<double>(render_deadline(cfg) - std::chrono::steady_clock::now()).count());
}

}  // namespace

double mean_render_seconds(const CompiledPathConfig& cfg) {
  return cfg.renders_per_request() ? plugin_server(cfg.renderer_cmd).mean_reply_seconds() : 0;
}

namespace {

// Each program through the plug-in as cfg.renderer_protocol says: a server request each, one batch
// process for them all, or one process each.
std::vector<PluginResult> render_with_plugin_protocol(const std::vector<const Program*>& programs,
                                                      const std::vector<std::string>& names, const CompiledPathConfig& cfg) {
  std::vector<PluginResult> out;
  const Stopwatch batch_time;
  auto timed = [](auto render) {
    const Stopwatch t;
    PluginResult r = render();
    r.seconds = t.seconds();
    return r;
  };
  switch (cfg.renderer_protocol) {
    case RendererProtocol::server: {
      PluginServer& server = plugin_server(cfg.renderer_cmd);
      for (size_t i = 0; i < programs.size(); ++i)
        out.push_back(timed([&] { return server.render(*programs[i], names[i], render_deadline(cfg), cfg.switches_off); }));
      break;
    }
    case RendererProtocol::batch:
      out = render_batch_with_plugin(programs, names, cfg.renderer_cmd, render_timeout(cfg));
      for (PluginResult& r : out) r.seconds = batch_time.seconds() / static_cast<double>(out.size());
      break;
    case RendererProtocol::program:
      for (size_t i = 0; i < programs.size(); ++i)
        out.push_back(timed([&] { return render_with_plugin(*programs[i], names[i], cfg.renderer_cmd, render_timeout(cfg)); }));
      break;
  }
  return out;
}

// The unit to compile of a plug-in's successful render; else nullopt, with r a failed render saying why.
std::optional<std::string> plugin_unit(PluginResult& r, const CompiledPathConfig& cfg, const std::string& fn_name) {
  std::string why;
  std::optional<std::string> unit = unit_from_render(std::move(r.source), cfg.renderer_description.language,
                                                     cfg.renderer_protocol == RendererProtocol::server, fn_name, why);
  if (!unit) {
    r.ok = false;
    r.message = "renderer '" + cfg.renderer_cmd + "' gave " + why;
  }
  return unit;
}

// The kernel function (built-in) or translation unit (plug-in) of each program (names[i] its symbol);
// nullopt, with out[i] a render_error, when the renderer fails on it.
std::vector<std::optional<std::string>> render_units(const std::vector<const Program*>& programs,
                                                     const std::vector<std::string>& names, const CompiledPathConfig& cfg,
                                                     std::vector<KernelOutcome*> out, const std::vector<const Analysis*>& facts) {
  std::vector<std::optional<std::string>> sources(programs.size());
  if (cfg.renderer_cmd.empty()) {
    for (size_t i = 0; i < programs.size(); ++i) {
      try {
        sources[i] = facts.empty() ? render_function(*programs[i], names[i], cfg.render)
                                   : render_function(*programs[i], *facts[i], names[i], cfg.render);
      } catch (const std::exception& e) {  // a renderer bug must not take the batch down
        out[i]->status = KernelStatus::render_error;
        out[i]->message = std::string("built-in renderer: ") + e.what();
      }
    }
    return sources;
  }
  std::vector<PluginResult> r = render_with_plugin_protocol(programs, names, cfg);
  const bool budget_over = cfg.render_stop_at && std::chrono::steady_clock::now() >= *cfg.render_stop_at;
  for (size_t i = 0; i < programs.size(); ++i) {
    out[i]->features = std::move(r[i].used);
    out[i]->features.insert(out[i]->features.end(), r[i].features.begin(), r[i].features.end());
    out[i]->render_seconds = r[i].seconds;
    if (r[i].ok) sources[i] = plugin_unit(r[i], cfg, names[i]);
    if (!r[i].ok) {
      out[i]->status = KernelStatus::render_error;
      out[i]->message = std::move(r[i].message);
      out[i]->bucket = std::move(r[i].bucket);
      out[i]->out_of_time = budget_over;
    }
  }
  return sources;
}

// Runs one compiled group's kernels in the sandbox, each once per data set of its program (buffers moved
// out of `buffers`), and records their outcomes.
void run_group(const Group& g, const std::vector<std::vector<const Program*>>& runs,
               std::vector<std::vector<std::vector<NativeBuffer>>>& buffers, const CompiledPathConfig& cfg,
               std::vector<std::vector<KernelOutcome>>& out) {
  std::vector<KernelCall> calls;
  std::vector<std::pair<size_t, size_t>> owner;  // calls[c] runs data set owner[c].second of program owner[c].first
  for (const Unit* u : g.units)
    for (size_t k = 0; k < runs[u->index].size(); ++k) {
      const std::string bad = check_buffers(*runs[u->index][k], buffers[u->index][k]);
      UOPFUZZ_CHECK(bad.empty());
      calls.push_back({u->name, std::move(buffers[u->index][k])});
      owner.emplace_back(u->index, k);
    }
  const std::vector<RunResult> results = run_sandboxed(g.so_path, calls, cfg.timeout_s);
  for (size_t c = 0; c < calls.size(); ++c) {
    const auto [i, k] = owner[c];
    KernelOutcome& o = out[i][k];
    const RunResult& r = results[c];
    switch (r.status) {
      case RunStatus::ok: {
        const Program& p = *runs[i][k];
        for (size_t b = 0; b < p.buffers.size(); ++b) o.buffers[p.buffers[b]->slot] = from_native(calls[c].buffers[b]);
        break;
      }
      case RunStatus::crash: o.status = KernelStatus::crash; break;
      case RunStatus::timeout: o.status = KernelStatus::timeout; break;
      case RunStatus::load_error:
        check_load_environment(g.so_path, r.message);
        o.status = KernelStatus::compile_error;
        break;
    }
    o.signal = r.signal;
    o.message = r.message;
  }
}

}  // namespace

std::string status_name(KernelStatus s) {
  switch (s) {
    case KernelStatus::ok: return "ok";
    case KernelStatus::crash: return "crash";
    case KernelStatus::timeout: return "timeout";
    case KernelStatus::compile_error: return "compile-error";
    case KernelStatus::render_error: return "render-error";
  }
  return "?";
}

std::string render_source(const Program& p, const std::string& fn_name, const CompiledPathConfig& cfg) {
  if (cfg.renderer_cmd.empty()) return render_c(p, fn_name, cfg.render);
  const OutputLanguage l = cfg.renderer_description.language;
  if (language_row(l).executes())
    throw UserError("renderer '" + cfg.renderer_cmd + "' runs programs itself (language " + language_name(l) +
                    "): it renders no source");
  PluginResult r = std::move(render_with_plugin_protocol({&p}, {fn_name}, cfg).at(0));
  std::optional<std::string> unit;
  if (r.ok) unit = plugin_unit(r, cfg, fn_name);
  if (!r.ok) throw UserError(r.message);
  return std::move(*unit);
}

namespace {

// An executing target (language "outputs"): each kernel in one run request with all its data sets.
void run_on_target(const std::vector<const Program*>& firsts, const std::vector<std::string>& names,
                   const std::vector<std::vector<std::vector<NativeBuffer>>>& buffers, const CompiledPathConfig& cfg,
                   std::vector<std::vector<KernelOutcome>>& out) {
  using Status = PluginRunOutcome::Status;
  PluginServer& server = plugin_server(cfg.renderer_cmd);
  for (size_t i = 0; i < firsts.size(); ++i) {
    const Stopwatch timer;
    const PluginRunResult r = server.run(*firsts[i], names[i], buffers[i], render_deadline(cfg), cfg.switches_off);
    const double seconds = timer.seconds();
    const bool budget_over = cfg.render_stop_at && std::chrono::steady_clock::now() >= *cfg.render_stop_at;
    for (size_t k = 0; k < out[i].size(); ++k) {
      KernelOutcome& o = out[i][k];
      if (!r.ok) {
        o.status = KernelStatus::render_error;
        o.message = r.message;
        o.bucket = r.bucket;
        o.out_of_time = budget_over;
        continue;
      }
      const PluginRunOutcome& got = r.outcomes[k];
      o.features = r.used;
      o.features.insert(o.features.end(), r.features.begin(), r.features.end());
      o.render_seconds = seconds;
      o.message = got.message;
      switch (got.status) {
        case Status::ok:
          for (size_t b = 0; b < got.buffers.size(); ++b) o.buffers[firsts[i]->buffers[b]->slot] = from_native(got.buffers[b]);
          break;
        case Status::crash:
          o.status = KernelStatus::crash;
          o.signal = got.signal;
          break;
        case Status::timeout: o.status = KernelStatus::timeout; break;
        case Status::compile_error: o.status = KernelStatus::compile_error; break;
      }
    }
  }
}

// run_compiled_on_each for kernels that are all different: each renders and compiles once.
std::vector<std::vector<KernelOutcome>> run_distinct_kernels(const std::vector<std::vector<const Program*>>& runs,
                                                             const CompiledPathConfig& cfg,
                                                             const std::vector<const Analysis*>& facts) {
  const size_t n = runs.size();
  std::vector<std::vector<KernelOutcome>> out(n);
  std::vector<std::vector<std::vector<NativeBuffer>>> buffers(n);
  std::vector<const Program*> firsts;
  std::vector<std::string> names;
  std::vector<KernelOutcome*> first_out;
  for (size_t i = 0; i < n; ++i) {
    UOPFUZZ_CHECK(!runs[i].empty());
    const Program& first = *runs[i][0];
    out[i].resize(runs[i].size());
    for (const Program* p : runs[i]) {
      UOPFUZZ_CHECK(p->sink == first.sink && p->buffers == first.buffers && p->opts == first.opts);  // one kernel fits all
      buffers[i].push_back(program_buffers(*p));  // throws on a malformed data line: a setup error
    }
    firsts.push_back(&first);
    names.push_back("kernel" + std::to_string(i));
    first_out.push_back(&out[i][0]);
  }
  if (!cfg.renderer_cmd.empty() && language_row(cfg.renderer_description.language).executes()) {
    run_on_target(firsts, names, buffers, cfg, out);
    return out;
  }
  std::vector<std::optional<std::string>> sources = render_units(firsts, names, cfg, first_out, facts);
  std::vector<Unit> units;
  units.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (sources[i])
      units.push_back(Unit{i, names[i], std::move(*sources[i])});
    else
      std::fill(out[i].begin() + 1, out[i].end(), out[i][0]);  // the render error is every data set's
  }
  std::vector<const Unit*> todo;
  for (const Unit& u : units) todo.push_back(&u);
  for (const Group& g : compile_units(todo, cfg, out)) run_group(g, runs, buffers, cfg, out);
  return out;
}

}  // namespace

// Programs with one graph and one optimization sequence (the same SINK, BUFFERs and opts line: a
// reduction's candidates that change data only) share one kernel, rendered and compiled once and called on
// each one's data, as the data sets of one program are (a renderer's output depends on the graph and the
// sequence, never on the data).
std::vector<std::vector<KernelOutcome>> run_compiled_on_each(const std::vector<std::vector<const Program*>>& runs,
                                                             const CompiledPathConfig& cfg,
                                                             const std::vector<const Analysis*>& facts) {
  UOPFUZZ_CHECK(facts.empty() || facts.size() == runs.size());
  std::map<std::tuple<const UOp*, std::vector<const UOp*>, std::optional<OptSequence>>, size_t> kernel_of;
  std::vector<std::vector<const Program*>> kernels;
  std::vector<const Analysis*> kernel_facts;
  std::vector<std::vector<std::pair<size_t, size_t>>> where;  // where[k][j]: the (run, data set) kernels[k][j] is
  for (size_t i = 0; i < runs.size(); ++i) {
    UOPFUZZ_CHECK(!runs[i].empty());
    const auto [it, fresh] = kernel_of.try_emplace({runs[i][0]->sink, runs[i][0]->buffers, runs[i][0]->opts}, kernels.size());
    if (fresh) {
      kernels.emplace_back();
      where.emplace_back();
      if (!facts.empty()) kernel_facts.push_back(facts[i]);
    }
    for (size_t j = 0; j < runs[i].size(); ++j) {
      kernels[it->second].push_back(runs[i][j]);
      where[it->second].emplace_back(i, j);
    }
  }
  if (kernels.size() == runs.size()) return run_distinct_kernels(runs, cfg, facts);
  std::vector<std::vector<KernelOutcome>> merged = run_distinct_kernels(kernels, cfg, kernel_facts), out(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) out[i].resize(runs[i].size());
  for (size_t k = 0; k < kernels.size(); ++k)
    for (size_t j = 0; j < kernels[k].size(); ++j) out[where[k][j].first][where[k][j].second] = std::move(merged[k][j]);
  return out;
}

std::vector<KernelOutcome> run_compiled(const std::vector<const Program*>& batch, const CompiledPathConfig& cfg) {
  std::vector<std::vector<const Program*>> runs;
  runs.reserve(batch.size());
  for (const Program* p : batch) runs.push_back({p});
  std::vector<KernelOutcome> out;
  out.reserve(batch.size());
  for (std::vector<KernelOutcome>& o : run_compiled_on_each(runs, cfg)) out.push_back(std::move(o[0]));
  return out;
}

KernelOutcome run_compiled(const Program& p, const CompiledPathConfig& cfg) {
  return std::move(run_compiled(std::vector<const Program*>{&p}, cfg)[0]);
}

}  // namespace uf

// `uopfuzz render`, `uopfuzz run` and `uopfuzz replay`: one program through the compiled path.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "codegen/plugin_server.h"
#include "codegen/runtime/compiler.h"
#include "codegen/runtime/fp_flags.h"
#include "fuzz/gen/policy.h"
#include "fuzz/oracle/oracle.h"
#include "fuzz/oracle/standalone_run.h"
#include "uopfuzz_version.h"

namespace uf::cli {

void CompiledFlags::add_to(CLI::App* app) {
  app->add_option("--cc", cc, "C compiler of the compiled path (default gcc, or the file's meta cc)");
  app->add_option("--cflags", cflags, "compiler flags (default: exact and fast, or the file's meta cflags)");
  app->add_option("--renderer-cmd", renderer_cmd, "render with this command instead: CMD PROGRAM_FILE FUNCTION_NAME");
  app->add_option("--renderer-batch", renderer_batch,
                  "render with this batch plug-in instead: CMD LIST_FILE (docs/format.md section 5)");
  app->add_option("--renderer-protocol", renderer_protocol,
                  "speak to the plug-in this way: program, batch or server (default: the best its handshake offers)");
  app->add_option(
      "--f16", f16,
      "f16 in the built-in renderer: soft (float + rounding helpers, default) or native (_Float16 where the compiler has it)");
  app->add_option(
      "--bf16", bf16,
      "bf16 in the built-in renderer: soft (default) or native (renders soft: no tested compiler has __bf16 arithmetic)");
  app->add_option("--timeout", timeout_s, "seconds one kernel run may take before it is a timeout")->check(CLI::PositiveNumber);
  app->add_option("--render-timeout", render_timeout_s,
                  "seconds one plug-in render (a process, a batch or a server request) may take before it is a render-error "
                  "(default 60, or a render-error timeout's meta render_timeout)")
      ->check(CLI::PositiveNumber);
}

namespace {

// A recorded number of seconds: positive and finite, else a usage error naming where it came from.
double positive_seconds(const std::string& text, const std::string& what) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !(v > 0) || !std::isfinite(v))
    throw UserError("uopfuzz: " + what + " '" + text + "': expected a positive number of seconds");
  return v;
}

// A handshake's `without` names must be --without names: UserError naming the plug-in otherwise.
void check_plugin_without(const PluginDescription& d, const std::string& cmd) {
  for (const std::string& name : d.without)
    if (!is_without_name(name))
      throw UserError("renderer '" + cmd + "' --uopfuzz-describe: key 'without' has '" + name +
                      "', which is no --without name (valid: " + CLI::detail::join(without_names(), " ") +
                      ", and OP:int)");
}

RendererProtocol parse_protocol(const std::string& name, const std::string& where) {
  const std::optional<RendererProtocol> p = protocol_from_name(name);
  if (!p) throw UserError("uopfuzz: " + where + " '" + name + "': expected program, batch or server");
  return *p;
}

}  // namespace

// Which plug-in, and how it is spoken to: the flags, else the recorded meta; then its handshake. A
// protocol named by --renderer-protocol or by the file is used as named; otherwise a protocol-2 plug-in is
// spoken to in its best mode (whichever flag named it), a protocol-1 one as its flag says.
void CompiledFlags::resolve_renderer(CompiledPathConfig& cfg, const Program* recorded) const {
  if (!renderer_cmd.empty() && !renderer_batch.empty()) throw UserError("give --renderer-cmd or --renderer-batch, not both");
  std::optional<RendererProtocol> asked;
  if (!renderer_batch.empty() || !renderer_cmd.empty()) {
    cfg.renderer_cmd = renderer_batch.empty() ? renderer_cmd : renderer_batch;
  } else if (recorded) {
    if (const std::string* v = recorded->meta_value("renderer")) cfg.renderer_cmd = *v;
    if (const std::string* v = recorded->meta_value("renderer_protocol")) asked = parse_protocol(*v, "meta renderer_protocol");
  }
  if (cfg.renderer_cmd == "builtin") cfg.renderer_cmd.clear();
  if (!renderer_protocol.empty()) asked = parse_protocol(renderer_protocol, "--renderer-protocol");
  if (cfg.renderer_cmd.empty()) {
    if (!renderer_protocol.empty()) throw UserError("uopfuzz: --renderer-protocol needs a plug-in (--renderer-cmd)");
    return;
  }
  cfg.renderer_description = describe_plugin(cfg.renderer_cmd);
  const PluginDescription& d = cfg.renderer_description;
  if (d.protocol < 2) {
    if (!d.handshake_failure.empty())
      std::cerr << "uopfuzz: note: renderer '" << cfg.renderer_cmd << "' gave no handshake (--uopfuzz-describe "
                << d.handshake_failure << "), so it runs as a protocol-1 plug-in\n";
    if (asked == RendererProtocol::server)
      throw UserError("renderer '" + cfg.renderer_cmd + "' gives no handshake (--uopfuzz-describe), so it has no server mode");
    cfg.renderer_protocol = asked.value_or(renderer_batch.empty() ? RendererProtocol::program : RendererProtocol::batch);
    return;
  }
  check_plugin_without(d, cfg.renderer_cmd);
  if (asked && !d.serves(*asked)) {
    std::string offered;
    for (RendererProtocol p : d.modes) offered += (offered.empty() ? "" : ", ") + protocol_name(p);
    throw UserError("renderer '" + cfg.renderer_cmd + "' does not serve " + protocol_name(*asked) + " (its handshake offers " +
                    offered + ")");
  }
  cfg.renderer_protocol = asked.value_or(d.best_mode());
}

CompiledFlags CompiledFlags::for_backend(const PluginDescription::Backend& b) const {
  CompiledFlags f = *this;
  f.renderer_cmd = b.renderer;
  f.renderer_batch.clear();
  if (!b.cc.empty()) f.cc = b.cc;
  if (!b.cflags.empty()) f.cflags = b.cflags;
  return f;
}

CompiledPathConfig CompiledFlags::config(const Program* recorded) const {
  CompiledPathConfig cfg;
  auto pick = [&](const std::string& flag, const char* meta, std::string& out) {
    if (!flag.empty())
      out = flag;
    else if (recorded)
      if (const std::string* v = recorded->meta_value(meta)) out = *v;
  };
  pick(cc, "cc", cfg.cc);
  pick(cflags, "cflags", cfg.cflags);
  for (const IeeeFlag& f : ieee_changing_flags(cfg.cflags))
    std::cerr << "uopfuzz: warning: " << f.flag << " changes IEEE floating-point semantics on purpose (" << f.effect
              << "): differences from the reference are expected under it, and are not compiler bugs\n";
  resolve_renderer(cfg, recorded);
  // The compiler a plug-in's language needs (its handshake's cc and cflags), where neither a flag nor the file names one.
  const auto named = [&](const std::string& flag, const char* meta) { return !flag.empty() || (recorded && recorded->meta_value(meta)); };
  if (!cfg.renderer_description.cc.empty() && !named(cc, "cc")) cfg.cc = cfg.renderer_description.cc;
  if (!cfg.renderer_description.cflags.empty() && !named(cflags, "cflags")) cfg.cflags = cfg.renderer_description.cflags;
  // Narrow-float modes: the flag, else the recorded meta, else soft.
  auto mode = [&](const std::string& flag, const char* meta) {
    std::string v = "soft";
    pick(flag, meta, v);
    if (v != "soft" && v != "native")
      throw UserError(std::string("uopfuzz: ") + (flag.empty() ? "meta " : "--") + meta + " '" + v +
                      "': expected soft or native");
    return v == "native";
  };
  cfg.render.f16_native = mode(f16, "f16");
  cfg.render.bf16_native = mode(bf16, "bf16");
  if (!cfg.renderer_cmd.empty() && (!f16.empty() || !bf16.empty()))
    throw UserError("uopfuzz: --f16 and --bf16 choose how the built-in renderer renders; a plug-in renders its own way");
  if (timeout_s > 0) cfg.timeout_s = timeout_s;
  if (render_timeout_s > 0)
    cfg.render_timeout_s = render_timeout_s;
  else if (const std::string* v = recorded ? recorded->meta_value("render_timeout") : nullptr)
    cfg.render_timeout_s = positive_seconds(*v, "meta render_timeout");  // the timeout a render-error timeout holds for
  return cfg;
}

StandaloneC make_standalone(const Program& p, const std::string& file, const std::string& out, const CompiledPathConfig& cfg) {
  StandaloneC s;
  try {
    s = standalone_for(p, cfg);
  } catch (const UserError& e) { throw UserError(file + ": " + e.what()); }
  const std::string name = out.empty() ? "repro.c" : std::filesystem::path(out).filename().string();
  s.header = {"A standalone reproducer, exported by `uopfuzz export` from " + file + ": it needs nothing of uopfuzz."};
  if (const std::string* sig = p.meta_value("signature")) {
    const std::string* status = p.meta_value("status");
    s.header.push_back("Found as `" + *sig + "`" + (status ? ", status " + *status : "") + ".");
  }
  s.header.push_back(
      "Kernel: " +
      (cfg.renderer_cmd.empty() ? std::string("uopfuzz's built-in renderer") : "renderer `" + cfg.renderer_cmd + "`") +
      "; compiler: " + compiler_id(cfg.cc).version_line() + ".");
  s.header.push_back("Build: " + cfg.cc + " " + cfg.cflags + " -fPIC -o repro " + name + " -lm");
  s.header.push_back(
      "Run:   ./repro  (exit 0: every buffer agrees with the reference; 1: the first difference of each buffer is printed)");
  return s;
}

namespace {

struct RunOptions {
  std::string file, name = "kernel";
  CompiledFlags flags;
  bool describe = false, serve = false;  // render as a protocol-2 plug-in
};

// `uopfuzz render-plugin`: a protocol-2 plug-in (docs/format.md section 5) of the built-in renderer: the
// handshake, and server mode, one JSON request a line. A pass-through that costs no process a render,
// to measure what the protocol itself costs against the built-in path.
int serve_builtin_renderer(const RunOptions& o) {
  if (o.describe) {
    std::cout << nlohmann::json{{"protocol", 2},
                                {"modes", {"server", "program"}},
                                {"language", "c"},
                                {"target", {{"name", "uopfuzz-render-plugin"}, {"version", UOPFUZZ_VERSION}}},
                                {"without", nlohmann::json::array()},
                                {"one_unit", true}}
              << "\n";
    return kOk;
  }
  const RenderOptions opts = o.flags.config().render;
  for (std::string line; std::getline(std::cin, line);) {
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!request.is_object() || !request.contains("id"))
      throw UserError("uopfuzz render --uopfuzz-serve: not a request: " + line.substr(0, 200));
    nlohmann::json reply = {{"id", request["id"]}};
    try {
      reply["source"] =
          render_c(parse_program(request.value("program", ""), "<request>"), request.value("function", "kernel"), opts);
    } catch (const UserError& e) { reply["error"] = e.what(); }
    std::cout << reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
  }
  return kOk;
}

int run_render(const RunOptions& o) {
  if (o.describe || o.serve) return serve_builtin_renderer(o);
  if (o.file.empty()) throw UserError("FILE is required");
  const Program p = load_program(o.file);
  std::cout << render_source(p, o.name, o.flags.config());
  return kOk;
}

// Checks `p`; returns the observation, or nullopt (after printing the reason) when the reference is
// UNDEFINED.
std::optional<Observation> observe(const Program& p, const std::string& file, const CompiledPathConfig& cfg) {
  Finding found = std::move(check({&p}, cfg).at(0));
  if (found.undefined) {
    std::cerr << file << ": UNDEFINED at " << p.node_name(found.undefined->node) << ": " << found.undefined->reason
              << " (not a test)\n";
    return std::nullopt;
  }
  return std::move(found.observation);
}

void print_observation(const Program& p, const Observation& obs) {
  for (const auto& [slot, got] : obs.got) {
    const DType d = p.buffer(slot)->dtype;
    std::cout << print_values_line("expect", slot, d, obs.expect.at(slot)) << print_values_line("got", slot, d, got);
  }
  if (!obs.message.empty()) std::cerr << obs.message << (obs.message.back() == '\n' ? "" : "\n");
  std::cout << "verdict: " << verdict_name(obs.verdict);
  if (!obs.signature.empty() && obs.verdict != Verdict::ok) std::cout << " (" << obs.signature << ")";
  std::cout << "\n";
}

int run_run(const RunOptions& o) {
  const Program p = load_program(o.file);
  const auto obs = observe(p, o.file, o.flags.config(&p));
  if (!obs) return kUndefined;
  print_observation(p, *obs);
  return obs->verdict == Verdict::ok ? kOk : kFailure;
}

// A corpus file as a regression test: `meta status = open` means the divergence is known and still
// unfixed (a third-party compiler bug, say), so it must still reproduce with its recorded signature;
// any other status (fixed) means the compiled path must now agree with the reference.
int run_replay(const RunOptions& o) {
  const Program p = load_program(o.file);
  const auto obs = observe(p, o.file, o.flags.config(&p));
  if (!obs) return kUndefined;
  print_observation(p, *obs);
  const std::string* status = p.meta_value("status");
  const std::string* signature = p.meta_value("signature");
  if (status && *status == "open") {
    if (obs->verdict != Verdict::ok && signature && same_signature(*signature, obs->signature)) return kOk;
    std::cerr << o.file << ": status open, but the recorded failure (" << (signature ? *signature : "no signature")
              << ") did not reproduce: if it was fixed, set `meta status = fixed`\n";
    return kFailure;
  }
  return obs->verdict == Verdict::ok ? kOk : kFailure;
}

struct ExportOptions {
  std::string file, as = "c", out;
  CompiledFlags flags;
};

// `--as FORMAT` of a plug-in (its handshake's `exports`): an "export" server request with the program,
// whose expect lines are the reference's values.
std::string plugin_export(const Program& p, const std::string& file, const std::string& format, const CompiledPathConfig& cfg) {
  const std::vector<std::string>& formats = cfg.renderer_description.exports;
  if (cfg.renderer_cmd.empty() || std::find(formats.begin(), formats.end(), format) == formats.end())
    throw UserError("uopfuzz export: --as '" + format + "': expected c" +
                    (formats.empty() ? std::string(" (a protocol-2 plug-in may offer more: handshake key 'exports')")
                                     : " or what the renderer exports: " + CLI::detail::join(formats, ", ")));
  const Program with_expect = with_reference_expect(p, file);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(cfg.render_timeout_s));
  const PluginResult r = plugin_server(cfg.renderer_cmd).export_program(with_expect, format, deadline);
  if (!r.ok) throw UserError(file + ": the renderer did not export it as " + format + ":\n" + r.message);
  return r.source;
}

int run_export(const ExportOptions& o) {
  const Program p = load_program(o.file);
  const CompiledPathConfig cfg = o.flags.config(&p);
  write_output(o.out,
               o.as == "c" ? standalone_c(p, make_standalone(p, o.file, o.out, cfg)) : plugin_export(p, o.file, o.as, cfg));
  return kOk;
}

}  // namespace

std::vector<Command> compiled_commands(CLI::App& app) {
  auto render_opts = std::make_shared<RunOptions>();
  CLI::App* render = app.add_subcommand("render", "Print the C source the compiled path uses");
  render->add_option("FILE", render_opts->file, "program file (.uop)")->required();
  render->add_option("--name", render_opts->name, "kernel function name (default kernel)");

  // Not flags of `render`: a script that passes its arguments on to `uopfuzz render` would answer the
  // handshake by accident.
  auto plugin_opts = std::make_shared<RunOptions>();
  CLI::App* plugin = app.add_subcommand(
      "render-plugin", "The built-in renderer as a protocol-2 plug-in: --uopfuzz-describe, --uopfuzz-serve, or FILE NAME");
  plugin->add_option("FILE", plugin_opts->file, "program file (.uop), with NAME: the one-program protocol");
  plugin->add_option("NAME", plugin_opts->name, "kernel function name");
  plugin->add_flag("--uopfuzz-describe", plugin_opts->describe, "print the protocol-2 handshake");
  plugin->add_flag("--uopfuzz-serve", plugin_opts->serve, "serve render requests on stdin (protocol 2's server mode)");
  render_opts->flags.add_to(render);

  auto run_opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Run reference and compiled path, compare (exit 0 equal, 1 failure, 3 UNDEFINED)");
  run->add_option("FILE", run_opts->file, "program file (.uop)")->required();
  run_opts->flags.add_to(run);

  auto replay_opts = std::make_shared<RunOptions>();
  CLI::App* replay =
      app.add_subcommand("replay", "Replay a corpus file as a regression test (exit 0 when it behaves as its meta status says)");
  replay->add_option("FILE", replay_opts->file, "corpus file (.uop)")->required();
  replay_opts->flags.add_to(replay);

  auto export_opts = std::make_shared<ExportOptions>();
  CLI::App* exp = app.add_subcommand(
      "export", "Write a standalone reproducer: the target's kernel and a main that checks it against the reference");
  exp->add_option("FILE", export_opts->file, "program file (.uop)")->required();
  exp->add_option("--as", export_opts->as,
                  "what to write: c (one C file: the kernel, the data, the expected bytes), or a format the renderer "
                  "plug-in exports (tinygrad: a Python test for tinygrad's suite)");
  exp->add_option("-o,--out", export_opts->out, "write it here (default stdout)");
  export_opts->flags.add_to(exp);

  return {{render, [render_opts] { return run_render(*render_opts); }},
          {plugin, [plugin_opts] { return run_render(*plugin_opts); }},
          {exp, [export_opts] { return run_export(*export_opts); }},
          {run, [run_opts] { return run_run(*run_opts); }},
          {replay, [replay_opts] { return run_replay(*replay_opts); }}};
}

}  // namespace uf::cli

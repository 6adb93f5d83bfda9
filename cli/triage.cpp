// `uopfuzz triage FILE... [--matrix CC:FLAGS,...] [--no-culprit] [--write]`: who is to blame for a
// reproducer. Each file is re-run under every configuration of the matrix with its own renderer; those
// that fail with its signature are its blame (fuzz/oracle/triage.h). Then, under its own configuration,
// its culprit is searched (fuzz/oracle/culprit.h: the pass, flags or plug-in switch). When its renderer is
// a plug-in with a front end (handshake "reach"), whether user code reaches it is asked: `tensor (...)` or
// `kernel (...)`. All are printed, and with --write recorded as `meta blame`, `meta culprit` and
// `meta reachable` in the file (atomically), where `uopfuzz report` shows them. When the renderer's handshake
// lists sibling `backends` (tinygrad: its CPU backends), the file is run on each, and its front-end form
// asked of each (reach): `meta backends` records which fail and how.
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli.h"
#include "codegen/plugin_server.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/triage.h"

namespace uf::cli {

namespace {

struct TriageOptions {
  std::vector<std::string> files;
  std::string matrix;
  bool write = false, no_blame = false, no_culprit = false, no_reach = false, no_backends = false;
  double culprit_time_s = 300, reach_time_s = 300;
  CompiledFlags flags;
};

// "LEVEL (why)": whether the renderer plug-in's front end reaches the finding (its reach request), or "" when
// it has no front end to ask or the file's reference is UNDEFINED; a plug-in's failure is printed, not fatal.
std::string reachability(const Program& p, const std::string& file, const CompiledPathConfig& cfg, double time_s) {
  const std::string& level = cfg.renderer_description.reach;
  if (level.empty() || cfg.renderer_cmd.empty()) return "";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(time_s));
  const PluginResult r = plugin_server(cfg.renderer_cmd).reach(with_reference_expect(p, file), level, deadline);
  if (!r.ok) {
    std::cerr << file << ": no reachability: " << r.message << "\n";
    return "";
  }
  return r.source + " (" + r.message + ")";
}

// How the file fares under one configuration: "passes", "UNDEFINED", or its signature (", as found").
std::string verdict_text(const Program& p, const std::string& signature, const CompiledPathConfig& cfg) {
  const Finding f = std::move(check({&p}, cfg).at(0));
  if (!f.defined()) return "UNDEFINED";
  if (f.observation.verdict == Verdict::ok) return "passes";
  return f.observation.signature + (f.observation.signature == signature ? " (as found)" : "");
}

// What the front end's form of the finding does on one backend (its reach request): "", or ", tensor
// form fails" / "passes" / the reason it does not say (tinygrad's level is "tensor").
std::string front_end_text(const Program& p, const std::string& file, const CompiledPathConfig& cfg, double time_s) {
  const std::string r = reachability(p, file, cfg, time_s);
  const std::string form = cfg.renderer_description.reach + " form";
  if (r.empty() || r.find("(no Tensor form") != std::string::npos || r.find("(no " + form) != std::string::npos) return "";
  if (r.rfind(cfg.renderer_description.reach + " ", 0) == 0) return ", " + form + " fails";
  if (r.find("computes the expected values") != std::string::npos) return ", " + form + " passes";
  const size_t open = r.find(" (");
  std::string why = open == std::string::npos ? r : r.substr(open + 2);
  if (open != std::string::npos && !why.empty() && why.back() == ')') why.pop_back();  // the level's parenthesis
  return ", " + form + ": " + why.substr(0, 120);
}

// `meta backends`: the file run on each sibling backend the renderer's handshake lists, "NAME: VERDICT;
// ..." in its order; "" when it lists none.
std::string backends_of(const Program& p, const std::string& file, const std::string& signature, const TriageOptions& o,
                        const CompiledPathConfig& own) {
  std::string out;
  for (const PluginDescription::Backend& b : own.renderer_description.backends) {
    const CompiledPathConfig cfg = o.flags.for_backend(b).config(&p);
    const std::string text = b.name + ": " + verdict_text(p, signature, cfg) + front_end_text(p, file, cfg, o.reach_time_s);
    std::cout << "  backend " << text << "\n";
    out += (out.empty() ? "" : "; ") + text;
  }
  return out;
}

// The recorded bucket, else the failure under the file's own configuration, if any.
std::string signature_of(const Program& p, const CompiledPathConfig& cfg) {
  if (const std::string* s = p.meta_value("signature")) return *s;
  const Finding f = std::move(check({&p}, cfg).at(0));
  return f.defined() && f.observation.verdict != Verdict::ok ? f.observation.signature : "";
}

// The matrix's blame, its table printed indented under the file's line; nullopt when the reference is UNDEFINED.
std::optional<std::string> blame_of(const Program& p, const std::string& signature, const CompiledPathConfig& cfg,
                                    const std::vector<MatrixEntry>& matrix) {
  const std::vector<TriageRow> rows = triage(p, signature, cfg, matrix);
  if (!rows.empty() && rows[0].outcome == Blame::undefined) return std::nullopt;
  const std::string table = triage_table(rows);
  for (size_t at = 0; at < table.size();) {
    const size_t nl = table.find('\n', at);
    std::cout << "  " << table.substr(at, nl - at + 1);
    at = nl + 1;
  }
  return blame_text(rows);
}

int run_triage(const TriageOptions& o) {
  std::vector<MatrixEntry> matrix;
  if (!o.no_blame) {
    matrix = o.matrix.empty() ? default_matrix() : parse_matrix(o.matrix);
    if (matrix.empty()) throw UserError("triage: neither gcc nor clang found in PATH; give --matrix CC:FLAGS,...");
    check_matrix_compilers(matrix);
  }
  std::vector<Program> programs;
  for (const std::string& f : o.files) programs.push_back(load_program(f));  // every file valid before any work
  int code = kOk;
  for (size_t i = 0; i < programs.size(); ++i) {
    Program& p = programs[i];
    const CompiledPathConfig cfg = o.flags.config(&p);
    const std::string signature = signature_of(p, cfg);
    std::cout << o.files[i] << ": " << (signature.empty() ? "no signature: any failure is blamed" : signature) << "\n";
    std::string blame, culprit, reachable, backends;
    if (!o.no_blame) {
      const std::optional<std::string> b = blame_of(p, signature, cfg, matrix);
      if (!b) {
        std::cerr << o.files[i] << ": UNDEFINED under the reference (not a test)\n";
        code = kUndefined;
        continue;
      }
      blame = *b;
      std::cout << "  blame: " << blame << "\n";
    }
    if (!o.no_culprit && !signature.empty()) {
      CulpritOptions co;
      co.time_limit_s = o.culprit_time_s;
      co.other_data = other_data_sets(p, kCulpritRecheckDataSets);
      culprit = find_culprit(p, signature, cfg, co).text;
      std::cout << "  culprit: " << culprit << "\n";
    }
    if (!o.no_reach) reachable = reachability(p, o.files[i], cfg, o.reach_time_s);
    if (!reachable.empty()) std::cout << "  reachable: " << reachable << "\n";
    if (!o.no_backends) backends = backends_of(p, o.files[i], signature, o, cfg);
    if (!o.write) continue;
    for (const auto& [key, value] :
         {std::pair{"blame", &blame}, {"culprit", &culprit}, {"reachable", &reachable}, {"backends", &backends}})
      if (!value->empty()) p.set_meta(key, *value);
    write_output(o.files[i], print_program(p));
  }
  return code;
}

}  // namespace

std::vector<Command> triage_commands(CLI::App& app) {
  auto opts = std::make_shared<TriageOptions>();
  CLI::App* t =
      app.add_subcommand("triage", "Re-run reproducers across compilers and flags; print (and with --write record) the blame");
  t->add_option("FILE", opts->files, "reproducer files (.uop)")->required();
  t->add_option("--matrix", opts->matrix,
                "configurations CC:FLAGS,CC:FLAGS,... (default gcc and clang found, each at -O0 and -O3)");
  t->add_flag("--no-blame", opts->no_blame, "skip the matrix (no `meta blame` is written)");
  t->add_flag("--no-culprit", opts->no_culprit, "skip the culprit search (the pass, flags or plug-in switch to blame)");
  t->add_option("--culprit-time", opts->culprit_time_s, "seconds for each file's culprit search")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  t->add_flag("--no-reach", opts->no_reach,
              "skip asking the renderer plug-in's front end (handshake 'reach') whether user code reaches the finding");
  t->add_option("--reach-time", opts->reach_time_s, "seconds for each file's reach request")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  t->add_flag("--no-backends", opts->no_backends,
              "skip running the file on each sibling backend the renderer's handshake lists (no `meta backends`)");
  t->add_flag("--write", opts->write,
              "record the blame, the culprit, the reachability and the backends in each file as `meta blame`, "
              "`meta culprit`, `meta reachable`, `meta backends` (atomic rewrite)");
  opts->flags.add_to(t);
  return {{t, [opts] { return run_triage(*opts); }}};
}

}  // namespace uf::cli

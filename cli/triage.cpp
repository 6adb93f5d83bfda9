// `uopfuzz triage FILE... [--matrix CC:FLAGS,...] [--no-culprit] [--write]`: who is to blame for a
// reproducer. Each file is re-run under every configuration of the matrix with its own renderer; those
// that fail with its signature are its blame (fuzz/oracle/triage.h). Then, under its own configuration,
// its culprit is searched (fuzz/oracle/culprit.h: the pass, flags or plug-in switch). Both are printed,
// and with --write recorded as `meta blame` and `meta culprit` in the file (atomically), where
// `uopfuzz report` shows them.
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/oracle/triage.h"

namespace uf::cli {

namespace {

struct TriageOptions {
  std::vector<std::string> files;
  std::string matrix;
  bool write = false, no_culprit = false;
  double culprit_time_s = 300;
  CompiledFlags flags;
};

int run_triage(const TriageOptions& o) {
  const std::vector<MatrixEntry> matrix = o.matrix.empty() ? default_matrix() : parse_matrix(o.matrix);
  if (matrix.empty()) throw UserError("triage: neither gcc nor clang found in PATH; give --matrix CC:FLAGS,...");
  check_matrix_compilers(matrix);
  std::vector<Program> programs;
  for (const std::string& f : o.files) programs.push_back(load_program(f));  // every file valid before any work
  int code = kOk;
  for (size_t i = 0; i < programs.size(); ++i) {
    Program& p = programs[i];
    const CompiledPathConfig cfg = o.flags.config(&p);
    std::string signature;
    if (const std::string* s = p.meta_value("signature"))
      signature = *s;
    else {  // no recorded bucket: the failure under the file's own configuration, if any
      const Finding f = std::move(check({&p}, cfg).at(0));
      if (f.defined() && f.observation.verdict != Verdict::ok) signature = f.observation.signature;
    }
    std::cout << o.files[i] << ": " << (signature.empty() ? "no signature: any failure is blamed" : signature) << "\n";
    const std::vector<TriageRow> rows = triage(p, signature, cfg, matrix);
    if (!rows.empty() && rows[0].outcome == Blame::undefined) {
      std::cerr << o.files[i] << ": UNDEFINED under the reference (not a test)\n";
      code = kUndefined;
      continue;
    }
    std::string table = triage_table(rows);
    for (size_t at = 0; at < table.size();) {  // indented under the file's line
      const size_t nl = table.find('\n', at);
      std::cout << "  " << table.substr(at, nl - at + 1);
      at = nl + 1;
    }
    const std::string blame = blame_text(rows);
    std::cout << "  blame: " << blame << "\n";
    std::string culprit;
    if (!o.no_culprit && !signature.empty()) {
      CulpritOptions co;
      co.time_limit_s = o.culprit_time_s;
      culprit = find_culprit(p, signature, cfg, co).text;
      std::cout << "  culprit: " << culprit << "\n";
    }
    if (o.write) {
      p.set_meta("blame", blame);
      if (!culprit.empty()) p.set_meta("culprit", culprit);
      write_output(o.files[i], print_program(p));
    }
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
  t->add_flag("--no-culprit", opts->no_culprit, "skip the culprit search (the pass, flags or plug-in switch to blame)");
  t->add_option("--culprit-time", opts->culprit_time_s, "seconds for each file's culprit search (default 300)")
      ->check(CLI::PositiveNumber);
  t->add_flag("--write", opts->write,
              "record the blame and the culprit in each file as `meta blame`, `meta culprit` (atomic rewrite)");
  opts->flags.add_to(t);
  return {{t, [opts] { return run_triage(*opts); }}};
}

}  // namespace uf::cli

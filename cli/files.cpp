// `uopfuzz fmt FILE` and `uopfuzz interp FILE`: the front end and the reference, no compiler involved.
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "interp/interp.h"

namespace uf::cli {

namespace {

struct FileOptions {
  std::string file;
  std::string out;
  bool check = false;
};

int run_fmt(const FileOptions& o) {
  write_output(o.out, print_program(load_program(o.file)));
  return kOk;
}

// Prints one `expect K = ...` line per BUFFER. With --check, compares against the file's own expect
// lines and exits 1 on the first difference.
int run_interp(const FileOptions& o) {
  // load_program, keeping the linear order: verify and interpret share it instead of each linearizing.
  Program p;
  std::vector<const UOp*> order;
  try {
    p = read_program(o.file);
    order = linearize(p);
    verify(p, order);
  } catch (const UserError& e) { throw UserError(located(o.file, e)); }
  const RefResult r = interpret(p, order);
  try {
    check_loop_kinds(p, &r);
  } catch (const UserError& e) { throw UserError(located(o.file, e)); }
  if (r.undefined) {
    const auto it = p.origin.find(r.undefined->node);
    std::cerr << o.file;
    if (it != p.origin.end()) std::cerr << ":" << it->second.line;
    std::cerr << ": UNDEFINED at " << p.node_name(r.undefined->node) << ": " << r.undefined->reason << "\n";
    return kUndefined;
  }
  std::string text;
  int status = kOk;
  for (const auto& [slot, vals] : r.buffers) {
    const DType d = p.buffer(slot)->dtype;
    text += print_values_line("expect", slot, d, vals);
    if (!o.check) continue;
    const auto want = p.expect.find(slot);
    if (want == p.expect.end()) continue;
    for (size_t i = 0; i < vals.size(); ++i)
      if (!same_value(d, want->second[i], vals[i])) {
        std::cerr << o.file << ": slot " << slot << " element " << i << ": file expects " << format_scalar(d, want->second[i])
                  << ", reference gives " << format_scalar(d, vals[i]) << "\n";
        status = kFailure;
        break;
      }
  }
  std::cout << text;
  return status;
}

}  // namespace

std::vector<Command> file_commands(CLI::App& app) {
  auto fmt_opts = std::make_shared<FileOptions>();
  CLI::App* fmt = app.add_subcommand("fmt", "Print a program in canonical form");
  fmt->add_option("FILE", fmt_opts->file, "program file (.uop)")->required();
  fmt->add_option("-o,--out", fmt_opts->out, "write here (atomically) instead of stdout");

  auto interp_opts = std::make_shared<FileOptions>();
  CLI::App* interp =
      app.add_subcommand("interp", "Run the reference interpreter; print an expect line per BUFFER (exit 3: UNDEFINED)");
  interp->add_option("FILE", interp_opts->file, "program file (.uop)")->required();
  interp->add_flag("--check", interp_opts->check, "exit 1 if the result differs from the file's expect lines");

  return {{fmt, [fmt_opts] { return run_fmt(*fmt_opts); }}, {interp, [interp_opts] { return run_interp(*interp_opts); }}};
}

}  // namespace uf::cli

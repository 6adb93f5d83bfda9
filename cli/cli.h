// The uopfuzz command line: each cli_*.cpp registers its subcommands; main.cpp runs the chosen one.
//
// Exit codes (docs/format.md): 0 success, 1 a failure of the compiled path / something new found,
// 2 usage or input error (`FILE:LINE: message` on stderr), 3 UNDEFINED under the reference,
// 70 an internal error of uopfuzz itself (a bug: please report the file:line it prints).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/text.h"
#include "fuzz/gen/policy.h"

namespace uf::cli {

enum Exit : int { kOk = 0, kFailure = 1, kUsage = 2, kUndefined = 3, kInternal = 70 };

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

std::vector<Command> file_commands(CLI::App& app);      // fmt, interp
std::vector<Command> compiled_commands(CLI::App& app);  // render, run
std::vector<Command> fuzz_commands(CLI::App& app);      // gen, policy, reduce, fuzz
std::vector<Command> report_commands(CLI::App& app);    // report, corpus merge
std::vector<Command> triage_commands(CLI::App& app);    // triage
std::vector<Command> agree_commands(CLI::App& app);     // agree

// `uopfuzz --version`: version, git commit, and the C compilers found in PATH with their versions.
std::string version_text();

// Reads and verifies a program file; errors carry FILE:LINE.
Program load_program(const std::string& path);
// Writes `text` to `path` atomically (replace_user_file: a temporary beside it, then rename), or to
// stdout when path is empty or "-". Throws UserError when the file cannot be written.
void write_output(const std::string& path, const std::string& text);
// The default policy, or --policy FILE's, minus every `--without` name (UserError for an unknown one,
// listing the valid names); and the `--without` option that reads those names.
GenPolicy policy_without(const std::string& policy_file, const std::vector<std::string>& names);
void add_without_option(CLI::App* app, std::vector<std::string>& names);
// `p` with the reference's values as its expect lines (what a plug-in's export and reach are sent); a
// UserError naming `file` when the reference is UNDEFINED: there is nothing to reproduce.
Program with_reference_expect(const Program& p, const std::string& file);

}  // namespace uf::cli

#include "codegen/compiled_path.h"
#include "codegen/standalone.h"

namespace uf::cli {

// The compiled-path flags every command that compiles shares: --cc, --cflags, --renderer-cmd,
// --renderer-batch, --renderer-protocol, --f16, --bf16, --timeout, --render-timeout. A flag given on the command line wins;
// otherwise a program's `meta cc/cflags/renderer/renderer_protocol/f16/bf16` (recorded when the case was
// found) is used, so `uopfuzz run FILE` alone reproduces a corpus file's miscompile, with a plug-in spoken
// to as it was (batch, server) and narrow floats rendered in the mode they were found in. A plug-in is
// asked for its handshake (codegen/plugin_describe.h) once, here.
struct CompiledFlags {
  std::string cc, cflags, renderer_cmd, renderer_batch, renderer_protocol, f16, bf16;
  double timeout_s = 0;
  double render_timeout_s = 0;
  void add_to(CLI::App* app);
  CompiledPathConfig config(const Program* recorded = nullptr) const;
  // These flags for a sibling backend a plug-in's handshake lists (its renderer command, cc and cflags).
  CompiledFlags for_backend(const PluginDescription::Backend& b) const;

 private:
  void resolve_renderer(CompiledPathConfig& cfg, const Program* recorded) const;
};

// The standalone reproducer of `p` (file: where it was read, for messages; out: the C file's path, for
// its Build line) under `cfg`: `export --as c` writes it, `reduce --c` reduces its kernel. UserError
// when the reference is UNDEFINED or the target does not render p.
StandaloneC make_standalone(const Program& p, const std::string& file, const std::string& out, const CompiledPathConfig& cfg);

}  // namespace uf::cli

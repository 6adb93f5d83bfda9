// uopfuzz: differential fuzzing of UOp-to-C renderers against an exact reference interpreter.
#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) {
  using namespace uf::cli;
  CLI::App app{
      "uopfuzz: generate UOp programs, run them through the exact reference interpreter and a "
      "compiled C path, and minimise every divergence into a corpus file."};
  app.set_version_flag(
      "--version", [] { return version_text(); }, "print version, commit and the C compilers found");
  app.require_subcommand(1);
  std::vector<Command> commands;
  for (auto group : {file_commands, compiled_commands, fuzz_commands, report_commands, triage_commands, agree_commands})
    for (Command& c : group(app)) commands.push_back(std::move(c));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) { return app.exit(e); } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) { return app.exit(e); } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }
  for (Command& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const uf::UserError& e) {
      std::cerr << e.what() << "\n";  // commands locate their own messages (FILE:LINE: ...)
      return kUsage;
    } catch (const uf::InternalError& e) {
      std::cerr << "uopfuzz: internal error: " << e.what() << "\n";
      return kInternal;
    } catch (const std::bad_alloc&) {
      std::cerr << "uopfuzz: out of memory\n";
      return kInternal;
    } catch (const std::exception& e) {
      // Anything else escaping a command is a bug of ours; say what, never abort without a word.
      std::cerr << "uopfuzz: internal error: " << e.what() << "\n";
      return kInternal;
    }
  }
  return kUsage;
}

// Helpers shared by the subcommands.
#include <iostream>

#include "cli/cli.h"
#include "codegen/runtime/files.h"

namespace uf::cli {

Program load_program(const std::string& path) {
  try {
    Program p = read_program(path);
    verify(p);
    return p;
  } catch (const UserError& e) { throw UserError(located(path, e)); }
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return;
  }
  replace_user_file(path, text);
}

}  // namespace uf::cli

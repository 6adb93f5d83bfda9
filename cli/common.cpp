// Helpers shared by the subcommands.
#include <iostream>

#include "cli/cli.h"
#include "codegen/runtime/files.h"
#include "interp/interp.h"

namespace uf::cli {

Program load_program(const std::string& path) {
  try {
    Program p = read_program(path);
    verify(p);
    check_loop_kinds(p);
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

Program with_reference_expect(const Program& p, const std::string& file) {
  const RefResult ref = interpret(p);
  if (ref.undefined)
    throw UserError(file + ": the reference is UNDEFINED at " + p.node_name(ref.undefined->node) + " (" + ref.undefined->reason +
                    "): nothing to reproduce");
  Program out = p;
  out.expect = ref.buffers;
  return out;
}

}  // namespace uf::cli

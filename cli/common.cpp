// Helpers shared by the subcommands.
#include <iostream>

#include "cli/cli.h"
#include "codegen/runtime/files.h"
#include "fuzz/gen/policy_json.h"
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

GenPolicy policy_without(const std::string& policy_file, const std::vector<std::string>& names) {
  GenPolicy p = policy_file.empty() ? GenPolicy{} : policy_from_file(policy_file);
  for (const std::string& n : names) without(p, n);
  return p;
}

// The help lists every name, from the one table (without_names()): a feature, an ALU op or a dtype.
void add_without_option(CLI::App* app, std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : without_names()) all += (all.empty() ? "" : " ") + n;
  app->add_option("--without", names, "what the target lacks, comma-separated, of: " + all + ", or OP:int (an op on integers only)")
      ->delimiter(',');
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

// A renderer plug-in (docs/format.md protocol) that wraps the built-in renderer: prints render_c of the
// program file under the given function name. Used to test --renderer-cmd end to end.
#include <iostream>

#include "codegen/render/render.h"
#include "core/text.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PROGRAM_FILE FUNCTION_NAME\n";
    return 2;
  }
  try {
    const uf::Program p = uf::read_program(argv[1]);
    uf::verify(p);
    std::cout << uf::render_c(p, argv[2]);
  } catch (const uf::UserError& e) {
    std::cerr << uf::located(argv[1], e) << "\n";
    return 1;
  }
  return 0;
}

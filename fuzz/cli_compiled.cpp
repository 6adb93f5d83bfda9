// `uopfuzz render` and `uopfuzz run`: the compiled path (filled in with codegen/).
#include "fuzz/cli.h"

namespace uf::cli {
std::vector<Command> compiled_commands(CLI::App&) { return {}; }
}  // namespace uf::cli

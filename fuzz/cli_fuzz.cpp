// `uopfuzz gen`, `uopfuzz reduce`, `uopfuzz fuzz` (filled in with the fuzzer).
#include "fuzz/cli.h"

namespace uf::cli {
std::vector<Command> fuzz_commands(CLI::App&) { return {}; }
}  // namespace uf::cli

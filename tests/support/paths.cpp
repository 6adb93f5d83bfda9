#include "tests/support/paths.h"

namespace uf::testing {

std::string source_path(std::string_view rel) { return std::string(UOPFUZZ_SOURCE_DIR) + "/" + std::string(rel); }
std::string golden_path(std::string_view rel) { return source_path("tests/golden/" + std::string(rel)); }
std::string example_path(std::string_view name) { return source_path("tests/programs/" + std::string(name)); }
std::string uopfuzz_binary() { return UOPFUZZ_BINARY; }
std::string broken_renderer() { return source_path("tests/fuzz/campaign/broken_renderer.sh"); }

}  // namespace uf::testing

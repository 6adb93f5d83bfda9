// Where the tests find the repository, its golden data, its example programs and the uopfuzz binary.
#pragma once
#include <string>
#include <string_view>

namespace uf::testing {

std::string source_path(std::string_view rel);    // a file of the repository
std::string golden_path(std::string_view rel);    // a file of tests/golden (tests/golden/README.md)
std::string example_path(std::string_view name);  // an example program: tests/programs/NAME
std::string uopfuzz_binary();                     // the uopfuzz executable of this build
std::string broken_renderer();                    // tests/fuzz/campaign/broken_renderer.sh: integer MUL rendered as ADD

}  // namespace uf::testing

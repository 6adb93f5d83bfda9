// Runs a golden ALU vector file (tests/golden) through the compiled path under one compiler and flags,
// and checks every defined case bit for bit (the golden ALU tests and the compiler matrix share it).
#pragma once
#include <string>

#include "codegen/render/render.h"

namespace uf::testing {

// Operands as constants (loaded = false: the C compiler folds them) or loaded from buffers. Fails the
// current test (gtest) on any difference, naming the first 25 lines. `render` picks the narrow-float modes.
void run_golden(const std::string& file, const std::string& cc, const std::string& cflags, bool loaded,
                const RenderOptions& render = {});

}  // namespace uf::testing

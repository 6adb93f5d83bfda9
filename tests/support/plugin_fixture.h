// The fixture of the plug-in protocol tests (tests/codegen/plugin_*_test.cpp): six defined golden
// programs, a private compile cache, and the plug-in's own count of its starts (the example plug-ins
// append a line to $UOPFUZZ_PLUGIN_COUNTER each time they start). Header-only: the support library
// itself stays on core.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/golden.h"
#include "tests/support/paths.h"

namespace uf::testing {

class PluginFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("UOPFUZZ", uopfuzz_binary().c_str(), 1);
    ::setenv("UOPFUZZ_PLUGIN_COUNTER", counter.c_str(), 1);
    for (const GoldenProgram& g : golden_programs()) {
      if (g.undefined_at) continue;
      programs.push_back(g.program);
      if (programs.size() == 6) break;
    }
  }
  void TearDown() override { ::unsetenv("UOPFUZZ_PLUGIN_COUNTER"); }

  std::vector<const Program*> batch() const {
    std::vector<const Program*> b;
    for (const Program& p : programs) b.push_back(&p);
    return b;
  }
  // The plug-in's starts since the last call, one line each.
  std::vector<std::string> starts() {
    std::vector<std::string> lines = std::filesystem::exists(counter) ? read_lines(counter) : std::vector<std::string>{};
    std::filesystem::remove(counter);
    return lines;
  }

  TempCache cache;
  TempDir tmp{"uopfuzz-plugin"};
  std::string counter = (tmp / "starts").string();
  std::vector<Program> programs;
};

}  // namespace uf::testing

// The reducer as the oracle's tests drive it: against the broken renderer, and the checks every reduced
// reproducer must pass. Header-only, so that the support library itself stays on core: only the test
// executables that link fuzz/oracle include it.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/text.h"
#include "fuzz/oracle/reduce.h"
#include "tests/support/paths.h"

namespace uf::testing {

// The compiled path through the broken renderer (broken_renderer(): integer MUL rendered as ADD) at -O1;
// UOPFUZZ points at this build's binary, which the plug-in calls.
inline CompiledPathConfig broken_renderer_config() {
  ::setenv("UOPFUZZ", uopfuzz_binary().c_str(), 1);
  CompiledPathConfig cfg;
  cfg.renderer_cmd = broken_renderer();
  cfg.cflags = "-O1";
  return cfg;
}

// Reduces `p`, which fails as `sig` under `cfg`, within 240 s, and checks that the reproducer stands on its
// own: it fails as `sig`, verifies, parses back and still fails so, and agrees under the built-in renderer.
inline ReduceResult reduce_and_check(const Program& p, const std::string& sig, const CompiledPathConfig& cfg) {
  ReduceOptions ro;
  ro.time_limit_s = 240;
  ReduceResult r = reduce(p, sig, cfg, ro);
  EXPECT_EQ(r.observation.signature, sig);
  verify(r.program);
  const Program back = parse_program(print_program(r.program));
  EXPECT_EQ(check({&back}, cfg).at(0).observation.signature, sig);
  CompiledPathConfig good;
  good.cflags = cfg.cflags;
  EXPECT_EQ(check({&back}, good).at(0).observation.verdict, Verdict::ok);
  return r;
}

}  // namespace uf::testing

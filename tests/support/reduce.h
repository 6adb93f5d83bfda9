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

// `a * b + c` of three loaded i32s: the broken renderer gets it wrong (`mismatch MUL i32`), and one
// reduction round of it has fewer candidates than a batch.
inline Program broken_renderer_mul_program() {
  return parse_program(
      "uops 1\n"
      "%0 = BUFFER i32[3] slot=0\n"
      "%1 = BUFFER i32[1] slot=1\n"
      "%2 = CONST i32 0\n"
      "%3 = INDEX i32 %0 %2\n"
      "%4 = LOAD i32 %3\n"
      "%5 = CONST i32 1\n"
      "%6 = INDEX i32 %0 %5\n"
      "%7 = LOAD i32 %6\n"
      "%8 = CONST i32 2\n"
      "%9 = INDEX i32 %0 %8\n"
      "%10 = LOAD i32 %9\n"
      "%11 = MUL i32 %4 %7\n"
      "%12 = ADD i32 %11 %10\n"
      "%13 = INDEX i32 %1 %2\n"
      "%14 = STORE void %13 %12\n"
      "%15 = SINK void %14\n"
      "data 0 = 3 5 7\n");
}

}  // namespace uf::testing

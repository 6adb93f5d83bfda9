// Signatures at the root: a failure is signed by the first value that differs, constants included, so
// that one root cause is one bucket whichever ops happen to read the wrong value.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/files.h"
#include "tests/support/paths.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

// A constant printed through binary32 makes a MUL and an ADD that read it differ; the bucket names the
// constant, not the first reader.
TEST(Signature, AWrongConstantIsSignedByTheConstant) {
  TempDir tmp{"uopfuzz-signature"};
  const std::string program = source_path("tests/fuzz/campaign/plugins/constant_read_twice.uop");
  const std::string plugin = " --renderer-cmd " + source_path("tests/fuzz/campaign/plugins/f64_constants_as_float.py");
  const Ran r = run_uopfuzz_isolated("run " + program + plugin, tmp.path() / "cache");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("verdict: mismatch (mismatch CONST f64)"), std::string::npos) << r.out;
  EXPECT_EQ(run_uopfuzz_isolated("run " + program, tmp.path() / "cache").code, 0);  // the built-in renderer agrees
}

}  // namespace
}  // namespace uf::testing

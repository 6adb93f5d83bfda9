// Signatures at the root: a failure is signed by the first value that differs, constants included, so
// that one root cause is one bucket whichever ops happen to read the wrong value.
#include <gtest/gtest.h>

#include <string>

#include "codegen/plugin.h"
#include "core/text.h"
#include "fuzz/oracle/oracle.h"
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

// A render error is signed by the bucket its plug-in names (protocol 2's `bucket`), so two causes are two
// buckets; a file recorded before buckets existed (`render-error` alone) still matches any render error.
TEST(Signature, ARenderErrorIsSignedByItsPluginsBucket) {
  const Program p = parse_program("uops 1\n%0 = SINK void\n");
  KernelOutcome out;
  out.status = KernelStatus::render_error;
  EXPECT_EQ(compare(p, RefResult{}, out).signature, "render-error");
  out.bucket = "KeyError at codegen/late/regalloc.py:118";
  const std::string keyed = compare(p, RefResult{}, out).signature;
  EXPECT_EQ(keyed, "render-error KeyError at codegen/late/regalloc.py:118");
  EXPECT_TRUE(same_signature(keyed, keyed));
  EXPECT_TRUE(same_signature("render-error", keyed));
  EXPECT_FALSE(same_signature(keyed, "render-error"));
  EXPECT_FALSE(same_signature(keyed, "render-error RuntimeError at uop/spec.py:44 on AFTER"));
  EXPECT_FALSE(same_signature("render-error", "render-errors"));
  EXPECT_FALSE(same_signature("compile-error", "compile-error x"));
  EXPECT_FALSE(same_signature("mismatch ADD i32", "mismatch ADD i32 address"));
  EXPECT_FALSE(is_render_timeout(keyed));
  out.bucket = std::string(kTimeoutBucket);  // a render that outlasted --render-timeout
  EXPECT_TRUE(is_render_timeout(compare(p, RefResult{}, out).signature));
  EXPECT_FALSE(is_render_timeout("render-error"));
}

}  // namespace
}  // namespace uf::testing

// The hand-written vector programs of tests/programs (vector_*.uop): the reference must give exactly
// their `expect` lines; and the per-lane UNDEFINED cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/text.h"
#include "interp/interp.h"
#include "tests/support/paths.h"

namespace uf::testing {
namespace {

std::vector<std::string> vector_programs() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(source_path("tests/programs")))
    if (e.path().filename().string().rfind("vector_", 0) == 0) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(VectorInterp, HandWrittenPrograms) {
  const auto files = vector_programs();
  ASSERT_GE(files.size(), 3u);
  for (const std::string& f : files) {
    const Program p = read_program(f);
    verify(p);
    ASSERT_EQ(p.expect.size(), p.buffers.size()) << f;
    const RefResult r = interpret(p);
    ASSERT_FALSE(r.undefined) << f << ": " << r.undefined->reason;
    for (const auto& [slot, want] : p.expect) {
      const Values& got = r.buffers.at(slot);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(same_value(p.buffer(slot)->dtype, want[k], got[k])) << f << " slot " << slot << " element " << k;
    }
  }
}

std::string undefined_reason_of(const std::string& text) {
  const Program p = parse_program(text);
  verify(p);
  const RefResult r = interpret(p);
  return r.undefined ? r.undefined->reason : "";
}

TEST(VectorInterp, UndefinedPerLane) {
  EXPECT_EQ(undefined_reason_of("uops 2\n%0 = BUFFER i32[2] slot=0\n%1 = CONST i32 1\n%2 = CONST i32 -1\n"
                                "%3 = STACK i32x2 %1 %2\n%4 = SHL i32x2 %3 %3\n%5 = CONST i32 0\n%6 = INDEX i32 %0 %5\n"
                                "%7 = STORE void %6 %4\n%8 = SINK void %7\n"),
            "SHL by negative amount -1 (lane 1)");
  // A run-time index whose N elements run past the end.
  EXPECT_EQ(undefined_reason_of("uops 2\n%0 = BUFFER i32[4] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n"
                                "%3 = LOAD i32 %2\n%4 = INDEX i32 %0 %3\n%5 = LOAD i32x2 %4\n%6 = GEP i32 0 %5\n"
                                "%7 = CONST i32 1\n%8 = INDEX i32 %0 %7\n%9 = AFTER i32 %8 %5 %3\n%10 = STORE void %9 %6\n"
                                "%11 = SINK void %10\ndata 0 = 3 0 0 0\n"),
            "LOAD of 2 lanes at element 3 out of bounds for BUFFER i32[4] slot=0");
  // One unwritten ALLOC lane.
  EXPECT_EQ(undefined_reason_of("uops 2\n%0 = BUFFER i8[2] slot=0\n%1 = ALLOC i8[2] slot=0\n%2 = CONST i32 0\n"
                                "%3 = INDEX i8 %1 %2\n%4 = CONST i8 5\n%5 = STORE void %3 %4\n%6 = AFTER i8 %1 %5\n"
                                "%7 = INDEX i8 %6 %2\n%8 = LOAD i8x2 %7\n%9 = INDEX i8 %0 %2\n%10 = STORE void %9 %8\n"
                                "%11 = SINK void %10\n"),
            "LOAD of ALLOC slot 0 element 1 before any STORE");
}

}  // namespace
}  // namespace uf::testing

// The key line a C reduction keeps (codegen/c_reduce.h): what a compile-error must still print, with the
// parts that change from run to run (node addresses) left out.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/c_reduce.h"

namespace uf::testing {
namespace {

TEST(CompileErrorPattern, KeepsTheNodeNotItsAddresses) {
  const std::string clang15 =
      "fatal error: error in backend: Cannot select: 0x56507f875ab0: v8i16 = X86ISD::VZEXT_MOVL 0x56507f875020\n"
      "In function: kernel0\nclang: error: clang frontend command failed with exit code 70\n";
  const std::string p = compile_error_pattern(clang15);
  EXPECT_EQ(p, "Cannot select: [^:]*: v8i16 = X86ISD::VZEXT_MOVL( |$)");
  const std::regex re(p, std::regex::extended);
  EXPECT_TRUE(std::regex_search("LLVM ERROR: Cannot select: t7: v8i16 = X86ISD::VZEXT_MOVL t6", re));
  EXPECT_FALSE(std::regex_search("Cannot select: t7: v8i16 = X86ISD::VZEXT_LOAD t6", re));
  EXPECT_EQ(compile_error_pattern("Cannot select: 0x559293fc3060: f16 = bitcast 0x559293fc2f80"),
            "Cannot select: [^:]*: f16 = bitcast( |$)");
}

TEST(CompileErrorPattern, IcesAssertionsAndPlainErrors) {
  EXPECT_EQ(compile_error_pattern("k.c:3:1: internal compiler error: in vect_transform_stmt, at tree-vect-stmts.cc:12\n"),
            "internal compiler error: in vect_transform_stmt,");
  EXPECT_EQ(compile_error_pattern("clang: lib/X.cpp:10: void f(): Assertion `N < 4 && \"bad\"' failed.\n"),
            "Assertion `N < 4 && \"bad\"' failed");
  EXPECT_EQ(compile_error_pattern("k0.c:2:5: error: use of undeclared identifier 'alu17'\n"),
            "error: use of undeclared identifier 'alu17'");
  EXPECT_EQ(compile_error_pattern("k0.c:2:5: error: unknown type (x) [y]\n"), R"(error: unknown type \(x\) \[y\])");
  EXPECT_EQ(compile_error_pattern("collect2: ld returned 1 exit status\n"), "");
}

}  // namespace
}  // namespace uf::testing

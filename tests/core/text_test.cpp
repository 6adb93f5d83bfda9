// The .uop format: canonical printing, exact round trips, meta kept, golden programs, long chains.
#include <gtest/gtest.h>

#include <sstream>

#include "core/text.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"

namespace uf::testing {
namespace {

const char* kCanonical =
    "uops 1\n"
    "meta found = 2026-11-29T08:00:00Z\n"
    "meta note = keeps # and = signs\n"
    "%0 = BUFFER f32[2] slot=0\n"
    "%1 = BUFFER f32[1] slot=1\n"
    "%2 = BUFFER u64[1] slot=2\n"
    "%3 = CONST i32 0\n"
    "%4 = INDEX f32 %1 %3\n"
    "%5 = ALLOC f32[1] slot=0\n"
    "%6 = INDEX f32 %5 %3\n"
    "%7 = INDEX f32 %0 %3\n"
    "%8 = LOAD f32 %7\n"
    "%9 = CONST i32 1\n"
    "%10 = INDEX f32 %0 %9\n"
    "%11 = LOAD f32 %10\n"
    "%12 = ADD f32 %8 %11\n"
    "%13 = STORE void %6 %12\n"
    "%14 = AFTER f32 %5 %13\n"
    "%15 = INDEX f32 %14 %3\n"
    "%16 = LOAD f32 %15\n"
    "%17 = MUL f32 %16 %16\n"
    "%18 = STORE void %4 %17\n"
    "%19 = SINK void %18\n"
    "data 0 = 0.10000000149011612 -0.0\n"
    "data 2 = 18446744073709551615\n"
    "expect 1 = 0.010000000707805157\n"
    "got 1 = nan\n";

TEST(Text, CanonicalFilePrintsItself) {
  Program p = parse_program(kCanonical, "c.uop");
  EXPECT_EQ(print_program(p), kCanonical);
  ASSERT_NE(p.meta_value("note"), nullptr);
  EXPECT_EQ(*p.meta_value("note"), "keeps # and = signs");
}

TEST(Text, CommentsBlankLinesAndDuplicatesNormalise) {
  std::string text =
      "# a comment\n\nuops 1   # trailing comment\n"
      "%0 = BUFFER i32[1] slot=0\n"
      "%1 = CONST i32 0\n"
      "%2 = CONST i32 0\n"  // the same node again: interned
      "%3 = INDEX i32 %0 %2\n"
      "%4 = STORE void %3 %1\n"
      "%5 = SINK void %4\n";
  Program p = parse_program(text);
  EXPECT_EQ(
      print_program(p),
      "uops 1\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = STORE void %2 %1\n%4 = SINK void %3\n");
}

TEST(Text, GoldenProgramsRoundTrip) {
  int n = 0;
  for (const std::string& file : golden_program_files()) {
    const std::string text = read_text(file);
    Program p = parse_program(text, file);
    verify(p);
    const std::string once = print_program(p);
    EXPECT_EQ(print_program(parse_program(once)), once) << file;
    // Every data and expect line survives byte for byte (values print as Python's repr does).
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("data ", 0) == 0 || line.rfind("expect ", 0) == 0) {
        EXPECT_NE(once.find(line + "\n"), std::string::npos) << file << ": " << line;
      }
    }
    ++n;
  }
  EXPECT_EQ(n, 200);
}

TEST(Text, LongChainsNeedNoRecursion) {
  // 200,000 nodes in one dependency chain: parse, verify, print, without recursion.
  std::string text = "uops 1\n%0 = BUFFER i32[1] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = LOAD i32 %2\n";
  const int n = 200000;
  for (int i = 4; i < n; ++i) text += "%" + std::to_string(i) + " = ADD i32 %" + std::to_string(i - 1) + " %3\n";
  text += "%" + std::to_string(n) + " = STORE void %2 %" + std::to_string(n - 1) + "\n";
  text += "%" + std::to_string(n + 1) + " = SINK void %" + std::to_string(n) + "\n";
  Program p = parse_program(text);
  verify(p);
  EXPECT_EQ(linearize(p).size(), static_cast<size_t>(n + 2));
  EXPECT_EQ(print_program(p), text);
}

// The canonical order is the file's own order (a depth-first order from the SINK would put the i32 lane
// first here); dead code is dropped and the IDs close up.
TEST(Text, CanonicalOrderIsTheFilesOrderWithoutDeadCode) {
  const std::string head =
      "uops 1\n"
      "%0 = BUFFER f32[1] slot=0\n"
      "%1 = BUFFER i32[1] slot=1\n"
      "%2 = CONST i32 0\n"
      "%3 = INDEX f32 %0 %2\n"
      "%4 = INDEX i32 %1 %2\n"
      "%5 = LOAD f32 %3\n";
  const std::string text = head +
                           "%6 = MUL f32 %5 %5\n"
                           "%7 = LOAD i32 %4\n"
                           "%8 = ADD i32 %7 %7\n"
                           "%9 = STORE void %3 %6\n"
                           "%10 = STORE void %4 %8\n"
                           "%11 = SINK void %10 %9\n";
  EXPECT_EQ(print_program(parse_program(text)), text);
  const std::string with_dead_code = head +
                                     "%6 = NEG f32 %5\n"  // dead: nothing uses it
                                     "%7 = MUL f32 %5 %5\n"
                                     "%8 = LOAD i32 %4\n"
                                     "%9 = ADD i32 %8 %8\n"
                                     "%10 = STORE void %3 %7\n"
                                     "%11 = STORE void %4 %9\n"
                                     "%12 = SINK void %11 %10\n";
  EXPECT_EQ(print_program(parse_program(with_dead_code)), text);
}

// words and lines split as `>>` and getline do (what their callers used before they shared them).
TEST(Text, WordsAndLinesSplitLikeTheStreams) {
  for (const std::string s : {"", " ", "a", "  mismatch\tCAST  f64>u32 \r", "got 1 = 2\n", "\v\fx\ry"}) {
    std::istringstream in(s);
    std::vector<std::string> expected;
    for (std::string w; in >> w;) expected.push_back(w);
    EXPECT_EQ(words(s), expected) << s;
  }
  for (const std::string s : {"", "\n", "a", "a\n", "a\n\nb", "a\r\nb\n\n"}) {
    std::istringstream in(s);
    std::vector<std::string> expected;
    for (std::string l; std::getline(in, l);) expected.push_back(l);
    EXPECT_EQ(lines(s), expected) << s;
  }
}

}  // namespace
}  // namespace uf::testing

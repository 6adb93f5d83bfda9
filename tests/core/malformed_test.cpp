// Malformed files: each gets a `FILE:LINE: message`, and no input of any kind crashes the reader.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/text.h"
#include "tests/support/programs.h"

namespace uf::testing {
namespace {

std::string error_of(const std::string& text) { return parse_and_verify_error(text, "m.uop"); }

const std::string kHead = "uops 1\n%0 = BUFFER f32[4] slot=0\n%1 = CONST i32 0\n";

TEST(Malformed, EachGetsALocatedMessage) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "m.uop:1: empty file: expected 'uops 1'"},
      {"uops 3\n", "m.uop:1: unsupported format version (this reader knows 'uops 1' and 'uops 2')"},
      {"%0 = CONST i32 0\n", "m.uop:1: expected 'uops 1' as the first line, got '%0 = CONST i32 0'"},
      {kHead, "m.uop:3: no SINK: the last node must be the SINK"},
      {kHead + "%3 = SINK void\n", "m.uop:4: node ids must be 0, 1, 2, ... in order: expected %2, got %3"},
      {kHead + "%2 = FROB f32 %0\n", "m.uop:4: unknown op 'FROB'"},
      {kHead + "%2 = LOAD f33 %0\n", "m.uop:4: unknown dtype 'f33'"},
      {kHead + "%2 = INDEX f32 %0 %9\n", "m.uop:4: unknown node %9 (sources must be earlier nodes)"},
      {kHead + "%2 = INDEX f32 %0 1\n", "m.uop:4: expected a source like %3, got '1'"},
      {kHead + "%2 = INDEX i32 %0 %1\n", "m.uop:4: INDEX: result is f32, not i32"},
      {kHead + "%2 = CONST i8 300\n", "m.uop:4: CONST i8 '300': integer out of range"},
      {kHead + "%2 = CONST f32\n", "m.uop:4: CONST needs exactly one value"},
      {kHead + "%2 = LOAD\n", "m.uop:4: expected '%ID = OP DTYPE ...'"},
      {kHead + "%2 = CONST f32 1.0 2.0\n", "m.uop:4: CONST needs exactly one value"},
      {kHead + "%2 = BUFFER f32 slot=1\n", "m.uop:4: BUFFER needs DTYPE[LEN], got 'f32'"},
      {kHead + "%2 = BUFFER f32[2,2] slot=1\n", "m.uop:4: BUFFER is flat"},
      {kHead + "%2 = BUFFER f32[99999999999] slot=1\n", "m.uop:4: BUFFER length 99999999999 is too large (max 16777216)"},
      {kHead + "%2 = BUFFER f32[2]\n", "m.uop:4: BUFFER needs 'slot=K' after its shape"},
      {kHead + "%2 = BUFFER f32[x] slot=1\n", "m.uop:4: bad length in 'f32[x]'"},
      {kHead + "%2 = SINK void\n%3 = SINK void\n", "m.uop:5: node after the SINK: the SINK must be the last node"},
      {kHead + "%2 = SINK void\nbogus line\n", "m.uop:5: unknown line 'bogus line'"},
      {kHead + "%2 = SINK void\ndata 0 = 1 2 3 x\n", "m.uop:5: data 0: value 3 'x': bad float"},
      {kHead + "%2 = SINK void\ndata 0 = 1 2 3 4\ndata 0 = 1 2 3 4\n", "m.uop:6: second data line for slot 0"},
      {kHead + "%2 = SINK void\ndata 0 1 2\n", "m.uop:5: data needs 'data SLOT = v ...'"},
      {kHead + "%2 = SINK void\nmeta nokey\n", "m.uop:5: meta needs 'KEY = VALUE'"},
      {kHead + "%2 = SINK void\nuops 1\n", "m.uop:5: second 'uops' header"},
      {std::string("uops 1\n%0 = CONST i32 0\0\n", 25), "m.uop:2: NUL byte in text"},
      {kHead + "%2 = INDEX f32 %0 %1\n%3 = LOAD f32 %2\n%4 = ADD f32 %3 %1\n",
       "m.uop:6: ADD: dtype mismatch f32 vs i32 (use CAST)"},
      // RANGE and GEP carry arguments: not the fast path's (libFuzzer's parse target found it crashing)
      {kHead + "%2 = RANGE i32\n", "m.uop:4: RANGE needs 'RANGE DTYPE AXIS %END [kind=KIND]'"},
      {kHead + "%2 = GEP f32 %0\n", "m.uop:4: GEP needs 'GEP DTYPE LANE %SRC'"},
      {"uops 2\n%0 = CONST i32 4\n%1 = RANGE i32 0 %0 kind=parallel\n",
       "m.uop:3: bad RANGE kind 'kind=parallel' (kind=loop, kind=global or kind=reduce)"},
      {kHead + "opts UPCAST:x:4\n", "m.uop:4: bad opts step 'UPCAST:x:4' (NAME, NAME:AXIS or NAME:AXIS:ARG, NAME in capitals)"},
      {kHead + "opts upcast\n", "m.uop:4: bad opts step 'upcast' (NAME, NAME:AXIS or NAME:AXIS:ARG, NAME in capitals)"},
      {kHead + "opts\nopts\n", "m.uop:5: second opts line"},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(error_of(text), expected) << text;
}

const std::string kValid =
    "uops 1\nmeta seed = 3\n%0 = BUFFER f32[2] slot=0\n%1 = BUFFER i32[1] slot=1\n%2 = CONST i32 0\n"
    "%3 = INDEX f32 %0 %2\n%4 = LOAD f32 %3\n%5 = CONST i32 1\n%6 = INDEX f32 %0 %5\n%7 = LOAD f32 %6\n"
    "%8 = MUL f32 %4 %7\n%9 = CAST i32 %8\n%10 = INDEX i32 %1 %2\n%11 = STORE void %10 %9\n%12 = SINK void %11\n"
    "data 0 = 1.5 -2.0\nexpect 1 = -3\n";

// Only UserError may come out: never another exception, never a crash.
void must_not_crash(const std::string& text) {
  try {
    Program p = parse_program(text, "fuzz.uop");
    verify(p);
    (void)print_program(p);
  } catch (const UserError&) {}
}

RC_GTEST_PROP(Malformed, MutatedFilesNeverCrash, ()) {
  std::string text = kValid;
  const int edits = *rc::gen::inRange(1, 8);
  for (int i = 0; i < edits; ++i) {
    const size_t at = *rc::gen::inRange<size_t>(0, text.size());
    switch (*rc::gen::inRange(0, 4)) {
      case 0: text.erase(at, *rc::gen::inRange<size_t>(1, 6)); break;
      case 1: text.insert(at, 1, *rc::gen::elementOf(std::string("%=0123456789 \n-#[],.abcdefinxslotUOPS\x01\xff"))); break;
      case 2: text.insert(at, text.substr(*rc::gen::inRange<size_t>(0, text.size()), *rc::gen::inRange<size_t>(1, 30))); break;
      default:
        if (at < text.size()) text[at] = static_cast<char>(*rc::gen::arbitrary<uint8_t>());
        break;
    }
  }
  must_not_crash(text);
}

RC_GTEST_PROP(Malformed, ArbitraryBytesNeverCrash, (std::string bytes)) {
  must_not_crash(bytes);
  must_not_crash("uops 1\n" + bytes);
}

}  // namespace
}  // namespace uf::testing

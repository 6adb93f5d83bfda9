// libFuzzer target: arbitrary bytes -> read, verify, interpret.
//
// Malformed input must be a UserError, never a crash, a leak, a hang or an InternalError (an uncaught
// one aborts, which libFuzzer reports). For input that reads, docs/format.md's round trip must hold:
// print(parse(print(p))) == print(p), the canonical text verifies exactly when the input did, and the
// reference computes bit for bit the same result from both.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/text.h"
#include "interp/interp.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parse_target: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// An UNDEFINED's reason names nodes by id (`UNDEFINED at %5: ... (in iteration %3 = 1)`), and the
// canonical text renumbers them when it drops a node nothing uses: reasons are compared without the ids.
std::string without_ids(const std::string& reason) {
  std::string out;
  for (size_t i = 0; i < reason.size(); ++i) {
    out += reason[i];
    if (reason[i] == '%')
      while (i + 1 < reason.size() && reason[i + 1] >= '0' && reason[i + 1] <= '9') ++i;
  }
  return out;
}

bool same_buffers(const uf::Program& p, const uf::RefResult& a, const uf::RefResult& b) {
  if (a.undefined.has_value() != b.undefined.has_value()) return false;
  if (a.undefined) return without_ids(a.undefined->reason) == without_ids(b.undefined->reason);
  if (a.buffers.size() != b.buffers.size()) return false;
  for (const auto& [slot, values] : a.buffers) {
    const auto it = b.buffers.find(slot);
    if (it == b.buffers.end() || it->second.size() != values.size()) return false;
    const uf::DType d = p.buffer(slot)->dtype;
    for (size_t i = 0; i < values.size(); ++i)
      if (!uf::same_value(d, values[i], it->second[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  uf::Program p;
  try {
    p = uf::parse_program(text, "<fuzz>");
  } catch (const uf::UserError&) {
    return 0;  // a located message, as the CLI prints it: fine
  }
  const std::string canonical = uf::print_program(p);
  uf::Program q;
  try {
    q = uf::parse_program(canonical, "<canonical>");
  } catch (const uf::UserError& e) {
    fail("the canonical text does not read back", uf::located("<canonical>", e) + "\n" + canonical);
  }
  if (uf::print_program(q) != canonical) fail("print(parse(print(p))) != print(p)", canonical);

  bool verified = true;
  try {
    uf::verify(p);
  } catch (const uf::UserError&) { verified = false; }
  try {
    uf::verify(q);
    if (!verified) fail("the canonical text verifies, the input did not", canonical);
  } catch (const uf::UserError& e) {
    if (verified) fail("the input verifies, its canonical text does not", e.what() + ("\n" + canonical));
  }
  if (!verified) return 0;

  uf::RefResult a, b;
  try {
    a = uf::interpret(p);
    b = uf::interpret(q);
  } catch (const uf::UserError&) {
    return 0;  // e.g. two BUFFERs sharing a slot that verify() does not see
  }
  if (!same_buffers(p, a, b)) fail("the reference differs between a program and its canonical text", canonical);
  return 0;
}

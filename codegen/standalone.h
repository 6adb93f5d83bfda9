// A standalone C reproducer (`uopfuzz export --as c`, docs/format.md section 6): one translation unit
// that needs nothing of uopfuzz. It holds the kernel exactly as the target rendered it, then a `main`
// that copies the program's data into fresh heap buffers, calls the kernel once through a volatile
// function pointer (so the compiler cannot inline it and fold the data: the kernel is compiled as the
// compiled path compiles it, alone), and compares every BUFFER with the reference's bytes. It prints
// the first differing element of each buffer (`buf1[3] = 0.100000001 expected 0.100000000000000006`, by slot as the .uop names it)
// and exits 1 on a difference, 0 when every buffer agrees (NaN agreeing with any NaN, as the oracle's
// comparison does). A crash or a compile error shows itself as such.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/program.h"

namespace uf {

struct StandaloneC {
  std::string kernel_source;                // the target's translation unit, defining `fn_name`
  std::string fn_name = "kernel";
  std::map<int64_t, Values> expected;       // the reference's final BUFFERs, by slot
  std::vector<std::string> header;          // comment lines put first (how to build it, what it shows)
};

std::string standalone_c(const Program& p, const StandaloneC& s);
// Its driver alone (what follows the kernel): for a C reducer, which must change the kernel only.
std::string standalone_driver(const Program& p, const StandaloneC& s);

}  // namespace uf

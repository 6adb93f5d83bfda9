// Compiler flags that change IEEE floating-point semantics on purpose, by name: what the CLI warns about
// when a run starts (the rendered C pins everything else itself, see codegen/render/prelude.cpp).
#pragma once
#include <string>
#include <vector>

namespace uf {

// The flags in `cflags` that change IEEE floating-point semantics on purpose (-ffast-math, -Ofast,
// -ffinite-math-only, -fno-signed-zeros, -fassociative-math, -ffp-contract=fast, ...), each with what it
// changes. Under them divergences from the reference are expected: the CLI warns when a run starts.
// Flags that keep ISO C semantics need nothing: the rendered C pins contraction off itself.
struct IeeeFlag {
  std::string flag;
  std::string effect;
};
std::vector<IeeeFlag> ieee_changing_flags(const std::string& cflags);

}  // namespace uf

// The table of IEEE-changing flags (fp_flags.h).
#include "codegen/runtime/fp_flags.h"

#include "codegen/runtime/process.h"

namespace uf {

std::vector<IeeeFlag> ieee_changing_flags(const std::string& cflags) {
  static const struct {
    const char* flag;
    bool prefix;  // matches any flag starting with it
    const char* effect;
  } kTable[] = {
      {"-ffast-math", false, "assumes no NaN, no infinity, no signed zero; reassociates"},
      {"-Ofast", false, "implies -ffast-math"},
      {"-ffinite-math-only", false, "assumes no NaN and no infinity"},
      {"-fno-honor-nans", false, "assumes no NaN"},
      {"-fno-honor-infinities", false, "assumes no infinity"},
      {"-fno-signed-zeros", false, "treats -0.0 as 0.0"},
      {"-fassociative-math", false, "reassociates float arithmetic"},
      {"-freciprocal-math", false, "replaces x/y by x*(1/y)"},
      {"-funsafe-math-optimizations", false, "reassociates, reciprocals, no signed zeros"},
      {"-ffp-contract=fast", false, "fuses a*b+c across statements (clang: disregarding the pragma)"},
      {"-ffp-model=fast", false, "clang's fast floating-point model"},
      {"-ffp-model=aggressive", false, "clang's aggressive floating-point model"},
      {"-fcx-limited-range", false, "complex arithmetic without range checks"},
      {"-mfpmath=387", false, "x87 extended precision: double rounding"},
      {"-fexcess-precision=fast", false, "intermediates in excess precision"},
      {"-mrecip", true, "approximate reciprocal and square root instructions"},
      {"-mdaz-ftz", false, "flushes subnormals to zero"},
  };
  std::vector<IeeeFlag> out;
  for (const std::string& f : split_command(cflags))
    for (const auto& row : kTable)
      if (row.prefix ? f.starts_with(row.flag) : f == row.flag) out.push_back({f, row.effect});
  return out;
}

}  // namespace uf

// A bucket's reproducer shown inline in the report: the .uop file as saved (with the lines of the
// diverging node and the expect/got lines of the differing buffers marked) and the kernel function
// uopfuzz's built-in renderer writes for it (`uopfuzz render`). Each listing is cut at a size limit,
// so a large unreduced finding cannot blow up the report.
#pragma once
#include <string>

#include "fuzz/report/run.h"

namespace uf::report {

inline constexpr size_t kListingLines = 60, kListingBytes = 4500;

// `brief`: the marked lines only, no C (when the page's listing budget is spent).
std::string reproducer_html(const Bucket& b, bool brief = false);

}  // namespace uf::report

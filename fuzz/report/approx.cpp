// The report's approximate-ops section: each run's judged results of the ops its target approximates, by
// op, dtype and ULP bin (the summary's `approx_ulps`, docs/format.md; the bins of interp/approx.h).
#include "fuzz/report/html.h"
#include "fuzz/report/report.h"
#include "interp/approx.h"

namespace uf::report {

std::string approx_section(const std::vector<Run>& runs) {
  std::string rows;
  for (const Run& r : runs) {
    const nlohmann::json& s = r.summary;
    if (!s.contains("approx_ulps") || !s["approx_ulps"].is_object()) continue;
    for (const auto& [what, bins] : s["approx_ulps"].items()) {
      if (!bins.is_object()) continue;
      rows += "<tr><td>" + esc(r.label) + "</td><td>" + esc(what) + "</td>";
      for (const char* bin : kUlpBins) {
        const int64_t n = bins.value(bin, int64_t{0});
        rows += "<td class=\"n\">" + (n ? grouped(n) : std::string()) + "</td>";
      }
      rows += "</tr>";
    }
  }
  if (rows.empty()) return "";
  std::string head = "<tr><th>run</th><th>op dtype</th>";
  for (const char* bin : kUlpBins) head += "<th>" + esc(bin) + "</th>";
  return "<section id=\"approximate\"><h2>Approximate ops</h2><p>Each result the target computed with an op it "
         "approximates (its handshake's <code>approximate</code>), stored straight to memory, by its error in ULPs "
         "from the correctly rounded value (<code>special</code>: a wrong special value). What a bin may hold is "
         "the budget's (docs/semantics.md).</p><div class=\"scroll\"><table>" +
         head + "</tr>" + rows + "</table></div></section>";
}

}  // namespace uf::report

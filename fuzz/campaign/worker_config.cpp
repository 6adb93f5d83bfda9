#include "fuzz/campaign/worker_config.h"

#include <algorithm>
#include <chrono>

#include "codegen/runtime/compiler.h"
#include "core/error.h"
#include "fuzz/oracle/oracle.h"

namespace uf {

std::string compiler_version(const std::string& cc) {
  try {
    return compiler_id(cc).version_line();
  } catch (const UserError&) { return ""; }
}

CompiledPathConfig budgeted(const CampaignOptions& o) {
  CompiledPathConfig cfg = o.cfg;
  if (o.time_s > 0) {
    const double compile_reserve_s = std::min(2.0, 0.1 * o.time_s);
    cfg.render_stop_at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                std::chrono::duration<double>(o.time_s - compile_reserve_s));
  }
  return cfg;
}

CompiledPathConfig config_for(const std::string& signature, const CompiledPathConfig& cfg, const CampaignOptions& o) {
  CompiledPathConfig c = cfg;
  if (is_render_timeout(signature)) c.render_timeout_s = std::min(c.render_timeout_s, o.reduce_render_timeout_s);
  return c;
}

uint64_t quota(const CampaignOptions& o, int w) {
  if (o.count <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(o.count / o.jobs + (w < o.count % o.jobs ? 1 : 0));
}

}  // namespace uf

// What a campaign worker runs under, from the campaign's options: its compiled-path configuration (the
// --time budget's render stop, a render timeout's shorter limit), its share of --count, and the compiler
// version its reproducers record.
#pragma once
#include <cstdint>
#include <string>

#include "fuzz/campaign/campaign.h"

namespace uf {

// o.cfg, with plug-in renders bounded by the --time budget (which starts now): a hanging plug-in costs
// its program a render-error, never the budget. Rendering stops a little before the budget ends, so the
// batch in flight still compiles and runs in time and its programs are counted, not lost to the stop.
CompiledPathConfig budgeted(const CampaignOptions& o);

// What a finding is checked, reduced and blamed under: a render timeout under the shorter
// --reduce-render-timeout, since each candidate that keeps it costs that long (its file records it).
CompiledPathConfig config_for(const std::string& signature, const CompiledPathConfig& cfg, const CampaignOptions& o);

// Worker w's share of --count: programs program_seed(seed, w, 0 .. quota-1).
uint64_t quota(const CampaignOptions& o, int w);

// For the reproducers' meta only: a compiler that does not answer is reported by the first compile ("").
std::string compiler_version(const std::string& cc);

}  // namespace uf

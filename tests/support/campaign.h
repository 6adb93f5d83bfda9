// A campaign of the uopfuzz binary that must find something, kept in a test's own directory: its corpus,
// its --json summary and its private compile cache.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace uf::testing {

// `uopfuzz fuzz ARGS --corpus DIR/corpus --json DIR/s.json` with the compile cache DIR/cache must save a
// reproducer (exit 1); *summary is then its --json summary. budget_s > 0 adds `--time BUDGET_S`, the
// budget of the whole run, reductions included, and the run must also end within 5 % of it, wall time.
// Fails the current test otherwise: call it in ASSERT_NO_FATAL_FAILURE.
void run_finding_campaign(const std::string& args, const std::filesystem::path& dir, nlohmann::json* summary, int budget_s = 0);

}  // namespace uf::testing

// The wall-clock time as people and files read it: `2026-11-30T21:07:01Z` (UTC, ISO 8601), the form
// of a reproducer's `meta found`, the event log's start line and the report's header.
#pragma once
#include <string>

namespace uf {

std::string utc_timestamp();  // now

}  // namespace uf

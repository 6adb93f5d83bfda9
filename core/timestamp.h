// The wall-clock time as people and files read it: `2026-11-30T21:07:01Z` (UTC, ISO 8601), the form
// of a reproducer's `meta found`, the event log's start line and the report's header; and a duration as
// messages and meta write it.
#pragma once
#include <string>

namespace uf {

std::string utc_timestamp();  // now

// Seconds to three significant digits, as the shortest text that reads back the same: "3", not
// "2.99996" (a deadline less a few microseconds); "0.5", "1230".
std::string seconds_text(double s);

}  // namespace uf

// The progress line's hint: when one render-error or compile-error bucket takes most programs, the
// target probably lacks a feature; name it and the `--without` that would avoid it, when the failure
// messages name one (hint.cpp's table).
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace uf {

struct CampaignSummary;

// The `--without` name a render or compile error's message points at ("" when none): the first word
// of the message that is an IR op (ALLOC -> alloc, RANGE -> loop, MULACC -> mulacc, ...) or a dtype.
std::string avoid_name(const std::string& message);

// "" unless one render-error or compile-error bucket holds at least half of at least 20 programs;
// then "most programs fail the same way: SIGNATURE (N of M)" and, when at least half of its failures'
// messages point at one name, "; --without NAME would avoid it".
std::string dominant_failure_hint(const CampaignSummary& s);

}  // namespace uf

// Reports as JSON lines (see protocol.h).
#include "fuzz/campaign/protocol.h"

#include "codegen/runtime/files.h"

namespace uf {

namespace {

using nlohmann::json;

// The alternative of Report whose `kind` is `kind`, read from `j`; nullopt for an unknown kind.
template <size_t I = 0>
std::optional<Report> decode_kind(const std::string& kind, const json& j) {
  if constexpr (I == std::variant_size_v<Report>) {
    return std::nullopt;
  } else {
    using R = std::variant_alternative_t<I, Report>;
    if (kind == R::kind) return Report{j.get<R>()};
    return decode_kind<I + 1>(kind, j);
  }
}

}  // namespace

void CheckCounts::count(const Finding& f, bool observed) {
  ++programs;
  if (!f.defined()) {
    ++undefined;
    return;
  }
  ++valid;
  runs += f.runs;
  if (observed) observed_runs += f.runs;
  undefined_inputs += f.undefined_inputs;
  switch (f.observation.verdict) {  // a switch: the compiler warns of a verdict without its FAILURE row
    case Verdict::ok: break;
#define COUNTER(name, summary_key, doc)
#define FAILURE(name, summary_key, verdict, doc) \
  case Verdict::verdict:                         \
    ++name;                                      \
    break;
#include "fuzz/campaign/counters.def"
  }
}

CheckCounts& CheckCounts::operator+=(const CheckCounts& o) {
#define COUNTER(name, summary_key, doc) name += o.name;
#include "fuzz/campaign/counters.def"
  return *this;
}

int64_t CheckCounts::failures() const {
  int64_t n = 0;
#define COUNTER(name, summary_key, doc)
#define FAILURE(name, summary_key, verdict, doc) n += name;
#include "fuzz/campaign/counters.def"
  return n;
}

void CheckCounts::add_to_summary(json& j) const {
#define COUNTER(name, summary_key, doc) j[summary_key] = name;
#include "fuzz/campaign/counters.def"
}

void to_json(json& j, const CheckCounts& c) {
#define COUNTER(name, summary_key, doc) j[#name] = c.name;
#include "fuzz/campaign/counters.def"
}

void from_json(const json& j, CheckCounts& c) {
#define COUNTER(name, summary_key, doc) j.at(#name).get_to(c.name);
#include "fuzz/campaign/counters.def"
}

std::string encode(const Report& r) {
  json j = std::visit([](const auto& x) { return json(x); }, r);
  j["kind"] = std::visit([](const auto& x) { return std::string(x.kind); }, r);
  // Paths and messages are bytes: invalid UTF-8 is replaced rather than losing the report.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<Report> decode(std::string_view line) {
  try {
    const json j = json::parse(line);
    return decode_kind(j.at("kind").get<std::string>(), j);
  } catch (const json::exception&) { return std::nullopt; }
}

void send_report(int fd, const Report& r) {
  write_all(fd, encode(r) + "\n");  // failure: the parent is gone, nobody to report to
}

}  // namespace uf

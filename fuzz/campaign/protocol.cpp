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
  switch (f.observation.verdict) {
    case Verdict::ok: break;
    case Verdict::mismatch: ++mismatching; break;
    case Verdict::crash: ++crashes; break;
    case Verdict::compile_error: ++compile_errors; break;
    case Verdict::render_error: ++render_errors; break;
    case Verdict::timeout: ++timeouts; break;
  }
}

CheckCounts& CheckCounts::operator+=(const CheckCounts& o) {
  programs += o.programs;
  valid += o.valid;
  undefined += o.undefined;
  mismatching += o.mismatching;
  crashes += o.crashes;
  compile_errors += o.compile_errors;
  render_errors += o.render_errors;
  timeouts += o.timeouts;
  batches += o.batches;
  runs += o.runs;
  undefined_inputs += o.undefined_inputs;
  observed_runs += o.observed_runs;
  return *this;
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

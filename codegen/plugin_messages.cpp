// Protocol 2's server messages (see plugin_messages.h).
#include "codegen/plugin_messages.h"

#include <algorithm>
#include <cstring>

#include "codegen/runtime/base64.h"

namespace uf {

// Why `line` is not a JSON object replying to request `id` ("" when it is one, parsed into `j`).
std::string check_id(const std::string& line, uint64_t id, nlohmann::json& j) {
  j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "a line that is not a JSON object: " + line.substr(0, 200);
  const auto rid = j.find("id");
  if (rid == j.end() || !rid->is_number_unsigned() || rid->get<uint64_t>() != id)
    return "a reply to another request (id " + (rid == j.end() ? std::string("missing") : rid->dump()) + ", expected " +
           std::to_string(id) + ")";
  return "";
}

// The reply's optional list of strings `key` appended to `out`; why it is malformed, or "".
std::string read_strings(const nlohmann::json& j, const char* key, std::vector<std::string>& out) {
  const auto it = j.find(key);
  if (it == j.end()) return "";
  const std::string bad = std::string("a reply whose '") + key + "' is not a list of strings";
  if (!it->is_array()) return bad;
  for (const nlohmann::json& u : *it) {
    if (!u.is_string()) return bad;
    out.push_back(u.get<std::string>());
  }
  return "";
}

std::string read_used(const nlohmann::json& j, std::vector<std::string>& used, std::vector<std::string>& features) {
  std::vector<std::string> applied, skipped;
  for (auto [key, into] : {std::pair{"used", &used}, {"features", &features}, {"opts_applied", &applied}, {"opts_skipped", &skipped}})
    if (std::string bad = read_strings(j, key, *into); !bad.empty()) return bad;
  // What of the program's optimization sequence applied (docs/format.md, the `opts` line), as features.
  if (!applied.empty()) features.push_back("opts:applied");
  for (const std::string& s : skipped) features.push_back("opts:skipped:" + s.substr(0, s.find(':')));
  return "";
}

// The reply's optional `bucket` into `bucket`; why it is malformed, or "". It becomes part of a signature,
// a corpus file's name and a summary key, so it is short and printable.
std::string read_bucket(const nlohmann::json& j, std::string& bucket) {
  const auto it = j.find("bucket");
  if (it == j.end()) return "";
  const std::string text = it->is_string() ? it->get<std::string>() : "";
  const bool printable = std::all_of(text.begin(), text.end(), [](char c) { return c >= ' ' && c <= '~'; });
  if (text.empty() || text.size() > 160 || !printable)
    return "a reply whose 'bucket' is not one line of 1 to 160 printable ASCII characters";
  bucket = text;
  return "";
}

// Why `j` is not a reply with exactly one of the string keys `key` and `error` ("" when it is).
std::string check_one_of(const nlohmann::json& j, const char* key, bool& has_key) {
  const auto k = j.find(key), error = j.find("error");
  has_key = k != j.end();
  const bool has_error = error != j.end() && error->is_string();
  if (has_key == has_error) return std::string("a reply with neither or both of the keys '") + key + "' and 'error'";
  return "";
}

// Why `j` is not a render or export reply ("" when it is one, read into `out`).
std::string check_reply(const nlohmann::json& j, PluginResult& out) {
  bool has_source = false;
  if (std::string bad = check_one_of(j, "source", has_source); !bad.empty()) return bad;
  if (has_source && !j["source"].is_string()) return "a reply whose 'source' is not a string";
  out.ok = has_source;
  (out.ok ? out.source : out.message) = j[out.ok ? "source" : "error"].get<std::string>();
  if (std::string bad = out.ok ? "" : read_bucket(j, out.bucket); !bad.empty()) return bad;
  return read_used(j, out.used, out.features);
}

// Why `j` is not a reach reply ("" when it is one, read into `out`).
std::string check_reach(const nlohmann::json& j, const std::string& level, PluginResult& out) {
  bool has_level = false;
  if (std::string bad = check_one_of(j, "reachable", has_level); !bad.empty()) return bad;
  out.ok = has_level;
  if (!has_level) {
    out.message = j["error"].get<std::string>();
    return "";
  }
  const nlohmann::json &reachable = j["reachable"], &detail = j.value("detail", nlohmann::json());
  if (!reachable.is_string() || (reachable != "kernel" && reachable != level))
    return "a reach reply whose 'reachable' is neither 'kernel' nor '" + level + "'";
  if (!detail.is_string() || detail.get<std::string>().find('\n') != std::string::npos)
    return "a reach reply without a one-line 'detail'";
  out.source = reachable.get<std::string>();
  out.message = detail.get<std::string>();
  return "";
}

// Why `entry` is not one data set's outcome of a run reply for `inputs` ("" when it is, read into `out`).
std::string check_outcome(const nlohmann::json& entry, const Program& p, const std::vector<NativeBuffer>& input,
                          PluginRunOutcome& out) {
  using Status = PluginRunOutcome::Status;
  static const std::pair<const char*, Status> kClasses[] = {
      {"crash", Status::crash}, {"timeout", Status::timeout}, {"compile-error", Status::compile_error}};
  if (!entry.is_object()) return "an 'outputs' entry that is not an object";
  if (const auto cls = entry.find("class"); cls != entry.end()) {
    for (const auto& [name, status] : kClasses)
      if (*cls == name) {
        out.status = status;
        const auto m = entry.find("message");
        out.message = m != entry.end() && m->is_string() ? m->get<std::string>() : "";
        if (const auto sig = entry.find("signal"); sig != entry.end()) {  // optional: what killed a crash
          if (status != Status::crash || !sig->is_number_unsigned() || sig->get<uint64_t>() > 64)
            return "an 'outputs' entry whose 'signal' is not a signal number of a crash";
          out.signal = sig->get<int>();
        }
        return "";
      }
    return "an 'outputs' entry of class " + cls->dump() + " (expected crash, timeout or compile-error)";
  }
  if (entry.size() != p.buffers.size()) return "an 'outputs' entry without exactly one key per BUFFER";
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const std::string slot = std::to_string(p.buffers[b]->slot);
    const auto v = entry.find(slot);
    if (v == entry.end() || !v->is_string()) return "an 'outputs' entry without BUFFER slot " + slot + " as a base64 string";
    const std::optional<std::string> bytes = base64_decode(v->get<std::string>());
    if (!bytes) return "an 'outputs' entry whose slot " + slot + " is not base64";
    if (bytes->size() != input[b].bytes.size())
      return "an 'outputs' entry whose slot " + slot + " has " + std::to_string(bytes->size()) + " bytes, not " +
             std::to_string(input[b].bytes.size());
    NativeBuffer nb = input[b];
    std::memcpy(nb.bytes.data(), bytes->data(), bytes->size());
    out.buffers.push_back(std::move(nb));
  }
  return "";
}

nlohmann::json run_inputs(const Program& p, const std::vector<std::vector<NativeBuffer>>& inputs) {
  nlohmann::json sets = nlohmann::json::array();
  for (const std::vector<NativeBuffer>& input : inputs) {
    nlohmann::json set = nlohmann::json::object();
    for (size_t b = 0; b < p.buffers.size(); ++b)
      set[std::to_string(p.buffers[b]->slot)] =
          base64_encode({reinterpret_cast<const char*>(input[b].bytes.data()), input[b].bytes.size()});
    sets.push_back(std::move(set));
  }
  return sets;
}

}  // namespace uf

// The protocol-2 handshake (see plugin_describe.h).
#include "codegen/plugin_describe.h"

#include "core/opts.h"

#include <algorithm>
#include <set>
#include <nlohmann/json.hpp>

#include "codegen/runtime/process.h"
#include "core/error.h"

namespace uf {

namespace {

struct ProtocolRow {
  RendererProtocol protocol;
  const char* name;
};
constexpr ProtocolRow kProtocols[] = {
    {RendererProtocol::server, "server"},
    {RendererProtocol::batch, "batch"},
    {RendererProtocol::program, "program"},
};

[[noreturn]] void malformed(const std::string& cmd, const std::string& key, const std::string& what) {
  throw UserError("renderer '" + cmd + "' --uopfuzz-describe: key '" + key + "' " + what);
}

// j[key] when it holds a value of `type`, else a UserError naming the key.
const nlohmann::json& field(const nlohmann::json& j, const std::string& key, nlohmann::json::value_t type, const char* expected,
                            const std::string& cmd) {
  const auto it = j.find(key.substr(key.rfind('.') + 1));
  if (it == j.end()) malformed(cmd, key, "is missing");
  const bool number_ok = type == nlohmann::json::value_t::number_integer && it->is_number_integer();
  if (it->type() != type && !number_ok) malformed(cmd, key, std::string("must be ") + expected);
  return *it;
}

std::vector<std::string> strings(const nlohmann::json& list, const std::string& key, const std::string& cmd) {
  std::vector<std::string> out;
  for (const nlohmann::json& v : list) {
    if (!v.is_string()) malformed(cmd, key, "must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool is_format_name(const std::string& f) {
  const auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; };
  return !f.empty() && f[0] >= 'a' && f[0] <= 'z' && std::all_of(f.begin(), f.end(), word);
}

}  // namespace

namespace {

// A row's name by its value, and its value by name, in one of the name tables above.
template <class Value, size_t N, class Row>
const char* name_in(const Row (&table)[N], Value Row::*value, Value v) {
  for (const Row& r : table)
    if (r.*value == v) return r.name;
  return "?";
}
template <class Value, size_t N, class Row>
std::optional<Value> value_in(const Row (&table)[N], Value Row::*value, const std::string& name) {
  for (const Row& r : table)
    if (name == r.name) return r.*value;
  return std::nullopt;
}

}  // namespace

std::string protocol_name(RendererProtocol p) { return name_in(kProtocols, &ProtocolRow::protocol, p); }
std::optional<RendererProtocol> protocol_from_name(const std::string& name) { return value_in(kProtocols, &ProtocolRow::protocol, name); }

std::string PluginTarget::text() const {
  if (name.empty()) return "";
  return version.empty() ? name : name + " " + version;
}

bool PluginDescription::serves(RendererProtocol p) const { return std::find(modes.begin(), modes.end(), p) != modes.end(); }

RendererProtocol PluginDescription::best_mode() const {
  for (const ProtocolRow& r : kProtocols)  // the table is in order of preference
    if (serves(r.protocol)) return r.protocol;
  return RendererProtocol::program;
}

namespace {

// The optional keys that describe the switches for target coverage: `reachable` and `switch_source`, each
// naming switches only.
void read_coverage_keys(const nlohmann::json& j, const std::string& cmd, PluginDescription& d) {
  const std::set<std::string> known(d.switches.begin(), d.switches.end());
  auto check_switch = [&](const char* key, const std::string& name) {
    if (!known.count(name)) malformed(cmd, key, "names '" + name + "', which is not one of its switches");
  };
  if (const auto it = j.find("reachable"); it != j.end()) {
    if (!it->is_array()) malformed(cmd, "reachable", "must be a list");
    d.reachable = strings(*it, "reachable", cmd);
    for (const std::string& s : d.reachable) check_switch("reachable", s);
  }
  if (const auto it = j.find("switch_source"); it != j.end()) {
    if (!it->is_object()) malformed(cmd, "switch_source", "must be an object {switch: text}");
    for (const auto& [name, text] : it->items()) {
      check_switch("switch_source", name);
      if (!text.is_string()) malformed(cmd, "switch_source", "has a value for '" + name + "' that is not a string");
      d.switch_source[name] = text.get<std::string>();
    }
  }
}

// The optional keys of what the target suggests for a campaign: paths, and its sibling backends.
void read_suggestion_keys(const nlohmann::json& j, const std::string& cmd, PluginDescription& d) {
  const auto path = [&](const char* key, const nlohmann::json& v) {
    if (!v.is_string() || v.get<std::string>().empty()) malformed(cmd, key, "must be a path (a non-empty string)");
    return v.get<std::string>();
  };
  if (const auto it = j.find("policy"); it != j.end()) d.policy = path("policy", *it);
  if (const auto it = j.find("known"); it != j.end()) d.known = path("known", *it);
  for (auto [key, to] : {std::pair{"cc", &d.cc}, {"cflags", &d.cflags}, {"command", &d.command}})
    if (const auto it = j.find(key); it != j.end()) {
      if (!it->is_string()) malformed(cmd, key, "must be a string");
      *to = it->get<std::string>();
    }
  if (const auto it = j.find("seeds"); it != j.end()) {
    if (!it->is_array()) malformed(cmd, "seeds", "must be a list of directories");
    for (const nlohmann::json& v : *it) d.seeds.push_back(path("seeds", v));
  }
  if (const auto it = j.find("backends"); it != j.end()) {
    if (!it->is_array()) malformed(cmd, "backends", "must be a list of {name, renderer, cc, cflags}");
    for (const nlohmann::json& b : *it) {
      if (!b.is_object()) malformed(cmd, "backends", "must be a list of {name, renderer, cc, cflags}");
      using T = nlohmann::json::value_t;
      PluginDescription::Backend row{field(b, "backends.name", T::string, "a string", cmd).get<std::string>(),
                                     field(b, "backends.renderer", T::string, "a string", cmd).get<std::string>(), "", ""};
      if (!is_format_name(row.name)) malformed(cmd, "backends", "has '" + row.name + "' (a name is a lowercase word)");
      for (auto [key, to] : {std::pair{"cc", &row.cc}, {"cflags", &row.cflags}})
        if (const auto v = b.find(key); v != b.end()) {
          if (!v->is_string()) malformed(cmd, std::string("backends.") + key, "must be a string");
          *to = v->get<std::string>();
        }
      d.backends.push_back(std::move(row));
    }
  }
}

}  // namespace

// The ops core/ops.def marks APPROX, for a message.
std::string approximate_names() {
  std::string names;
  for (int i = 0; i < kNumOps; ++i)
    if (may_approximate(static_cast<Op>(i))) names += (names.empty() ? "" : ", ") + std::string(name(static_cast<Op>(i)));
  return names;
}

std::optional<PluginDescription> parse_description(const std::string& json, const std::string& cmd) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  using T = nlohmann::json::value_t;
  PluginDescription d;
  d.protocol = field(j, "protocol", T::number_integer, "an integer", cmd).get<int>();
  if (d.protocol > kPluginProtocol)
    throw UserError("renderer '" + cmd + "' speaks protocol " + std::to_string(d.protocol) + "; this uopfuzz speaks up to " +
                    std::to_string(kPluginProtocol) + " (a newer uopfuzz is needed)");
  if (d.protocol < kPluginProtocol) malformed(cmd, "protocol", "must be 2 in a handshake");
  for (const std::string& m : strings(field(j, "modes", T::array, "a list", cmd), "modes", cmd)) {
    const std::optional<RendererProtocol> p = protocol_from_name(m);
    if (!p) malformed(cmd, "modes", "has '" + m + "' (expected server, batch or program)");
    d.modes.push_back(*p);
  }
  if (d.modes.empty()) malformed(cmd, "modes", "must not be empty");
  const std::string language = field(j, "language", T::string, "a string", cmd).get<std::string>();
  const std::optional<OutputLanguage> l = language_from_name(language);
  if (!l) malformed(cmd, "language", "is '" + language + "' (expected " + language_names() + ")");
  d.language = *l;
  if (language_row(d.language).executes() && (d.modes.size() != 1 || d.modes[0] != RendererProtocol::server))
    malformed(cmd, "modes", "must be [\"server\"] for language '" + language + "' (programs are run in server requests)");
  const nlohmann::json& target = field(j, "target", T::object, "an object {name, version}", cmd);
  d.target.name = field(target, "target.name", T::string, "a string", cmd).get<std::string>();
  d.target.version = field(target, "target.version", T::string, "a string", cmd).get<std::string>();
  d.without = strings(field(j, "without", T::array, "a list", cmd), "without", cmd);
  if (const auto it = j.find("one_unit"); it != j.end()) {  // optional
    if (!it->is_boolean()) malformed(cmd, "one_unit", "must be true or false");
    d.one_unit = it->get<bool>();
  }
  if (const auto it = j.find("switches"); it != j.end()) {  // optional
    if (!it->is_array()) malformed(cmd, "switches", "must be a list");
    d.switches = strings(*it, "switches", cmd);
    for (const std::string& s : d.switches)
      if (s.empty() || std::any_of(s.begin(), s.end(), [](char c) { return c <= ' ' || c > '~' || c == ','; }))
        malformed(cmd, "switches", "has '" + s + "' (a name is printable ASCII without blanks or commas)");
    if (!d.switches.empty() && !d.serves(RendererProtocol::server))
      malformed(cmd, "switches", "needs the server mode (switches travel in server requests)");
  }
  read_coverage_keys(j, cmd, d);
  read_suggestion_keys(j, cmd, d);
  if (const auto it = j.find("opts"); it != j.end()) {  // optional
    if (!it->is_array()) malformed(cmd, "opts", "must be a list");
    d.opts = strings(*it, "opts", cmd);
    for (const std::string& a : d.opts)
      if (!parse_opt(a) || a.find(':') != std::string::npos)
        malformed(cmd, "opts", "has '" + a + "' (an action is a capitalized word: [A-Z][A-Z_]*)");
  }
  if (const auto it = j.find("approximate"); it != j.end()) {  // optional
    if (!it->is_array()) malformed(cmd, "approximate", "must be a list");
    for (const std::string& n : strings(*it, "approximate", cmd)) {
      const std::optional<Op> op = parse_op(n);
      if (!op || !may_approximate(*op)) malformed(cmd, "approximate", "has '" + n + "' (an op that may be approximate: " + approximate_names() + ")");
      d.approximate.push_back(*op);
    }
  }
  if (const auto it = j.find("exports"); it != j.end()) {  // optional
    if (!it->is_array()) malformed(cmd, "exports", "must be a list");
    d.exports = strings(*it, "exports", cmd);
    for (const std::string& f : d.exports)
      if (!is_format_name(f)) malformed(cmd, "exports", "has '" + f + "' (a format is a lowercase word: [a-z][a-z0-9_-]*)");
    if (!d.exports.empty() && !d.serves(RendererProtocol::server))
      malformed(cmd, "exports", "needs the server mode (exports are server requests)");
  }
  if (const auto it = j.find("reach"); it != j.end()) {  // optional
    if (!it->is_string() || !is_format_name(it->get<std::string>()) || it->get<std::string>() == "kernel")
      malformed(cmd, "reach", "must be a lowercase word other than 'kernel' ([a-z][a-z0-9_-]*)");
    d.reach = it->get<std::string>();
    if (!d.serves(RendererProtocol::server)) malformed(cmd, "reach", "needs the server mode (reach is a server request)");
  }
  return d;
}

PluginDescription describe_plugin(const std::string& cmd) {
  std::vector<std::string> argv = split_command(cmd);
  if (argv.empty()) throw UserError("the renderer command is empty");
  argv.push_back("--uopfuzz-describe");
  ProcessOptions po;
  po.timeout_s = kDescribeTimeoutS;
  po.max_stdout = size_t{1} << 20;
  const ProcessResult r = run_process(argv, po);
  if (!r.ok()) {
    PluginDescription d;
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    if (!err.empty() && r.started) d.handshake_failure = r.describe() + ": " + err.substr(err.rfind('\n') + 1);
    return d;
  }
  return parse_description(r.out, cmd).value_or(PluginDescription{});
}

}  // namespace uf

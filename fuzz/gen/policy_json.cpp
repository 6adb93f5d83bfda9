// GenPolicy <-> JSON (policy_json.h): a walk over policy.def's rows (policy_table.h); each knob's JSON
// shape follows from its type (a table keyed by name, a plain array, a number or a boolean).
#include "fuzz/gen/policy_json.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "core/error.h"
#include "fuzz/gen/policy_table.h"

namespace uf {

namespace {

// The JSON keys of a table keyed by name, with the array index each stands for.
template <class E>
std::vector<std::pair<std::string, size_t>> keys(const Weights<E>&) {
  std::vector<std::pair<std::string, size_t>> out;
  const auto n = enum_names(E{});
  for (size_t i = 0; i < n.size(); ++i) out.emplace_back(n[i], i);
  return out;
}
template <class T>
std::vector<std::pair<std::string, size_t>> keys(const PerOp<T>&) {
  std::vector<std::pair<std::string, size_t>> out;
  for (Op op : kAluOps) out.emplace_back(name(op), static_cast<size_t>(op));
  return out;
}
template <class T>
std::vector<std::pair<std::string, size_t>> keys(const PerDType<T>&) {
  std::vector<std::pair<std::string, size_t>> out;
  for (DType d : kValueDTypes) out.emplace_back(name(d), static_cast<size_t>(d));
  return out;
}
template <class T>
concept KeyedByName = requires(const T& t) {
  keys(t);
};
template <class>
constexpr bool is_enum_weights = false;
template <class E>
constexpr bool is_enum_weights<Weights<E>> = true;

// visit(p, v): v(key, member) for every knob of p (GenPolicy or const GenPolicy).
template <class P, class V>
void visit(P& p, V&& v) {
  for_each_knob([&](const Knob& k, auto m) { v(k.name, p.*m); });
}

struct ToJson {
  nlohmann::json& j;
  template <class T>
  void operator()(const char* key, const T& x) {
    if constexpr (KeyedByName<T>) {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [k, i] : keys(x)) o[k] = x[i];
      j[key] = o;
    } else {
      j[key] = x;
    }
  }
};

// One value: its type and range by the field's C++ type and name (p_*: a probability).
struct Reader {
  std::string key;
  void bad(const std::string& what) const { throw UserError(key + ": " + what); }
  void read(const nlohmann::json& v, bool& x) const {
    if (!v.is_boolean()) bad("expected true or false, got " + v.dump());
    x = v.get<bool>();
  }
  template <class I>
  requires std::is_integral_v<I>
  void read(const nlohmann::json& v, I& x) const {
    if (!v.is_number_integer()) bad("expected an integer, got " + v.dump());
    const int64_t n = v.get<int64_t>();
    if (n < 0 || (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<I>::max())) ||
        n > static_cast<int64_t>(std::numeric_limits<I>::max()))
      bad("expected a non-negative integer that fits, got " + v.dump());
    x = static_cast<I>(n);
  }
  void read(const nlohmann::json& v, double& x, bool probability) const {
    if (!v.is_number()) bad("expected a number, got " + v.dump());
    const double d = v.get<double>();
    if (probability && !(d >= 0 && d <= 1)) bad("a probability must lie in [0, 1], got " + v.dump());
    if (!(d >= 0)) bad("a weight must not be negative, got " + v.dump());
    x = d;
  }
  void read(const nlohmann::json& v, double& x) const { read(v, x, key.rfind("p_", 0) == 0); }
};

struct FromJson {
  const nlohmann::json& j;
  template <class T>
  void operator()(const char* key, T& x) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if constexpr (KeyedByName<T>) {
      read_by_name(key, *it, x);
    } else if constexpr (requires { std::tuple_size<T>::value; }) {
      if (!it->is_array() || it->size() != x.size())
        Reader{key}.bad("expected an array of " + std::to_string(x.size()) + " numbers, got " + it->dump());
      for (size_t i = 0; i < x.size(); ++i) Reader{std::string(key) + "[" + std::to_string(i) + "]"}.read((*it)[i], x[i], false);
    } else {
      Reader{key}.read(*it, x);
    }
  }
  template <class T>
  static void read_by_name(const char* key, const nlohmann::json& v, T& a) {
    if (!v.is_object()) Reader{key}.bad("expected an object keyed by name, got " + v.dump());
    const auto ks = keys(a);
    for (const auto& item : v.items()) {
      const std::string& k = item.key();  // not a structured binding: clang 14 (the libFuzzer build) cannot capture one
      const auto at = std::find_if(ks.begin(), ks.end(), [&k](const auto& e) { return e.first == k; });
      if (at == ks.end()) {
        std::string valid;
        for (const auto& e : ks) valid += " " + e.first;
        Reader{key}.bad("unknown name '" + k + "'; valid names:" + valid);
      }
      if constexpr (std::is_same_v<typename T::value_type, double>)
        Reader{std::string(key) + "." + k}.read(item.value(), a[at->second], false);
      else
        Reader{std::string(key) + "." + k}.read(item.value(), a[at->second]);
    }
    // An enumerator-keyed table is drawn from whenever its step runs: it needs something to draw.
    if constexpr (is_enum_weights<T>)
      if (std::all_of(a.begin(), a.end(), [](double w) { return w <= 0; })) Reader{key}.bad("every weight is 0");
  }
};

}  // namespace

nlohmann::json policy_to_json(const GenPolicy& p) {
  nlohmann::json j = nlohmann::json::object();
  visit(p, ToJson{j});
  return j;
}

void apply_policy_json(GenPolicy& p, const nlohmann::json& j) {
  if (!j.is_object()) throw UserError("expected a JSON object of policy keys (uopfuzz policy prints one)");
  std::vector<std::string> known;
  for_each_knob([&known](const Knob& k, auto) { known.emplace_back(k.name); });
  for (const auto& [k, v] : j.items())
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw UserError(k + ": unknown key (uopfuzz policy prints every key)");
  visit(p, FromJson{j});
  // A range drawn in [min_X, max_X] must not be empty.
  nlohmann::json all = policy_to_json(p);
  for (const auto& [k, v] : all.items())
    if (k.rfind("min_", 0) == 0) {
      const std::string mx = "max_" + k.substr(4);
      if (all.contains(mx) && v.get<int64_t>() > all[mx].get<int64_t>())
        throw UserError(k + ": " + v.dump() + " is above " + mx + " (" + all[mx].dump() + ")");
    }
  if (p.min_outputs < 1) throw UserError("min_outputs: a program writes at least one BUFFER, got 0");
  for (const double percent : p.size_arms_percent)
    if (!(percent > 0 && percent <= 100)) throw UserError("size_arms_percent: each percent must lie in (0, 100]");
  if (!(p.size_discount > 0 && p.size_discount <= 1)) throw UserError("size_discount: must lie in (0, 1]");
}

GenPolicy policy_from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot read file");
  std::stringstream text;
  text << in.rdbuf();
  GenPolicy p;
  try {
    apply_policy_json(p, nlohmann::json::parse(text.str()));
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(path + ": not JSON (" + e.what() + ")");
  } catch (const UserError& e) { throw UserError(path + ": " + e.what()); }
  return p;
}

namespace {

template <class T>
std::string type_of(const char* key, const T&) {
  if constexpr (std::is_same_v<T, bool>)
    return "boolean";
  else if constexpr (std::is_integral_v<T>)
    return "integer";
  else if constexpr (std::is_same_v<T, double>)
    return std::string(key).rfind("p_", 0) == 0 ? "probability" : "number";
  else if constexpr (is_enum_weights<T>)
    return "weights by enumerator";
  else if constexpr (std::is_same_v<T, PerOp<bool>>)
    return "flags by ALU op";
  else if constexpr (std::is_same_v<T, PerOp<double>>)
    return "weights by ALU op";
  else if constexpr (std::is_same_v<T, PerDType<double>>)
    return "weights by dtype";
  else
    return "array of " + std::to_string(std::tuple_size_v<T>) + " weights";
}

// The enumerator names of a table's entries `at`, "" for a knob that is no Weights<E>.
template <class T>
std::string entry_names(const T&, const std::array<int, 2>&) {
  return "";
}
template <class E>
std::string entry_names(const Weights<E>&, const std::array<int, 2>& at) {
  std::string out;
  for (int e : at)
    if (e >= 0) out += std::string(out.empty() ? "" : ", ") + enum_names(E{})[static_cast<size_t>(e)];
  return out;
}

std::string keep_name(double GenPolicy::*keep) {
  std::string out;
  for_each_knob([&](const Knob& k, auto m) {
    if constexpr (std::is_same_v<decltype(m), double GenPolicy::*>)
      if (m == keep) out = k.name;
  });
  return out;
}

template <class T>
std::string describe_swarm(const Swarm& s, const T& x) {
  std::string out;
  for (int i = 0; i < s.count; ++i) {
    const SwarmRule& r = s.rules[i];
    const std::string at = entry_names(x, r.at), keep = "`" + keep_name(r.keep) + "`";
    if (!out.empty()) out += "; ";
    if (r.kind == SwarmRule::Thin)
      out += "thinned by " + keep + (at.empty() ? "" : ", " + at + " kept");
    else
      out += (at.empty() ? "zeroed" : at + " zeroed") + " unless " + keep;
  }
  return out.empty() ? "—" : out;
}

}  // namespace

std::string policy_markdown() {
  const GenPolicy defaults;
  std::string out = "| key | type | default | swarm | `--without` | meaning |\n|---|---|---|---|---|---|\n";
  const char* section = nullptr;
  for_each_knob([&](const Knob& k, auto m) {
    if (section != k.section) out += std::string("| **") + (section = k.section) + "** | | | | | |\n";
    nlohmann::json j;
    ToJson{j}(k.name, defaults.*m);
    const std::string without = *k.without ? std::string("`") + k.without + "`" : "—";
    out += std::string("| `") + k.name + "` | " + type_of(k.name, defaults.*m) + " | `" + j[k.name].dump() + "` | " +
           describe_swarm(k.swarm, defaults.*m) + " | " + without + " | " + k.doc + " |\n";
  });
  return out;
}

}  // namespace uf

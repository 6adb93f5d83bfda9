// GenPolicy <-> JSON (policy_json.h): one table of fields (visit()) serves printing, reading and the
// completeness test; the enumerators' names live here, one consteval table per enum of policy.h.
#include "fuzz/gen/policy_json.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.h"

namespace uf {

namespace {

template <class E, size_t N>
consteval std::array<const char*, count_of<E>()> names(const char* const (&n)[N]) {
  static_assert(N == count_of<E>(), "a name table names every enumerator");
  std::array<const char*, count_of<E>()> out{};
  for (size_t i = 0; i < N; ++i) out[i] = n[i];
  return out;
}

// In enum order (policy.h). An enum used in a table without an overload here does not compile.
constexpr auto enum_names(Step) {
  return names<Step>({"Alu", "Chain", "Load", "Gather", "Scratch", "Accumulate", "ReadModifyWrite", "Scatter",
                      "StoreReload", "Vector", "Loop"});
}
constexpr auto enum_names(Leaf) { return names<Leaf>({"Reuse", "Const", "Load", "Cast"}); }
constexpr auto enum_names(ValueKind) {
  return names<ValueKind>({"Edge", "Small", "Bits", "Precise", "Fraction", "Boundary"});
}
constexpr auto enum_names(IndexClamp) { return names<IndexClamp>({"FloorMod", "AndMask", "CModOfMax", "WhereInRange"}); }
constexpr auto enum_names(ShiftAmount) {
  return names<ShiftAmount>({"Operand", "ConstInRange", "ConstWide", "AndMask", "FloorMod", "MaxZero"});
}
constexpr auto enum_names(Numerator) { return names<Numerator>({"CastU8", "CastBool", "AndMask", "MaxZero"}); }
constexpr auto enum_names(Divisor) { return names<Divisor>({"Operand", "ConstPositive", "ConstNegative", "ConstEdge"}); }
constexpr auto enum_names(FloatGuard) { return names<FloatGuard>({"WhereAnd", "WhereMul", "Constant"}); }
constexpr auto enum_names(AccUpdate) { return names<AccUpdate>({"MulAcc", "AddMul", "Other"}); }
constexpr auto enum_names(LoopRead) { return names<LoopRead>({"Flat", "Offset", "Div", "Mod", "PadAfter", "PadBefore"}); }
constexpr auto enum_names(LoopKind) { return names<LoopKind>({"Map", "SameBuffer", "Reduce"}); }

// How an array field is keyed in JSON.
template <class E>
struct ByEnum {};
template <class>
constexpr bool is_by_enum = false;
template <class E>
constexpr bool is_by_enum<ByEnum<E>> = true;
struct ByOp {};     // ALU op names (op_weight, op_banned)
struct ByDType {};  // value dtype names (dtype_weight)

// Every field of GenPolicy, in policy.h's order. P is GenPolicy or const GenPolicy.
template <class P, class V>
void visit(P& p, V&& v) {
  v("min_steps", p.min_steps); v("max_steps", p.max_steps); v("max_nodes", p.max_nodes);
  v("min_inputs", p.min_inputs); v("max_inputs", p.max_inputs);
  v("min_outputs", p.min_outputs); v("max_outputs", p.max_outputs);
  v("max_len", p.max_len); v("max_long_len", p.max_long_len); v("p_long_buffer", p.p_long_buffer);
  v("max_alloc_len", p.max_alloc_len); v("min_acc_steps", p.min_acc_steps); v("max_acc_steps", p.max_acc_steps);
  v("op_weight", p.op_weight, ByOp{}); v("dtype_weight", p.dtype_weight, ByDType{}); v("op_banned", p.op_banned, ByOp{});
  v("step_weight", p.step_weight, ByEnum<Step>{});
  v("min_chain_len", p.min_chain_len); v("max_chain_len", p.max_chain_len);
  v("max_lanes", p.max_lanes); v("p_vector_load", p.p_vector_load); v("p_vector_reuse", p.p_vector_reuse);
  v("p_vector_broadcast", p.p_vector_broadcast); v("p_gep_lane", p.p_gep_lane); v("p_vector_store", p.p_vector_store);
  v("p_keep_loop", p.p_keep_loop); v("p_force_loop", p.p_force_loop); v("max_loop_iterations", p.max_loop_iterations);
  v("loop_depth_weight", p.loop_depth_weight); v("trip_weight", p.trip_weight); v("p_runtime_trips", p.p_runtime_trips);
  v("loop_kind_weight", p.loop_kind_weight, ByEnum<LoopKind>{}); v("p_reduce_inner", p.p_reduce_inner);
  v("loop_read_weight", p.loop_read_weight, ByEnum<LoopRead>{}); v("max_loop_offset", p.max_loop_offset);
  v("p_second_read", p.p_second_read); v("p_range_operand", p.p_range_operand);
  v("min_loop_ops", p.min_loop_ops); v("max_loop_ops", p.max_loop_ops); v("p_gated_store", p.p_gated_store);
  v("p_loop_write_div", p.p_loop_write_div); v("p_identity_init", p.p_identity_init); v("p_end_each", p.p_end_each);
  v("max_folded_loop_values", p.max_folded_loop_values);
  v("leaf_weight", p.leaf_weight, ByEnum<Leaf>{}); v("p_recent", p.p_recent); v("recent_window", p.recent_window);
  v("p_unused", p.p_unused); v("p_dynamic_index", p.p_dynamic_index);
  v("const_value_weight", p.const_value_weight, ByEnum<ValueKind>{});
  v("data_value_weight", p.data_value_weight, ByEnum<ValueKind>{});
  v("precise_exponent", p.precise_exponent); v("small_int", p.small_int); v("small_float", p.small_float);
  v("p_edge_special", p.p_edge_special); v("p_random_output_data", p.p_random_output_data);
  v("clamp_weight", p.clamp_weight, ByEnum<IndexClamp>{}); v("shift_weight", p.shift_weight, ByEnum<ShiftAmount>{});
  v("p_nonneg_numerator", p.p_nonneg_numerator); v("numerator_weight", p.numerator_weight, ByEnum<Numerator>{});
  v("divisor_weight", p.divisor_weight, ByEnum<Divisor>{}); v("guard_weight", p.guard_weight, ByEnum<FloatGuard>{});
  v("p_unguarded", p.p_unguarded); v("p_identity_cast", p.p_identity_cast);
  v("p_pow_operand_exponent", p.p_pow_operand_exponent); v("p_narrow_cast_edge", p.p_narrow_cast_edge);
  v("p_swap_operands", p.p_swap_operands);
  v("p_scratch_partial", p.p_scratch_partial); v("p_scratch_overwrite", p.p_scratch_overwrite);
  v("acc_update_weight", p.acc_update_weight, ByEnum<AccUpdate>{}); v("p_acc_init_zero", p.p_acc_init_zero);
  v("p_acc_from_buffers", p.p_acc_from_buffers); v("p_war_store", p.p_war_store);
  v("p_after_on_index", p.p_after_on_index); v("p_redundant_after", p.p_redundant_after);
  v("p_keep_all_deps", p.p_keep_all_deps); v("p_spurious_after", p.p_spurious_after);
  v("allow_alloc", p.allow_alloc); v("allow_after", p.allow_after);
  v("p_fill_output", p.p_fill_output); v("p_consume_unused", p.p_consume_unused); v("p_fold_unused", p.p_fold_unused);
  v("p_dead_code", p.p_dead_code); v("max_dead_nodes", p.max_dead_nodes); v("p_dead_store", p.p_dead_store);
  v("p_untouched_buffer", p.p_untouched_buffer); v("p_observe_intermediates", p.p_observe_intermediates);
  v("observed_steps_percent", p.observed_steps_percent);
  v("p_swarm", p.p_swarm); v("p_keep_op", p.p_keep_op); v("p_keep_dtype", p.p_keep_dtype);
  v("p_keep_step", p.p_keep_step); v("p_keep_feature", p.p_keep_feature);
}

// The JSON keys of an array keyed by name, with the array index each stands for.
template <class E>
std::vector<std::pair<std::string, size_t>> keys(ByEnum<E>) {
  std::vector<std::pair<std::string, size_t>> out;
  const auto n = enum_names(E{});
  for (size_t i = 0; i < n.size(); ++i) out.emplace_back(n[i], i);
  return out;
}
std::vector<std::pair<std::string, size_t>> keys(ByOp) {
  std::vector<std::pair<std::string, size_t>> out;
  for (Op op : kAluOps) out.emplace_back(name(op), static_cast<size_t>(op));
  return out;
}
std::vector<std::pair<std::string, size_t>> keys(ByDType) {
  std::vector<std::pair<std::string, size_t>> out;
  for (DType d : kValueDTypes) out.emplace_back(name(d), static_cast<size_t>(d));
  return out;
}

struct ToJson {
  nlohmann::json& j;
  template <class T>
  void operator()(const char* key, const T& x) { j[key] = x; }
  template <class T, size_t N, class By>
  void operator()(const char* key, const std::array<T, N>& a, By by) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, i] : keys(by)) o[k] = a[i];
    j[key] = o;
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
  size_t used = 0;
  template <class T>
  void operator()(const char* key, T& x) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    ++used;
    if constexpr (requires { std::tuple_size<T>::value; }) {
      if (!it->is_array() || it->size() != x.size())
        Reader{key}.bad("expected an array of " + std::to_string(x.size()) + " numbers, got " + it->dump());
      for (size_t i = 0; i < x.size(); ++i) Reader{std::string(key) + "[" + std::to_string(i) + "]"}.read((*it)[i], x[i], false);
    } else {
      Reader{key}.read(*it, x);
    }
  }
  template <class T, size_t N, class By>
  void operator()(const char* key, std::array<T, N>& a, By by) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    ++used;
    if (!it->is_object()) Reader{key}.bad("expected an object keyed by name, got " + it->dump());
    const auto ks = keys(by);
    for (const auto& item : it->items()) {
      const std::string& k = item.key();  // not a structured binding: clang 14 (the libFuzzer build) cannot capture one
      const auto& v = item.value();
      const auto at = std::find_if(ks.begin(), ks.end(), [&k](const auto& e) { return e.first == k; });
      if (at == ks.end()) {
        std::string valid;
        for (const auto& e : ks) valid += " " + e.first;
        Reader{key}.bad("unknown name '" + k + "'; valid names:" + valid);
      }
      if constexpr (std::is_same_v<T, double>) Reader{std::string(key) + "." + k}.read(v, a[at->second], false);
      else Reader{std::string(key) + "." + k}.read(v, a[at->second]);
    }
    // An enumerator-keyed table is drawn from whenever its step runs: it needs something to draw.
    if constexpr (is_by_enum<By>)
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
  visit(p, [&known](const char* key, auto&&...) { known.emplace_back(key); });
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
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
  return p;
}

std::string policy_json_missing_field() {
  // The bytes the default constructor writes: the same over a 0x00- and a 0xff-filled object (padding
  // keeps what the filling left). Each must lie in a field the table names.
  alignas(GenPolicy) unsigned char zeros[sizeof(GenPolicy)], ones[sizeof(GenPolicy)];
  std::memset(zeros, 0, sizeof zeros);
  std::memset(ones, 0xff, sizeof ones);
  const GenPolicy* p = new (zeros) GenPolicy;
  new (ones) GenPolicy;
  std::vector<bool> covered(sizeof(GenPolicy));
  visit(*p, [&](const char*, const auto& x, auto&&...) {
    const auto at = static_cast<size_t>(reinterpret_cast<const unsigned char*>(&x) - zeros);
    for (size_t i = at; i < at + sizeof(x); ++i) covered[i] = true;
  });
  for (size_t i = 0; i < sizeof(GenPolicy); ++i)
    if (!covered[i] && zeros[i] == ones[i]) return "byte " + std::to_string(i) + " of GenPolicy is in no key's field";
  return "";
}

}  // namespace uf

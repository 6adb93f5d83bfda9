// The data table of per-op C rules, and the CAST/BITCAST/constant rules that depend on two dtypes.
//
// One row per ALU op (CAST and BITCAST aside: cast_expr), one format per dtype class: boolean, integer,
// narrow_float (f16, bf16, fp8s), f32, f64, and native_f16. `$0 $1 $2` are the
// operands' C expressions and `$t` the operand dtype's name (helpers are named uf_OP_DTYPE, defined in
// the prelude). Why each class is written the way it is:
//  - integers go through prelude helpers (wrapping on uint64_t: no signed overflow, no promotion traps);
//    comparisons, WHERE and the bitwise ops are plain C because they cannot overflow or trap;
//  - f32/f64 + - * / and sqrt are plain C: binary64-then-round-to-f32 equals the direct f32 operation
//    (53 >= 2*24+2, so the double rounding is innocuous); f64 is the reference itself;
//  - narrow float ops compute in binary64 and truncate once with uf_round_$t, exactly as the reference
//    (bf16's helper rounds twice, through f32, because tinygrad does); NEG goes through uf_neg_$t
//    because the fnuz formats have no -0.0;
//  - MULACC on floats is a*b then +c in binary64 and one rounding (never fused: -ffp-contract=off, and
//    every f32/f64 product through uf_product_*, opaque to gcc 12's SLP fmaddsub);
//  - EXP2/LOG2/SIN are the binary64 library calls on the double value, then rounded (not exp2f/sinf);
//  - TRUNC goes through uf_trunc_* so a zero result is +0.0 like Python's math.trunc;
//  - bool ADD/MUL/SUB are or/and/xor, NEG is the identity.
// native_f16 is f16 under --f16 native (values of C type uf_h, `$t` is `h`); unset, it means the
// narrow_float helper, which then rounds with uf_round_h. Native are only ops whose
// _Float16 result is the reference's: + - * 1/x sqrt are correctly rounded whether done in binary16 or
// in float and rounded once more (24 >= 2*11+2), and the prelude's uf_hadd & co. cast every result to
// _Float16, which ends any excess precision; NEG is a sign flip (-0.0 included); comparisons, WHERE
// and MAX compare exactly. MULACC, EXP2, LOG2, SIN and POW stay helpers (binary64, rounded once).
//
// The table is indexed by op and built at compile time (rules_by_op): a missing or repeated row, a row
// for an op without one, or a column the op's operand class (ops.def) needs left unset or one it never
// takes set, does not compile.
#include "codegen/render/rules.h"

#include <array>
#include <cmath>
#include <utility>

#include "core/error.h"

namespace uf {

namespace {

// Which column of a rule an operand dtype reads.
enum class DTypeClass : uint8_t { Boolean, Integer, NarrowFloat, F32, F64, NativeF16 };

// One format per dtype class; nullptr: the type rules never allow the op on that class (native_f16:
// the narrow_float helper).
struct Formats {
  const char* boolean = nullptr;
  const char* integer = nullptr;
  const char* narrow_float = nullptr;
  const char* f32 = nullptr;
  const char* f64 = nullptr;
  const char* native_f16 = nullptr;
};

struct OpRule {
  Op op = Op::CONST;
  Formats formats;
  const char* fast = nullptr;  // the division fast path, when the caller proves it exact
};

// One format for the five classes; native f16 as narrow float (a helper).
constexpr Formats all_classes(const char* f) { return {f, f, f, f, f, nullptr}; }

// The ops with a row: the ALU ops but CAST and BITCAST, whose C depends on two dtypes (cast_expr).
constexpr bool has_rule(Op op) { return is_alu(op) && !is_conversion(op); }

// Whether the type rules let `op` take operands of class c (the columns a row must fill, and no others).
constexpr bool takes(Op op, DTypeClass c) {
  const bool boolean = c == DTypeClass::Boolean, integer = c == DTypeClass::Integer;
  switch (info(op).operands) {
    case OperandClass::ANY: return true;
    case OperandClass::INT: return integer;
    case OperandClass::INT_BOOL: return boolean || integer;
    case OperandClass::FLOAT: return !boolean && !integer;
    case OperandClass::NUM: return !boolean;
  }
  return false;
}

// The rows indexed by op. Every op with a rule has exactly one row, and each row fills exactly the
// columns its op's operand class allows (native_f16 optional); consteval makes any slip a compile error.
template <size_t N>
consteval std::array<OpRule, kNumOps> rules_by_op(const OpRule (&rows)[N]) {
  static_assert(N == kOpsWhere<has_rule>.size(), "a rule table has one row per ALU op but CAST and BITCAST");
  std::array<OpRule, kNumOps> table{};
  std::array<bool, kNumOps> seen{};
  for (const OpRule& r : rows) {
    const auto i = static_cast<size_t>(r.op);
    if (!has_rule(r.op)) throw "a rule for an op that has none (not ALU, or CAST/BITCAST)";
    if (seen[i]) throw "two rules for one op";
    const Formats& f = r.formats;
    const std::pair<DTypeClass, const char*> columns[] = {{DTypeClass::Boolean, f.boolean},
                                                          {DTypeClass::Integer, f.integer},
                                                          {DTypeClass::NarrowFloat, f.narrow_float},
                                                          {DTypeClass::F32, f.f32},
                                                          {DTypeClass::F64, f.f64}};
    for (const auto& [c, fmt] : columns)
      if (takes(r.op, c) != (fmt != nullptr)) throw "a rule's columns are not its operand class's";
    if (f.native_f16 && !takes(r.op, DTypeClass::NarrowFloat)) throw "a native f16 rule for an op without floats";
    seen[i] = true;
    table[i] = r;
  }
  return table;
}

constexpr std::array<OpRule, kNumOps> kRules = rules_by_op({
    {Op::ADD, {"($0|$1)", "uf_add_$t($0,$1)", "uf_round_$t((double)$0+(double)$1)", "($0+$1)", "($0+$1)", "uf_hadd($0,$1)"}},
    {Op::SUB, {"($0^$1)", "uf_sub_$t($0,$1)", "uf_round_$t((double)$0-(double)$1)", "($0-$1)", "($0-$1)", "uf_hsub($0,$1)"}},
    {Op::MUL, {"($0&$1)", "uf_mul_$t($0,$1)", "uf_round_$t((double)$0*(double)$1)", "uf_product_f32($0,$1)", "uf_product_f64($0,$1)", "uf_hmul($0,$1)"}},
    {Op::MAX, all_classes("uf_max_$t($0,$1)")},
    {Op::CMPLT, all_classes("($0<$1)")},
    {Op::CMPNE, all_classes("($0!=$1)")},
    {Op::CMPEQ, all_classes("($0==$1)")},
    {Op::NEG, {"$0", "uf_neg_$t($0)", "uf_neg_$t($0)", "(-$0)", "(-$0)", "(-$0)"}},
    {Op::AND, {.boolean = "($0&$1)", .integer = "($0&$1)"}},
    {Op::OR, {.boolean = "($0|$1)", .integer = "($0|$1)"}},
    {Op::XOR, {.boolean = "($0^$1)", .integer = "($0^$1)"}},
    {Op::SHL, {.integer = "uf_shl_$t($0,$1)"}},
    {Op::SHR, {.integer = "uf_shr_$t($0,$1)"}},
    {Op::FLOORDIV, {.integer = "uf_floordiv_$t($0,$1)"}, "($0/$1)"},
    {Op::FLOORMOD, {.integer = "uf_floormod_$t($0,$1)"}, "($0%$1)"},
    {Op::CDIV, {.integer = "uf_cdiv_$t($0,$1)"}, "($0/$1)"},
    {Op::CMOD, {.integer = "uf_cmod_$t($0,$1)"}, "($0%$1)"},
    {Op::POW,
     {.integer = "uf_pow_$t($0,$1)",
      .narrow_float = "uf_round_$t(uf_pow((double)$0,(double)$1))",
      .f32 = "uf_f32(uf_pow((double)$0,(double)$1))",
      .f64 = "uf_pow($0,$1)"}},
    {Op::RECIP,
     {.narrow_float = "uf_round_$t(1.0/(double)$0)", .f32 = "(1.0f/$0)", .f64 = "(1.0/$0)", .native_f16 = "uf_hrecip($0)"}},
    {Op::SQRT,
     {.narrow_float = "uf_round_$t(sqrt((double)$0))", .f32 = "sqrtf($0)", .f64 = "sqrt($0)", .native_f16 = "uf_hsqrt($0)"}},
    {Op::EXP2, {.narrow_float = "uf_round_$t(uf_exp2((double)$0))", .f32 = "uf_f32(uf_exp2((double)$0))", .f64 = "uf_exp2($0)"}},
    {Op::LOG2, {.narrow_float = "uf_round_$t(uf_log2((double)$0))", .f32 = "uf_f32(uf_log2((double)$0))", .f64 = "uf_log2($0)"}},
    {Op::SIN, {.narrow_float = "uf_round_$t(uf_sin((double)$0))", .f32 = "uf_f32(uf_sin((double)$0))", .f64 = "uf_sin($0)"}},
    {Op::TRUNC,
     {.narrow_float = "uf_trunc_f($0)", .f32 = "uf_trunc_f($0)", .f64 = "uf_trunc_d($0)", .native_f16 = "uf_trunc_h($0)"}},
    {Op::WHERE, all_classes("($0?$1:$2)")},
    {Op::MULACC,
     {.integer = "uf_mulacc_$t($0,$1,$2)",
      .narrow_float = "uf_round_$t((double)$0*(double)$1+(double)$2)",
      .f32 = "uf_f32((double)$0*(double)$1+(double)$2)",
      .f64 = "(uf_product_f64($0,$1)+$2)"}},
});

DTypeClass dtype_class(DType d, const RenderOptions& opts) {
  if (native_f16(d, opts)) return DTypeClass::NativeF16;
  if (is_bool(d)) return DTypeClass::Boolean;
  if (is_int(d)) return DTypeClass::Integer;
  if (carried_as_float(d)) return DTypeClass::NarrowFloat;
  return d == DType::F32 ? DTypeClass::F32 : DTypeClass::F64;
}

// The format of `rule` for operands of class c (nullptr: none, which the type rules exclude).
const char* format_for(const OpRule& rule, DTypeClass c) {
  const Formats& f = rule.formats;
  switch (c) {
    case DTypeClass::Boolean: return f.boolean;
    case DTypeClass::Integer: return f.integer;
    case DTypeClass::NarrowFloat: return f.narrow_float;
    case DTypeClass::F32: return f.f32;
    case DTypeClass::F64: return f.f64;
    // native f16 without a native rule: the helper, rounding with uf_round_h
    case DTypeClass::NativeF16: return f.native_f16 ? f.native_f16 : f.narrow_float;
  }
  return nullptr;
}

std::string expand(const char* fmt, std::span<const std::string> ops, const std::string& tag) {
  std::string out;
  for (const char* c = fmt; *c; ++c) {
    if (*c == '$' && c[1] >= '0' && c[1] <= '2') {
      out += ops[static_cast<size_t>(c[1] - '0')];
      ++c;
    } else if (*c == '$' && c[1] == 't') {
      out += tag;
      ++c;
    } else {
      out += *c;
    }
  }
  return out;
}

// int/bool -> int without a helper when every source value is a target value.
bool int_cast_exact(DType from, DType to) {
  if (is_bool(from)) return true;
  if (is_unsigned(to)) return true;  // C's conversion to unsigned is the value mod 2^N: exactly ours
  if (is_signed(from)) return bits(from) <= bits(to);
  return bits(from) < bits(to);
}

std::string cast_expr(DType from, DType to, const std::string& a, const RenderOptions& opts) {
  const std::string T = c_value_type(to);
  if (from == to) return a;
  if (native_f16(from, opts) && to == DType::F32) return "((float)" + a + ")";  // exact
  if (carried_as_float(from) && to == DType::F32) return a;                     // their values are floats
  if (is_bool(to)) return "(" + a + "!=0)";                                     // NaN is nonzero too
  if (is_int(to)) {
    if (is_float(from)) {
      const std::string v = "uf_f2u64((double)" + a + ")";  // trunc, then mod 2^64
      return to == DType::U64 ? v : "uf_wrap_" + std::string(name(to)) + "(" + v + ")";
    }
    // tcc 0.9.27 converts int8_t to uint16_t without truncating (-3 becomes 4294967293 once widened;
    // corpus/mismatch-cast-i8-u16-tcc.uop): through int16_t, which it converts right, it is the same value.
    if (from == DType::I8 && to == DType::U16) return "((uint16_t)(int16_t)" + a + ")";
    if (int_cast_exact(from, to)) return "((" + T + ")" + a + ")";
    return "uf_wrap_" + std::string(name(to)) + "(" + a + ")";
  }
  // to float: ints round to binary64 first, then to the dtype (two roundings, like the reference)
  if (to == DType::F64) return "((double)" + a + ")";
  // native f16: one conversion from f32 (correctly rounded, like the reference's f32 -> binary64 -> f16)
  if (native_f16(to, opts) && from == DType::F32) return "uf_round_h_f32(" + a + ")";
  if (carried_as_float(to)) return "uf_round_" + helper_tag(to, opts) + "((double)" + a + ")";
  if (from == DType::F64) return "uf_f32(" + a + ")";
  return "uf_f32((double)" + a + ")";
}

}  // namespace

std::string helper_tag(DType d, const RenderOptions& opts) { return native_f16(d, opts) ? "h" : name(d); }

const char* c_value_type(DType d, const RenderOptions& opts) {
  if (native_f16(d, opts)) return "uf_h";
  return carried_as_float(d) ? "float" : info(d).ctype;
}

const char* c_param_type(DType d) {
  if (!carried_as_float(d)) return info(d).ctype;
  return bytes(d) == 2 ? "uint16_t" : "uint8_t";
}

std::string c_constant(DType d, Scalar v, const RenderOptions& opts) {
  if (is_bool(d)) return v.u ? "1" : "0";
  if (native_f16(d, opts)) return "((uf_h)" + c_constant(d, v) + ")";  // an f16 value: exact in uf_h
  if (is_float(d)) {
    if (v.f != v.f) return "NAN";
    if (v.f == INFINITY) return "INFINITY";
    if (v.f == -INFINITY) return "(-INFINITY)";
    std::string s = format_scalar(d, v);  // shortest round-trip digits: exact in C too
    if (d != DType::F64) s += 'f';
    return s[0] == '-' ? "(" + s + ")" : s;
  }
  if (is_unsigned(d)) {
    const std::string s = std::to_string(v.u);
    if (d == DType::U64) return "UINT64_C(" + s + ")";
    return d == DType::U32 ? s + "u" : s;
  }
  if (d == DType::I64) {
    if (v.i == INT64_MIN) return "(-INT64_C(9223372036854775807)-1)";
    if (v.i < 0) return "(-INT64_C(" + std::to_string(-v.i) + "))";
    return "INT64_C(" + std::to_string(v.i) + ")";
  }
  if (d == DType::I32 && v.i == INT32_MIN) return "(-2147483647-1)";  // 2147483648 is not an int
  return v.i < 0 ? "(" + std::to_string(v.i) + ")" : std::to_string(v.i);
}

std::string alu_expr(const UOp* u, std::span<const std::string> ops, bool fast, const RenderOptions& opts) {
  const DType from = u->src[0]->dtype;
  // The operand dtype picks the row's column (WHERE: the arms; comparisons: the operands, not bool).
  const DType operand = u->op == Op::WHERE ? u->src[1]->dtype : from;
  return alu_expr(u->op, u->dtype, from, operand, ops, fast, opts);
}

std::string alu_expr(Op op, DType result, DType from, DType operand, std::span<const std::string> ops, bool fast,
                     const RenderOptions& opts) {
  if (op == Op::CAST) return cast_expr(from, result, ops[0], opts);
  if (op == Op::BITCAST)
    return "uf_frombits_" + helper_tag(result, opts) + "(uf_bits_" + helper_tag(from, opts) + "(" + ops[0] + "))";
  UOPFUZZ_CHECK(has_rule(op));
  const OpRule& rule = kRules[static_cast<size_t>(op)];
  const char* fmt = fast && rule.fast ? rule.fast : format_for(rule, dtype_class(operand, opts));
  UOPFUZZ_CHECK(fmt != nullptr);
  return expand(fmt, ops, helper_tag(operand, opts));
}

}  // namespace uf

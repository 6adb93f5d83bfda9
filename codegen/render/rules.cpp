// The data table of per-op C rules, and the CAST/BITCAST/constant rules that depend on two dtypes.
//
// One row per ALU op, one format per dtype class: bool, integer, narrow float (f16, bf16, fp8s), f32,
// f64. `$0 $1 $2` are the
// operands' C expressions and `$t` the operand dtype's name (helpers are named uf_OP_DTYPE, defined in
// the prelude). Why each class is written the way it is:
//  - integers go through prelude helpers (wrapping on uint64_t: no signed overflow, no promotion traps);
//    comparisons, WHERE and the bitwise ops are plain C because they cannot overflow or trap;
//  - f32/f64 + - * / and sqrt are plain C: binary64-then-round-to-f32 equals the direct f32 operation
//    (53 >= 2*24+2, so the double rounding is innocuous); f64 is the reference itself;
//  - narrow float ops compute in binary64 and truncate once with uf_round_$t, exactly as the reference
//    (bf16's helper rounds twice, through f32, because tinygrad does); NEG goes through uf_neg_$t
//    because the fnuz formats have no -0.0;
//  - MULACC on floats is a*b then +c in binary64 and one rounding (never fused: -ffp-contract=off);
//  - EXP2/LOG2/SIN are the binary64 library calls on the double value, then rounded (not exp2f/sinf);
//  - TRUNC goes through uf_trunc_* so a zero result is +0.0 like Python's math.trunc;
//  - bool ADD/MUL/SUB are or/and/xor, NEG is the identity.
// The sixth column is f16 under --f16 native (values of C type uf_h, `$t` is `h`); nullptr there means
// the narrow-float helper of column three, which then rounds with uf_round_h. Native are only ops whose
// _Float16 result is the reference's: + - * 1/x sqrt are correctly rounded whether done in binary16 or
// in float and rounded once more (24 >= 2*11+2), and the prelude's uf_hadd & co. cast every result to
// _Float16, which ends any excess precision; NEG is a sign flip (-0.0 included); comparisons, WHERE
// and MAX compare exactly. MULACC, EXP2, LOG2, SIN and POW stay helpers (binary64, rounded once).
#include "codegen/render/rules.h"

#include <cmath>

#include "core/error.h"

namespace uf {

namespace {

struct OpRule {
  Op op;
  // bool, int, narrow float, f32, f64 (nullptr: the type rules never allow it); native f16 (nullptr: as
  // narrow float, a helper)
  const char* fmt[6];
  const char* fast;    // the division fast path, when the caller proves it exact
};

#define ALL5(f) {f, f, f, f, f, nullptr}  // one format for the five classes; native f16 as narrow float
const OpRule kRules[] = {
    {Op::ADD, {"($0|$1)", "uf_add_$t($0,$1)", "uf_round_$t((double)$0+(double)$1)", "($0+$1)", "($0+$1)", "uf_hadd($0,$1)"}, nullptr},
    {Op::SUB, {"($0^$1)", "uf_sub_$t($0,$1)", "uf_round_$t((double)$0-(double)$1)", "($0-$1)", "($0-$1)", "uf_hsub($0,$1)"}, nullptr},
    {Op::MUL, {"($0&$1)", "uf_mul_$t($0,$1)", "uf_round_$t((double)$0*(double)$1)", "($0*$1)", "($0*$1)", "uf_hmul($0,$1)"}, nullptr},
    {Op::MAX, ALL5("uf_max_$t($0,$1)"), nullptr},
    {Op::CMPLT, ALL5("($0<$1)"), nullptr},
    {Op::CMPNE, ALL5("($0!=$1)"), nullptr},
    {Op::CMPEQ, ALL5("($0==$1)"), nullptr},
    {Op::NEG, {"$0", "uf_neg_$t($0)", "uf_neg_$t($0)", "(-$0)", "(-$0)", "(-$0)"}, nullptr},
    {Op::AND, {"($0&$1)", "($0&$1)", nullptr, nullptr, nullptr}, nullptr},
    {Op::OR, {"($0|$1)", "($0|$1)", nullptr, nullptr, nullptr}, nullptr},
    {Op::XOR, {"($0^$1)", "($0^$1)", nullptr, nullptr, nullptr}, nullptr},
    {Op::SHL, {nullptr, "uf_shl_$t($0,$1)", nullptr, nullptr, nullptr}, nullptr},
    {Op::SHR, {nullptr, "uf_shr_$t($0,$1)", nullptr, nullptr, nullptr}, nullptr},
    {Op::FLOORDIV, {nullptr, "uf_floordiv_$t($0,$1)", nullptr, nullptr, nullptr}, "($0/$1)"},
    {Op::FLOORMOD, {nullptr, "uf_floormod_$t($0,$1)", nullptr, nullptr, nullptr}, "($0%$1)"},
    {Op::CDIV, {nullptr, "uf_cdiv_$t($0,$1)", nullptr, nullptr, nullptr}, "($0/$1)"},
    {Op::CMOD, {nullptr, "uf_cmod_$t($0,$1)", nullptr, nullptr, nullptr}, "($0%$1)"},
    {Op::POW, {nullptr, "uf_pow_$t($0,$1)", "uf_round_$t(uf_pow((double)$0,(double)$1))",
               "uf_f32(uf_pow((double)$0,(double)$1))", "uf_pow($0,$1)"}, nullptr},
    {Op::RECIP, {nullptr, nullptr, "uf_round_$t(1.0/(double)$0)", "(1.0f/$0)", "(1.0/$0)", "uf_hrecip($0)"}, nullptr},
    {Op::SQRT, {nullptr, nullptr, "uf_round_$t(sqrt((double)$0))", "sqrtf($0)", "sqrt($0)", "uf_hsqrt($0)"}, nullptr},
    {Op::EXP2, {nullptr, nullptr, "uf_round_$t(uf_exp2((double)$0))", "uf_f32(uf_exp2((double)$0))", "uf_exp2($0)"}, nullptr},
    {Op::LOG2, {nullptr, nullptr, "uf_round_$t(uf_log2((double)$0))", "uf_f32(uf_log2((double)$0))", "uf_log2($0)"}, nullptr},
    {Op::SIN, {nullptr, nullptr, "uf_round_$t(uf_sin((double)$0))", "uf_f32(uf_sin((double)$0))", "uf_sin($0)"}, nullptr},
    {Op::TRUNC, {nullptr, nullptr, "uf_trunc_f($0)", "uf_trunc_f($0)", "uf_trunc_d($0)", "uf_trunc_h($0)"}, nullptr},
    {Op::WHERE, ALL5("($0?$1:$2)"), nullptr},
    {Op::MULACC, {nullptr, "uf_mulacc_$t($0,$1,$2)", "uf_round_$t((double)$0*(double)$1+(double)$2)",
                  "uf_f32((double)$0*(double)$1+(double)$2)", "(($0*$1)+$2)"}, nullptr},
};
#undef ALL5

const OpRule* find_rule(Op op) {
  for (const OpRule& r : kRules)
    if (r.op == op) return &r;
  return nullptr;
}

int dtype_class(DType d, const RenderOptions& opts) {
  if (native_f16(d, opts)) return 5;
  if (is_bool(d)) return 0;
  if (is_int(d)) return 1;
  if (carried_as_float(d)) return 2;
  if (d == DType::F32) return 3;
  return 4;
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
  if (carried_as_float(from) && to == DType::F32) return a;  // their values are floats
  if (is_bool(to)) return "(" + a + "!=0)";  // NaN is nonzero too
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
  const OpRule* rule = find_rule(op);
  UOPFUZZ_CHECK(rule != nullptr);
  const int cls = dtype_class(operand, opts);
  const char* fmt = fast && rule->fast ? rule->fast : rule->fmt[cls];
  if (!fmt && cls == 5) fmt = rule->fmt[2];  // native f16 without a native rule: the helper, rounding with uf_round_h
  UOPFUZZ_CHECK(fmt != nullptr);
  return expand(fmt, ops, helper_tag(operand, opts));
}

}  // namespace uf

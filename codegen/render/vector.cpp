// Vector nodes in C, the way tinygrad's ClangRenderer does it: GCC/Clang vector extensions.
//
// A vector of N lanes of dtype d is a `uf_v<E>x<P>` (typedefs in the prelude): E the lane type, P the
// next power of two >= N (vector_size must be a power of two; the extra lanes are zero and unused).
//   E: bool -> u8 (0/1); iN and uN -> uN (unsigned lanes: wrapping is defined, no signed-overflow UB);
//      f32 -> f32; f64 -> f64; f16, bf16, fp8s -> f32 (carried as float, like their scalars).
//
// Which ops are one C vector operation, and why that is exact (the reference is lane-by-lane exec_alu):
//  - integer ADD SUB MUL NEG MULACC, AND OR XOR: vector arithmetic on unsigned lanes wraps mod 2^W per
//    lane with no promotion, which is exec_alu's result mod 2^W (a ring homomorphism), for iN and uN alike;
//  - bool ADD/SUB/MUL as | ^ &, AND OR XOR; NEG is the identity;
//  - f32 and f64 ADD SUB MUL NEG: one IEEE operation per lane, as in the scalar rule (no contraction:
//    the prelude's pragma and -ffp-contract=off);
//  - CMPLT CMPNE CMPEQ on ints (signed ones through a same-size signed reinterpretation), bools, f32, f64:
//    a C vector comparison gives -1/0 per lane; negated and converted it is a 0/1 bool lane;
//  - CAST int/bool -> int by __builtin_convertvector from the (signed when signed) source lanes to the
//    unsigned target lanes: C's conversion to unsigned is the value mod 2^W, exactly; f32 -> f64 by
//    __builtin_convertvector (exact); f64 -> f32 goes lane by lane through uf_f32 (gcc folds a vector
//    f64 -> f32 -> f64 pair to nothing; see the prelude);
//  - BITCAST between ints, f32 and f64 of one size: the same bits reinterpreted (a NaN source is UNDEFINED);
//  - GEP is a lane subscript, STACK and CONST a compound literal, LOAD/STORE a memcpy (render.cpp).
// Everything else (divisions, shifts, MAX, POW, the float library ops, TRUNC, WHERE, RECIP, every narrow
// float op, float<->int casts, casts to bool) goes lane by lane through the scalar rules of rules.cpp,
// which are exact already, and the lanes are put back together with a compound literal.
#include <string>

#include "codegen/render/rules.h"
#include "core/error.h"

namespace uf {

namespace {

int pow2_lanes(int lanes) {
  int p = 2;
  while (p < lanes) p *= 2;
  return p;
}

// The lane type's tag: u8 u16 u32 u64 f32 f64.
std::string lane_tag(DType d) {
  if (is_bool(d)) return "u8";
  if (is_int(d)) return "u" + std::to_string(bits(d));
  if (d == DType::F64) return "f64";
  return "f32";
}

std::string vtype(const std::string& tag, int lanes) { return "uf_v" + tag + "x" + std::to_string(pow2_lanes(lanes)); }

// A scalar C value of dtype d as a lane.
std::string to_lane(DType d, const std::string& e) {
  if (is_bool(d)) return "(uint8_t)(" + e + ")";
  if (is_int(d)) return "(uint" + std::to_string(bits(d)) + "_t)(" + e + ")";
  return e;  // floats: the lane type is the value type
}

std::string literal(DType d, int lanes, const std::string* per_lane) {
  std::string s = "((" + c_vector_type(d, lanes) + "){";
  for (int k = 0; k < lanes; ++k) s += (k ? ", " : "") + to_lane(d, per_lane[k]);
  return s + "})";
}

// The source lanes reinterpreted as signed when d is a signed integer (for comparisons and widening).
std::string signed_view(DType d, int lanes, const std::string& v) {
  if (!is_signed(d)) return v;
  return "((" + vtype("i" + std::to_string(bits(d)), lanes) + ")" + v + ")";
}

bool simple_class(DType d) { return is_int(d) || is_bool(d) || d == DType::F32 || d == DType::F64; }

// The one-operation vector form of u, or "" when u goes lane by lane.
std::string native(const UOp* u, std::span<const std::string> o) {
  const DType d = u->src[0]->dtype;
  const int n = u->lanes;
  const bool integral = is_int(d) || is_bool(d);
  const bool wide_float = d == DType::F32 || d == DType::F64;
  switch (u->op) {
    case Op::ADD:
    case Op::SUB:
    case Op::MUL: {
      if (!integral && !wide_float) return "";
      const char* c = u->op == Op::ADD ? "+" : u->op == Op::SUB ? "-" : "*";
      if (is_bool(d)) c = u->op == Op::ADD ? "|" : u->op == Op::SUB ? "^" : "&";
      return "(" + o[0] + c + o[1] + ")";
    }
    case Op::NEG:
      if (is_bool(d)) return o[0];
      return integral || wide_float ? "(-" + o[0] + ")" : "";
    case Op::MULACC: return is_int(d) ? "(" + o[0] + "*" + o[1] + "+" + o[2] + ")" : "";
    case Op::AND: return "(" + o[0] + "&" + o[1] + ")";
    case Op::OR: return "(" + o[0] + "|" + o[1] + ")";
    case Op::XOR: return "(" + o[0] + "^" + o[1] + ")";
    case Op::CMPLT:
    case Op::CMPNE:
    case Op::CMPEQ: {
      if (!simple_class(d)) return "";
      const char* c = u->op == Op::CMPLT ? "<" : u->op == Op::CMPNE ? "!=" : "==";
      return "__builtin_convertvector(-(" + signed_view(d, n, o[0]) + c + signed_view(d, n, o[1]) + "), " +
             c_vector_type(DType::Bool, n) + ")";
    }
    case Op::CAST: {
      const DType to = u->dtype;
      if (integral && is_int(to)) return "__builtin_convertvector(" + signed_view(d, n, o[0]) + ", " + c_vector_type(to, n) + ")";
      if (wide_float && (to == DType::F64 || d == DType::F32) && (to == DType::F32 || to == DType::F64))
        return "__builtin_convertvector(" + o[0] + ", " + c_vector_type(to, n) + ")";
      return "";
    }
    case Op::BITCAST:
      if (simple_class(d) && simple_class(u->dtype)) return "((" + c_vector_type(u->dtype, n) + ")" + o[0] + ")";
      return "";
    default: return "";
  }
}

}  // namespace

std::string c_vector_type(DType d, int lanes) { return vtype(lane_tag(d), lanes); }

std::string vector_lane(DType d, const std::string& v, int k) {
  const std::string l = v + "[" + std::to_string(k) + "]";
  if (is_bool(d)) return "((bool)" + l + ")";
  if (is_signed(d)) return "uf_wrap_" + std::string(name(d)) + "(" + l + ")";
  return "(" + l + ")";
}

std::string vector_expr(const UOp* u, std::span<const std::string> o) {
  if (u->op == Op::GEP) return vector_lane(u->dtype, o[0], static_cast<int>(u->value.i));
  const int n = u->lanes;
  std::string lanes[kMaxLanes];
  if (u->op == Op::CONST) {
    for (int k = 0; k < n; ++k) lanes[k] = c_constant(u->dtype, u->value);
    return literal(u->dtype, n, lanes);
  }
  if (u->op == Op::STACK) {
    for (int k = 0; k < n; ++k) lanes[k] = o[static_cast<size_t>(k)];
    return literal(u->dtype, n, lanes);
  }
  UOPFUZZ_CHECK(is_alu(u->op));
  if (std::string e = native(u, o); !e.empty()) return e;
  const DType from = u->src[0]->dtype;
  const DType operand = u->op == Op::WHERE ? u->src[1]->dtype : from;
  for (int k = 0; k < n; ++k) {
    std::string ops[3];
    for (size_t j = 0; j < u->src.size(); ++j) ops[j] = vector_lane(u->src[j]->dtype, o[j], k);
    lanes[k] = alu_expr(u->op, u->dtype, from, operand, std::span<const std::string>(ops, u->src.size()), false);
  }
  return literal(u->dtype, n, lanes);
}

}  // namespace uf

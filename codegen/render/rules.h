// The per-op C rules of the renderer: how one ALU node becomes one C expression, given the C
// expressions of its operands. Internal to codegen (render.cpp is the only user).
#pragma once
#include <span>
#include <string>

#include "codegen/render/render.h"
#include "core/uop.h"

namespace uf {

// The expression for ALU node `u` (ops with the ALU flag, CAST and BITCAST included). `ops` are the C
// expressions of u->src, each a primary expression (a name, a literal, a call or a parenthesised
// expression), and so is the result. `fast` selects C's own `/` and `%` for FLOORDIV/FLOORMOD/CDIV/CMOD
// (the caller decides when that is exact: see division_fast_path).
std::string alu_expr(const UOp* u, std::span<const std::string> ops, bool fast, const RenderOptions& opts = {});
// The same for an op given by its dtypes: `result` the node's, `from` src[0]'s, `operand` the value
// operands' (WHERE: the arms'). One lane of a vector op goes through here, always soft (vector lanes of
// narrow floats are floats in every mode).
std::string alu_expr(Op op, DType result, DType from, DType operand, std::span<const std::string> ops, bool fast,
                     const RenderOptions& opts = {});

// Vectors (codegen/render/vector.cpp): the expression for vector node `u` (lanes > 1, not LOAD), or for a
// GEP, given the C names of its sources (vector sources are always named variables).
std::string vector_expr(const UOp* u, std::span<const std::string> ops);
// The C type of a vector value of `lanes` lanes of dtype d: a GCC/Clang vector of the next power of two
// lanes (the lanes past `lanes` are zero and never read).
std::string c_vector_type(DType d, int lanes);
// Lane k of vector variable `v` of dtype d, as a scalar C value of c_value_type(d) (a primary expression).
std::string vector_lane(DType d, const std::string& v, int k);

// f16, bf16 and the fp8s: carried as float values inside a kernel (every value of theirs is a float),
// stored in memory as their bits, rounded by the prelude's uf_round_DTYPE after each operation.
constexpr bool carried_as_float(DType d) { return is_float(d) && d != DType::F32 && d != DType::F64; }

// f16 under --f16 native: values of C type uf_h (the prelude's _Float16, or float where there is none).
constexpr bool native_f16(DType d, const RenderOptions& o) { return d == DType::F16 && o.f16_native; }
// The tag of a dtype's prelude helpers (uf_round_TAG, uf_bits_TAG, ...): its name, or `h` for native f16.
std::string helper_tag(DType d, const RenderOptions& opts = {});

// The C type of a value of dtype d inside a kernel.
const char* c_value_type(DType d, const RenderOptions& opts = {});
// The C type of an element of a BUFFER of dtype d in the kernel's signature (narrow floats as their bits).
const char* c_param_type(DType d);
// An exact C literal of value v of dtype d (parenthesised when negative).
std::string c_constant(DType d, Scalar v, const RenderOptions& opts = {});

}  // namespace uf

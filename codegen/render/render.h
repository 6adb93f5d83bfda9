// The exact C renderer: one C function per program, from its linear order (core's linearize).
//
// Many programs can share one translation unit: render_prelude() once, then render_function() for each
// program under a distinct name. render_c() is the two together, for one program.
//
// The function is `void NAME(T0* restrict data0, T1* restrict data1, ...)`: one pointer per BUFFER of
// p.buffers (all of them, ascending slot, reachable or not), as docs/format.md's plug-in protocol says, with
// Tk the dtype's C type, except that f16 buffers are `uint16_t*` (the binary16 bits; the ABI of
// `_Float16*`), since not every compiler here has _Float16.
//
// The text follows tinygrad's C-style renderer: one counter names values (`valN` for every LOAD,
// at its position in the linear order; `aluN` for ALU values used more than once, or whose expression
// would grow past a small bound, which keeps the C and the rendering time linear in the graph);
// single-use pure values are inlined; CONST, INDEX and AFTER are expressions, never lines; BUFFER k is
// `datak`; ALLOC slot k is `acck` (a second ALLOC with the same slot gets `acck_2`, ...). Departures
// from tinygrad's, each for exactness or for no undefined behaviour:
//  - every ALLOC is zero-initialised (a read before a write is UNDEFINED in the reference but must not
//    be undefined behaviour in C); size 1 is a scalar, small arrays live on the stack, large ones
//    (beyond a 64 KiB stack budget per kernel) come from calloc and are freed at the end;
//  - an index not proven inside its memory by the bounds analysis (core/int_bounds.h) is clamped by uf_idx, so
//    a kernel never touches memory outside its buffers;
//  - arithmetic goes through the prelude's exact helpers (rules.cpp says which and why).
// Output is deterministic: the same program, name and options give the same text, character for character.
#pragma once
#include <string>

#include "core/analysis.h"
#include "core/program.h"

namespace uf {

// How narrow floats are rendered. Soft (the default): carried as float, every op rounded by a prelude
// helper. f16 native (`--f16 native`): f16 values are `uf_h`, the compiler's own _Float16 where it has
// one, and the ops that are exact in it are its own arithmetic (rules.cpp's native column; the prelude
// falls back to the soft helpers where the compiler has no _Float16). bf16 native: recorded and
// accepted, but no compiler uopfuzz is tested with has arithmetic on __bf16, so it renders soft.
struct RenderOptions {
  bool f16_native = false;
  bool bf16_native = false;
  bool operator==(const RenderOptions&) const = default;
};

// The prelude for these options (soft: byte-identical to what it always was; f16 native adds a section).
const std::string& render_prelude(const RenderOptions& opts = {});
// Throws UserError if `fn_name` is not a C identifier, or starts with the prelude's reserved `uf_`.
std::string render_function(const Program& p, const std::string& fn_name, const RenderOptions& opts = {});
// The same with p's facts already computed (a = analyze(p)), for a caller that has them.
std::string render_function(const Program& p, const Analysis& a, const std::string& fn_name, const RenderOptions& opts = {});
std::string render_c(const Program& p, const std::string& fn_name = "kernel", const RenderOptions& opts = {});

bool is_c_identifier(const std::string& s);

}  // namespace uf

// The plug-in output languages (handshake "language", plugin_describe.h), one row each in kLanguages
// (languages.cpp): every question the compiled path, the handshake and the standalone reproducer ask of
// a language is a column there, so a new language is a new row (docs/design.md, "Adding something").
// C and LLVM IR are compiled as they are; an x86-64 image becomes a C file whose top-level asm holds its
// bytes as FUNCTION in .text (16-byte aligned), so the compile cache, the batching, the sandbox (with its
// ABI check, runtime/checked_call.h) and the standalone reproducer treat it as any translation unit.
// "outputs" (an executing target) has no unit at all: compiled_path sends run requests instead.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "codegen/runtime/compiler.h"

namespace uf {

inline constexpr size_t kMaxImageBytes = size_t{16} << 20;

// What a plug-in's renders are: C, LLVM IR, x86-64 machine code (a flat image), or nothing: an executing
// target runs programs itself and replies with their output buffers.
enum class OutputLanguage { c, llvm_ir, x86_64, outputs };

// What a render is, and so how it becomes a unit to compile.
enum class RenderForm {
  source,  // a translation unit as it is
  image,   // machine code, which image_unit wraps in a C file
  none,    // the target runs programs itself, in "run" server requests (so it serves the server mode only)
};

// How the units of one batch go to its compiler call.
enum class UnitBatching {
  separate,      // one translation unit each
  concatenated,  // one translation unit, the units one after the other (each stands alone: an image's asm)
  one_unit,      // as the handshake's "one_unit" says: their common first lines once, then the rest of each
};

struct LanguageRow {
  OutputLanguage language;
  const char* name;   // the handshake's "language"
  SourceKind source;  // what the compiler is given
  RenderForm render;
  UnitBatching batching;
  // Why a standalone C reproducer cannot hold its render (after "renderer 'CMD' "); nullptr when it can
  // (its unit is C) or when there is no render, which render_source refuses itself.
  const char* no_standalone;
  // Whether the compiler's optimization passes act on its code: a compiler culprit search (pass
  // bisection, -f flags) means nothing for an image the compiler only wraps.
  bool compiler_optimizes;

  bool executes() const { return render == RenderForm::none; }
};

const LanguageRow& language_row(OutputLanguage l);
std::string language_name(OutputLanguage l);  // "c", "llvm-ir", "x86-64", "outputs"
std::optional<OutputLanguage> language_from_name(const std::string& name);
std::string language_names();  // "c, llvm-ir, x86-64 or outputs"

// A unit that defines nothing, to tell bad flags from bad renders.
std::string empty_unit(SourceKind k);

// The unit to compile for a plug-in's render `reply` (an image is base64 when `base64`: a server's JSON
// reply carries bytes so); nullopt, with `why`, when the render is not what the language says.
std::optional<std::string> unit_from_render(std::string reply, OutputLanguage l, bool base64, const std::string& fn_name,
                                            std::string& why);
// The C file holding `image` as the function `fn_name`.
std::string image_unit(std::string_view image, const std::string& fn_name);

}  // namespace uf

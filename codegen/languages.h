// What the compiled path does with each plug-in output language (handshake "language", plugin_describe.h):
// C and LLVM IR are compiled as they are; an x86-64 image becomes a C file whose top-level asm holds its
// bytes as FUNCTION in .text (16-byte aligned), so the compile cache, the batching, the sandbox (with its
// ABI check, runtime/checked_call.h) and the standalone reproducer treat it as any translation unit.
// "outputs" (an executing target) has no unit at all: compiled_path sends run requests instead.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "codegen/plugin_describe.h"
#include "codegen/runtime/compiler.h"

namespace uf {

inline constexpr size_t kMaxImageBytes = size_t{16} << 20;

SourceKind source_kind(OutputLanguage l);  // llvm_ir for "llvm-ir", else c
// A unit that defines nothing, to tell bad flags from bad renders.
std::string empty_unit(SourceKind k);

// The unit to compile for a plug-in's render `reply` (a server's x86-64 image is base64, the other modes'
// raw bytes); nullopt, with `why`, when the render is not what the language says.
std::optional<std::string> unit_from_render(std::string reply, OutputLanguage l, RendererProtocol mode, const std::string& fn_name,
                                            std::string& why);
// The C file holding `image` as the function `fn_name`.
std::string image_unit(std::string_view image, const std::string& fn_name);

}  // namespace uf

// The plug-in output languages as compiled units (see languages.h).
#include "codegen/languages.h"

#include <algorithm>
#include <cstdio>

#include "codegen/runtime/base64.h"

namespace uf {

SourceKind source_kind(OutputLanguage l) { return l == OutputLanguage::llvm_ir ? SourceKind::llvm_ir : SourceKind::c; }

std::string empty_unit(SourceKind k) { return k == SourceKind::llvm_ir ? "; an empty module\n" : "/* empty */\n"; }

std::string image_unit(std::string_view image, const std::string& fn_name) {
  std::string c = "/* " + fn_name + ": " + std::to_string(image.size()) +
                  " bytes of x86-64 machine code from a renderer plug-in (entry at offset 0) */\n"
                  "void " + fn_name + "();  /* its parameters: one pointer per BUFFER, ascending slot */\n"
                  "__asm__(\".text\\n.p2align 4\\n.globl " +
                  fn_name + "\\n.type " + fn_name + ", @function\\n" + fn_name + ":\\n\"\n";
  char byte[8];
  for (size_t i = 0; i < image.size(); i += 16) {
    c += "        \".byte ";
    for (size_t j = i; j < std::min(image.size(), i + 16); ++j) {
      std::snprintf(byte, sizeof byte, "%s0x%02x", j == i ? "" : ",", static_cast<unsigned char>(image[j]));
      c += byte;
    }
    c += "\\n\"\n";
  }
  c += "        \".size " + fn_name + ", .-" + fn_name + "\\n\");\n";
  return c;
}

std::optional<std::string> unit_from_render(std::string reply, OutputLanguage l, RendererProtocol mode, const std::string& fn_name,
                                            std::string& why) {
  if (l != OutputLanguage::x86_64) return reply;
  std::optional<std::string> image = std::move(reply);
  if (mode == RendererProtocol::server && !(image = base64_decode(*image))) {
    why = "an x86-64 render that is not base64 (a server sends the image's bytes in base64)";
    return std::nullopt;
  }
  if (image->empty() || image->size() > kMaxImageBytes) {
    why = "an x86-64 image of " + std::to_string(image->size()) + " bytes (expected 1 to " + std::to_string(kMaxImageBytes) + ")";
    return std::nullopt;
  }
  return image_unit(*image, fn_name);
}

}  // namespace uf

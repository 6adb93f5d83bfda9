// The plug-in output languages: their table, and their renders as compiled units (see languages.h).
#include "codegen/languages.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "codegen/runtime/base64.h"

namespace uf {

namespace {

// One row per OutputLanguage, in its order (checked below): the columns of LanguageRow.
constexpr LanguageRow kLanguages[] = {
    {OutputLanguage::c, "c", SourceKind::c, RenderForm::source, UnitBatching::one_unit, nullptr, true},
    {OutputLanguage::llvm_ir, "llvm-ir", SourceKind::llvm_ir, RenderForm::source, UnitBatching::separate,
     "renders LLVM IR, which a standalone C file cannot hold (`uopfuzz render` prints the IR)", true},
    {OutputLanguage::x86_64, "x86-64", SourceKind::c, RenderForm::image, UnitBatching::concatenated, nullptr, false},
    {OutputLanguage::outputs, "outputs", SourceKind::c, RenderForm::none, UnitBatching::separate, nullptr, false},
};

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kLanguages); ++i)
    if (static_cast<size_t>(kLanguages[i].language) != i) return false;
  return true;
}
static_assert(rows_in_enum_order() && std::size(kLanguages) == static_cast<size_t>(OutputLanguage::outputs) + 1,
              "kLanguages has one row per OutputLanguage, in its order");

}  // namespace

const LanguageRow& language_row(OutputLanguage l) { return kLanguages[static_cast<size_t>(l)]; }

std::string language_name(OutputLanguage l) { return language_row(l).name; }

std::optional<OutputLanguage> language_from_name(const std::string& name) {
  for (const LanguageRow& r : kLanguages)
    if (name == r.name) return r.language;
  return std::nullopt;
}

std::string language_names() {
  std::string s;
  for (size_t i = 0; i < std::size(kLanguages); ++i)
    s += (i == 0 ? "" : i + 1 == std::size(kLanguages) ? " or " : ", ") + std::string(kLanguages[i].name);
  return s;
}

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

std::optional<std::string> unit_from_render(std::string reply, OutputLanguage l, bool base64, const std::string& fn_name,
                                            std::string& why) {
  if (language_row(l).render != RenderForm::image) return reply;
  std::optional<std::string> image = std::move(reply);
  if (base64 && !(image = base64_decode(*image))) {
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

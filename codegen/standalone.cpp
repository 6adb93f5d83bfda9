// standalone_c: the target's kernel, then a driver of plain C99 (plus `__typeof__`, which gcc, clang
// and tcc all have) that holds the data and the reference's bytes.
#include "codegen/standalone.h"

#include <cstdio>

#include "codegen/runtime/native.h"
#include "core/error.h"
#include "core/float_formats.h"
#include "core/text.h"

namespace uf {

namespace {

// The driver's functions. Elements are read as little-endian integers of their size (the layout of
// docs/semantics.md), so no float is ever loaded as a float before it is compared: NaN payloads and
// -0.0 keep their bits.
constexpr const char* kDriver = R"(
/* ---- the driver (uopfuzz export): data in, the kernel once, every BUFFER against the reference ---- */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPRO_BOOL, REPRO_UINT, REPRO_INT, REPRO_F32, REPRO_F64, REPRO_BITS };

static uint64_t repro_element(const unsigned char* p, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

/* nan_kind 1: IEEE (exponent all ones, fraction not 0); 2: e4m3 (all ones but the sign); 3: fnuz (0x80). */
static int repro_is_nan(uint64_t b, int size, int fraction_bits, int nan_kind) {
  const uint64_t sign = 1ull << (8 * size - 1), magnitude = b & ~sign, fraction = (1ull << fraction_bits) - 1;
  const uint64_t exponent = (sign - 1) & ~fraction;
  if (nan_kind == 1) return (magnitude & exponent) == exponent && (magnitude & fraction) != 0;
  if (nan_kind == 2) return magnitude == (exponent | fraction);
  if (nan_kind == 3) return b == sign;
  return 0;
}

static void repro_print(uint64_t b, int size, int kind) {
  if (kind == REPRO_INT) {
    if (size < 8 && (b >> (8 * size - 1) & 1)) b |= ~0ull << (8 * size); /* sign-extend */
    printf("%lld", (long long)b);
  } else if (kind == REPRO_F32) {
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, 4);
    printf("%.9g", f);
  } else if (kind == REPRO_F64) {
    double f;
    memcpy(&f, &b, 8);
    printf("%.17g", f);
  } else if (kind == REPRO_BITS) {
    printf("0x%llx", (unsigned long long)b);
  } else {
    printf("%llu", (unsigned long long)b);
  }
}

/* 0 when `got` holds what `want` does; else prints the first difference and returns 1. */
static int repro_check(const char* name, const unsigned char* got, const unsigned char* want, long n, int size, int kind,
                       int fraction_bits, int nan_kind) {
  for (long i = 0; i < n; ++i) {
    uint64_t g = repro_element(got + i * size, size), w = repro_element(want + i * size, size);
    if (kind == REPRO_BOOL) g = g != 0; /* a bool byte other than 0 is true */
    if (g == w || (nan_kind && repro_is_nan(g, size, fraction_bits, nan_kind) && repro_is_nan(w, size, fraction_bits, nan_kind)))
      continue;
    printf("%s[%ld] = ", name, i);
    repro_print(g, size, kind);
    printf(" expected ");
    repro_print(w, size, kind);
    printf("\n");
    return 1;
  }
  return 0;
}

static unsigned char* repro_buffer(const unsigned char* data, size_t size) {
  unsigned char* p = aligned_alloc(64, (size + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  memcpy(p, data, size);
  return p;
}
)";

// How the driver reads, prints and compares elements of dtype d: "KIND, FRACTION_BITS, NAN_KIND".
std::string element_args(DType d) {
  if (is_bool(d)) return "REPRO_BOOL, 0, 0";
  if (is_unsigned(d)) return "REPRO_UINT, 0, 0";
  if (is_signed(d)) return "REPRO_INT, 0, 0";
  UOPFUZZ_CHECK(is_float(d));
  const FloatLimits& f = float_limits(d);
  const int nan_kind = f.has_inf ? 1 : f.has_negative_zero ? 2 : 3;
  const char* kind = d == DType::F32 ? "REPRO_F32" : d == DType::F64 ? "REPRO_F64" : "REPRO_BITS";
  return std::string(kind) + ", " + std::to_string(f.significand_bits - 1) + ", " + std::to_string(nan_kind);
}

// `static const unsigned char NAME[N] = {...};`, sixteen bytes a line.
std::string byte_array(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string s = "static const unsigned char " + name + "[" + std::to_string(bytes.size()) + "] = {";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0) s += "\n ";
    char hex[8];
    std::snprintf(hex, sizeof hex, " 0x%02x,", bytes[i]);
    s += hex;
  }
  return s + "\n};\n";
}

// A `/* ... */` comment line from any text (a `*/` inside would end it early).
std::string comment(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  for (size_t at = text.find("*/"); at != std::string::npos; at = text.find("*/", at)) text.replace(at, 2, "* /");
  return "/* " + text + " */\n";
}

}  // namespace

std::string standalone_c(const Program& p, const StandaloneC& s) {
  std::string out;
  for (const std::string& line : s.header) out += comment(line);
  out += "\n/* ---- the kernel, as the target rendered it ---- */\n" + s.kernel_source;
  if (!s.kernel_source.empty() && s.kernel_source.back() != '\n') out += "\n";
  return out + standalone_driver(p, s);
}

std::string standalone_driver(const Program& p, const StandaloneC& s) {
  std::string out = kDriver;
  const std::vector<NativeBuffer> in = program_buffers(p);
  std::string body, args, checks;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const UOp* buf = p.buffers[b];
    const DType d = in[b].dtype;
    const std::string k = std::to_string(buf->slot), n = std::to_string(in[b].len), size = std::to_string(bytes(d));
    const auto want = s.expected.find(buf->slot);
    UOPFUZZ_CHECK(want != s.expected.end());
    // named by slot as the .uop file names them (`buf1`), so a message points at its data and expect lines
    out += "\n" + comment("buf" + k + ": " + print_values_line("data", buf->slot, d, p.initial(buf)));
    out += byte_array("repro_in" + k, in[b].bytes);
    out += comment("buf" + k + ": " + print_values_line("expect", buf->slot, d, want->second));
    out += byte_array("repro_want" + k, to_native(d, want->second).bytes);
    body += "  unsigned char* buf" + k + " = repro_buffer(repro_in" + k + ", sizeof repro_in" + k + ");\n";
    args += std::string(args.empty() ? "" : ", ") + "(void*)buf" + k;
    checks += "  differs |= repro_check(\"buf" + k + "\", buf" + k + ", repro_want" + k + ", " + n + ", " + size + ", " +
              element_args(d) + ");\n";
  }
  out += "\nint main(void) {\n" + body;
  // Through a volatile pointer: the compiler sees neither the kernel's arguments nor its data.
  out += "  __typeof__(" + s.fn_name + ")* volatile repro_kernel = " + s.fn_name + ";\n";
  out += "  repro_kernel(" + args + ");\n  int differs = 0;\n" + checks;
  out += "  if (!differs) printf(\"ok: every buffer agrees with the reference\\n\");\n  return differs;\n}\n";
  return out;
}

}  // namespace uf

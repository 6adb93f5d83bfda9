/* A standalone reproducer, exported by `uopfuzz export` from corpus/mismatch-cast-f32-f64-gcc-slp-fold.uop: it needs nothing of uopfuzz. */
/* Reduced with C-Vise by `uopfuzz reduce --c` (stopped by --time): the kernel still fails the same way, and built at -O0 with the undefined-behaviour and address sanitizers by gcc and clang it runs clean. */
/* Found as `mismatch CAST f32>f64`, status fixed. */
/* Kernel: renderer `tests/fuzz/oracle/plugins/f32_unguarded.sh` (the built-in renderer without its gcc workaround); compiler: x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0. */
/* Build: gcc -O2 -fPIC -o repro mismatch-cast-f32-f64-gcc-slp-fold.reduced.c -lm */
/* Run:   ./repro  (exit 0: every buffer agrees with the reference; 1: the first difference of each buffer is printed) */

/* ---- the kernel, as the target rendered it ---- */
#include <math.h>
#define uf_neg_t;
double (*uf_pow_fn)() = pow;
#define UF_VEC(t, T)                                                             typedef T uf_v##t##x2 __attribute__((vector_size(2 * sizeof(T))));             T ;
UF_VEC(f32, float) void kernel(double *data12) {
  double __trans_tmp_4;
  double __trans_tmp_3;
  uf_vf32x2 vec1 = ((uf_vf32x2){8.5f, });
  { __trans_tmp_3 = uf_pow_fn(2.0, (vec1[0])); double x = 0;
    __trans_tmp_4 = uf_pow_fn(2.0, x);
  }
  uf_vf32x2 vec2 = ((uf_vf32x2){__trans_tmp_3, __trans_tmp_4});
  data12[17] = ((vec2[0]));
  data12[18] = ((vec2[1]));
}

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

/* p12: data 12 = 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 */
static const unsigned char repro_in12[152] = {
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* p12: expect 12 = 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 362.0386657714844 1.0 */
static const unsigned char repro_want12[152] = {
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60, 0x9e, 0xa0, 0x76, 0x40,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f,
};

int main(void) {
  unsigned char* p12 = repro_buffer(repro_in12, sizeof repro_in12);
  __typeof__(kernel)* volatile repro_kernel = kernel;
  repro_kernel((void*)p12);
  int differs = 0;
  differs |= repro_check("p12", p12, repro_want12, 19, 8, REPRO_F64, 52, 1);
  if (!differs) printf("ok: every buffer agrees with the reference\n");
  return differs;
}

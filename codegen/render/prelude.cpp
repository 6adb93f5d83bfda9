// The C prelude: every helper the rendered kernels call, written once per translation unit.
//
// Each helper is the exact exec_alu semantics of one op on one dtype, in C with no undefined behaviour:
// integer arithmetic is done on uint64_t (wraps by definition) and brought back to the dtype by
// uf_wrap_T, which converts without relying on implementation-defined signed conversion; division,
// modulo and shifts guard their traps and out-of-range amounts; float->int goes through the bits.
// f16 values travel as `float` (every half is exactly a float) and rounding to half is done by
// uf_rh on the binary64 value, so an f16 op is "compute in binary64, round once", like the reference.
// EXP2/LOG2/SIN call the C library through volatile function pointers: compilers otherwise rewrite
// pow(2,x) into exp2(x) (clang) or fold sin of a constant with their own correctly rounded arithmetic
// (gcc), either of which can differ in the last bit from the library the reference calls at run time.
#include "codegen/render/render.h"

namespace uf {

namespace {

const char* const kPrelude = R"PRELUDE(/* uopfuzz prelude: exact exec_alu helpers (see docs/semantics.md) */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
/* No contraction of a*b+c into a fused multiply-add, whatever the flags: clang honours the ISO pragma,
   gcc ignores it (its default is -ffp-contract=fast) but takes its own for every function after it. */
#pragma STDC FP_CONTRACT OFF
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
/* 16 (TS 18661-3, gcc -march=native on CPUs with AVX512-FP16) only says _Float16 is evaluated in
   float; float and double keep their own precision, and f16 here is never _Float16 arithmetic. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 16
#error "uopfuzz kernels need float and double evaluated in their own precision (FLT_EVAL_METHOD 0)"
#endif

/* The four largest helpers stay out of line. Inlined, each f16 op or float->int cast expands into a
   dozen branches that the optimiser then works through: about 30 % of the compile time of a batch.
   Out of line, every kernel calls the same code whether its batch holds 1 or 64 kernels (inlining
   decisions otherwise depend on the size of the translation unit), so a finding replays alone. */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define UF_OUTLINE static __attribute__((noipa)) /* also no constant-propagated clones */
#endif
#endif
#ifndef UF_OUTLINE
#define UF_OUTLINE static __attribute__((noinline)) /* tcc: accepted, and it inlines nothing anyway */
#endif

/* Every rounding of a binary64 (or integer) value to f32 goes through uf_f32. gcc folds the vector form
   of (double)(float)x back to x (gcc 12.2 at -O2 and up: once the SLP vectorizer has grouped such
   conversions, FRE simplifies the pair; corpus/mismatch-cast-f32-f64-gcc-slp-fold.uop). The empty asm
   makes the rounded value opaque to that fold; it also keeps such statements out of SLP groups. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__SSE2_MATH__)
#define UF_OPAQUE_F32(v) __asm__("" : "+x"(v))
#elif defined(__GNUC__) && !defined(__clang__)
#define UF_OPAQUE_F32(v) __asm__("" : "+g"(v))
#else
#define UF_OPAQUE_F32(v) ((void)0)
#endif
static inline float uf_f32(double x) { float r = (float)x; UF_OPAQUE_F32(r); return r; }
/* Every f32 and f64 product goes through uf_product_*: gcc 12.2's SLP vectorizer turns a lane pair
   {a*b - c, d*e + f} into one vfmaddsub (fused) at -O2 -march=native even under -ffp-contract=off
   (corpus/mismatch-mulacc-f64-gcc-slp-fmaddsub.uop). The empty asm keeps the product rounded. */
static inline float uf_product_f32(float a, float b) { float r = a * b; UF_OPAQUE_F32(r); return r; }
static inline double uf_product_f64(double a, double b) { double r = a * b; UF_OPAQUE_F32(r); return r; }

/* f16: halves are carried as float values and stored as their binary16 bits. */
UF_OUTLINE float uf_h2f(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu, b;
  float f;
  if (a < 0x400u) { f = (float)a * 0x1p-24f; return s ? -f : f; }  /* zero and subnormals */
  b = s | (a >= 0x7c00u ? 0x7f800000u | ((a & 0x3ffu) << 13) : (a + (112u << 10)) << 13);
  memcpy(&f, &b, 4);
  return f;
}
/* Round a binary64 to the nearest binary16 value (ties to even; >= 65520 overflows to inf). Adding
   and subtracting c = 2^(e+42), for |x| in [2^e, 2^(e+1)), rounds |x| to 11 significant bits in one
   IEEE addition (the unit of c is 2^(e-10)); below 2^-14 the unit is fixed at 2^-24 (c = 2^28). */
UF_OUTLINE float uf_rh(double x) {
  double a = fabs(x), c, r;
  uint64_t b;
  if (!(a < 65520.0)) return (float)(a != a ? x : copysign(INFINITY, x));
  if (a < 0x1p-14) {
    r = (a + 0x1p28) - 0x1p28;
  } else {
    memcpy(&b, &a, 8);
    b = (b & 0x7ff0000000000000ull) + (42ull << 52);
    memcpy(&c, &b, 8);
    r = (a + c) - c;
  }
  return (float)copysign(r, x);
}
/* The bits of f, which must be a binary16 value already (every f16 value in a kernel is). */
UF_OUTLINE uint16_t uf_f2h(float f) {
  uint32_t b, a;
  uint16_t s;
  memcpy(&b, &f, 4);
  s = (uint16_t)((b >> 16) & 0x8000u);
  a = b & 0x7fffffffu;
  if (a >= 0x7f800000u) return (uint16_t)(s | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a < 0x38800000u) return (uint16_t)(s | (uint16_t)(fabsf(f) * 0x1p24f));  /* below 2^-14 */
  return (uint16_t)(s | (((a >> 23) - 112u) << 10) | ((a >> 13) & 0x3ffu));
}
static inline uint16_t uf_d2h(double x) { return uf_f2h(uf_rh(x)); }
static inline float uf_round_f16(double x) { return uf_rh(x); }

/* bf16: carried as float values, stored as the top half of their binary32 bits. The rounding is
   tinygrad's: binary64 to binary32 (nearest even), then nearest even on the binary32 bits. */
UF_OUTLINE float uf_round_bf16(double x) {
  float f = (float)x;
  uint32_t u;
  if (!isfinite(x)) return f;
  memcpy(&u, &f, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint16_t uf_bits_bf16(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)(u >> 16); }
static inline float uf_frombits_bf16(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }

/* fp8: carried as float values, stored as their 8 bits. The encoding is tinygrad's float_to_fp8 (after
   NVIDIA's cuda_fp8.hpp), on the binary64 bits: nearest even with subnormals, finite overflow
   saturating, each format's own inf/NaN rule. kind: 0 e4m3, 1 e5m2, 2 e4m3fnuz, 3 e5m2fnuz. */
static const struct { int bias, sig; uint64_t mant_mask, min_denorm_half, ovf, min_norm; uint8_t max_norm; } uf_fp8[4] = {
  {7, 4, 0x7, 0x3F50000000000000ull, 0x407D000000000000ull, 0x3F90000000000000ull, 0x7E},
  {15, 3, 0x3, 0x3EE0000000000000ull, 0x40EE000000000000ull - 1, 0x3F10000000000000ull, 0x7B},
  {8, 4, 0x7, 0x3F40000000000000ull, 0x406F000000000000ull - 1, 0x3F80000000000000ull, 0x7F},
  {16, 3, 0x3, 0x3ED0000000000000ull, 0x40EE000000000000ull - 1, 0x3F00000000000000ull, 0x7F}};
UF_OUTLINE uint8_t uf_fp8_enc(double x, int k) {
  uint64_t b, a, half_ulp, mant, res, round, half;
  int64_t e;
  memcpy(&b, &x, 8);
  a = b & 0x7fffffffffffffffull;
  if (a >= 0x7ff0000000000000ull) {  /* inf and nan */
    if (k >= 2) return 0x80;
    if (k == 0) return (b >> 63) ? 0xff : 0x7f;
    return (uint8_t)(((b >> 63) << 7) | (a > 0x7ff0000000000000ull ? 0x7fu : 0x7cu));
  }
  if (k >= 2 && a == 0) return 0;
  half_ulp = 1ull << (52 - uf_fp8[k].sig);
  e = (int64_t)((b >> 52) & 0x7ff) - 1023 + uf_fp8[k].bias;
  mant = (b >> (53 - uf_fp8[k].sig)) & uf_fp8[k].mant_mask;
  if (a <= uf_fp8[k].min_denorm_half) {
    res = 0;
  } else if (a > uf_fp8[k].ovf) {
    res = uf_fp8[k].max_norm;
  } else if (a >= uf_fp8[k].min_norm) {
    res = ((uint64_t)e << (uf_fp8[k].sig - 1)) | mant;
    round = b & ((half_ulp << 1) - 1);
    if (round > half_ulp || (round == half_ulp && (mant & 1))) res++;
  } else {  /* a subnormal of the format */
    mant |= 1ull << (uf_fp8[k].sig - 1);
    res = mant >> (1 - e);
    half = half_ulp << (1 - e);
    round = (b | (1ull << 52)) & ((half << 1) - 1);
    if (round > half || (round == half && (res & 1))) res++;
  }
  if (k >= 2 && res == 0) return 0;  /* fnuz has no -0.0 */
  return (uint8_t)(res | ((b >> 63) << 7));
}
static inline float uf_f32_of_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
UF_OUTLINE float uf_fp8_dec(uint8_t v, int k) {
  int m = uf_fp8[k].sig - 1, emax = (1 << (7 - m)) - 1, e = (v >> m) & emax, f = v & ((1 << m) - 1);
  float r;
  if (k >= 2 && v == 0x80) return NAN;
  if ((v & 0x7f) == 0) return (v & 0x80) ? -0.0f : 0.0f;
  if (k < 2 && e == emax) {
    if (k == 1) return f ? NAN : (v & 0x80) ? -INFINITY : INFINITY;
    if (f == (1 << m) - 1) return NAN;
  }
  if (e == 0) r = (float)f * uf_f32_of_bits((uint32_t)(1 - uf_fp8[k].bias - m + 127) << 23);
  else r = uf_f32_of_bits(((uint32_t)(e - uf_fp8[k].bias + 127) << 23) | ((uint32_t)f << (23 - m)));
  return (v & 0x80) ? -r : r;
}
#define UF_FP8(t, K) \
  static inline uint8_t uf_bits_##t(float f) { return uf_fp8_enc((double)f, K); } \
  static inline float uf_frombits_##t(uint8_t v) { return uf_fp8_dec(v, K); } \
  static inline float uf_round_##t(double x) { return uf_fp8_dec(uf_fp8_enc(x, K), K); }
UF_FP8(fp8e4m3, 0) UF_FP8(fp8e5m2, 1) UF_FP8(fp8e4m3fnuz, 2) UF_FP8(fp8e5m2fnuz, 3)
/* NEG of a narrow float is exact, except that the fnuz formats have no -0.0. */
#define UF_NEG(t) static inline float uf_neg_##t(float a) { return -a; }
UF_NEG(f16) UF_NEG(bf16) UF_NEG(fp8e4m3) UF_NEG(fp8e5m2)
static inline float uf_neg_fp8e4m3fnuz(float a) { return a == 0 ? 0.0f : -a; }
static inline float uf_neg_fp8e5m2fnuz(float a) { return a == 0 ? 0.0f : -a; }

/* trunc(x) as an exact integer, modulo 2^64. NaN and inf (UNDEFINED in the reference) give 0. */
UF_OUTLINE uint64_t uf_f2u64(double x) {
  uint64_t b, m, v;
  int e;
  memcpy(&b, &x, 8);
  e = (int)((b >> 52) & 0x7ff);
  if (e == 0x7ff || e < 1023) return 0;
  m = (b & 0xfffffffffffffull) | (1ull << 52);
  e -= 1075;                               /* |x| = m * 2^e */
  v = e >= 64 ? 0 : e >= 0 ? m << e : m >> -e;
  return (b >> 63) ? 0 - v : v;
}

/* Python's math.trunc gives an integer, so a zero result is +0.0. */
static inline float uf_trunc_f(float x) { float t = truncf(x); return t == 0 ? 0.0f : t; }
static inline double uf_trunc_d(double x) { double t = trunc(x); return t == 0 ? 0.0 : t; }

static double (*volatile uf_pow_fn)(double, double) = pow;
static double (*volatile uf_log2_fn)(double) = log2;
static double (*volatile uf_sin_fn)(double) = sin;
static inline double uf_exp2(double x) { return uf_pow_fn(2.0, x); }
/* Python's float power: 0 to a negative power is ZeroDivisionError, which tinygrad makes +inf (C's
   pow gives -inf for -0.0 to an odd power). Overflow is UNDEFINED in the reference: never compared. */
static inline double uf_pow(double x, double y) { return x == 0 && y < 0 ? INFINITY : uf_pow_fn(x, y); }
static inline double uf_log2(double x) { return uf_log2_fn(x); }
static inline double uf_sin(double x) { return uf_sin_fn(x); }

/* An index the renderer could not prove in bounds: out of bounds is UNDEFINED, so any element will do. */
static inline int32_t uf_idx(int32_t i, int32_t n) { return i >= 0 && i < n ? i : 0; }

/* Python max: a unless b > a (so MAX(nan,1)=nan, MAX(1,nan)=1, MAX(-0.0,0.0)=-0.0). */
#define UF_MAX(t, T) static inline T uf_max_##t(T a, T b) { return b > a ? b : a; }
UF_MAX(bool, bool) UF_MAX(f16, float) UF_MAX(f32, float) UF_MAX(f64, double) UF_MAX(bf16, float)
UF_MAX(fp8e4m3, float) UF_MAX(fp8e5m2, float) UF_MAX(fp8e4m3fnuz, float) UF_MAX(fp8e5m2fnuz, float)

#define UF_BITS_F(t, T, U) \
  static inline U uf_bits_##t(T a) { U u; memcpy(&u, &a, sizeof u); return u; } \
  static inline T uf_frombits_##t(U u) { T a; memcpy(&a, &u, sizeof a); return a; }
UF_BITS_F(f32, float, uint32_t) UF_BITS_F(f64, double, uint64_t)
static inline uint16_t uf_bits_f16(float a) { return uf_f2h(a); }
static inline float uf_frombits_f16(uint16_t u) { return uf_h2f(u); }

/* Integer POW: square-and-multiply mod 2^64 (b < 0 is UNDEFINED). Out of line: inlined, its loop is
   unrolled and peeled at every call site, which made POW the dearest op to compile. */
UF_OUTLINE uint64_t uf_pow_mod64(uint64_t x, uint64_t e) {
  uint64_t r = 1;
  for (; e; e >>= 1, x *= x) if (e & 1) r *= x;
  return r;
}
/* Integers of width W: the value mod 2^W, computed on uint64_t and converted back exactly. */
#define UF_INT(t, T, U, W, MAXV) \
  static inline T uf_wrap_##t(uint64_t x) { \
    x &= UINT64_MAX >> (64 - W); \
    return x <= (uint64_t)(MAXV) ? (T)x : (T)(-(int64_t)((UINT64_MAX >> (64 - W)) - x) - 1); \
  } \
  static inline T uf_add_##t(T a, T b) { return uf_wrap_##t((uint64_t)a + (uint64_t)b); } \
  static inline T uf_sub_##t(T a, T b) { return uf_wrap_##t((uint64_t)a - (uint64_t)b); } \
  static inline T uf_mul_##t(T a, T b) { return uf_wrap_##t((uint64_t)a * (uint64_t)b); } \
  static inline T uf_neg_##t(T a) { return uf_wrap_##t(0 - (uint64_t)a); } \
  static inline T uf_mulacc_##t(T a, T b, T c) { return uf_wrap_##t((uint64_t)a * (uint64_t)b + (uint64_t)c); } \
  static inline T uf_max_##t(T a, T b) { return b > a ? b : a; } \
  static inline T uf_pow_##t(T a, T b) { return uf_wrap_##t(uf_pow_mod64((uint64_t)a, (uint64_t)b)); } \
  static inline U uf_bits_##t(T a) { return (U)a; } \
  static inline T uf_frombits_##t(U u) { return uf_wrap_##t(u); }

/* Signed: b = 0 gives 0 (mod: a); b = -1 is negation (so MIN / -1 wraps instead of trapping). A shift by
   b >= W saturates (SHL 0, SHR 0 or -1); a negative shift is UNDEFINED and gives SHL 0, SHR a. */
#define UF_SINT(t, T, U, W, MAXV) \
  UF_INT(t, T, U, W, MAXV) \
  static inline T uf_shl_##t(T a, T b) { return b < 0 || b >= W ? 0 : uf_wrap_##t((uint64_t)a << b); } \
  static inline T uf_shr_##t(T a, T b) { \
    int s = b >= W ? W - 1 : (int)b; \
    if (b < 0) return a; \
    return a < 0 ? (T)~(~(int64_t)a >> s) : (T)((int64_t)a >> s); \
  } \
  static inline T uf_floordiv_##t(T a, T b) { \
    T q; \
    if (b == 0) return 0; \
    if (b == -1) return uf_neg_##t(a); \
    q = (T)(a / b); \
    return (q * b != a && ((a < 0) != (b < 0))) ? (T)(q - 1) : q; \
  } \
  static inline T uf_floormod_##t(T a, T b) { \
    T r; \
    if (b == 0) return a; \
    if (b == -1) return 0; \
    r = (T)(a % b); \
    return (r != 0 && ((r < 0) != (b < 0))) ? (T)(r + b) : r; \
  } \
  static inline T uf_cdiv_##t(T a, T b) { return b == 0 ? 0 : b == -1 ? uf_neg_##t(a) : (T)(a / b); } \
  static inline T uf_cmod_##t(T a, T b) { return b == 0 ? a : b == -1 ? 0 : (T)(a % b); }

#define UF_UINT(t, T, W) \
  UF_INT(t, T, T, W, UINT64_MAX >> (64 - W)) \
  static inline T uf_shl_##t(T a, T b) { return b >= W ? 0 : uf_wrap_##t((uint64_t)a << b); } \
  static inline T uf_shr_##t(T a, T b) { return b >= W ? 0 : (T)((uint64_t)a >> b); } \
  static inline T uf_floordiv_##t(T a, T b) { return b == 0 ? 0 : (T)(a / b); } \
  static inline T uf_floormod_##t(T a, T b) { return b == 0 ? a : (T)(a % b); } \
  static inline T uf_cdiv_##t(T a, T b) { return b == 0 ? 0 : (T)(a / b); } \
  static inline T uf_cmod_##t(T a, T b) { return b == 0 ? a : (T)(a % b); }

UF_SINT(i8, int8_t, uint8_t, 8, INT8_MAX) UF_SINT(i16, int16_t, uint16_t, 16, INT16_MAX)
UF_SINT(i32, int32_t, uint32_t, 32, INT32_MAX) UF_SINT(i64, int64_t, uint64_t, 64, INT64_MAX)
UF_UINT(u8, uint8_t, 8) UF_UINT(u16, uint16_t, 16) UF_UINT(u32, uint32_t, 32) UF_UINT(u64, uint64_t, 64)

/* Vectors (GCC/Clang vector extensions): uf_v<lane>x<P>, P a power of two (codegen/render/vector.cpp). */
#define UF_VEC(t, T) \
  typedef T uf_v##t##x2 __attribute__((vector_size(2 * sizeof(T)))); \
  typedef T uf_v##t##x4 __attribute__((vector_size(4 * sizeof(T)))); \
  typedef T uf_v##t##x8 __attribute__((vector_size(8 * sizeof(T)))); \
  typedef T uf_v##t##x16 __attribute__((vector_size(16 * sizeof(T))));
UF_VEC(u8, uint8_t) UF_VEC(u16, uint16_t) UF_VEC(u32, uint32_t) UF_VEC(u64, uint64_t)
UF_VEC(i8, int8_t) UF_VEC(i16, int16_t) UF_VEC(i32, int32_t) UF_VEC(i64, int64_t)
UF_VEC(f32, float) UF_VEC(f64, double)
#undef UF_VEC
#undef UF_OUTLINE
#undef UF_MAX
#undef UF_FP8
#undef UF_NEG
#undef UF_BITS_F
#undef UF_INT
#undef UF_SINT
#undef UF_UINT
/* end of prelude */
)PRELUDE";

// Inserted before the end marker under --f16 native (RenderOptions::f16_native). The kernel text is
// the same whether the compiler has _Float16 or not: uf_h and the uf_h* ops are defined one way or the other.
const char* const kNativeF16 =
    R"PRELUDE(/* --f16 native: f16 values are uf_h, the compiler's own _Float16 where it has one. Native ops:
   + - * (uf_hadd, uf_hsub, uf_hmul), 1/x (uf_hrecip), sqrt (uf_hsqrt), NEG, comparisons, WHERE, MAX,
   conversions from f32 and f64 (one correctly rounded conversion each; ints go through binary64 first,
   like the reference). Each is correctly rounded, so it equals the reference's "binary64, rounded
   once": in binary16 (AVX512-FP16) directly, and in float too, because rounding a correctly rounded
   float result again to binary16 is innocuous (24 >= 2*11+2). Excess precision: without AVX512-FP16,
   gcc and clang compute _Float16 in float and may keep a float intermediate across a chain like
   (a+b)*c (gcc 12 and clang 16 do, at -O0 and -O2). Every op is therefore cast to _Float16, which
   rounds, under gcc's default -fexcess-precision=fast too (tests/programs/f16_native_chain.uop). MULACC, EXP2, LOG2, SIN, POW and TRUNC stay helpers, computed
   in binary64 and converted once by uf_round_h. Buffers hold the bits (uint16_t, the ABI of _Float16),
   copied in and out with memcpy; scratch ALLOCs and f16 vector lanes stay float (soft).
   Fallback: no _Float16 on this target (gcc < 12, clang < 15 on x86-64; tcc predefines __FLT16_MAX__
   but has no such type). Then uf_h is float and the same names are the soft helpers: native mode
   compiles everywhere and is exact everywhere. */
#if defined(__FLT16_MAX__) && !defined(__TINYC__) && (!defined(__clang__) || __clang_major__ >= 15)
#define UF_F16_NATIVE 1
typedef _Float16 uf_h;
#define uf_hadd(a, b) ((_Float16)((a) + (b)))
#define uf_hsub(a, b) ((_Float16)((a) - (b)))
#define uf_hmul(a, b) ((_Float16)((a) * (b)))
#define uf_hrecip(a) ((_Float16)((_Float16)1 / (a)))
#define uf_hsqrt(a) ((_Float16)sqrtf((float)(a)))
static inline uf_h uf_round_h(double x) { return (_Float16)x; }
static inline uf_h uf_round_h_f32(float x) { return (_Float16)x; }
static inline uint16_t uf_bits_h(uf_h a) { uint16_t u; memcpy(&u, &a, 2); return u; }
static inline uf_h uf_frombits_h(uint16_t u) { uf_h a; memcpy(&a, &u, 2); return a; }
#else
typedef float uf_h;
#define uf_hadd(a, b) uf_rh((double)(a) + (double)(b))
#define uf_hsub(a, b) uf_rh((double)(a) - (double)(b))
#define uf_hmul(a, b) uf_rh((double)(a) * (double)(b))
#define uf_hrecip(a) uf_rh(1.0 / (double)(a))
#define uf_hsqrt(a) uf_rh(sqrt((double)(a)))
static inline uf_h uf_round_h(double x) { return uf_rh(x); }
static inline uf_h uf_round_h_f32(float x) { return uf_rh((double)x); }
static inline uint16_t uf_bits_h(uf_h a) { return uf_f2h(a); }
static inline uf_h uf_frombits_h(uint16_t u) { return uf_h2f(u); }
#endif
static inline uf_h uf_max_h(uf_h a, uf_h b) { return b > a ? b : a; }
static inline uf_h uf_trunc_h(uf_h x) { float t = truncf((float)x); return t == 0 ? (uf_h)0.0f : (uf_h)t; }
)PRELUDE";

}  // namespace

const std::string& render_prelude(const RenderOptions& opts) {
  static const std::string soft = kPrelude;
  static const std::string native = [] {
    std::string s = kPrelude;
    s.insert(s.rfind("/* end of prelude */"), kNativeF16);
    return s;
  }();
  return opts.f16_native ? native : soft;
}

}  // namespace uf

// asc_cpu.h: the runtime support that generated cpu-target code includes. Hand-written; ships with asc.
#ifndef ASC_CPU_H
#define ASC_CPU_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>
#include <float.h>
#include <limits.h>
#ifdef __cplusplus
#include <cmath>
#endif

#if defined(_OPENMP)
#include <omp.h>
#endif

#define ASC_EXPORT __attribute__((visibility("default")))
#define ASC_INF ((double)INFINITY)
#define ASC_INF_F INFINITY
#define ASC_NAN ((double)NAN)
#define ASC_NAN_F NAN

#include "asc_math.h"

// ---------------------------------------------------------------- threads, and fork()
// The OpenMP runtime's thread pool does not survive fork(): in a child, a parallel region waits forever for threads
// that were never copied. asc (runtime/forking.py) sets asc_single_thread to 1 in every kernel library of a process
// forked from one that had an OpenMP runtime loaded, and each parallel region of the kernel then runs on the calling
// thread alone (same results: every split of the work is a fixed function of the iteration space, not of the team).
#ifdef __cplusplus
extern "C" {
#endif
#if defined(ASC_MEMORY_CHECK)
ASC_EXPORT int asc_single_thread = 1;   // checked kernels run in the interpreter's order (products included)
#else
ASC_EXPORT int asc_single_thread = 0;
#endif
#ifdef __cplusplus
}
#endif

// the team size of a parallel region that asks for `n` threads
static inline int asc_team(int n) { return asc_single_thread ? 1 : n; }
#if defined(_OPENMP)
static inline int asc_max_threads(void) { return asc_single_thread ? 1 : omp_get_max_threads(); }
#else
static inline int asc_max_threads(void) { return 1; }
#endif
#define ASC_MAX_THREADS() asc_max_threads()

// ---------------------------------------------------------------- 16-bit floats: storage only, computed in float32
typedef uint16_t asc_half;
typedef uint16_t asc_bf16;

static inline float asc_bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t asc_f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// Integer-only, branch-free conversions: gcc and clang vectorize these (they do not vectorize _Float16 casts
// without AVX512-FP16). Round to nearest even; subnormals, inf and nan handled; checked exhaustively in the tests.
static inline float asc_h2f(asc_half h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
  uint32_t norm = (em << 13) + 0x38000000u;                           // normals: the exponent rebiased (+112)
  // subnormals and zero: an exact product of normal floats, so flush-to-zero / denormals-are-zero modes (which
  // torch.set_flush_denormal sets) leave them alone, as vcvtph2ps does
  uint32_t sub = asc_f2bits((asc_bits2f(0x4b000000u | em) - 0x1p23f) * 0x1p-24f);
  uint32_t is_sub = 0u - (uint32_t)(em < 0x400u), is_inf = 0u - (uint32_t)(em >= 0x7c00u);   // masks: no branches
  uint32_t u = (sub & is_sub) | (norm & ~(is_sub | is_inf)) | (((em << 13) | 0x7f800000u) & is_inf);
  return asc_bits2f(u | sign);                                        // (inf / nan keep their payload)
}
static inline asc_half asc_f2h(float f) {
  uint32_t u = asc_f2bits(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  uint32_t norm = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
  uint32_t sub = asc_f2bits(asc_bits2f(a) + 0.5f) - 0x3f000000u;     // the FPU rounds a * 2^24 to an integer
  uint32_t r = ascm_selu(a >= 0x38800000u, norm, sub);              // mask selects: ?: chains were branches, and
  r = ascm_selu(a >= 0x477ff000u, 0x7c00u, r);                      // the loop scalar code on SSE4.2 and AVX2
  // a NaN keeps its sign and the top 10 bits of its payload, not quieted (NumPy's float32 -> float16), so a float16
  // value widened and narrowed back keeps its bits; a payload with none of those bits set becomes 1 (still a NaN)
  uint32_t p = (a >> 13) & 0x3ffu;
  r = ascm_selu(a > 0x7f800000u, 0x7c00u | p | (uint32_t)(p == 0u), r);
  return (asc_half)(sign | r);
}

static inline float asc_bf2f(asc_bf16 h) { return asc_bits2f((uint32_t)h << 16); }
// A NaN keeps its sign and the top 7 bits of its payload, not quieted, as float16 does (NumPy's rule for float16;
// ml_dtypes would make every NaN 0x7fc0 with its sign): a copy through float32 keeps a bfloat16's bits
static inline asc_bf16 asc_f2bf(float f) {
  uint32_t u = asc_f2bits(f);
  uint32_t r = u + 0x7fffu + ((u >> 16) & 1u);                       // round to nearest even
  uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u, t = u >> 16;
  return (asc_bf16)(nan ? (t | (uint32_t)((t & 0x7fu) == 0u)) : (r >> 16));   // ?: a blend in simd loops
}
// double -> float rounded to odd: a later rounding to half is then correct (one rounding, not two)
static inline float asc_d2f_odd(double d) {
  float f = (float)d;
  uint32_t u = asc_f2bits(f);
  if ((double)f != d && d == d) { if (fabs((double)f) > fabs(d)) u -= 1; u |= 1u; }
  return asc_bits2f(u);
}
static inline asc_half asc_d2h(double d) { return asc_f2h(asc_d2f_odd(d)); }
// f rounded to float16 / bfloat16 and widened back (asc_h2f(asc_f2h(f)), asc_bf2f(asc_f2bf(f)): the same bits for
// every float32, NaNs included), in 32-bit lanes only: precision="mixed" rounds after each operation, and the
// 16-bit round trip kept gcc from vectorizing those loops (40x slower)
static inline float asc_round_h(float f) {
  uint32_t u = asc_f2bits(f), sign = u & 0x80000000u, a = u & 0x7fffffffu;
  uint32_t norm = (a + 0xfffu + ((a >> 13) & 1u)) & ~0x1fffu;          // 10 fraction bits, to nearest even
  uint32_t sub = asc_f2bits((asc_bits2f(a) + 0.5f) - 0.5f);           // below 2^-14: the FPU rounds to 2^-24 steps
  uint32_t r = ascm_selu(a >= 0x38800000u, norm, sub);
  r = ascm_selu(a >= 0x477ff000u, 0x7f800000u, r);                    // rounds past 65504: inf
  uint32_t p = a & 0x007fe000u;                                         // a NaN: the top 10 bits of its payload
  r = ascm_selu(a > 0x7f800000u, 0x7f800000u | p | ((uint32_t)(p == 0u) << 13), r);
  return asc_bits2f(r | sign);
}
static inline float asc_round_bf(float f) {
  uint32_t u = asc_f2bits(f);
  uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;         // round to nearest even
  uint32_t t = u & 0xffff0000u;                                         // a NaN: its top 7 payload bits, not quieted
  uint32_t nan = ascm_selu((u & 0x7fffffffu) > 0x7f800000u, t | ((uint32_t)((t & 0x007f0000u) == 0u) << 16), r);
  return asc_bits2f(nan);
}

// ---------------------------------------------------------------- Python semantics for // and %, integer power
static inline int64_t asc_floordiv_i(int64_t a, int64_t b) {
  if (b == 0) return 0;                                              // numpy: 0 with a warning
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t asc_mod_i(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t asc_ipow(int64_t b, int64_t e) {
  if (e < 0) return 0;
  uint64_t r = 1, x = (uint64_t)b;
  while (e) { if (e & 1) r *= x; x *= x; e >>= 1; }
  return (int64_t)r;
}

// ---------------------------------------------------------------- small math not in asc_math.h
static inline float asc_sqrt_f32(float x) { return sqrtf(x); }
static inline double asc_sqrt_f64(double x) { return sqrt(x); }
// floor / ceil without a library call (floorf vectorizes only with -fno-trapping-math): |x| rounded to the nearest
// integer by adding and subtracting 2^23 (2^52), x's sign back, one step toward -inf (+inf) where that passed x; the
// sign of x OR-ed in for ceil (-0.5 -> -0). |x| >= 2^23 (2^52) and infinities are integers already; a NaN comes back
// quieted with its sign and payload, as floorf gives it. Mask selects only: the loop is vector code on every ISA.
static inline float asc_floor_f32(float x) {
  float a = ascm_absf(x), r = ascm_with_signf((a + 0x1p23f) - 0x1p23f, x);
  r = r - ascm_self(r > x, 1.0f, 0.0f);
  return ascm_self(a >= 0x1p23f, x, r);
}
static inline double asc_floor_f64(double x) {
  double a = ascm_abs(x), r = ascm_with_sign((a + 0x1p52) - 0x1p52, x);
  r = r - ascm_seld(r > x, 1.0, 0.0);
  return ascm_seld(a >= 0x1p52, x, r);
}
static inline float asc_ceil_f32(float x) {
  float a = ascm_absf(x), r = ascm_with_signf((a + 0x1p23f) - 0x1p23f, x);
  r = ascm_u2f(ascm_f2u(r + ascm_self(r < x, 1.0f, 0.0f)) | (ascm_f2u(x) & 0x80000000u));
  return ascm_self(a >= 0x1p23f, x, r);
}
static inline double asc_ceil_f64(double x) {
  double a = ascm_abs(x), r = ascm_with_sign((a + 0x1p52) - 0x1p52, x);
  r = ascm_u2d(ascm_d2u(r + ascm_seld(r < x, 1.0, 0.0)) | (ascm_d2u(x) & 0x8000000000000000ull));
  return ascm_seld(a >= 0x1p52, x, r);
}
// round(x): the nearest integer value, ties to even (as Python's round and numpy.round); rint rounds in the current
// mode, which asc never changes from to-nearest-even; an integer is its own rounding
static inline float asc_round_f32(float x) { return rintf(x); }
static inline double asc_round_f64(double x) { return rint(x); }
static inline int64_t asc_round_i(int64_t x) { return x; }
static inline float asc_abs_f32(float x) { return fabsf(x); }
static inline double asc_abs_f64(double x) { return fabs(x); }
static inline int64_t asc_abs_i(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }
static inline int64_t asc_max_i(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t asc_min_i(int64_t a, int64_t b) { return a < b ? a : b; }
// Asks for `bytes` from `p` on, a 64-byte line at a time, into L1 (a later block of an element loop or group of a
// reduction: asc/passes/prefetch_ahead.py) or into L2 (a row kernel's next row, while it computes on this one:
// asc/passes/cpu_prefetch.py). Only a hint: no fault for any address, and no effect on results.
#if defined(__GNUC__) || defined(__clang__)
#define ASC_PREFETCH_LINES(p, bytes, locality) do { const char* asc_pc_ = (const char*)(p); \
    for (int64_t asc_po_ = 0; asc_po_ < (bytes); asc_po_ += 64) __builtin_prefetch(asc_pc_ + asc_po_, 0, locality); } while (0)
#else
#define ASC_PREFETCH_LINES(p, bytes, locality) ((void)(p), (void)(bytes))
#endif
static inline void asc_prefetch_l1(const void* p, int64_t bytes) { ASC_PREFETCH_LINES(p, bytes, 3); }
static inline void asc_prefetch_l2(const void* p, int64_t bytes) { ASC_PREFETCH_LINES(p, bytes, 2); }
// Iterations per thread of a parallel element loop: an even split rounded up to `grain` iterations, so that the
// chunks start on cache-line boundaries (64 iterations cover a line for any element size) and no two threads
// write the same line at a chunk's edge.
static inline int64_t asc_chunk(int64_t n, int64_t threads, int64_t grain) {
  int64_t per = (n + threads - 1) / (threads > 0 ? threads : 1);
  per = (per + grain - 1) / grain * grain;
  return per > 0 ? per : grain;
}
// numpy.maximum / minimum: nan if either operand is nan (that nan as it is, not quieted: a if a is nan, else b),
// else the larger / smaller, the second on a tie. Mask selects: `a != a || b != b ? ...` was a branch, and the loop
// scalar code, on SSE4.2 and AVX2. Python's max/min of floats and the max/min reductions in kernels mean the same;
// a running `m = asc_maximum_f32(m, x[i])` is the `asc_maximum_f32` OpenMP reduction below.
static inline float asc_maximum_f32(float a, float b) { return ascm_self((a > b) | (a != a), a, b); }
static inline double asc_maximum_f64(double a, double b) { return ascm_seld((a > b) | (a != a), a, b); }
static inline float asc_minimum_f32(float a, float b) { return ascm_self((a < b) | (a != a), a, b); }
static inline double asc_minimum_f64(double a, double b) { return ascm_seld((a < b) | (a != a), a, b); }
#pragma omp declare reduction(asc_maximum_f32 : float : omp_out = asc_maximum_f32(omp_out, omp_in)) \
    initializer(omp_priv = -ASC_INF_F)
#pragma omp declare reduction(asc_maximum_f64 : double : omp_out = asc_maximum_f64(omp_out, omp_in)) \
    initializer(omp_priv = -ASC_INF)
#pragma omp declare reduction(asc_minimum_f32 : float : omp_out = asc_minimum_f32(omp_out, omp_in)) \
    initializer(omp_priv = ASC_INF_F)
#pragma omp declare reduction(asc_minimum_f64 : double : omp_out = asc_minimum_f64(omp_out, omp_in)) \
    initializer(omp_priv = ASC_INF)

#ifdef __cplusplus
#include <limits>
// Python's // and % on floats, computed in the operands' type (NumPy's npy_divmod)
template <typename T> static inline T asc_floordiv_f(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b), div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return std::copysign(T(0), a / b);
  T fd = std::floor(div);
  return (div - fd > T(0.5)) ? fd + 1 : fd;
}
template <typename T> static inline T asc_mod_f(T a, T b) {
  if (b == 0) return std::fmod(a, b);
  T mod = std::fmod(a, b);
  if (mod != 0) { if ((b < 0) != (mod < 0)) mod += b; }
  else mod = std::copysign(T(0), b);
  return mod;
}
// shifts as NumPy: counts outside [0, bits) give 0 (or -1 for a negative value shifted right)
template <typename T> static inline T asc_shl(T a, int64_t b) {
  return ((uint64_t)b < sizeof(T) * 8) ? (T)((uint64_t)a << b) : (T)0;
}
template <typename T> static inline T asc_shr(T a, int64_t b) {
  return ((uint64_t)b < sizeof(T) * 8) ? (T)(a >> b) : (T)(a < 0 ? -1 : 0);
}
// float -> int as numpy does on x86 (out of range: the "integer indefinite" value), never undefined behaviour
template <typename T> static inline T asc_f2i(double x) {
  if (sizeof(T) == 8) return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (T)(int64_t)x : (T)INT64_MIN;
  // narrower types convert through int32 as x86 (and NumPy there) does: out of range or nan gives INT32_MIN
  int32_t v = (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
  return (T)v;
}

template <typename T> static inline void asc_fill(T* p, int64_t n, T v) { for (int64_t i = 0; i < n; ++i) p[i] = v; }

namespace asc {
// a kernel-local tensor: 64-byte aligned, freed when it goes out of scope
template <typename T> struct Buffer {
  T* data;
  explicit Buffer(int64_t n) {
    size_t bytes = ((size_t)(n > 0 ? n : 1) * sizeof(T) + 63) & ~(size_t)63;
    data = (T*)aligned_alloc(64, bytes);
    if (!data) { fprintf(stderr, "asc: out of memory allocating %zu bytes\n", bytes); abort(); }
  }
  ~Buffer() { free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};
}  // namespace asc
#endif

// an integer converted to a float, as a call: GCC (12) folds `0.0 - (double)i` into `-(double)i` at the source level,
// which is -0.0 for i = 0 (IEEE and NumPy: +0.0); it does not see through a function
#if defined(__cplusplus)
template <typename T, typename I> static inline T asc_i2f(I v) { return (T)v; }
#endif

// ---------------------------------------------------------------- a Python int meeting an integer dtype (NEP 50)
#if defined(__cplusplus)
#include <atomic>
// A Python int known only at run time (int64) implicitly converted to a narrower integer dtype must fit it: NumPy 2
// raises OverflowError. Each misfit bumps the library's counter and records its site and value; a call compares the
// counter at its end with its start (so concurrent calls of one kernel never miss their own) and returns 4, and the
// caller raises asc.IntegerOverflowError. The converted value wraps meanwhile (the call's results are not returned).
static std::atomic<int64_t> asc_ovf_count(0), asc_ovf_mark(0), asc_ovf_site(0), asc_ovf_value(0);
__attribute__((noinline, cold)) static void asc_ovf_record(int64_t v, int64_t site) {
  if (asc_ovf_count.fetch_add(1) == asc_ovf_mark.load()) {   // the call's first (without a concurrent call)
    asc_ovf_site.store(site);
    asc_ovf_value.store(v);
  }
}
template <typename T> static inline T asc_weak_fit(int64_t v, int64_t site) {
  if (__builtin_expect((int64_t)(T)v != v, 0)) asc_ovf_record(v, site);
  return (T)v;
}
static inline int64_t asc_ovf_begin() {
  int64_t c = asc_ovf_count.load();
  asc_ovf_mark.store(c);
  return c;
}
static inline int asc_ovf_status(int64_t begin, int status) {
  return status ? status : (asc_ovf_count.load() != begin ? 4 : 0);
}
// An integer power with a negative exponent: NumPy raises ValueError ("Integers to negative integer powers are not
// allowed"); recorded as an overflow site of its own (the caller tells it from a conversion by the site), 0 meanwhile.
static inline int64_t asc_ipow_checked(int64_t b, int64_t e, int64_t site) {
  if (__builtin_expect(e < 0, 0)) {
    asc_ovf_record(e, site);
    return 0;
  }
  return asc_ipow(b, e);
}
extern "C" ASC_EXPORT void asc_overflow_info(int64_t* out) {
  out[0] = asc_ovf_site.load(); out[1] = asc_ovf_value.load();
}
#endif

// ---------------------------------------------------------------- memory check (kernels built with it only)
#if defined(ASC_MEMORY_CHECK) && defined(__cplusplus)
#include <atomic>
// the first out-of-bounds access of a call: its site (a Python line and tensor), axis and index. The access itself
// is skipped (a store) or reads 0 (a load): nothing outside a tensor is touched. The kernel stops there: every
// checked access after it, in bounds or not, is skipped or reads 0 as well (a checked kernel runs on one thread,
// asc_single_thread above, so its loops run in the interpreter's order), so no element is written after the first
// bad access, as in the interpreter.
// Per calling thread: a checked kernel runs on the thread that calls it (asc_single_thread), which then reads the
// error (asc_error_info), so calls from several Python threads at once each see their own.
static thread_local std::atomic<int64_t> asc_err_site(-1);
static thread_local int64_t asc_err_axis = 0, asc_err_index = 0;
static thread_local int asc_err_kind = 0;      // 2: out of bounds, 3: a non-finite value stored
static thread_local double asc_err_value = 0;
static inline void asc_err_reset() { asc_err_site.store(-1); }
static inline int asc_err_status() { return asc_err_site.load() >= 0 ? asc_err_kind : 0; }
static inline int asc_stopped() { return asc_err_site.load(std::memory_order_relaxed) >= 0; }
static inline int asc_inb(int64_t i, int64_t n, int64_t site, int64_t axis) {
  if (asc_stopped()) return 0;
  if ((uint64_t)i < (uint64_t)n) return 1;
  int64_t none = -1;
  if (asc_err_site.compare_exchange_strong(none, site)) { asc_err_kind = 2; asc_err_axis = axis; asc_err_index = i; }
  return 0;
}
// numeric check of intermediates: the first non-finite value stored (site, flat index, value)
static inline double asc_fin_record(double v, int64_t site, int64_t flat) {
  int64_t none = -1;
  if (asc_err_site.compare_exchange_strong(none, site)) { asc_err_kind = 3; asc_err_index = flat; asc_err_value = v; }
  return v;
}
static inline float asc_fin(float v, int64_t site, int64_t flat) {
  return (v - v == 0.0f) ? v : (float)asc_fin_record(v, site, flat);
}
static inline double asc_fin(double v, int64_t site, int64_t flat) {
  return (v - v == 0.0) ? v : asc_fin_record(v, site, flat);
}
extern "C" ASC_EXPORT void asc_error_info(int64_t* out) {
  out[0] = asc_err_site.load(); out[1] = asc_err_axis; out[2] = asc_err_index;
  memcpy(&out[3], &asc_err_value, 8);
}
#endif

// ---------------------------------------------------------------- print(): formatted like Python, one line at a time
typedef struct { char buf[1024]; int n; } asc_printbuf;
static inline void asc_print_str(asc_printbuf* b, const char* s) {
  int len = (int)strlen(s);
  if (len > (int)sizeof(b->buf) - 1 - b->n) len = (int)sizeof(b->buf) - 1 - b->n;
  memcpy(b->buf + b->n, s, (size_t)len); b->n += len; b->buf[b->n] = 0;
}
static inline void asc_print_float(asc_printbuf* b, double x, int maxdig, int is32) {
  char t[64];
  if (x != x) { asc_print_str(b, "nan"); return; }
  if (x == INFINITY) { asc_print_str(b, "inf"); return; }
  if (x == -INFINITY) { asc_print_str(b, "-inf"); return; }
  for (int p = 1; p <= maxdig; ++p) {                                 // the shortest text that reads back
    snprintf(t, sizeof t, "%.*g", p, x);
    if (is32 ? (strtof(t, NULL) == (float)x) : (strtod(t, NULL) == x)) break;
  }
  if (!strpbrk(t, ".en")) strcat(t, ".0");
  asc_print_str(b, t);
}
static inline void asc_print_f32(asc_printbuf* b, float x) { asc_print_float(b, x, 9, 1); }
static inline void asc_print_f64(asc_printbuf* b, double x) { asc_print_float(b, x, 17, 0); }
static inline void asc_print_int(asc_printbuf* b, long long x) { char t[32]; snprintf(t, sizeof t, "%lld", x); asc_print_str(b, t); }
static inline void asc_print_bool(asc_printbuf* b, int x) { asc_print_str(b, x ? "True" : "False"); }
static inline void asc_print_flush(asc_printbuf* b) {
#if defined(_OPENMP)
#pragma omp critical(asc_print)
#endif
  { fwrite(b->buf, 1, (size_t)b->n, stdout); fflush(stdout); }
}

#endif  // ASC_CPU_H

/* asc_gemm.h: the cpu target's matrix unit. Hand-written, header-only C (also valid C++); ships with asc.
 *
 * Over 600 lines on purpose: one job, the blocked product (packing, micro-kernels per ISA, the driver and its
 * batched and fused-epilogue entries), whose parts share the block sizes and the packing layout declared here.
 *
 *     C = alpha * op(A) @ op(B) + beta * C          row-major, leading dimensions in elements
 *
 * API (all functions are `static`, so every kernel that includes this header gets its own copy):
 *
 *   void asc_gemm_f32 (M, N, K, float alpha, const float*    A, lda, const float*    B, ldb, float  beta, float*  C, ldc);
 *   void asc_gemm_f16 (M, N, K, float alpha, const uint16_t* A, lda, const uint16_t* B, ldb, float  beta, float*  C, ldc);
 *   void asc_gemm_bf16(M, N, K, float alpha, const uint16_t* A, lda, const uint16_t* B, ldb, float  beta, float*  C, ldc);
 *   void asc_gemm_f64 (M, N, K, double alpha, const double*  A, lda, const double*   B, ldb, double beta, double* C, ldc);
 *       f16 = IEEE binary16 bits, bf16 = bfloat16 bits; both accumulate and write float32.
 *   asc_gemm_<t>_t (int transA, int transB, M, N, K, ...same...)
 *       op(X) = X^T when transX != 0: A is then stored K x M (lda >= M), B is stored N x K (ldb >= K). Transposes
 *       cost nothing extra in the inner loop: they only change how panels are packed.
 *   asc_gemm_<t>_batched(int transA, int transB, int64_t batch, M, N, K, alpha, A, strideA, lda, B, strideB, ldb,
 *                        beta, C, strideC, ldc)
 *       batch products, X[b] = X + b*strideX (elements; 0 shares one matrix). Small products run in parallel over
 *       the batch (one thread each), big ones one after another on all threads; same bits as a loop of 2-D calls.
 *   asc_gemm_<t>_ex(int transA, int transB, M, N, K, ..., C, ldc, asc_gemm_epilogue_f32 epi, void* ctx)
 *       (asc_gemm_epilogue_f64 for f64) the fusion hook: epi(ctx, i0, j0, rows, cols, tile, ldc) is called exactly
 *       once per C tile (rows <= ASC_GEMM_MAX_MR, cols <= ASC_GEMM_MAX_NR), right after the tile got its final value
 *       (after the last K block), while it is still in L1. tile == C + i0*ldc + j0. The epilogue may rewrite the
 *       tile in place (bias, activation, residual, scaling) or read it and write elsewhere (a cast to float16, say,
 *       via ctx). It runs on the OpenMP worker threads, concurrently for different tiles; tiles never overlap.
 *       The tiling (hence i0/j0/rows/cols) does not depend on the number of threads.
 *
 * Conventions: M, N or K <= 0 is allowed. When beta == 0, C is not read (NaNs in C do not propagate). When K == 0 or
 * alpha == 0, A and B are not read and C = beta*C (BLAS semantics); the epilogue still runs over every tile.
 *
 * Design (after the GotoBLAS / BLIS papers: "Anatomy of high-performance matrix multiplication", Goto & van de Geijn;
 * "BLIS: a framework for rapidly instantiating BLAS functionality", Van Zee & van de Geijn):
 *
 *   for jc in N step NC                      B block (KC x NC, a few MiB): shared by the threads, lives in L2/L3
 *     for pc in K step KC                    (K split in equal blocks <= KC)
 *       barrier; pack B[pc:pc+KC, jc:jc+NC] -> NR-wide micro-panels, k-major (threads pack disjoint panels); barrier
 *       for each row panel ir (MR rows) of this thread:
 *         pack A[ir*MR:+MR, pc:pc+KC] -> one k-major micro-panel in the thread's own buffer (stays in L1)
 *         for jr over the NR-wide column panels:
 *           micro-kernel: the MR x NR tile of C held in registers, kc rank-1 updates; epilogue after the last pc
 *   Row panels go to threads dynamically (an atomic counter: balanced on a busy machine) when there are >= 8 per
 *   thread; otherwise the tile grid is split statically into nth rectangles (rows or columns, the smaller share).
 *
 *   Micro-kernels (chosen by the preprocessor; ASC_GEMM_FORCE_AVX2 / ASC_GEMM_FORCE_PORTABLE force a lower one):
 *     __AVX512F__           f32 12x32 (24 zmm accumulators, 2 B loads + 12 broadcasts per k), f64 8x24
 *                           (measured on Zen 4, one core, 2048^3: 12x32 109, 6x64 109, 8x48 108, 14x32 107, 4x96 87
 *                           GFLOP/s; in L1 the micro-kernel runs at 99% of the FMA peak)
 *     __AVX512BF16__        bf16 14x32 with vdpbf16ps: A and B are packed as k-pairs (bf16 pairs in a 32-bit lane),
 *                           one instruction does 2 k-steps; odd K is padded with zeros
 *     __AVX2__ + __FMA__    f32 6x16, f64 6x8 (12 ymm accumulators)
 *     otherwise             portable C, f32 4x16, f64 4x8 (the compiler vectorizes what it can; any architecture)
 *   float16 is converted to float32 while packing (F16C when present), bfloat16 too when vdpbf16ps is absent; the
 *   float32 micro-kernel then runs. Packing pads edge panels with zeros; edge tiles are computed into a local tile
 *   and merged, so the micro-kernel has no edge cases.
 *
 *   Threads: one OpenMP region per call (1 thread when already inside a parallel region or when the product is
 *   small); two barriers per B block, none for A. K is never split across threads and the blocking does not depend on
 *   the thread count, so the result has the same bits for any number of threads.
 *
 *   FMA is explicit (intrinsics), so the code is the same under -ffp-contract=off (the project's default flags).
 *   Tuning knobs (compile-time): ASC_GEMM_KC, ASC_GEMM_NC, ASC_GEMM_MIN_PARALLEL_FLOPS, ASC_GEMM_KEEP_BYTES.
 */
#ifndef ASC_GEMM_H
#define ASC_GEMM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
#include <omp.h>
#ifndef ASC_MAX_THREADS        /* asc_cpu.h's: 1 in a forked child (the OpenMP pool does not survive fork) */
#define ASC_MAX_THREADS() omp_get_max_threads()
#endif
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define ASC__GEMM_HAVE_YIELD 1
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"   /* gcc 12 false positives inside its AVX-512 intrinsics */
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__) && !defined(ASC_GEMM_FORCE_AVX2) && !defined(ASC_GEMM_FORCE_PORTABLE)
#define ASC_GEMM_ISA_AVX512 1
#define ASC_GEMM_ISA_NAME "avx512"
#if defined(__AVX512BF16__)
#define ASC_GEMM_HAVE_DPBF16 1
#endif
#elif defined(__AVX2__) && defined(__FMA__) && !defined(ASC_GEMM_FORCE_PORTABLE)
#define ASC_GEMM_ISA_AVX2 1
#define ASC_GEMM_ISA_NAME "avx2"
#else
#define ASC_GEMM_ISA_PORTABLE 1
#define ASC_GEMM_ISA_NAME "portable"
#endif
#if defined(__F16C__) && !defined(ASC_GEMM_ISA_PORTABLE)
#define ASC_GEMM_HAVE_F16C 1
#endif

#define ASC_GEMM_MAX_MR 16
#ifndef ASC_GEMM_MAX_NR
#define ASC_GEMM_MAX_NR 32
#endif

#ifndef ASC_GEMM_MIN_PARALLEL_FLOPS
#define ASC_GEMM_MIN_PARALLEL_FLOPS 4000000.0   /* below this, one thread: a parallel region costs microseconds */
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ASC__UNROLL _Pragma("GCC unroll 32")
#define ASC__STATIC static __attribute__((unused))   /* a kernel uses a few of these: no -Wunused-function noise */
#define ASC__INLINE static inline __attribute__((always_inline, unused))
#else
#define ASC__UNROLL
#define ASC__STATIC static
#define ASC__INLINE static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*asc_gemm_epilogue_f32)(void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols, float* tile,
                                      int64_t ldc);
typedef void (*asc_gemm_epilogue_f64)(void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols, double* tile,
                                      int64_t ldc);

/* ------------------------------------------------------------------------------------------ scalar conversions */
ASC__STATIC inline float asc__gemm_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
ASC__STATIC inline float asc__gemm_bf2f(uint16_t h) { return asc__gemm_u2f((uint32_t)h << 16); }
ASC__STATIC inline float asc__gemm_h2f(uint16_t h) {
#if defined(ASC_GEMM_HAVE_F16C)
  return _cvtsh_ss(h);
#else
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
  float f = asc__gemm_u2f(em << 13) * 0x1p112f;   /* rebias: exact for normals and subnormals */
  uint32_t u; memcpy(&u, &f, 4);
  if (em >= 0x7c00u) u |= 0x7f800000u;             /* inf / nan */
  return asc__gemm_u2f(u | sign);
#endif
}

/* ------------------------------------------------------------------------------------------ kernel descriptor */
/* A packed "unit" is one element (f32, f64) or one k-pair of bf16 (32 bits); kp = k-steps per unit. */
typedef void (*asc__gemm_pack_fn)(const void* X, int64_t ldx, int trans, int64_t i0, int64_t p0, int64_t n,
                                  int64_t kc, int w, void* dst);
typedef void (*asc__gemm_ukr_fn)(int64_t kcu, const void* Ap, const void* Bp, void* C, int64_t ldc, double alpha,
                                 double beta);
typedef struct {
  int mr, nr, kp, usz, csz;   /* micro-tile, k-steps per packed unit, packed unit bytes, C element bytes */
  int64_t kc, nc;             /* cache blocks (kc in k-steps, a multiple of kp; nc a multiple of nr) */
  asc__gemm_pack_fn pack_a, pack_b;
  asc__gemm_ukr_fn ukr;
} asc__gemm_desc;

/* ------------------------------------------------------------------------------------------ packing */
/* pack_a: rows i0..i0+n of op(A) (n <= w = MR), k-steps p0..p0+kc -> dst[p*w + r], rows n..w-1 zero.
 * pack_b: columns i0..i0+n of op(B) (n <= w = NR), k-steps p0..p0+kc -> dst[p*w + c], columns n..w-1 zero.
 * op(X)(r, p) for pack_a is X[r*ldx + p] (or X[p*ldx + r] transposed); for pack_b op(B)(p, c) is B[p*ldb + c] (or
 * B[c*ldb + p] transposed), i.e. pack_b(B, trans) == pack_a(B, !trans) with rows and columns exchanged. */
#define ASC__GEMM_DEFINE_PACK(NAME, IT, OT, CONV)                                                              \
  ASC__STATIC void NAME##_rows(const void* X_, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc, int w,  \
                          void* dst_) {                                                                        \
    /* element (r, p) at X[(i0+r)*ldx + p0+p] */                                                              \
    const IT* X = (const IT*)X_; OT* dst = (OT*)dst_;                                                           \
    int64_t r, p;                                                                                               \
    for (r = 0; r < n; ++r) {                                                                                   \
      const IT* x = X + (i0 + r) * ldx + p0;                                                                    \
      for (p = 0; p < kc; ++p) dst[p * w + r] = CONV(x[p]);                                                     \
    }                                                                                                           \
    for (p = 0; p < kc && n < w; ++p)                                                                           \
      for (r = n; r < w; ++r) dst[p * w + r] = (OT)0;                                                           \
  }                                                                                                             \
  ASC__STATIC void NAME##_cols(const void* X_, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc, int w,  \
                          void* dst_) {                                                                        \
    /* element (r, p) at X[(p0+p)*ldx + i0+r] */                                                              \
    const IT* X = (const IT*)X_; OT* dst = (OT*)dst_;                                                           \
    int64_t r, p;                                                                                               \
    for (p = 0; p < kc; ++p) {                                                                                  \
      const IT* x = X + (p0 + p) * ldx + i0;                                                                    \
      OT* d = dst + p * w;                                                                                      \
      for (r = 0; r < n; ++r) d[r] = CONV(x[r]);                                                                \
      for (; r < w; ++r) d[r] = (OT)0;                                                                          \
    }                                                                                                           \
  }                                                                                                             \
  ASC__STATIC void NAME##_a(const void* X, int64_t ldx, int trans, int64_t i0, int64_t p0, int64_t n, int64_t kc,    \
                       int w, void* dst) {                                                                     \
    if (trans) NAME##_cols(X, ldx, i0, p0, n, kc, w, dst); else NAME##_rows(X, ldx, i0, p0, n, kc, w, dst);     \
  }                                                                                                             \
  ASC__STATIC void NAME##_b(const void* X, int64_t ldx, int trans, int64_t i0, int64_t p0, int64_t n, int64_t kc,    \
                       int w, void* dst) {                                                                     \
    if (trans) NAME##_rows(X, ldx, i0, p0, n, kc, w, dst); else NAME##_cols(X, ldx, i0, p0, n, kc, w, dst);     \
  }

#define ASC__GEMM_ID(x) (x)
ASC__GEMM_DEFINE_PACK(asc__gemm_pack_f32, float, float, ASC__GEMM_ID)
ASC__GEMM_DEFINE_PACK(asc__gemm_pack_f64, double, double, ASC__GEMM_ID)
ASC__GEMM_DEFINE_PACK(asc__gemm_pack_h2f, uint16_t, float, asc__gemm_h2f)
ASC__GEMM_DEFINE_PACK(asc__gemm_pack_bf2f, uint16_t, float, asc__gemm_bf2f)

#if defined(ASC_GEMM_HAVE_DPBF16)
/* bf16 k-pairs: unit (r, q) = op(X)(r, 2q) | op(X)(r, 2q+1) << 16, a zero where past the end (n rows, kc k-steps). */
ASC__STATIC void asc__gemm_pack_bfp_rows(const void* X_, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc, int w,
                                    void* dst_) {
  /* element (r, p) at X[(i0+r)*ldx + p0+p]: the pair is adjacent in memory */
  const uint16_t* X = (const uint16_t*)X_; uint32_t* dst = (uint32_t*)dst_;
  int64_t r, q, kq = kc >> 1;
  for (r = 0; r < n; ++r) {
    const uint16_t* x = X + (i0 + r) * ldx + p0;
    for (q = 0; q < kq; ++q) { uint32_t u; memcpy(&u, x + 2 * q, 4); dst[q * w + r] = u; }
    if (kc & 1) dst[kq * w + r] = x[2 * kq];
  }
  for (q = 0; q < ((kc + 1) >> 1) && n < w; ++q)
    for (r = n; r < w; ++r) dst[q * w + r] = 0;
}
ASC__STATIC void asc__gemm_pack_bfp_cols(const void* X_, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc, int w,
                                    void* dst_) {
  /* element (r, p) at X[(p0+p)*ldx + i0+r]: interleave two rows */
  const uint16_t* X = (const uint16_t*)X_; uint32_t* dst = (uint32_t*)dst_;
  int64_t r, q, kq = kc >> 1;
  for (q = 0; q < kq; ++q) {
    const uint16_t* x0 = X + (p0 + 2 * q) * ldx + i0;
    const uint16_t* x1 = x0 + ldx;
    uint32_t* d = dst + q * w;
    for (r = 0; r < n; ++r) d[r] = (uint32_t)x0[r] | ((uint32_t)x1[r] << 16);
    for (; r < w; ++r) d[r] = 0;
  }
  if (kc & 1) {
    const uint16_t* x0 = X + (p0 + 2 * kq) * ldx + i0;
    uint32_t* d = dst + kq * w;
    for (r = 0; r < n; ++r) d[r] = x0[r];
    for (; r < w; ++r) d[r] = 0;
  }
}
#endif

/* Vector packing (AVX-512 F+BW+VL): contiguous runs are loaded 16 at a time (converted to float32 on the way); the
 * k-major interleave of rows is a 16 x 16 transpose of 32-bit units in registers. */
#if defined(ASC_GEMM_ISA_AVX512) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define ASC_GEMM_VPACK 1
ASC__STATIC inline __mmask16 asc__gemm_mask(int64_t n) {
  return (__mmask16)(n >= 16 ? 0xffffu : n > 0 ? (1u << n) - 1u : 0u);
}
/* 16 rows of 16 32-bit units, transposed in place */
ASC__INLINE void asc__gemm_tr16(__m512i* r) {
  __m512i t[16], u[16];
  int i, c;
  ASC__UNROLL for (i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  ASC__UNROLL for (i = 0; i < 4; ++i) {   /* u[4i+c], 128-bit lane L: column 4L+c of rows 4i..4i+3 */
    u[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  ASC__UNROLL for (c = 0; c < 4; ++c) {
    __m512i v0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44), v1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xee);
    __m512i w0 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x44), w1 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xee);
    r[c] = _mm512_shuffle_i32x4(v0, w0, 0x88);
    r[4 + c] = _mm512_shuffle_i32x4(v0, w0, 0xdd);
    r[8 + c] = _mm512_shuffle_i32x4(v1, w1, 0x88);
    r[12 + c] = _mm512_shuffle_i32x4(v1, w1, 0xdd);
  }
}
/* 16 units at x (those outside mask m read as 0): kind 0 = 32-bit units as they are, 1 = float16 -> float32,
 * 2 = bfloat16 -> float32 */
ASC__INLINE __m512i asc__gemm_vload(const char* x, int kind, __mmask16 m) {
  if (kind == 0) return _mm512_maskz_loadu_epi32(m, x);
  if (kind == 1) return _mm512_castps_si512(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, x)));
  return _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x)), 16);
}
/* n (<= w <= 16) rows of nu units, row i at x + i*ld bytes -> dst[q*w + i]; rows n..w-1 zero */
ASC__INLINE void asc__gemm_vrows16(const char* x, int64_t ld, int kind, int64_t n, int64_t nu, int w, int wd,
                                   uint32_t* dst) {   /* wd: the stride of dst rows */
  const int64_t usz = kind == 0 ? 4 : 2;
  const __mmask16 wm = asc__gemm_mask(w);
  int64_t q;
  int i;
  for (q = 0; q < nu; q += 16) {
    int64_t m = nu - q < 16 ? nu - q : 16;
    __mmask16 lm = asc__gemm_mask(m);
    __m512i r[16];
    ASC__UNROLL for (i = 0; i < 16; ++i)
      r[i] = i < n ? asc__gemm_vload(x + i * ld + q * usz, kind, lm) : _mm512_setzero_si512();
    asc__gemm_tr16(r);
    if (m == 16) {
      ASC__UNROLL for (i = 0; i < 16; ++i) _mm512_mask_storeu_epi32(dst + (q + i) * wd, wm, r[i]);
    } else {
      for (i = 0; i < m; ++i) _mm512_mask_storeu_epi32(dst + (q + i) * wd, wm, r[i]);
    }
  }
}
/* n (<= w) rows of nu units -> dst[q*w + i], in groups of 16 rows */
ASC__STATIC void asc__gemm_vrows(const char* x, int64_t ld, int kind, int64_t n, int64_t nu, int w, uint32_t* dst) {
  int g;
  for (g = 0; g < w; g += 16)
    asc__gemm_vrows16(x + g * ld, ld, kind, n - g < 0 ? 0 : n - g, nu, w - g < 16 ? w - g : 16, w, dst + g);
}
/* nu rows of n (<= w) contiguous units, row q at x + q*ld bytes -> dst[q*w + c]; columns n..w-1 zero */
ASC__INLINE void asc__gemm_vcols(const char* x, int64_t ld, int kind, int64_t n, int64_t nu, int w, uint32_t* dst) {
  const int64_t usz = kind == 0 ? 4 : 2;
  int64_t q;
  int c;
  for (q = 0; q < nu; ++q)
    for (c = 0; c < w; c += 16)
      _mm512_mask_storeu_epi32(dst + q * w + c, asc__gemm_mask(w - c),
                               asc__gemm_vload(x + q * ld + c * usz, kind, asc__gemm_mask(n - c)));
}
#define ASC__GEMM_DEFINE_VPACK(NAME, ESZ, KIND)                                                                  \
  ASC__STATIC void NAME##_vrows(const void* X, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc, int w,     \
                           void* dst) {                                                                          \
    asc__gemm_vrows((const char*)X + (i0 * ldx + p0) * ESZ, ldx * ESZ, KIND, n, kc, w, (uint32_t*)dst);        \
  }                                                                                                               \
  ASC__STATIC void NAME##_vcols(const void* X, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc, int w,     \
                           void* dst) {                                                                          \
    asc__gemm_vcols((const char*)X + (p0 * ldx + i0) * ESZ, ldx * ESZ, KIND, n, kc, w, (uint32_t*)dst);        \
  }
ASC__GEMM_DEFINE_VPACK(asc__gemm_pack_f32, 4, 0)
ASC__GEMM_DEFINE_VPACK(asc__gemm_pack_h2f, 2, 1)
ASC__GEMM_DEFINE_VPACK(asc__gemm_pack_bf2f, 2, 2)
#define ASC__GEMM_ROWS(NAME) NAME##_vrows
#define ASC__GEMM_COLS(NAME) NAME##_vcols

#if defined(ASC_GEMM_HAVE_DPBF16)
ASC__STATIC void asc__gemm_pack_bfp_vrows(const void* X_, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc,
                                     int w, void* dst_) {
  const uint16_t* X = (const uint16_t*)X_; uint32_t* dst = (uint32_t*)dst_;
  int64_t r, kq = kc >> 1;
  asc__gemm_vrows((const char*)(X + i0 * ldx + p0), ldx * 2, 0, n, kq, w, dst);   /* whole pairs */
  if (kc & 1)
    for (r = 0; r < w; ++r) dst[kq * w + r] = r < n ? X[(i0 + r) * ldx + p0 + 2 * kq] : 0;
}
ASC__STATIC void asc__gemm_pack_bfp_vcols(const void* X_, int64_t ldx, int64_t i0, int64_t p0, int64_t n, int64_t kc,
                                     int w, void* dst_) {
  const uint16_t* X = (const uint16_t*)X_; uint32_t* dst = (uint32_t*)dst_;
  int64_t q, kq = (kc + 1) >> 1;
  int c;
  for (q = 0; q < kq; ++q) {
    const uint16_t* x0 = X + (p0 + 2 * q) * ldx + i0;
    int odd_end = 2 * q + 1 >= kc;
    for (c = 0; c < w; c += 16) {
      __mmask16 m = asc__gemm_mask(n - c);
      __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x0 + c));
      __m512i hi = odd_end ? _mm512_setzero_si512() : _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x0 + ldx + c));
      _mm512_mask_storeu_epi32(dst + q * w + c, asc__gemm_mask(w - c), _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
    }
  }
}
#define ASC__GEMM_BFP_ROWS asc__gemm_pack_bfp_vrows
#define ASC__GEMM_BFP_COLS asc__gemm_pack_bfp_vcols
#endif
#else
#define ASC__GEMM_ROWS(NAME) NAME##_rows
#define ASC__GEMM_COLS(NAME) NAME##_cols
#define ASC__GEMM_BFP_ROWS asc__gemm_pack_bfp_rows
#define ASC__GEMM_BFP_COLS asc__gemm_pack_bfp_cols
#endif

/* pack_a / pack_b from the rows and cols packers: op(A) transposed reads A like op(B) untransposed, and vice versa */
#define ASC__GEMM_DEFINE_AB(NAME, ROWS, COLS)                                                                    \
  ASC__STATIC void NAME##_av(const void* X, int64_t ldx, int trans, int64_t i0, int64_t p0, int64_t n, int64_t kc,    \
                        int w, void* dst) {                                                                      \
    if (trans) COLS(X, ldx, i0, p0, n, kc, w, dst); else ROWS(X, ldx, i0, p0, n, kc, w, dst);                    \
  }                                                                                                               \
  ASC__STATIC void NAME##_bv(const void* X, int64_t ldx, int trans, int64_t i0, int64_t p0, int64_t n, int64_t kc,    \
                        int w, void* dst) {                                                                      \
    if (trans) ROWS(X, ldx, i0, p0, n, kc, w, dst); else COLS(X, ldx, i0, p0, n, kc, w, dst);                    \
  }
ASC__GEMM_DEFINE_AB(asc__gemm_pack_f32, ASC__GEMM_ROWS(asc__gemm_pack_f32), ASC__GEMM_COLS(asc__gemm_pack_f32))
ASC__GEMM_DEFINE_AB(asc__gemm_pack_h2f, ASC__GEMM_ROWS(asc__gemm_pack_h2f), ASC__GEMM_COLS(asc__gemm_pack_h2f))
ASC__GEMM_DEFINE_AB(asc__gemm_pack_bf2f, ASC__GEMM_ROWS(asc__gemm_pack_bf2f), ASC__GEMM_COLS(asc__gemm_pack_bf2f))
#if defined(ASC_GEMM_HAVE_DPBF16)
ASC__GEMM_DEFINE_AB(asc__gemm_pack_bfp, ASC__GEMM_BFP_ROWS, ASC__GEMM_BFP_COLS)
#endif

/* ------------------------------------------------------------------------------------------ micro-kernels */
/* ukr(kcu, Ap, Bp, C, ldc, alpha, beta): C[r][c] = alpha * sum_p Ap[p][r] * Bp[p][c] + beta * C[r][c] for the full
 * MR x NR tile; beta == 0: C is not read. kcu = packed units (k-steps, or k-pairs for bf16). */
#define ASC__GEMM_DEFINE_UKR(NAME, T, VT, W, MR, NV, ZERO, LOAD, LOADU, STOREU, SET1, FMA, MUL, PREF)           \
  ASC__STATIC void NAME(int64_t kcu, const void* Ap_, const void* Bp_, void* C_, int64_t ldc, double alpha_,          \
                   double beta_) {                                                                             \
    const T* Ap = (const T*)Ap_; const T* Bp = (const T*)Bp_; T* C = (T*)C_;                                     \
    VT c[MR][NV];                                                                                               \
    int r, v;                                                                                                   \
    int64_t p;                                                                                                  \
    ASC__UNROLL for (r = 0; r < MR; ++r) { PREF(C + r * ldc); PREF(C + r * ldc + NV * W - 1); }                 \
    ASC__UNROLL for (r = 0; r < MR; ++r) ASC__UNROLL for (v = 0; v < NV; ++v) c[r][v] = ZERO();                 \
    for (p = 0; p < kcu; ++p) {                                                                                 \
      VT b[NV];                                                                                                 \
      ASC__UNROLL for (v = 0; v < NV; ++v) b[v] = LOAD(Bp + v * W);                                             \
      ASC__UNROLL for (r = 0; r < MR; ++r) {                                                                    \
        VT a = SET1(Ap[r]);                                                                                     \
        ASC__UNROLL for (v = 0; v < NV; ++v) c[r][v] = FMA(a, b[v], c[r][v]);                                  \
      }                                                                                                         \
      Ap += MR; Bp += NV * W;                                                                                   \
    }                                                                                                           \
    {                                                                                                           \
      VT va = SET1((T)alpha_);                                                                                  \
      if (beta_ == 0) {                                                                                         \
        ASC__UNROLL for (r = 0; r < MR; ++r) ASC__UNROLL for (v = 0; v < NV; ++v)                               \
          STOREU(C + r * ldc + v * W, MUL(va, c[r][v]));                                                        \
      } else {                                                                                                  \
        VT vb = SET1((T)beta_);                                                                                 \
        ASC__UNROLL for (r = 0; r < MR; ++r) ASC__UNROLL for (v = 0; v < NV; ++v)                               \
          STOREU(C + r * ldc + v * W, FMA(vb, LOADU(C + r * ldc + v * W), MUL(va, c[r][v])));                   \
      }                                                                                                         \
    }                                                                                                           \
  }

#define ASC__PREF_T0(p) __builtin_prefetch((const void*)(p), 1, 3)

#if defined(ASC_GEMM_ISA_AVX512)
#ifndef ASC_GEMM_MR_F32   /* the f32 tile can be overridden for tuning experiments (NR a multiple of 16) */
#define ASC_GEMM_MR_F32 12
#define ASC_GEMM_NR_F32 32
#endif
#ifndef ASC_GEMM_MR_F64   /* f64, one core, 1536^3: 8x24 52.5, 6x32 52.5, 12x16 51, 14x16 51 GFLOP/s */
#define ASC_GEMM_MR_F64 8
#define ASC_GEMM_NR_F64 24
#endif
ASC__GEMM_DEFINE_UKR(asc__gemm_ukr_f32, float, __m512, 16, ASC_GEMM_MR_F32, ASC_GEMM_NR_F32 / 16, _mm512_setzero_ps, _mm512_load_ps, _mm512_loadu_ps,
                     _mm512_storeu_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_mul_ps, ASC__PREF_T0)
ASC__GEMM_DEFINE_UKR(asc__gemm_ukr_f64, double, __m512d, 8, ASC_GEMM_MR_F64, ASC_GEMM_NR_F64 / 8, _mm512_setzero_pd, _mm512_load_pd,
                     _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_mul_pd, ASC__PREF_T0)
#elif defined(ASC_GEMM_ISA_AVX2)
#define ASC_GEMM_MR_F32 6
#define ASC_GEMM_NR_F32 16
#define ASC_GEMM_MR_F64 6
#define ASC_GEMM_NR_F64 8
ASC__GEMM_DEFINE_UKR(asc__gemm_ukr_f32, float, __m256, 8, 6, 2, _mm256_setzero_ps, _mm256_load_ps, _mm256_loadu_ps,
                     _mm256_storeu_ps, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_mul_ps, ASC__PREF_T0)
ASC__GEMM_DEFINE_UKR(asc__gemm_ukr_f64, double, __m256d, 4, 6, 2, _mm256_setzero_pd, _mm256_load_pd,
                     _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_mul_pd, ASC__PREF_T0)
#else
/* portable: "vectors" of one element; the compiler vectorizes the NR-wide rows where it can */
#define ASC_GEMM_MR_F32 4
#define ASC_GEMM_NR_F32 16
#define ASC_GEMM_MR_F64 4
#define ASC_GEMM_NR_F64 8
#define ASC__S_ZERO() 0
#define ASC__S_LOAD(p) (*(p))
#define ASC__S_STORE(p, x) (*(p) = (x))
#define ASC__S_SET1(x) (x)
#define ASC__S_FMA(a, b, c) ((a) * (b) + (c))
#define ASC__S_MUL(a, b) ((a) * (b))
#define ASC__S_PREF(p) ((void)0)
ASC__GEMM_DEFINE_UKR(asc__gemm_ukr_f32, float, float, 1, 4, 16, ASC__S_ZERO, ASC__S_LOAD, ASC__S_LOAD, ASC__S_STORE,
                     ASC__S_SET1, ASC__S_FMA, ASC__S_MUL, ASC__S_PREF)
ASC__GEMM_DEFINE_UKR(asc__gemm_ukr_f64, double, double, 1, 4, 8, ASC__S_ZERO, ASC__S_LOAD, ASC__S_LOAD, ASC__S_STORE,
                     ASC__S_SET1, ASC__S_FMA, ASC__S_MUL, ASC__S_PREF)
#endif

#if defined(ASC_GEMM_HAVE_DPBF16)
#ifndef ASC_GEMM_MR_BF16
#define ASC_GEMM_MR_BF16 14
#endif
#define ASC_GEMM_NR_BF16 32
/* Ap: per k-pair MR x uint32 (A pair broadcast to all lanes); Bp: per k-pair 32 x uint32 (2 zmm of bf16 pairs).
 * 14x32 (28 accumulators); 12x32 measured the same. */
ASC__STATIC void asc__gemm_ukr_bf16(int64_t kcu, const void* Ap_, const void* Bp_, void* C_, int64_t ldc, double alpha_,
                               double beta_) {
  const uint32_t* Ap = (const uint32_t*)Ap_; const uint32_t* Bp = (const uint32_t*)Bp_; float* C = (float*)C_;
  __m512 c[ASC_GEMM_MR_BF16][2];
  int r, v;
  int64_t p;
  ASC__UNROLL for (r = 0; r < ASC_GEMM_MR_BF16; ++r) { ASC__PREF_T0(C + r * ldc); ASC__PREF_T0(C + r * ldc + 31); }
  ASC__UNROLL for (r = 0; r < ASC_GEMM_MR_BF16; ++r) { c[r][0] = _mm512_setzero_ps(); c[r][1] = _mm512_setzero_ps(); }
  for (p = 0; p < kcu; ++p) {
    __m512bh b0 = (__m512bh)_mm512_load_si512((const void*)Bp);
    __m512bh b1 = (__m512bh)_mm512_load_si512((const void*)(Bp + 16));
    ASC__UNROLL for (r = 0; r < ASC_GEMM_MR_BF16; ++r) {
      __m512bh a = (__m512bh)_mm512_set1_epi32((int)Ap[r]);
      c[r][0] = _mm512_dpbf16_ps(c[r][0], a, b0);
      c[r][1] = _mm512_dpbf16_ps(c[r][1], a, b1);
    }
    Ap += ASC_GEMM_MR_BF16; Bp += 32;
  }
  {
    __m512 va = _mm512_set1_ps((float)alpha_);
    if (beta_ == 0) {
      ASC__UNROLL for (r = 0; r < ASC_GEMM_MR_BF16; ++r) ASC__UNROLL for (v = 0; v < 2; ++v)
        _mm512_storeu_ps(C + r * ldc + v * 16, _mm512_mul_ps(va, c[r][v]));
    } else {
      __m512 vb = _mm512_set1_ps((float)beta_);
      ASC__UNROLL for (r = 0; r < ASC_GEMM_MR_BF16; ++r) ASC__UNROLL for (v = 0; v < 2; ++v)
        _mm512_storeu_ps(C + r * ldc + v * 16,
                         _mm512_fmadd_ps(vb, _mm512_loadu_ps(C + r * ldc + v * 16), _mm512_mul_ps(va, c[r][v])));
    }
  }
}
#endif

/* ------------------------------------------------------------------------------------------ cache blocks */
#ifndef ASC_GEMM_KC
#define ASC_GEMM_KC 512      /* k-steps per block (float32; x2 for bfloat16 pairs, /2 for float64) */
#endif
#ifndef ASC_GEMM_NC
#define ASC_GEMM_NC 3072     /* columns of B per L3 block (rounded down to a multiple of NR) */
#endif

ASC__STATIC inline asc__gemm_desc asc__gemm_make_desc(int mr, int nr, int kp, int usz, int csz, asc__gemm_pack_fn pa,
                                                 asc__gemm_pack_fn pb, asc__gemm_ukr_fn ukr) {
  asc__gemm_desc d;
  int64_t kc = ASC_GEMM_KC * 4 / (csz > 4 ? 8 : 4) * (kp == 2 ? 2 : 1);   /* same bytes per panel for each type */
  d.mr = mr; d.nr = nr; d.kp = kp; d.usz = usz; d.csz = csz;
  d.kc = kc / kp * kp; if (d.kc < kp) d.kc = kp;
  d.nc = ASC_GEMM_NC / nr * nr; if (d.nc < nr) d.nc = nr;
  d.pack_a = pa; d.pack_b = pb; d.ukr = ukr;
  return d;
}

/* ------------------------------------------------------------------------------------------ the driver */
ASC__STATIC inline int64_t asc__gemm_min(int64_t a, int64_t b) { return a < b ? a : b; }
ASC__STATIC inline int64_t asc__gemm_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* C tile (rows x cols at Cp, ldc) = tile (ld = nr) + beta * C tile */
ASC__STATIC inline void asc__gemm_merge(int csz, void* Cp, int64_t ldc, const void* tile, int nr, int64_t rows,
                                   int64_t cols, double beta) {
  int64_t r, c;
  if (csz == 4) {
    float* C = (float*)Cp; const float* t = (const float*)tile; float b = (float)beta;
    for (r = 0; r < rows; ++r)
      for (c = 0; c < cols; ++c) C[r * ldc + c] = beta == 0 ? t[r * nr + c] : t[r * nr + c] + b * C[r * ldc + c];
  } else {
    double* C = (double*)Cp; const double* t = (const double*)tile;
    for (r = 0; r < rows; ++r)
      for (c = 0; c < cols; ++c) C[r * ldc + c] = beta == 0 ? t[r * nr + c] : t[r * nr + c] + beta * C[r * ldc + c];
  }
}

ASC__STATIC void asc__gemm_call_epi(int csz, void* epi, void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols,
                               void* tile, int64_t ldc) {
  if (csz == 4) ((asc_gemm_epilogue_f32)epi)(ctx, i0, j0, rows, cols, (float*)tile, ldc);
  else ((asc_gemm_epilogue_f64)epi)(ctx, i0, j0, rows, cols, (double*)tile, ldc);
}

/* K == 0 or alpha == 0: C = beta * C, then the epilogue over the same tiles the product would have used */
ASC__STATIC void asc__gemm_scale(const asc__gemm_desc* d, int64_t M, int64_t N, double beta, void* C, int64_t ldc,
                            void* epi, void* ctx) {
  int64_t i, j;
  for (i = 0; i < M; ++i) {
    if (d->csz == 4) {
      float* c = (float*)C + i * ldc;
      for (j = 0; j < N; ++j) c[j] = beta == 0 ? 0.0f : (float)beta * c[j];
    } else {
      double* c = (double*)C + i * ldc;
      for (j = 0; j < N; ++j) c[j] = beta == 0 ? 0.0 : beta * c[j];
    }
  }
  if (epi)
    for (j = 0; j < N; j += d->nr)
      for (i = 0; i < M; i += d->mr)
        asc__gemm_call_epi(d->csz, epi, ctx, i, j, asc__gemm_min(d->mr, M - i), asc__gemm_min(d->nr, N - j),
                           (char*)C + (i * ldc + j) * d->csz, ldc);
}

/* Packing buffers: one per calling thread, kept between calls (up to ASC_GEMM_KEEP_BYTES) so that steady-state calls
 * take no page faults; freed when the thread exits (C++). Larger requests are allocated and freed per call. */
#ifndef ASC_GEMM_KEEP_BYTES
#define ASC_GEMM_KEEP_BYTES ((size_t)32 << 20)
#endif
/* 4096-aligned blocks from malloc (aligned_alloc is C11, posix_memalign POSIX: this works in C99 and anywhere) */
ASC__STATIC void* asc__gemm_alloc(size_t n) {
  char* raw = (char*)malloc(n + 4096 + sizeof(void*));
  char* p;
  if (!raw) abort();
  p = (char*)(((uintptr_t)raw + sizeof(void*) + 4095) & ~(uintptr_t)4095);
  ((void**)p)[-1] = raw;
  return p;
}
ASC__STATIC void asc__gemm_free(void* p) {
  if (p) free(((void**)p)[-1]);
}
#ifdef __cplusplus
}  /* extern "C" */
struct asc__gemm_keep {
  void* p; size_t n;
  ~asc__gemm_keep() { asc__gemm_free(p); }
};
ASC__STATIC thread_local asc__gemm_keep asc__gemm_kept = {0, 0};
extern "C" {
#define ASC__GEMM_KEPT_P asc__gemm_kept.p
#define ASC__GEMM_KEPT_N asc__gemm_kept.n
#else
ASC__STATIC __thread void* asc__gemm_kept_p = 0;
ASC__STATIC __thread size_t asc__gemm_kept_n = 0;
#define ASC__GEMM_KEPT_P asc__gemm_kept_p
#define ASC__GEMM_KEPT_N asc__gemm_kept_n
#endif
ASC__STATIC void* asc__gemm_buffer(size_t* n) {   /* *n: bytes needed in, bytes held out */
  void* p;
  *n = (*n + 4095) & ~(size_t)4095;
  if (ASC__GEMM_KEPT_P && ASC__GEMM_KEPT_N >= *n) {   /* taken out while in use: a nested call cannot share it */
    p = ASC__GEMM_KEPT_P; *n = ASC__GEMM_KEPT_N; ASC__GEMM_KEPT_P = 0; ASC__GEMM_KEPT_N = 0;
    return p;
  }
  return asc__gemm_alloc(*n);
}
ASC__STATIC void asc__gemm_release(void* p, size_t n) {
  if (n <= ASC_GEMM_KEEP_BYTES && (!ASC__GEMM_KEPT_P || ASC__GEMM_KEPT_N < n)) {
    asc__gemm_free(ASC__GEMM_KEPT_P);
    ASC__GEMM_KEPT_P = p; ASC__GEMM_KEPT_N = n;
  } else {
    asc__gemm_free(p);
  }
}

/* A sense-reversing barrier for the threads of one call: spins briefly, then yields the core. On a machine shared with
 * other processes a thread that spins (libgomp's barrier spins for up to ~300000 iterations) can hold the core that
 * the thread it waits for needs; measured here under load, this kept 2-thread calls 10-20% faster. */
typedef struct { int count, sense; } asc__gemm_bar;
ASC__STATIC void asc__gemm_barrier(asc__gemm_bar* b, int nth, int* my_sense) {
  int s = !*my_sense, spins = 0;
  *my_sense = s;
  if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == nth) {
    __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->sense, s, __ATOMIC_RELEASE);
    return;
  }
  while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != s) {
    if (++spins < 2000) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    } else {
#if defined(ASC__GEMM_HAVE_YIELD)
      sched_yield();
#endif
    }
  }
}

/* The threads' share of the grid of mp x np tiles: a tr x tc grid of rectangles (tr * tc == nth) with the smallest
 * largest share; row splits preferred on ties (a row split shares B and packs disjoint A panels). */
ASC__STATIC void asc__gemm_split(int64_t mp, int64_t np, int nth, int* tr, int* tc) {
  int r;
  int64_t best = -1;
  *tr = 1; *tc = nth;
  for (r = nth; r >= 1; --r) {
    if (nth % r) continue;
    {
      int64_t share = asc__gemm_cdiv(mp, r) * asc__gemm_cdiv(np, nth / r);
      if (best < 0 || share < best) { best = share; *tr = r; *tc = nth / r; }
    }
  }
}

ASC__STATIC void asc__gemm_drive(const asc__gemm_desc* d, int ta, int tb, int64_t M, int64_t N, int64_t K, double alpha,
                            const void* A, int64_t lda, const void* B, int64_t ldb, double beta, void* C,
                            int64_t ldc, void* epi, void* ctx) {
  const int mr = d->mr, nr = d->nr, kp = d->kp, csz = d->csz;
  const int64_t usz = d->usz;
  int64_t nkb, kcmax, ncmax, kumax, abytes, bbytes;
  char* buf;
  size_t bufn;
  int nthreads = 1;
  int64_t next_panel;   /* shared: the next row panel to claim (dynamic schedule) */
  asc__gemm_bar bar = {0, 0};
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0) { asc__gemm_scale(d, M, N, beta, C, ldc, epi, ctx); return; }
  ncmax = asc__gemm_min(d->nc, asc__gemm_cdiv(N, nr) * nr);
  /* balanced K blocks: nkb blocks of <= kc k-steps (a multiple of kp). A narrow B (small N) gets longer K blocks, up
   * to 8x, while the B block stays under 512 KiB: fewer barriers and C passes when K is long (A^T @ G in autodiff). */
  {
    int64_t kc = d->kc, kcap = (int64_t)(512 * 1024) / (ncmax * d->usz) * kp;
    if (kcap > kc) kc = asc__gemm_min(8 * kc, kcap) / kp * kp;
    nkb = asc__gemm_cdiv(K, kc);
  }
  kcmax = asc__gemm_cdiv(asc__gemm_cdiv(K, nkb), kp) * kp;
  kumax = kcmax / kp;
#if defined(_OPENMP)
  if (!omp_in_parallel() && 2.0 * (double)M * (double)N * (double)K >= ASC_GEMM_MIN_PARALLEL_FLOPS)
    nthreads = ASC_MAX_THREADS();
#endif
  abytes = (mr * kumax * usz + 4095) & ~(int64_t)4095;   /* one A micro-panel per thread */
  bbytes = (ncmax * kumax * usz + 4095) & ~(int64_t)4095;
  bufn = (size_t)(bbytes + nthreads * abytes);
  next_panel = 0;
  buf = (char*)asc__gemm_buffer(&bufn);
#if defined(_OPENMP)
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
#endif
  {
    int tid = 0, nth = 1, tr, tc, sense = 0;
    int64_t jc, pc, mp = asc__gemm_cdiv(M, mr);
    char* Bb = buf;
    char* Ab;
    union { float f[ASC_GEMM_MAX_MR * ASC_GEMM_MAX_NR]; double d[ASC_GEMM_MAX_MR * ASC_GEMM_MAX_NR];
            __attribute__((aligned(64))) char c[64]; } tile;
#if defined(_OPENMP)
    tid = omp_get_thread_num(); nth = omp_get_num_threads();
#endif
    Ab = buf + bbytes + tid * abytes;
    for (jc = 0; jc < N; jc += ncmax) {
      int64_t nc = asc__gemm_min(ncmax, N - jc), np = asc__gemm_cdiv(nc, nr);
      int64_t r0, r1, c0, c1;
      /* plenty of row panels: claimed dynamically; otherwise a static split of the tile grid in rectangles */
      int dyn = nth > 1 && mp >= 8 * nth;
      asc__gemm_split(mp, np, nth, &tr, &tc);
      c0 = np * (tid % tc) / tc; c1 = np * (tid % tc + 1) / tc;     /* this thread's column panels */
      for (pc = 0; pc < K; pc += kcmax) {
        int64_t kc = asc__gemm_min(kcmax, K - pc), ku = asc__gemm_cdiv(kc, kp), q, q0, q1;
        int last = pc + kc >= K;
        double beta_eff = pc == 0 ? beta : 1.0;
        /* B block: shared, each thread packs a contiguous range of its panels */
        if (nth > 1) asc__gemm_barrier(&bar, nth, &sense);
        if (tid == 0) next_panel = 0;   /* nobody claims before the barrier below */
        r0 = mp * (tid / tc) / tr; r1 = mp * (tid / tc + 1) / tr;   /* this thread's row panels (static) */
        q0 = np * tid / nth; q1 = np * (tid + 1) / nth;
        for (q = q0; q < q1; ++q)
          d->pack_b(B, ldb, tb, jc + q * nr, pc, asc__gemm_min(nr, nc - q * nr), kc, nr, Bb + q * nr * ku * usz);
        if (nth > 1) asc__gemm_barrier(&bar, nth, &sense);
        /* row panels: each packed by the thread that computes it, into its own buffer, right before use */
        for (;;) {
          int64_t ir, jr, i0, rows, ja, jb;
          const char* ap = Ab;
          if (dyn) {   /* dynamic: the next unclaimed row panel (balances load on a busy machine) */
            ir = __atomic_fetch_add(&next_panel, 1, __ATOMIC_RELAXED);
            if (ir >= mp) break;
            ja = 0; jb = np;
          } else {     /* static rectangles */
            if (r0 >= r1) break;
            ir = r0++;
            ja = c0; jb = c1;
          }
          i0 = ir * mr; rows = asc__gemm_min(mr, M - i0);
          d->pack_a(A, lda, ta, i0, pc, rows, kc, mr, Ab);
          for (jr = ja; jr < jb; ++jr) {
            int64_t j0 = jc + jr * nr, cols = asc__gemm_min(nr, N - j0);
            char* Ct = (char*)C + (i0 * ldc + j0) * csz;
            const char* bp = Bb + jr * nr * ku * usz;
            if (rows == mr && cols == nr) {
              d->ukr(ku, ap, bp, Ct, ldc, alpha, beta_eff);
            } else {
              d->ukr(ku, ap, bp, tile.c, nr, alpha, 0.0);
              asc__gemm_merge(csz, Ct, ldc, tile.c, nr, rows, cols, beta_eff);
            }
            if (last && epi) asc__gemm_call_epi(csz, epi, ctx, i0, j0, rows, cols, Ct, ldc);
          }
        }
      }
    }
  }
  asc__gemm_release(buf, bufn);
}

/* ------------------------------------------------------------------------------------------ descriptors */
/* built per call (a few stores): no shared mutable state */
ASC__STATIC inline asc__gemm_desc asc__gemm_desc_f32(void) {
  return asc__gemm_make_desc(ASC_GEMM_MR_F32, ASC_GEMM_NR_F32, 1, 4, 4, asc__gemm_pack_f32_av, asc__gemm_pack_f32_bv,
                             asc__gemm_ukr_f32);
}
ASC__STATIC inline asc__gemm_desc asc__gemm_desc_f64(void) {
  return asc__gemm_make_desc(ASC_GEMM_MR_F64, ASC_GEMM_NR_F64, 1, 8, 8, asc__gemm_pack_f64_a, asc__gemm_pack_f64_b,
                             asc__gemm_ukr_f64);
}
ASC__STATIC inline asc__gemm_desc asc__gemm_desc_f16(void) {
  return asc__gemm_make_desc(ASC_GEMM_MR_F32, ASC_GEMM_NR_F32, 1, 4, 4, asc__gemm_pack_h2f_av, asc__gemm_pack_h2f_bv,
                             asc__gemm_ukr_f32);
}
ASC__STATIC inline asc__gemm_desc asc__gemm_desc_bf16(void) {
#if defined(ASC_GEMM_HAVE_DPBF16)
  return asc__gemm_make_desc(ASC_GEMM_MR_BF16, ASC_GEMM_NR_BF16, 2, 4, 4, asc__gemm_pack_bfp_av, asc__gemm_pack_bfp_bv,
                             asc__gemm_ukr_bf16);
#else
  return asc__gemm_make_desc(ASC_GEMM_MR_F32, ASC_GEMM_NR_F32, 1, 4, 4, asc__gemm_pack_bf2f_av,
                             asc__gemm_pack_bf2f_bv, asc__gemm_ukr_f32);
#endif
}

/* ------------------------------------------------------------------------------------------ the API */
ASC__STATIC void asc_gemm_f32_ex(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                            int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                            asc_gemm_epilogue_f32 epi, void* ctx) {
  asc__gemm_desc d = asc__gemm_desc_f32();
  asc__gemm_drive(&d, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, (void*)epi, ctx);
}
ASC__STATIC void asc_gemm_f16_ex(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                            int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc,
                            asc_gemm_epilogue_f32 epi, void* ctx) {
  asc__gemm_desc d = asc__gemm_desc_f16();
  asc__gemm_drive(&d, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, (void*)epi, ctx);
}
ASC__STATIC void asc_gemm_bf16_ex(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                             int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc,
                             asc_gemm_epilogue_f32 epi, void* ctx) {
  asc__gemm_desc d = asc__gemm_desc_bf16();
  asc__gemm_drive(&d, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, (void*)epi, ctx);
}
ASC__STATIC void asc_gemm_f64_ex(int transA, int transB, int64_t M, int64_t N, int64_t K, double alpha, const double* A,
                            int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc,
                            asc_gemm_epilogue_f64 epi, void* ctx) {
  asc__gemm_desc d = asc__gemm_desc_f64();
  asc__gemm_drive(&d, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, (void*)epi, ctx);
}

ASC__STATIC void asc_gemm_f32_t(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_gemm_f32_ex(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}
ASC__STATIC void asc_gemm_f16_t(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                           int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_gemm_f16_ex(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}
ASC__STATIC void asc_gemm_bf16_t(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                            int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_gemm_bf16_ex(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}
ASC__STATIC void asc_gemm_f64_t(int transA, int transB, int64_t M, int64_t N, int64_t K, double alpha, const double* A,
                           int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  asc_gemm_f64_ex(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}

ASC__STATIC void asc_gemm_f32(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
                         int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_gemm_f32_ex(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}
ASC__STATIC void asc_gemm_f16(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A, int64_t lda,
                         const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_gemm_f16_ex(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}
ASC__STATIC void asc_gemm_bf16(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A, int64_t lda,
                          const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_gemm_bf16_ex(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}
ASC__STATIC void asc_gemm_f64(int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda, const double* B,
                         int64_t ldb, double beta, double* C, int64_t ldc) {
  asc_gemm_f64_ex(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, 0);
}

/* Batched: C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b] for b < batch, X[b] = X + b * strideX (elements; a stride
 * of 0 shares one matrix, e.g. one weight for the whole batch). Big products run one after another, each on all
 * threads; small ones run in parallel over the batch, one thread each. Same bits as calling the 2-D function per b. */
ASC__STATIC void asc__gemm_batched(const asc__gemm_desc* d, int ta, int tb, int64_t batch, int64_t M, int64_t N, int64_t K,
                              double alpha, const void* A, int64_t sA, int64_t lda, const void* B, int64_t sB,
                              int64_t ldb, double beta, void* C, int64_t sC, int64_t ldc, int isz) {
  int64_t b;
  int par = 0;
#if defined(_OPENMP)
  par = batch > 1 && !omp_in_parallel() && ASC_MAX_THREADS() > 1 &&
        2.0 * (double)M * (double)N * (double)K < 64.0 * ASC_GEMM_MIN_PARALLEL_FLOPS &&
        2.0 * (double)M * (double)N * (double)K * (double)batch >= ASC_GEMM_MIN_PARALLEL_FLOPS;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ASC_MAX_THREADS()) if (par)
#endif
  for (b = 0; b < batch; ++b)
    asc__gemm_drive(d, ta, tb, M, N, K, alpha, (const char*)A + b * sA * isz, lda, (const char*)B + b * sB * isz, ldb,
                    beta, (char*)C + b * sC * d->csz, ldc, 0, 0);
  (void)par;
}
ASC__STATIC void asc_gemm_f32_batched(int transA, int transB, int64_t batch, int64_t M, int64_t N, int64_t K, float alpha,
                                 const float* A, int64_t strideA, int64_t lda, const float* B, int64_t strideB,
                                 int64_t ldb, float beta, float* C, int64_t strideC, int64_t ldc) {
  asc__gemm_desc d = asc__gemm_desc_f32();
  asc__gemm_batched(&d, transA, transB, batch, M, N, K, alpha, A, strideA, lda, B, strideB, ldb, beta, C, strideC, ldc, 4);
}
ASC__STATIC void asc_gemm_f16_batched(int transA, int transB, int64_t batch, int64_t M, int64_t N, int64_t K, float alpha,
                                 const uint16_t* A, int64_t strideA, int64_t lda, const uint16_t* B, int64_t strideB,
                                 int64_t ldb, float beta, float* C, int64_t strideC, int64_t ldc) {
  asc__gemm_desc d = asc__gemm_desc_f16();
  asc__gemm_batched(&d, transA, transB, batch, M, N, K, alpha, A, strideA, lda, B, strideB, ldb, beta, C, strideC, ldc, 2);
}
ASC__STATIC void asc_gemm_bf16_batched(int transA, int transB, int64_t batch, int64_t M, int64_t N, int64_t K, float alpha,
                                  const uint16_t* A, int64_t strideA, int64_t lda, const uint16_t* B, int64_t strideB,
                                  int64_t ldb, float beta, float* C, int64_t strideC, int64_t ldc) {
  asc__gemm_desc d = asc__gemm_desc_bf16();
  asc__gemm_batched(&d, transA, transB, batch, M, N, K, alpha, A, strideA, lda, B, strideB, ldb, beta, C, strideC, ldc, 2);
}
ASC__STATIC void asc_gemm_f64_batched(int transA, int transB, int64_t batch, int64_t M, int64_t N, int64_t K, double alpha,
                                 const double* A, int64_t strideA, int64_t lda, const double* B, int64_t strideB,
                                 int64_t ldb, double beta, double* C, int64_t strideC, int64_t ldc) {
  asc__gemm_desc d = asc__gemm_desc_f64();
  asc__gemm_batched(&d, transA, transB, batch, M, N, K, alpha, A, strideA, lda, B, strideB, ldb, beta, C, strideC, ldc, 8);
}

/* which micro-kernels this translation unit got: "avx512+bf16", "avx512", "avx2" or "portable" */
ASC__STATIC inline const char* asc_gemm_isa(void) {
#if defined(ASC_GEMM_HAVE_DPBF16)
  return ASC_GEMM_ISA_NAME "+bf16";
#else
  return ASC_GEMM_ISA_NAME;
#endif
}

#ifdef __cplusplus
}
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* ASC_GEMM_H */

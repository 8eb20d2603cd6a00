// asc_blocks.h: element loops run in blocks (asc/passes/cpu_blocks.py says which). The body of such a loop runs
// vectorized on float32 buffers of ASC_BLOCK values in L1; around it:
// - float16 inputs are widened into the buffers and float16 outputs narrowed back, with F16C or AVX-512 one
//   instruction per 8 or 16 values (the scalar asc_h2f / asc_f2h of asc_cpu.h cost 6-12 integer operations a value
//   inside the loop). The bits are asc_h2f's and asc_f2h's for every input, NaNs included (the hardware would quiet a
//   signalling NaN on the way in and on the way out; a block that holds a NaN is converted again with both mended);
// - outputs of at least ASC_STREAM_MIN_BYTES are written with non-temporal (streaming) stores: no cache would keep
//   them, and an ordinary store first reads its cache line from memory, a third of a simple kernel's traffic.
#ifndef ASC_BLOCKS_H
#define ASC_BLOCKS_H

#include "asc_cpu.h"
#if defined(__SSE2__) || defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#define ASC_BLOCK 128              // values per block (cpu_blocks.BLOCK)
#ifndef ASC_STREAM_MIN_BYTES
#define ASC_STREAM_MIN_BYTES (16LL << 20)
#endif

#if defined(__AVX512F__)
static inline __m512 asc_h2f_x16(__m256i h) {
  __m512 f = _mm512_cvtph_ps(h);
  __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
  if (nan) {   // keep a NaN's bits as asc_h2f does: sign, all-ones exponent, the payload shifted up
    __m512i w = _mm512_cvtepu16_epi32(h);
    __m512i bits = _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(0x8000)), 16),
                                   _mm512_or_si512(_mm512_set1_epi32(0x7f800000),
                                                   _mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(0x3ff)), 13)));
    f = _mm512_mask_mov_ps(f, nan, _mm512_castsi512_ps(bits));
  }
  return f;
}
#endif

#if defined(__F16C__) && defined(__AVX2__)
static inline __m256 asc_h2f_x8(__m128i h) {
  __m256 f = _mm256_cvtph_ps(h);
  __m256 nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
  if (_mm256_movemask_ps(nan)) {
    __m256i w = _mm256_cvtepu16_epi32(h);
    __m256i bits = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x8000)), 16),
                                   _mm256_or_si256(_mm256_set1_epi32(0x7f800000),
                                                   _mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x3ff)), 13)));
    f = _mm256_blendv_ps(f, _mm256_castsi256_ps(bits), nan);
  }
  return f;
}
#endif

// dst[k] = asc_h2f(src[k]) for k < n, NaNs mended a vector at a time
static inline void asc_h2f_block_exact(const asc_half* __restrict src, float* __restrict dst, int64_t n) {
  int64_t k = 0;
#if defined(__AVX512F__)
  for (; k + 16 <= n; k += 16) _mm512_storeu_ps(dst + k, asc_h2f_x16(_mm256_loadu_si256((const __m256i*)(src + k))));
#endif
#if defined(__F16C__) && defined(__AVX2__)
  for (; k + 8 <= n; k += 8) _mm256_storeu_ps(dst + k, asc_h2f_x8(_mm_loadu_si128((const __m128i*)(src + k))));
#endif
  for (; k < n; ++k) dst[k] = asc_h2f(src[k]);
}

#if defined(__F16C__) && defined(__AVX2__)
// asc_f2h of 8 values: the instruction, with the NaN lanes replaced by asc_f2h's bits (sign | 0x7c00 | p | (p == 0),
// p the top 10 bits of the payload, not quieted)
static inline __m128i asc_f2h_x8_exact(__m256 f) {
  const __m256i u = _mm256_castps_si256(f);
  const __m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  const __m256i p = _mm256_and_si256(_mm256_srli_epi32(u, 13), _mm256_set1_epi32(0x3ff));
  const __m256i z = _mm256_srli_epi32(_mm256_cmpeq_epi32(p, _mm256_setzero_si256()), 31);
  const __m256i s = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x8000));
  const __m256i n = _mm256_or_si256(_mm256_or_si256(s, _mm256_set1_epi32(0x7c00)), _mm256_or_si256(p, z));
  const __m128i n16 = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(n, n), 0xD8));
  const __m128i m16 = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packs_epi32(nan, nan), 0xD8));
  return _mm_blendv_epi8(h, n16, m16);
}
#endif
// dst[k] = asc_f2h(src[k]) for k < n, NaNs mended
static inline void asc_f2h_block_exact(const float* __restrict src, asc_half* __restrict dst, int64_t n) {
  int64_t k = 0;
#if defined(__F16C__) && defined(__AVX2__)
  for (; k + 8 <= n; k += 8) _mm_storeu_si128((__m128i*)(dst + k), asc_f2h_x8_exact(_mm256_loadu_ps(src + k)));
#endif
#pragma omp simd                // elsewhere (no F16C: aarch64, SSE-only x86) the integer conversion, vectorized
  for (int64_t j = k; j < n; ++j) dst[j] = asc_f2h(src[j]);
}

// dst[k] = asc_h2f(src[k]) for k < n. The vector part converts with the bare instruction and only notes whether a
// NaN went by (the hardware's bits differ from asc_h2f's for NaNs alone); a block that had one is converted again
// by asc_h2f_block_exact. Mending each vector as it goes (a compare, a mask test and a branch per 8 values) made
// the conversions of a SwiGLU block on AVX2 cost twice the bare ones.
static inline void asc_h2f_block(const asc_half* __restrict src, float* __restrict dst, int64_t n) {
  int64_t k = 0;
  int nan = 0;
#if defined(__AVX512F__)
  __mmask16 nan16 = 0;
  for (; k + 16 <= n; k += 16) {
    __m512 f = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(src + k)));
    nan16 |= _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    _mm512_storeu_ps(dst + k, f);
  }
  nan |= nan16 != 0;
#endif
#if defined(__F16C__) && defined(__AVX2__)
  __m256 nan8 = _mm256_setzero_ps();
  for (; k + 8 <= n; k += 8) {
    __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(src + k)));
    nan8 = _mm256_or_ps(nan8, _mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    _mm256_storeu_ps(dst + k, f);
  }
  nan |= _mm256_movemask_ps(nan8) != 0;
#endif
  if (__builtin_expect(nan, 0)) asc_h2f_block_exact(src, dst, k);
  for (; k < n; ++k) dst[k] = asc_h2f(src[k]);
}

// dst[k] = asc_f2h(src[k]) for k < n: as asc_h2f_block, the bare instruction, and the block again with the NaNs
// mended where it had one
static inline void asc_f2h_block(const float* __restrict src, asc_half* __restrict dst, int64_t n) {
  int64_t k = 0;
  int nan = 0;
#if defined(__AVX512F__)
  __mmask16 nan16 = 0;
  for (; k + 16 <= n; k += 16) {
    __m512 f = _mm512_loadu_ps(src + k);
    nan16 |= _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    _mm256_storeu_si256((__m256i*)(dst + k), _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  nan |= nan16 != 0;
#endif
#if defined(__F16C__) && defined(__AVX2__)
  __m256 nan8 = _mm256_setzero_ps();
  for (; k + 8 <= n; k += 8) {
    __m256 f = _mm256_loadu_ps(src + k);
    nan8 = _mm256_or_ps(nan8, _mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    _mm_storeu_si128((__m128i*)(dst + k), _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  nan |= _mm256_movemask_ps(nan8) != 0;
#endif
  if (__builtin_expect(nan, 0)) asc_f2h_block_exact(src, dst, k);
  for (; k < n; ++k) dst[k] = asc_f2h(src[k]);
}

// dst[k] = asc_bf2f(src[k]) / asc_f2bf(src[k]) for k < n: the scalar conversions in loops of their own, which gcc
// and clang vectorize (the same bits by construction); in the body of a loop the 16-bit widening, narrowing and
// rounding cost as much again (GELU on bfloat16 in cache 1.03 -> 0.83 ns per element on AVX2, 0.65 -> 0.55 on AVX-512)
static inline void asc_bf2f_block(const asc_bf16* __restrict src, float* __restrict dst, int64_t n) {
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) dst[k] = asc_bf2f(src[k]);
}
static inline void asc_f2bf_block(const float* __restrict src, asc_bf16* __restrict dst, int64_t n) {
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) dst[k] = asc_f2bf(src[k]);
}

// ---------------------------------------------------------------- streaming stores
#ifndef ASC_STREAM_MIN_RUN
#define ASC_STREAM_MIN_RUN 4096
#endif
// Stream an output of `bytes` from a loop of `trips` iterations? Only a large output, written in long runs: short
// runs (the rows of a narrow row kernel) are mostly partial lines and a fence each (measured 2-4x slower).
static inline bool asc_stream_ok(int64_t bytes, int64_t trips) {
  return bytes >= ASC_STREAM_MIN_BYTES && trips >= ASC_STREAM_MIN_RUN;
}

// Orders a thread's streaming stores before what follows (another thread reading them after a barrier).
static inline void asc_sfence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// The iterations a blocked loop's first block would have before its start `p` (an output element of `size` bytes)
// so that every later block starts on a cache line of that output: only the first and last lines of a thread's
// run are then written with ordinary stores (a line written both ways at every block's edge, as a NumPy array's
// 16-byte offset gave, made GELU float32 streamed to it 1.6x slower on AVX-512). 0 when p is not a multiple of size.
static inline int64_t asc_stream_lead(const void* p, int64_t size, int64_t block) {
  const int64_t head = (int64_t)((64 - ((uintptr_t)p & 63)) & 63);
  if (head % size) return 0;
  return head ? block - head / size : 0;
}

// memcpy whose whole cache lines are written with non-temporal stores (the partial lines at either end, ordinary).
static inline void asc_stream_bytes(void* dst, const void* src, int64_t n) {
  char* d = (char*)dst;
  const char* s = (const char*)src;
#if defined(__SSE2__)
  int64_t head = (int64_t)((64 - ((uintptr_t)d & 63)) & 63);
  if (head > n) head = n;
  memcpy(d, s, (size_t)head);
  d += head, s += head, n -= head;
  for (; n >= 64; n -= 64, d += 64, s += 64) {
#if defined(__AVX512F__)
    _mm512_stream_si512((__m512i*)d, _mm512_loadu_si512((const void*)s));
#elif defined(__AVX__)
    _mm256_stream_si256((__m256i*)d, _mm256_loadu_si256((const __m256i*)s));
    _mm256_stream_si256((__m256i*)(d + 32), _mm256_loadu_si256((const __m256i*)(s + 32)));
#else
    for (int k = 0; k < 64; k += 16) _mm_stream_si128((__m128i*)(d + k), _mm_loadu_si128((const __m128i*)(s + k)));
#endif
  }
#endif
  memcpy(d, s, (size_t)n);
}

#ifdef __cplusplus
// a block of an output: streamed, or copied with ordinary stores
template <typename T> static inline void asc_store_block(T* __restrict dst, const T* __restrict src, int64_t n, bool stream) {
  if (stream) asc_stream_bytes(dst, src, n * (int64_t)sizeof(T));
  else memcpy(dst, src, (size_t)n * sizeof(T));
}
#endif

// a block of a float16 output: narrowed, then streamed or stored
static inline void asc_f2h_store(asc_half* __restrict dst, const float* __restrict src, int64_t n, bool stream) {
  if (!stream || n > ASC_BLOCK) { asc_f2h_block(src, dst, n); return; }
  alignas(64) asc_half t[ASC_BLOCK];
  asc_f2h_block(src, t, n);
  asc_stream_bytes(dst, t, 2 * n);
}

// a block of a bfloat16 output: narrowed, then streamed or stored
static inline void asc_f2bf_store(asc_bf16* __restrict dst, const float* __restrict src, int64_t n, bool stream) {
  if (!stream || n > ASC_BLOCK) { asc_f2bf_block(src, dst, n); return; }
  alignas(64) asc_bf16 t[ASC_BLOCK];
  asc_f2bf_block(src, t, n);
  asc_stream_bytes(dst, t, 2 * n);
}

#endif  // ASC_BLOCKS_H

// asc_half.h: float16 <-> float32 for a block of values, included by kernels whose element loops read or write
// float16 tensors. Such a loop runs in blocks: the float16 inputs of a block are widened into float32 buffers on the
// stack, the loop body runs vectorized on float32, and the outputs are narrowed back. With F16C or AVX-512 one
// instruction converts 8 or 16 values; the scalar asc_h2f / asc_f2h (asc_cpu.h) cost 6-12 integer operations a value
// inside the loop. The bits are asc_h2f's and asc_f2h's for every input, NaNs included (the hardware would quiet a
// signalling NaN on the way in and keep a NaN's payload on the way out; both are mended here).
#ifndef ASC_HALF_H
#define ASC_HALF_H

#include "asc_cpu.h"
#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
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
static inline __m256i asc_f2h_x16(__m512 f) {
  // a NaN becomes its sign and 0x7e00, as asc_f2h gives (the hardware would keep the top of the payload)
  __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
  __m512i sign = _mm512_and_si512(_mm512_castps_si512(f), _mm512_set1_epi32((int)0x80000000u));
  f = _mm512_mask_mov_ps(f, nan, _mm512_castsi512_ps(_mm512_or_si512(sign, _mm512_set1_epi32(0x7fc00000))));
  return _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
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
static inline __m128i asc_f2h_x8(__m256 f) {
  __m256 nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
  __m256 canon = _mm256_or_ps(_mm256_and_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u))),
                              _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
  return _mm256_cvtps_ph(_mm256_blendv_ps(f, canon, nan), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
#endif

// dst[k] = asc_h2f(src[k]) for k < n
static inline void asc_h2f_block(const asc_half* __restrict src, float* __restrict dst, int64_t n) {
  int64_t k = 0;
#if defined(__AVX512F__)
  for (; k + 16 <= n; k += 16) _mm512_storeu_ps(dst + k, asc_h2f_x16(_mm256_loadu_si256((const __m256i*)(src + k))));
#endif
#if defined(__F16C__) && defined(__AVX2__)
  for (; k + 8 <= n; k += 8) _mm256_storeu_ps(dst + k, asc_h2f_x8(_mm_loadu_si128((const __m128i*)(src + k))));
#endif
  for (; k < n; ++k) dst[k] = asc_h2f(src[k]);
}

// dst[k] = asc_f2h(src[k]) for k < n
static inline void asc_f2h_block(const float* __restrict src, asc_half* __restrict dst, int64_t n) {
  int64_t k = 0;
#if defined(__AVX512F__)
  for (; k + 16 <= n; k += 16) _mm256_storeu_si256((__m256i*)(dst + k), asc_f2h_x16(_mm512_loadu_ps(src + k)));
#endif
#if defined(__F16C__) && defined(__AVX2__)
  for (; k + 8 <= n; k += 8) _mm_storeu_si128((__m128i*)(dst + k), asc_f2h_x8(_mm256_loadu_ps(src + k)));
#endif
  for (; k < n; ++k) dst[k] = asc_f2h(src[k]);
}

#endif  // ASC_HALF_H

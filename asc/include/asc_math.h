/*
 * asc_math.h -- header-only, vectorizer-friendly elementary functions for asc.
 *
 * Over 600 lines on purpose: it is one job (the elementary functions every cpu kernel includes, float32 and
 * float64 side by side so that a function's two precisions and their shared reduction read together), and the
 * error table below covers the whole file.
 *
 * Every function is `static inline` (always_inline on gcc/clang), plain C99/C11
 * and C++17 (hex float literals), branch-free (mask selects), without libm
 * calls and, for float32, without tables, so that gcc -O3 and clang -O2/-O3
 * auto-vectorize loops such as  for (i..) out[i] = asc_erf_f32(x[i]);
 * (AVX-512 zmm with -march=native on Zen 4, ymm with -mavx2, with or
 * without -mfma, with or without -fno-math-errno).  Only the float64 sin/cos
 * large-argument path reads a table (160 bytes of 2/pi).
 *
 * Maximum error in ulp of the result type, measured
 *   float32: exhaustively over all 2^32 inputs (pow: 3M random pairs plus
 *            edge cases) against glibc's double functions;
 *   float64: 1M-2M random inputs per range (log-uniform over the whole range
 *            plus dense intervals) against 80-bit long double.
 * "FMA" = -O3 -march=native (gcc 12, Zen 4); "no FMA" = baseline x86-64 or
 * -DASC_MATH_NO_FMA.  clang 14 results lie within the same bounds (for the
 * float32 exp, tanh, erf and sigmoid they are bit-identical: gcc and clang,
 * SSE2, AVX2 and AVX-512 code all give the same maxima).
 * The float32 exp, tanh, erf and sigmoid trade up to one ulp for speed: each
 * is a single formula with no selects and at most one division, 1.45-2.5x
 * faster (in cache) than the previous correction-step versions, and at
 * memory bandwidth on two Zen 4 cores (docs/math.md).
 *
 *   function            f32 FMA / no FMA   f64 FMA / no FMA   bound holds for
 *   asc_exp_*           1.05 / 1.04        0.86 / 0.86        all x
 *   asc_log_*           0.76 / 0.84        0.75 / 0.80        all x
 *   asc_tanh_*          1.99 / 1.99        0.85 / 1.07        all x
 *   asc_erf_*           1.97 / 1.40        0.84 / 0.92        all x
 *   asc_erf_scaled_f32  2.48 / 1.57 (s = 1/float(sqrt 2)), 2.28 / 1.59
 *                       (s = float(sqrt 0.5)), against the exact erf(s*x)
 *   asc_sigmoid_*       1.75 / 1.76        0.89 / 1.33        all x
 *   asc_sin_*           0.501 / 0.501      0.77 / 0.77        all finite x
 *   asc_cos_*           0.501 / 0.501      0.77 / 0.75        all finite x
 *   asc_pow_*(x, y)     0.50 / 0.50        0.98 / 0.98        all x, y
 *   asc_rsqrt_*         0.5004 / 0.5004    0.5005 / 0.5005    all x
 *   asc_fast_sin_f32    1.56 (|x|<=1e5, 1.81 up to 1e6) / 2.47 (|x|<=12868)
 *   asc_fast_cos_f32    1.56 (|x|<=1e5, 1.81 up to 1e6) / 2.39 (|x|<=12868)
 *   asc_fast_tanh_f32   1.33 / 1.33                           all x
 *
 * sin/cos: float32 uses an exact integer Payne-Hanek reduction for |x| >= 2,
 * float64 a 4-piece Cody-Waite reduction below ASC_SINCOS_F64_MAX (~1.0e8)
 * and an integer Payne-Hanek reduction above, so the bounds hold for every
 * finite argument.  The optional asc_fast_{sin,cos}_f32 reduce with float
 * Cody-Waite only: beyond their range the result stays in [-1, 1] but its
 * absolute error grows with |x| (meaningless above 2^22).
 *
 * Special values follow C99 Annex F / numpy: NaN propagates; exp(+inf) =
 * +inf, exp(-inf) = +0, overflow -> +inf, underflow gradual then +0;
 * log(+-0) = -inf, log(x<0) = NaN, log(+inf) = +inf; tanh(+-inf) = +-1;
 * erf(+-inf) = +-1; sigmoid(-inf) = +0, sigmoid(+inf) = 1 (never NaN for
 * non-NaN x); sin/cos(+-inf) = NaN; sin, tanh, erf keep the sign of +-0;
 * rsqrt(+-0) = +-inf, rsqrt(x<0) = NaN, rsqrt(+inf) = +0; pow follows every
 * C99 pow special case (pow(x, +-0) = 1 even for NaN x, pow(1, y) = 1,
 * pow(-1, +-inf) = 1, pow(x<0, non-integer) = NaN, odd integer powers of
 * negative x and of -0 are negative, pow(+-0, y<0) = +-inf, ...).
 * Subnormal inputs are handled (scaled, never flushed).
 *
 * Not supported: -ffast-math, -ffinite-math-only (special values),
 * -fassociative-math (breaks the error-free transformations and the
 * round-to-integer tricks) and non-default rounding modes.
 * ASC_MATH_NO_FMA forces the non-FMA code paths (testing; combine it with
 * -ffp-contract=off on targets that have FMA).
 *
 * Polynomial coefficients: the float64 exp/log/sin/cos/erf and float32 log
 * kernels of FreeBSD msun (fdlibm, Copyright (C) 1993-2004 Sun Microsystems:
 * "Permission to use, copy, modify, and distribute this software is freely
 * granted, provided that this notice is preserved."), the Cephes float64
 * tanh rational and sinf/cosf polynomials (S. L. Moshier, "may be used
 * freely"), the others (float32 expm1, 2^r - 1 and erf's -log2(erfc(x))/x
 * among them) fitted for this file (weighted minimax, float coefficients
 * rounded one at a time with refits).  The float32 sin/cos large-argument reduction follows
 * the integer scheme of Arm optimized-routines (Copyright (c) 2018 Arm Ltd,
 * MIT OR Apache-2.0 WITH LLVM-exception).
 * See docs/math.md for details and throughput numbers.
 */
#ifndef ASC_MATH_H
#define ASC_MATH_H

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Configuration                                                            */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define ASCM_INLINE static inline __attribute__((always_inline))
#define ASCM_INF_F32 (__builtin_inff())
#define ASCM_INF_F64 (__builtin_inf())
#define ASCM_NAN_F32 (__builtin_nanf(""))
#define ASCM_NAN_F64 (__builtin_nan(""))
#else
#include <math.h>
#define ASCM_INLINE static inline
#define ASCM_INF_F32 ((float)INFINITY)
#define ASCM_INF_F64 ((double)INFINITY)
#define ASCM_NAN_F32 ((float)NAN)
#define ASCM_NAN_F64 ((double)NAN)
#endif

/* A fused multiply-add is used when the target has one in hardware.  All
 * algorithms below are written so that they are also correct (with the
 * accuracy documented in the header) without FMA; the error-free products
 * needed by the double-double code then fall back to Dekker's algorithm. */
#if !defined(ASC_MATH_NO_FMA) &&                                                \
    (defined(__FMA__) || defined(__FP_FAST_FMA) || defined(__aarch64__) ||     \
     defined(__ARM_FEATURE_FMA))
#define ASCM_HAS_FMA 1
#if defined(__GNUC__) || defined(__clang__)
#define ASCM_FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#define ASCM_FMA(a, b, c) __builtin_fma((a), (b), (c))
#else
#include <math.h>
#define ASCM_FMAF(a, b, c) fmaf((a), (b), (c))
#define ASCM_FMA(a, b, c) fma((a), (b), (c))
#endif
#else
#define ASCM_HAS_FMA 0
#define ASCM_FMAF(a, b, c) ((a) * (b) + (c))
#define ASCM_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* ------------------------------------------------------------------------ */
/* Bit manipulation helpers                                                 */
/* ------------------------------------------------------------------------ */

ASCM_INLINE uint32_t ascm_f2u(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
ASCM_INLINE float ascm_u2f(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }
ASCM_INLINE uint64_t ascm_d2u(double d) { uint64_t u; memcpy(&u, &d, sizeof u); return u; }
ASCM_INLINE double ascm_u2d(uint64_t u) { double d; memcpy(&d, &u, sizeof d); return d; }

ASCM_INLINE float ascm_absf(float x) { return ascm_u2f(ascm_f2u(x) & 0x7fffffffu); }
ASCM_INLINE double ascm_abs(double x) { return ascm_u2d(ascm_d2u(x) & 0x7fffffffffffffffull); }
/* NaN tests on the bit pattern: immune to -ffinite-math-only folding. */
ASCM_INLINE int ascm_isnanf(float x) { return (ascm_f2u(x) & 0x7fffffffu) > 0x7f800000u; }
ASCM_INLINE int ascm_isnan(double x) {
    return (int64_t)(ascm_d2u(x) & 0x7fffffffffffffffull) > (int64_t)0x7ff0000000000000ll;
}
/* Branch-free selects: c ? a : b computed with bit masks.  Plain ?: on
 * values that are computed only for one outcome lets GCC sink the whole
 * computation into a conditional block; with the default -ftrapping-math it
 * then refuses to if-convert (the FP ops "could trap") and the loop is not
 * vectorized on targets without masked operations (e.g. AVX2).  Mask selects
 * keep every computation unconditional. */
ASCM_INLINE float ascm_self(int c, float a, float b) {
    uint32_t m = (uint32_t)0 - (uint32_t)(c != 0);
    return ascm_u2f((ascm_f2u(a) & m) | (ascm_f2u(b) & ~m));
}
ASCM_INLINE double ascm_seld(int c, double a, double b) {
    uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
    return ascm_u2d((ascm_d2u(a) & m) | (ascm_d2u(b) & ~m));
}
ASCM_INLINE uint32_t ascm_selu(int c, uint32_t a, uint32_t b) {
    uint32_t m = (uint32_t)0 - (uint32_t)(c != 0);
    return (a & m) | (b & ~m);
}
/* min/max against a bound; a NaN first argument yields the bound.  Also
 * mask based: a ?: clamp becomes a branch that GCC may thread (duplicating
 * the code after it per outcome), which again defeats if-conversion. */
ASCM_INLINE float ascm_minf(float a, float b) { return ascm_self(a < b, a, b); }
ASCM_INLINE float ascm_maxf(float a, float b) { return ascm_self(a > b, a, b); }
ASCM_INLINE double ascm_mind(double a, double b) { return ascm_seld(a < b, a, b); }
ASCM_INLINE double ascm_maxd(double a, double b) { return ascm_seld(a > b, a, b); }

/* |x| with the sign bit of s (s's other bits ignored); x must be >= 0. */
ASCM_INLINE float ascm_with_signf(float x, float s) {
    return ascm_u2f(ascm_f2u(x) | (ascm_f2u(s) & 0x80000000u));
}
ASCM_INLINE double ascm_with_sign(double x, double s) {
    return ascm_u2d(ascm_d2u(x) | (ascm_d2u(s) & 0x8000000000000000ull));
}

/* All ones where x is a NaN, else 0, with integer ops only (|x| + 0x7fffff
 * carries into the sign bit exactly for the NaNs): the float32 exp family
 * clamps NaN away on the bits and ORs the input NaN back into the result. */
ASCM_INLINE uint32_t ascm_nanmaskf(float x) {
    return 0u - (((ascm_f2u(x) & 0x7fffffffu) + 0x007fffffu) >> 31);
}

/* ------------------------------------------------------------------------ */
/* Error-free transformations (double)                                      */
/* ------------------------------------------------------------------------ */

/* s + *e == a + b exactly */
ASCM_INLINE double ascm_two_sum(double a, double b, double *e) {
    double s = a + b;
    double bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}
/* requires |a| >= |b| (or a == 0) */
ASCM_INLINE double ascm_fast_two_sum(double a, double b, double *e) {
    double s = a + b;
    *e = b - (s - a);
    return s;
}
/* p + *e == a * b exactly (barring over/underflow) */
ASCM_INLINE double ascm_two_prod(double a, double b, double *e) {
    double p = a * b;
#if ASCM_HAS_FMA
    *e = ASCM_FMA(a, b, -p);
#else
    const double split = 134217729.0; /* 2^27 + 1 */
    double ta = split * a, tb = split * b;
    double ah = ta - (ta - a), bh = tb - (tb - b);
    double al = a - ah, bl = b - bh;
    *e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
    return p;
}

/* ======================================================================== */
/* float32                                                                  */
/* ======================================================================== */

/* exp argument reduction and polynomial (used by asc_fast_tanh_f32):
 * x = k*ln2 + r, |r| <= ~0.35, returns y = exp(r) - 1 = r + r^2*P(r)
 * (minimax, rel. err 2^-28 relative to exp(r)) and k.  x must be finite and
 * within [-87, 88]. */
ASCM_INLINE float ascm_expf_poly(float x, int32_t *k) {
    const float shift = 0x1.8p23f;
    float kf = ASCM_FMAF(x, 0x1.715476p+0f, shift);
    *k = (int32_t)(ascm_f2u(kf) - 0x4b400000u);
    kf -= shift;
    /* ln2 = 0x1.63p-1 (9 bits: k*C1 is exact) + -0x1.bd0106p-13 */
    float r = ASCM_FMAF(kf, -0x1.63p-1f, x);
    r = ASCM_FMAF(kf, 0x1.bd0106p-13f, r);
    float r2 = r * r;
    float p01 = ASCM_FMAF(0x1.555482p-3f, r, 0x1.fffffcp-2f);
    float p23 = ASCM_FMAF(0x1.1245d4p-7f, r, 0x1.55593ep-5f);
    float p = ASCM_FMAF(ASCM_FMAF(0x1.6a106ap-10f, r2, p23), r2, p01);
    return ASCM_FMAF(r2, p, r);
}

/* Same for x in [-87, 88] (normal results only, single scaling). */
ASCM_INLINE float ascm_expf_core_normal(float x) {
    int32_t k;
    float y = ascm_expf_poly(x, &k);
    float s = ascm_u2f((uint32_t)(k + 127) << 23);
    return ASCM_FMAF(y, s, s);
}

/* Reduction for asc_exp_f32 / asc_sigmoid_f32: x = n*ln2 + r for x in
 * [-104, 104] (callers clamp), |r| <= 0.3466 with |error| < 2^-32 (the first
 * fma is exact: 9-bit ln2_hi).  shift = 1.5*2^23 + bias rounds x*log2(e) to
 * the integer n in the same fma; *kb receives the bits of n + shift, i.e.
 * 0x4b400000 + bias + n, from which the callers form powers of two with
 * integer shifts and adds (0x4b400000 << 23 vanishes). */
ASCM_INLINE float ascm_expf_reduce(float x, float shift, uint32_t *kb) {
    float kf = ASCM_FMAF(x, 0x1.715476p+0f, shift);
    *kb = ascm_f2u(kf);
    float n = kf - shift;
    float r = ASCM_FMAF(n, -0x1.63p-1f, x);
    return ASCM_FMAF(n, 0x1.bd0106p-13f, r);
}

/* exp(r) - 1 for |r| <= 0.3466: r + r^2*P(r) with the exact leading term r,
 * minimax relative to exp(r) - 1 (rel. err 2^-26.1; 2^-27.4 relative to
 * exp(r)); Estrin: 6 fma/mul. */
ASCM_INLINE float ascm_expm1f_kernel(float r) {
    float r2 = r * r;
    float p01 = ASCM_FMAF(0x1.5554b4p-3f, r, 0x1.fffffep-2f);
    float p23 = ASCM_FMAF(0x1.12253ap-7f, r, 0x1.5556f6p-5f);
    float p = ASCM_FMAF(ASCM_FMAF(0x1.6b977p-10f, r2, p23), r2, p01);
    return ASCM_FMAF(r2, p, r);
}

/* exp: x clamped to [-104, 89], result 2^n * (1 + y) = (s1 + y*s1) * s2 with
 * s1 = 2^floor(n/2), s2 = 2^ceil(n/2): one rounding for normal results, and
 * subnormal results are rounded (essentially) once; beyond FLT_MAX the
 * product overflows to +inf.  With bias 254, kb >> 1 and kb - (kb >> 1) hold
 * the biased exponents of s1 and s2 in their low 9 bits.
 * The clamp works on the bits (a signed min clamps the positive side, an
 * unsigned min the negative one: integer ops, cheaper than compare + blend
 * on Zen 4), and a NaN input is OR-ed back into the result at the end (the
 * input NaN is returned bit for bit). */
ASCM_INLINE float asc_exp_f32(float x) {
    uint32_t xb = ascm_f2u(x);
    int32_t xi = (int32_t)xb;
    xi = xi < 0x42b20000 ? xi : 0x42b20000;                                /* x <= 89 */
    uint32_t cb = (uint32_t)xi < 0xc2d00000u ? (uint32_t)xi : 0xc2d00000u; /* x >= -104 */
    float xc = ascm_u2f(cb);
    uint32_t kb;
    float y = ascm_expm1f_kernel(ascm_expf_reduce(xc, 0x1.8p23f + 254.0f, &kb));
    uint32_t h = kb >> 1;
    float s1 = ascm_u2f(h << 23);
    float s2 = ascm_u2f((kb - h) << 23);
    float res = ASCM_FMAF(y, s1, s1) * s2;
    return ascm_u2f(ascm_f2u(res) | (xb & ascm_nanmaskf(x)));
}

/* log: x = 2^k * m, m in [sqrt(2)/2, sqrt(2)), f = m - 1, s = f/(2+f),
 * log(1+f) = f - f^2/2 + s*(f^2/2 + R(s^2)) (FreeBSD msun logf scheme). */
ASCM_INLINE float asc_log_f32(float x) {
    uint32_t ix0 = ascm_f2u(x);
    int dn = ix0 < 0x00800000u; /* +0 or positive subnormal */
    float xs = ascm_self(dn, x * 0x1p25f, x);
    int32_t k = -(int32_t)dn & -25;
    uint32_t ix = ascm_f2u(xs) + (0x3f800000u - 0x3f3504f3u);
    k += (int32_t)(ix >> 23) - 0x7f;
    ix = (ix & 0x007fffffu) + 0x3f3504f3u;
    float f = ascm_u2f(ix) - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    float w = z * z;
    float t1 = w * ASCM_FMAF(w, 0x1.f13c4cp-3f, 0x1.999c26p-2f);
    float t2 = z * ASCM_FMAF(w, 0x1.23d3dcp-2f, 0x1.555554p-1f);
    float R = t2 + t1;
    float hfsq = 0.5f * f * f;
    float dk = (float)k;
    float a = ASCM_FMAF(s, hfsq + R, dk * 0x1.2fefa2p-17f);
    float res = ASCM_FMAF(dk, 0x1.62e3p-1f, (a - hfsq) + f);
    res = ascm_self(ix0 > 0x80000000u, ASCM_NAN_F32, res); /* x < 0 */
    res = ascm_self((ix0 & 0x7fffffffu) == 0u, -ASCM_INF_F32, res);
    res = ascm_self((ix0 == 0x7f800000u) | ascm_isnanf(x), x, res); /* +inf, NaN */
    return res;
}

/* tanh(|x|) = (1 - t)/(1 + t), t = exp(-2|x|) = 2^n (1 + D), D = expm1(r),
 * n = round(-2|x|/ln2) in [-26, 0]:
 *   num = (1 - 2^n) - 2^n D,  den = (1 + 2^n) + 2^n D,
 * each formed with a single rounding (1 -+ 2^n and 2^n D are exact), so that
 * small |x| (n = 0: tanh = -D/(2 + D)) keeps full relative accuracy without a
 * separate polynomial.  |x| is clamped to 9.1 on the bits, where t < 2^-25:
 * num and den both round to exactly 1.  Sign and NaN are OR-ed back in. */
ASCM_INLINE float asc_tanh_f32(float x) {
    uint32_t ab = ascm_f2u(x) & 0x7fffffffu;
    float ac = ascm_u2f(ab < 0x4111999au ? ab : 0x4111999au); /* min(|x|, 9.1) */
    float y = -(ac + ac);
    float kf = ASCM_FMAF(ac, -0x1.715476p+1f, 0x1.8p23f + 127.0f);
    float n = kf - (0x1.8p23f + 127.0f);
#if ASCM_HAS_FMA
    /* one rounding; |n*(ln2 - float(ln2))| <= 5e-8 only scales t (|n| <= 26) */
    float r = ASCM_FMAF(n, -0x1.62e43p-1f, y);
#else
    float r = ASCM_FMAF(n, -0x1.63p-1f, y);
    r = ASCM_FMAF(n, 0x1.bd0106p-13f, r);
#endif
    float D = ascm_expm1f_kernel(r);
    float s2 = ascm_u2f(ascm_f2u(kf) << 23); /* 2^n */
    float num = ASCM_FMAF(-s2, D, 1.0f - s2);
    float den = ASCM_FMAF(s2, D, 1.0f + s2);
    return ascm_u2f(ascm_f2u(num / den) | (ascm_f2u(x) & (ascm_nanmaskf(x) | 0x80000000u)));
}

/* "Fast" tanh (optional variant, kept for compatibility): x + x^3*P(x^2)
 * below 0.625, 1 - 2/(exp(2|x|) + 1) above: max 1.33 ulp (exhaustive).
 * asc_tanh_f32 is now the faster of the two (1.8x, see docs/math.md). */
ASCM_INLINE float asc_fast_tanh_f32(float x) {
    float a = ascm_absf(x);
    float z = a * a;
    float p = ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(
                  0x1.383aaap-9f, z, -0x1.147320p-7f), z, 0x1.6534bep-6f), z,
                  -0x1.ba12b4p-5f), z, 0x1.111108p-3f), z, -0x1.555556p-2f);
    float small = ASCM_FMAF(a * z, p, a);
    float e = ascm_expf_core_normal(2.0f * ascm_minf(a, 9.5f)); /* NaN -> 9.5 */
    float large = 1.0f - 2.0f / (e + 1.0f);
    float res = ascm_self(a < 0.625f, small, large);
    res = ascm_with_signf(res, x);
    return ascm_self(ascm_isnanf(x), x, res);
}

/* sigmoid(x) = 1/(1+exp(-x)).  x is clamped to [-104, 30] on the bits as in
 * asc_exp_f32 (sigmoid rounds to 1 beyond 16.7), exp(-x) = 2^m * (1 + y),
 * and with num = 2^-max(m,0), sc = 2^min(m,0):
 *   sigmoid = num / (num + sc*(1 + y)),
 * i.e. 1/(1 + 2^m (1+y)) for m <= 0 and 2^-m/(2^-m + 1 + y) for m > 0, so
 * that neither exp(-x) nor its reciprocal is rounded or overflows, and the
 * denominator is rounded once: num + sc is exact for |m| <= 23, and for
 * m >= 24 the 2^-m it drops (alpha) goes to y instead.  num is formed as
 * 2^(64 - max(m,0)) * 2^-64: exact, and subnormal (or 0) for the results
 * that are, which are then rounded once by the division. */
ASCM_INLINE float asc_sigmoid_f32(float x) {
    uint32_t xb = ascm_f2u(x);
    int32_t xi = (int32_t)xb;
    xi = xi < 0x41f00000 ? xi : 0x41f00000;                                /* x <= 30 */
    uint32_t cb = (uint32_t)xi < 0xc2d00000u ? (uint32_t)xi : 0xc2d00000u; /* x >= -104 */
    float xc = ascm_u2f(cb);
    uint32_t kb; /* 0x4b400000 + 127 + m */
    float y = ascm_expm1f_kernel(ascm_expf_reduce(-xc, 0x1.8p23f + 127.0f, &kb));
    int32_t kbi = (int32_t)kb, k0 = 0x4b40007f; /* m = 0 */
    int32_t kmin = kbi < k0 ? kbi : k0, kmax = kbi + k0 - kmin; /* max: no second compare, which GCC turned
                                                               * into a branch (no AVX2 vector code) */
    float sc = ascm_u2f((uint32_t)kmin << 23);                           /* 2^min(m,0) */
    float num = ascm_u2f((uint32_t)(0x4b40013e - kmax) << 23) * 0x1p-64f; /* 2^-max(m,0) */
    float c = num + sc;           /* exact for |m| <= 23 */
    float alpha = (sc - c) + num; /* m >= 24: the 2^-m dropped from c; else 0 (or negligible) */
    float den = ASCM_FMAF(sc, y + alpha, c);
    return ascm_u2f(ascm_f2u(num / den) | (xb & ascm_nanmaskf(x)));
}

/* erf(|x|) = 1 - erfc(|x|) = 1 - 2^-G with G = -log2(erfc(|x|)) = |x| H(|x|),
 * H a degree-8 polynomial (fitted for this file, weighted so that its error
 * stays below 0.1 ulp of erf on [0, 3.92], where erf reaches 1 in float)
 * and |x| clamped to 4.5 on the bits: G(4.5) = 32, so erf(+-inf) = +-1
 * exactly, with a wide margin.  With n = round(G), r = n - G in
 * [-0.5, 0.5] (one rounding) and D = 2^r - 1 (degree 6 with the leading
 * product inside an fma, rel. err 2^-26.2):
 *   erf = (1 - 2^-n) - 2^-n D,
 * rounded once, and -D itself for small |x| (n = 0): one formula, no
 * selects, no division.  Sign and NaN are OR-ed back in.
 *
 * asc_erf_scaled_f32(x, s) is erf(s*x) for a constant s > 0 with the
 * product s*x never rounded: s goes into the coefficients of H,
 * G(s|x|) = |x| * sum_k c_k s^(k+1) |x|^k, and into the clamp (4.5/s), all
 * folded at compile time when s is a constant.  It is the same formula and
 * costs no more than erf(x); erf(x / c) becomes erf_scaled(x, 1/c).  With
 * s = 1 it is asc_erf_f32 bit for bit.  Bound for GELU's s = 1/float(sqrt 2)
 * and s = float(1/sqrt 2), against the exact erf(s*x), all 2^32 inputs:
 * see the table above (asc_erf_scaled_f32); erf of the rounded float32
 * quotient is within 2.46 / 2.48 ulp of the same exact value. */
/* one * erf(s*ac) for ac = min(|x|, 4.5/s) >= 0, one = 1 or 0.5 (bias 127 or 126: an exact scaling by a power of
 * two, so that GELU's 0.5 (1 + erf) needs no multiply of its own) */
ASCM_INLINE float ascm_erf_abs_f32(float ac, double s, float one, float bias) {
    const double s2d = s * s, s4d = s2d * s2d;
    const double c0d = 0x1.a0be84p+0 * s;
    const float c0 = (float)c0d, c1 = (float)(0x1.d63ebep-1 * s2d),
                c2 = (float)(0x1.2fad04p-3 * s2d * s), c3 = (float)(-0x1.c4de44p-6 * s4d),
                c4 = (float)(-0x1.c1264ep-13 * s4d * s), c5 = (float)(0x1.38ec78p-9 * s4d * s2d),
                c6 = (float)(-0x1.d99f38p-11 * s4d * s2d * s), c7 = (float)(0x1.5e5a8ep-13 * s4d * s4d),
                c8 = (float)(-0x1.b65fap-17 * s4d * s4d * s);
#if ASCM_HAS_FMA
    /* H = c0 + |x| (c1 + ... + c8 |x|^7), the inner degree-7 part by Estrin's scheme: half the dependence chain
     * of Horner's (with 256-bit vectors the loop is bound by its latency: erf 0.56 -> 0.49 ns per element on
     * AVX2); c0 is added last, in one rounding, as in Horner's scheme (Estrin over all of H, c0 + c1 |x| rounded
     * first, was 2.49 ulp). Without FMA, Horner's scheme (fewer roundings: 1.40 ulp, Estrin's 1.48) */
    float a2 = ac * ac, a4 = a2 * a2;
    float p12 = ASCM_FMAF(c2, ac, c1), p34 = ASCM_FMAF(c4, ac, c3), p56 = ASCM_FMAF(c6, ac, c5),
          p78 = ASCM_FMAF(c8, ac, c7);
    float p14 = ASCM_FMAF(p34, a2, p12), p58 = ASCM_FMAF(p78, a2, p56);
    float h = ASCM_FMAF(ac, ASCM_FMAF(p58, a4, p14), c0);
    /* G = |x| H rounded to an integer n in the bits of kf = shift - n (shift = 1.5 2^23 + bias: its low 9 bits
     * are bias - n, so one * 2^-n is those bits shifted into the exponent: one integer instruction), and
     * t = G - n = -r: the polynomial of D = 2^r - 1 takes -t, its odd coefficients negated (exactly the
     * values of 2^r - 1 at r) */
    const float shift = 0x1.8p23f + bias;
    float kf = ASCM_FMAF(-ac, h, shift);
    float m = kf - shift;                                   /* -n */
    float s2 = ascm_u2f(ascm_f2u(kf) << 23);                /* one * 2^-n */
    float t = ASCM_FMAF(ac, h, m);                          /* G - n = -r */
    float t2 = t * t;
    float q = ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(0x1.42947cp-13f, t, -0x1.5ef14ep-10f), t2,
                  ASCM_FMAF(0x1.3b2c3ep-7f, t, -0x1.c6afa4p-5f)), t, 0x1.ebfbdep-3f);
    float D = ASCM_FMAF(t, -0x1.62e43p-1f, t2 * q);
    return ASCM_FMAF(-s2, D, one - s2);
#else
    float h = ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(
                  c8, ac, c7), ac, c6), ac, c5), ac, c4), ac, c3), ac, c2), ac, c1), ac, c0);
    float kf = ASCM_FMAF(ac, h, 0x1.8p23f);
    float n = kf - 0x1.8p23f;
    float s2 = ascm_u2f((0x7fu - (127u - (uint32_t)bias) - ascm_f2u(kf)) << 23); /* one * 2^-n */
    /* without FMA the products r = n - |x|*H and r*ln2 would be rounded
     * separately: the last steps run in double (exact product and
     * difference, one final rounding) */
    const float c0lo = (float)(c0d - (double)c0);
    double rd = (double)n - (double)ac * ((double)h + (double)c0lo); /* c0lo: what c0 = (float)(c0*s) drops */
    double Dd = rd * (0x1.62e42fefa39efp-1 + rd * (0x1.ebfbdep-3 + rd * (0x1.c6afa4p-5 +
                rd * (0x1.3b2c3ep-7 + rd * (0x1.5ef14ep-10 + rd * 0x1.42947cp-13)))));
    return (float)(((double)one - (double)s2) - (double)s2 * Dd);
#endif
}

/* The clamp of |x| for erf(s x): min(|x|, 4.5/s) on the bits */
ASCM_INLINE float ascm_erf_clamp_f32(uint32_t ab, double s) {
    const uint32_t lim = ascm_f2u((float)(4.5 / s));
    return ascm_u2f(ab < lim ? ab : lim);
}

ASCM_INLINE float asc_erf_scaled_f32(float x, double s) {
    uint32_t ab = ascm_f2u(x) & 0x7fffffffu;
    float res = ascm_erf_abs_f32(ascm_erf_clamp_f32(ab, s), s, 1.0f, 127.0f);
    /* NaN: |x| was clamped like +inf, res is exactly 1.0f, whose bits lie within any NaN's: OR-ing all of x's bits
     * returns the NaN bit for bit. The mask is one signed compare of |x|'s bits (< 2^31), not ascm_nanmaskf's add
     * and shift */
    uint32_t nan = 0u - (uint32_t)((int32_t)ab > 0x7f800000);
    return ascm_u2f(ascm_f2u(res) | (ascm_f2u(x) & (nan | 0x80000000u)));
}

/* GELU's (0.5f * x) * (1.0f + asc_erf_scaled_f32(x, s)), bit for bit, as x * (0.5f + 0.5 erf(s x)): the 0.5 is
 * in erf's exponent (ascm_erf_abs_f32's one = 0.5), so the multiply by 0.5 goes; both products round the same
 * real number once (0.5 x is exact, and for a subnormal x, where it is not, 1 + erf(s x) is 1). A NaN x needs no
 * mask: x * anything returns it as x (0.5 x) does. What the cpu target emits for that product
 * (asc/passes/gelu_product.py). */
ASCM_INLINE float asc_gelu_erf_scaled_f32(float x, double s) {
    uint32_t ab = ascm_f2u(x) & 0x7fffffffu;
    float half = ascm_erf_abs_f32(ascm_erf_clamp_f32(ab, s), s, 0.5f, 126.0f);
    return x * (0.5f + ascm_u2f(ascm_f2u(half) | (ascm_f2u(x) & 0x80000000u)));
}

ASCM_INLINE float asc_erf_f32(float x) { return asc_erf_scaled_f32(x, 1.0); }

/* Range reduction for sin/cos (float32 input, double output).
 * Returns r in ~[-pi/4, pi/4] (double, ~2^-33 relative accuracy or better)
 * and quadrant q with |x| = q*pi/2 + r (mod 2*pi).
 *  |x| < 2 : r = |x| - k*(pi/2) with pi/2 split in two doubles.
 *  |x| >= 2: exact integer reduction with 96 bits of 4/pi selected by the
 *            exponent (the "fast integer" Payne-Hanek variant used by ARM
 *            optimized-routines): a 32x96-bit multiply gives |x|*4/pi mod 8
 *            as a 2.62 fixed-point number, exact for every finite float.
 *            The 96-bit window is cut out of four 64-bit constants with
 *            shifts and selects instead of a table: gcc emulates table
 *            gathers lane by lane on tunings that avoid vpgather. */
typedef struct { double r; uint32_t q; } ascm_redf_t;

ASCM_INLINE uint64_t ascm_selu64(int c, uint64_t a, uint64_t b) {
    uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
    return (a & m) | (b & ~m);
}

/* x86 below AVX2 (SSE4.2) has no per-lane variable shift (AVX2's vpsllvd /
 * vpsllvq / vpsrlvq): a loop that shifts by a per-lane count stays scalar
 * there.  The sin/cos reductions then take a form with selects, multiplies
 * and conversions instead, which computes the same integers (so the same
 * bits); AVX2, AVX-512 and other ISAs keep the shifts, which cost less. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__AVX2__)
#define ASCM_NO_VARIABLE_SHIFTS 1
#else
#define ASCM_NO_VARIABLE_SHIFTS 0
#endif

/* w[k] for k = 0..15, without a table lookup (gcc emulates gathers lane by
 * lane): a tree of selects on the bits of k over constants */
ASCM_INLINE uint32_t ascm_sel16u(uint32_t k, const uint32_t *w) {
    uint32_t m0 = 0u - (k & 1u), m1 = 0u - ((k >> 1) & 1u);
    uint32_t m2 = 0u - ((k >> 2) & 1u), m3 = 0u - ((k >> 3) & 1u);
    uint32_t t[8], u[4], v[2];
    for (int i = 0; i < 8; i++) t[i] = (w[2 * i + 1] & m0) | (w[2 * i] & ~m0);
    for (int i = 0; i < 4; i++) u[i] = (t[2 * i + 1] & m1) | (t[2 * i] & ~m1);
    for (int i = 0; i < 2; i++) v[i] = (u[2 * i + 1] & m2) | (u[2 * i] & ~m2);
    return (v[1] & m3) | (v[0] & ~m3);
}

ASCM_INLINE ascm_redf_t ascm_sincosf_reduce(float ax) {
    /* the binary digits of 4/pi (4/pi = 0xa2f9836e4e441529... * 2^-31),
     * preceded by 24 zero bits, as big-endian 64-bit words */
    const uint64_t G0 = 0x000000a2f9836e4eull, G1 = 0x441529fc2757d1f5ull,
                   G2 = 0x34ddc0db6295993cull, G3 = 0x4390410000000000ull;
    ascm_redf_t out;
    double xd = (double)ax;
    /* small path */
    double kd = (xd * 0x1.45f306dc9c883p-1 + 0x1.8p52) - 0x1.8p52;
    double rs = (xd - kd * 0x1.921fb54442d18p+0) - kd * 0x1.1a62633145c07p-54;
    uint32_t qs = (uint32_t)ascm_d2u(kd + 0x1.8p52); /* low bits = k */
    /* large path: window of 96 bits starting at bit o = 8*((E >> 3) & 15) */
    uint32_t xi = ascm_f2u(ax);
    uint32_t o = ((xi >> 26) & 15u) << 3; /* 0..120 */
#if ASCM_NO_VARIABLE_SHIFTS
    /* the same three words without per-lane shifts: a_j is the 32 bits at
     * byte k + 4j, k = o / 8, picked from constants by the four bits of k;
     * m = (mantissa | 2^23) << (E & 7) is the float with that mantissa and
     * exponent 23 + (E & 7), converted to an integer (exact, < 2^31) */
    static const uint32_t W[24] = {
        0x000000a2u, 0x0000a2f9u, 0x00a2f983u, 0xa2f9836eu, 0xf9836e4eu, 0x836e4e44u,
        0x6e4e4415u, 0x4e441529u, 0x441529fcu, 0x1529fc27u, 0x29fc2757u, 0xfc2757d1u,
        0x2757d1f5u, 0x57d1f534u, 0xd1f534ddu, 0xf534ddc0u, 0x34ddc0dbu, 0xddc0db62u,
        0xc0db6295u, 0xdb629599u, 0x6295993cu, 0x95993c43u, 0x993c4390u, 0x3c439041u};
    uint32_t k = o >> 3;
    uint32_t a0 = ascm_sel16u(k, W), a1 = ascm_sel16u(k, W + 4), a2 = ascm_sel16u(k, W + 8);
    uint32_t m = (uint32_t)(int32_t)ascm_u2f((xi & 0x03ffffffu) + 0x4b000000u);
    (void)G0; (void)G1; (void)G2; (void)G3;
#else
    uint32_t b = o & 63u;
    int hi = o >= 64u;
    uint64_t g0 = ascm_selu64(hi, G1, G0), g1 = ascm_selu64(hi, G2, G1), g2 = ascm_selu64(hi, G3, G2);
    uint64_t A = (g0 << b) | ((g1 >> 1) >> (63u - b));
    uint64_t B = (g1 << b) | ((g2 >> 1) >> (63u - b));
    uint32_t a0 = (uint32_t)(A >> 32), a1 = (uint32_t)A, a2 = (uint32_t)(B >> 32);
    uint32_t m = ((xi & 0x007fffffu) | 0x00800000u) << ((xi >> 23) & 7u);
#endif
    uint64_t res0 = (uint64_t)(uint32_t)(m * a0);
    uint64_t res1 = (uint64_t)m * a1;
    uint64_t res2 = (uint64_t)m * a2;
    res0 = (res2 >> 32) | (res0 << 32);
    res0 += res1;
    uint64_t n = (res0 + (1ull << 61)) >> 62;
    res0 -= n << 62;
    /* (double)(int64_t)res0 without a 64-bit int -> double conversion */
    int32_t rhi = (int32_t)(uint32_t)(res0 >> 32);
    int32_t rlo = (int32_t)(uint32_t)((res0 >> 1) & 0x7fffffffu);
    double rl = ((double)rhi * 0x1p32 + (double)rlo * 2.0) * 0x1.921fb54442d18p-62;
    int small = ax < 2.0f;
    out.r = ascm_seld(small, rs, rl);
    out.q = ascm_selu(small, qs, (uint32_t)n);
    return out;
}

/* sin/cos kernels on [-pi/4, pi/4] in double (FreeBSD k_sinf/k_cosf,
 * |sin(x)/x - s(x)| < 2^-37.5, |cos(x) - c(x)| < 2^-34.1). */
ASCM_INLINE double ascm_sindf(double x) {
    double z = x * x, w = z * z;
    double r = -0x1.a00f9e2cae774p-13 + z * 0x1.6cd878c3b46a7p-19;
    double s = z * x;
    return (x + s * (-0x1.5555554cbac77p-3 + z * 0x1.11110896efbb2p-7)) + s * w * r;
}
ASCM_INLINE double ascm_cosdf(double x) {
    double z = x * x, w = z * z;
    double r = -0x1.6c087e80f1e27p-10 + z * 0x1.99342e0ee5069p-16;
    return ((1.0 + z * -0x1.ffffffd0c5e81p-2) + w * 0x1.55553e1053a42p-5) + (w * z) * r;
}

ASCM_INLINE float asc_sin_f32(float x) {
    float ax = ascm_absf(x);
    ascm_redf_t red = ascm_sincosf_reduce(ax);
    double s = ascm_sindf(red.r), c = ascm_cosdf(red.r);
    double v = ascm_seld(red.q & 1u, c, s);
    float res = (float)v;
    /* sign: quadrant 2,3 and the sign of x */
    res = ascm_u2f(ascm_f2u(res) ^ ((red.q & 2u) << 30) ^ (ascm_f2u(x) & 0x80000000u));
    res = ascm_self(ascm_f2u(ax) >= 0x7f800000u, ASCM_NAN_F32, res); /* +-inf */
    return ascm_self(ascm_isnanf(x), x, res);
}

ASCM_INLINE float asc_cos_f32(float x) {
    float ax = ascm_absf(x);
    ascm_redf_t red = ascm_sincosf_reduce(ax);
    double s = ascm_sindf(red.r), c = ascm_cosdf(red.r);
    double v = ascm_seld(red.q & 1u, s, c);
    float res = (float)v;
    res = ascm_u2f(ascm_f2u(res) ^ (((red.q + 1u) & 2u) << 30));
    res = ascm_self(ascm_f2u(ax) >= 0x7f800000u, ASCM_NAN_F32, res); /* +-inf */
    return ascm_self(ascm_isnanf(x), x, res);
}

/* Fast float-only sin/cos (optional "fastmath" variants).
 * Cody-Waite reduction (3 float pieces of pi/2 with FMA, 4 pieces with
 * trailing zeros without FMA) and Cephes' float minimax kernels on
 * [-pi/4, pi/4].  Error bound documented for
 * |x| <= ASC_FAST_SINCOS_F32_MAX = 12868 (= 2^13 * pi/2); beyond that the
 * result stays in [-1, 1] but the absolute error grows like |x| * 2^-37
 * (reduction) and, above 2^22, the quadrant is meaningless.  inf/NaN -> NaN. */
#define ASC_FAST_SINCOS_F32_MAX 12868.0f
ASCM_INLINE float ascm_fast_sincosf(float x, uint32_t qadd, uint32_t sgn) {
    float ax = ascm_minf(ascm_absf(x), 0x1p22f); /* NaN -> 2^22, fixed below */
    float kf = ASCM_FMAF(ax, 0x1.45f306p-1f, 0x1.8p23f);
    uint32_t q = ascm_f2u(kf) + qadd;
    kf -= 0x1.8p23f;
#if ASCM_HAS_FMA
    /* three full float pieces; the first fma is exact for k < 2^13 */
    float r = ASCM_FMAF(kf, -0x1.921fb6p+0f, ax);
    r = ASCM_FMAF(kf, 0x1.777a5cp-25f, r);
    r = ASCM_FMAF(kf, 0x1.ee59dap-50f, r);
#else
    /* pieces with 8/11/11/24 bits: k*piece exact for k < 2^13 */
    float r = (ax - kf * 0x1.92p+0f) - kf * 0x1.fb4p-12f;
    r = (r - kf * 0x1.444p-24f) - kf * 0x1.68c234p-39f;
#endif
    float z = r * r;
    float ps = ASCM_FMAF(ASCM_FMAF(-1.9515295891e-4f, z, 8.3321608736e-3f), z, -1.6666654611e-1f);
    float sn = ASCM_FMAF(r * z, ps, r);
    float pc = ASCM_FMAF(ASCM_FMAF(2.443315711809948e-5f, z, -1.388731625493765e-3f), z, 4.166664568298827e-2f);
    float cs = ASCM_FMAF(z * z, pc, ASCM_FMAF(-0.5f, z, 1.0f));
    float v = ascm_self(q & 1u, cs, sn);
    v = ascm_u2f(ascm_f2u(v) ^ ((q & 2u) << 30) ^ sgn);
    v = ascm_self(ascm_absf(x) == ASCM_INF_F32, ASCM_NAN_F32, v);
    return ascm_self(ascm_isnanf(x), x, v);
}
ASCM_INLINE float asc_fast_sin_f32(float x) {
    return ascm_fast_sincosf(x, 0u, ascm_f2u(x) & 0x80000000u);
}
ASCM_INLINE float asc_fast_cos_f32(float x) {
    return ascm_fast_sincosf(x, 1u, 0u);
}

/* rsqrt: 1/sqrt(x) by Newton-Raphson in double from a bit-trick seed (no
 * sqrt instruction, so no errno/libm dependence): 3 steps take the 3.4%
 * seed error to < 2^-34, then one rounding to float (<= 0.5 ulp + 2^-11).
 * rsqrt(+-0) = +-inf, rsqrt(x<0) = NaN, rsqrt(+inf) = +0. */
ASCM_INLINE float asc_rsqrt_f32(float x) {
    double xd = (double)ascm_absf(x); /* float subnormals are normal doubles */
    double y = ascm_u2d(0x5fe6eb50c7b537a9ull - (ascm_d2u(xd) >> 1));
    double hx = 0.5 * xd;
    y = y * (1.5 - hx * y * y);
    y = y * (1.5 - hx * y * y);
    y = y * (1.5 - hx * y * y);
    float res = (float)y;
    res = ascm_self(x == ASCM_INF_F32, 0.0f, res);
    res = ascm_self(x == 0.0f, ascm_with_signf(ASCM_INF_F32, x), res);
    res = ascm_self(x < 0.0f, ASCM_NAN_F32, res);
    return ascm_self(ascm_isnanf(x), x, res);
}

/* ======================================================================== */
/* float64                                                                  */
/* ======================================================================== */

/* exp(xh + xl) for xh in [-746, 710] (callers clamp, no NaN) and |xl| tiny
 * (a double-double tail, |xl| < 2^-40).  FreeBSD e_exp.c rational scheme
 * (error < 1 ulp) made branch-free, the 2^k scaling done in two steps
 * (gradual underflow rounded once).  Returns the result; *tail receives the
 * rounding error of the final 1 + (exp(r) - 1) step, scaled like the result
 * (result + *tail is exp to ~2^-60 relative while it is normal). */
ASCM_INLINE double ascm_exp_hl(double xh, double xl, double *tail) {
    const double shift = 0x1.8p52;
    double kd = ASCM_FMA(xh, 0x1.71547652b82fep+0, shift);
    uint64_t kb = ascm_d2u(kd);
    kd -= shift;
    double hi = xh - kd * 0x1.62e42feep-1;       /* ln2_hi: k*ln2_hi exact */
    double lo = kd * 0x1.a39ef35793c76p-33 - xl; /* ln2_lo */
    double r = hi - lo;
    double rr = r * r;
    double c = r - rr * (0x1.555555555553ep-3 + rr * (-0x1.6c16c16bebd93p-9 +
               rr * (0x1.1566aaf25de2cp-14 + rr * (-0x1.bbd41c5d26bf1p-20 +
               rr * 0x1.6376972bea4d0p-25))));
    double em1 = (r * c) / (2.0 - c) - lo + hi; /* exp(r) - 1 */
    double y = 1.0 + em1;
    double yl = em1 - (y - 1.0); /* rounding error of y (exact) */
    /* k = k1 + k2, k1 = round(k/2) */
    double hd = ASCM_FMA(kd, 0.5, shift);
    int64_t k = (int64_t)(kb - ascm_d2u(shift));
    int64_t k1 = (int64_t)(ascm_d2u(hd) - ascm_d2u(shift));
    int64_t k2 = k - k1;
    double s1 = ascm_u2d((uint64_t)(k1 + 1023) << 52);
    double s2 = ascm_u2d((uint64_t)(k2 + 1023) << 52);
    *tail = (yl * s1) * s2;
    return (y * s1) * s2;
}

/* exp(xh + xl), see ascm_exp_hl. */
ASCM_INLINE double ascm_exp_dd(double xh, double xl) {
    double tail;
    return ascm_exp_hl(xh, xl, &tail);
}

ASCM_INLINE double asc_exp_f64(double x) {
    double xc = ascm_maxd(ascm_mind(x, 710.0), -746.0); /* NaN -> 710 */
    double r = ascm_exp_dd(xc, 0.0);
    return ascm_seld(ascm_isnan(x), x, r);
}

/* log core: FreeBSD e_log.c scheme (error < 1 ulp), branch-free.
 * xs must be positive, finite and normal; returns log(xs) + k0*ln2. */
ASCM_INLINE double ascm_log_core(double xs, int32_t k0) {
    uint64_t ix = ascm_d2u(xs);
    uint32_t hx = (uint32_t)(ix >> 32) + (0x3ff00000u - 0x3fe6a09eu);
    int32_t k = k0 + (int32_t)(hx >> 20) - 0x3ff;
    hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
    ix = ((uint64_t)hx << 32) | (ix & 0xffffffffull);
    double f = ascm_u2d(ix) - 1.0;
    double hfsq = 0.5 * f * f;
    double s = f / (2.0 + f);
    double z = s * s;
    double w = z * z;
    double t1 = w * (0x1.999999997fa04p-2 + w * (0x1.c71c51d8e78afp-3 + w * 0x1.39a09d078c69fp-3));
    double t2 = z * (0x1.5555555555593p-1 + w * (0x1.2492494229359p-2 +
                w * (0x1.7466496cb03dep-3 + w * 0x1.2f112df3e5244p-3)));
    double R = t2 + t1;
    double dk = (double)k;
    return s * (hfsq + R) + dk * 0x1.a39ef35793c76p-33 - hfsq + f + dk * 0x1.62e42feep-1;
}

ASCM_INLINE double asc_log_f64(double x) {
    uint64_t ix0 = ascm_d2u(x);
    int dn = ix0 < 0x0010000000000000ull; /* +0 or positive subnormal */
    double xs = ascm_seld(dn, x * 0x1p54, x);
    double res = ascm_log_core(xs, -(int32_t)dn & -54);
    res = ascm_seld(x < 0.0, ASCM_NAN_F64, res);
    res = ascm_seld(x == 0.0, -ASCM_INF_F64, res);
    res = ascm_seld((ix0 == 0x7ff0000000000000ull) | ascm_isnan(x), x, res);
    return res;
}

/* tanh: |x| < 0.625: Cephes rational x + x^3 P(x^2)/Q(x^2);
 *       otherwise 1 - 2t/(1+t), t = exp(-2|x|) (corrected quotient as in
 *       asc_sigmoid_f64), |x| clamped to 22 (tanh rounds to 1 beyond 19.1). */
ASCM_INLINE double asc_tanh_f64(double x) {
    double a = ascm_abs(x);
    double z = a * a;
    double pn = ((-0x1.edc5baafd6f4bp-1 * z + -0x1.8d26a0e26682dp+6) * z + -0x1.93ac030580563p+10) * z;
    double pd = ((z + 0x1.c33f28a581b86p+6) * z + 0x1.176fa0e5535fap+11) * z + 0x1.2ec102442040cp+12;
    double small = a + a * (pn / pd);
    double ac = ascm_mind(a, 22.0); /* NaN -> 22 */
    double tl;
    double t = ascm_exp_hl(-2.0 * ac, 0.0, &tl);
    double dh = 1.0 + t;
    double dl = (t - (dh - 1.0)) + tl;
    double q = t / dh;
#if ASCM_HAS_FMA
    double rem = ASCM_FMA(-q, dh, t);
#else
    double rem = 0.0;
#endif
    q = ASCM_FMA(rem + (tl - q * dl), 1.0 - q, q);
    double large = ASCM_FMA(-2.0, q, 1.0);
    double res = ascm_seld(a < 0.625, small, large);
    res = ascm_with_sign(res, x);
    return ascm_seld(ascm_isnan(x), x, res);
}

/* sigmoid: t = exp(-|x|) as t + tl; x >= 0: 1/(1+t), x < 0: t/(1+t), with
 * the same one-step quotient correction as asc_sigmoid_f32. */
ASCM_INLINE double asc_sigmoid_f64(double x) {
    double a = ascm_abs(x);
    double ac = ascm_mind(a, 746.0); /* NaN -> 746 */
    double tl;
    double t = ascm_exp_hl(-ac, 0.0, &tl);
    double dh = 1.0 + t;
    double dl = (t - (dh - 1.0)) + tl;
    int neg = x < 0.0;
    double num = ascm_seld(neg, t, 1.0);
    double nl = ascm_seld(neg, tl, 0.0);
    double q = num / dh;
#if ASCM_HAS_FMA
    double rem = ASCM_FMA(-q, dh, num); /* exact division residual */
#else
    double rem = 0.0;
#endif
    double rinv = ascm_seld(neg, 1.0 - q, q);
    double res = ASCM_FMA(rem + (nl - q * dl), rinv, q);
    return ascm_seld(ascm_isnan(x), x, res);
}

/* erf: FreeBSD s_erf.c (error < 1 ulp), all pieces evaluated and selected:
 *   |x| < 0.84375      x + x*P(x^2)/Q(x^2)
 *   |x| < 1.25         erx + P(|x|-1)/Q(|x|-1)
 *   |x| < 6            1 - exp(-z*z-0.5625)*exp((z-x)(z+x)+R(1/x^2)/S(1/x^2))/x
 *                      (two coefficient sets split at 1/0.35, selected)
 *   |x| >= 6           1 (the formula above at x = 6 rounds to 1). */
ASCM_INLINE double asc_erf_f64(double x) {
    double a = ascm_abs(x);
    double z = a * a;
    double r = 0x1.06eba8214db68p-3 + z * (-0x1.4cd7d691cb913p-2 + z * (-0x1.d2a51dbd7194fp-6 +
               z * (-0x1.7a291236668e4p-8 + z * -0x1.8ead6120016acp-16)));
    double s = 1.0 + z * (0x1.97779cddadc09p-2 + z * (0x1.0a54c5536cebap-4 + z * (0x1.4d022c4d36b0fp-8 +
               z * (0x1.15dc9221c1a10p-13 + z * -0x1.09c4342a26120p-18))));
    double y1 = a + a * (r / s);
    double sm = a - 1.0;
    double P = -0x1.359b8bef77538p-9 + sm * (0x1.a8d00ad92b34dp-2 + sm * (-0x1.7d240fbb8c3f1p-2 +
               sm * (0x1.45fca805120e4p-2 + sm * (-0x1.c63983d3e28ecp-4 + sm * (0x1.22a36599795ebp-5 +
               sm * -0x1.1bf380a96073fp-9)))));
    double Q = 1.0 + sm * (0x1.b3e6618eee323p-4 + sm * (0x1.14af092eb6f33p-1 + sm * (0x1.2635cd99fe9a7p-4 +
               sm * (0x1.02660e763351fp-3 + sm * (0x1.bedc26b51dd1cp-7 + sm * 0x1.88b545735151dp-7)))));
    double y2 = 0x1.b0ac16p-1 + P / Q;
    double ac = ascm_mind(ascm_maxd(a, 1.25), 6.0);
    double si = 1.0 / (ac * ac);
    int b = ac >= 0x1.6db6ep+1; /* 1/0.35 */
    double R = ascm_seld(b, -0x1.4341239e86f4ap-7, -0x1.43412600d6435p-7) + si *
              (ascm_seld(b, -0x1.993ba70c285dep-1, -0x1.63416e4ba7360p-1) + si *
              (ascm_seld(b, -0x1.1c209555f995ap+4, -0x1.51e0441b0e726p+3) + si *
              (ascm_seld(b, -0x1.4145d43c5ed98p+7, -0x1.f300ae4cba38dp+5) + si *
              (ascm_seld(b, -0x1.3ec881375f228p+9, -0x1.44cb184282266p+7) + si *
              (ascm_seld(b, -0x1.004616a2e5992p+10, -0x1.7135cebccabb2p+7) + si *
              (ascm_seld(b, -0x1.e384e9bdc383fp+8, -0x1.4526557e4d2f2p+6) + si *
               ascm_seld(b, 0.0, -0x1.3a0efc69ac25cp+3)))))));
    double S = 1.0 + si *
              (ascm_seld(b, 0x1.e568b261d5190p+4, 0x1.3a6b9bd707687p+4) + si *
              (ascm_seld(b, 0x1.45cae221b9f0ap+8, 0x1.1350c526ae721p+7) + si *
              (ascm_seld(b, 0x1.802eb189d5118p+10, 0x1.b290dd58a1a71p+8) + si *
              (ascm_seld(b, 0x1.8ffb7688c246ap+11, 0x1.42b1921ec2868p+9) + si *
              (ascm_seld(b, 0x1.3f219cedf3be6p+11, 0x1.ad02157700314p+8) + si *
              (ascm_seld(b, 0x1.da874e79fe763p+8, 0x1.b28a3ee48ae2cp+6) + si *
              (ascm_seld(b, -0x1.670e242712d62p+4, 0x1.a47ef8e484a93p+2) + si *
               ascm_seld(b, 0.0, -0x1.eeff2ee749a62p-5))))))));
    double zz = ascm_u2d(ascm_d2u(ac) & 0xffffffff00000000ull);
    double rr = ascm_exp_dd(-zz * zz - 0.5625, 0.0) * ascm_exp_dd((zz - ac) * (zz + ac) + R / S, 0.0);
    double y3 = 1.0 - rr / ac;
    double res = ascm_seld(a < 0.84375, y1, ascm_seld(a < 1.25, y2, y3));
    res = ascm_with_sign(res, x);
    return ascm_seld(ascm_isnan(x), x, res);
}

/* sin/cos range reduction (double): |x| = k*pi/2 + (hi + lo).
 * pi/2 is split into four 27-bit pieces plus a 53-bit tail, so k*piece is
 * exact for k < 2^26 with or without FMA and the differences are accumulated
 * with error-free sums: hi+lo is accurate to ~2^-100 absolute.
 * Valid (<= 1 ulp results) for |x| < ASC_SINCOS_F64_MAX = 2^26*1.5 ~ 1.0e8. */
#define ASC_SINCOS_F64_MAX 0x1.8p26
typedef struct { double hi, lo; uint32_t q; } ascm_red_t;

ASCM_INLINE ascm_red_t ascm_sincos_reduce(double ax) {
    ascm_red_t out;
    const double shift = 0x1.8p52;
    double kd = ASCM_FMA(ax, 0x1.45f306dc9c883p-1, shift);
    out.q = (uint32_t)ascm_d2u(kd); /* low bits of k */
    kd -= shift;
    double r1 = ax - kd * 0x1.921fb54p+0;
    double e1, e2, e3;
    double sm = ascm_two_sum(r1, -(kd * 0x1.10b461p-30), &e1);
    sm = ascm_two_sum(sm, -(kd * 0x1.a62633p-58), &e2);
    sm = ascm_two_sum(sm, -(kd * 0x1.45c06ep-86), &e3);
    double t = ((e1 + e2) + e3) - kd * 0x1.cd129024e088ap-115;
    out.hi = ascm_fast_two_sum(sm, t, &out.lo);
    return out;
}

/* Large-argument reduction (|x| >= ASC_SINCOS_F64_MAX, any finite double):
 * integer Payne-Hanek.  With |x| = M * 2^p (M the 53-bit integer mantissa),
 * only the bits of 2/pi from position p-1 on matter mod 4; a 192-bit window
 * W of them is cut from a table with shifts, and the 32-bit limbs 2..5 of
 * the exact product M*W (32x32->64 multiplies, columns summed with carries)
 * give x*2/pi mod 4 with 126 fraction bits (truncation error < 2^-124).
 * The fraction is converted to a double-double and multiplied by pi/2. */
ASCM_INLINE double ascm_u32_to_d(uint32_t v) { /* exact, no unsigned cvt needed */
    return ascm_u2d(0x4330000000000000ull | (uint64_t)v) - 0x1p52;
}

ASCM_INLINE ascm_red_t ascm_sincos_reduce_large(double ax) {
    /* bits of 2/pi (0.a2f9836e...) preceded by 32 zero bits */
    static const uint32_t two_over_pi[40] = {
        0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
        0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau,
        0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u,
        0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu,
        0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u,
        0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u,
        0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u};
    ascm_red_t out;
    uint64_t ix = ascm_d2u(ax);
    uint32_t E = (uint32_t)(ix >> 52);            /* biased exponent (ax >= 0) */
    E = ascm_selu(E < 1049u, 1049u, E);           /* lanes on the small path */
    uint32_t sbit = E - 1045u;                    /* 32 + (E - 1075) - 2 */
    uint32_t w = sbit >> 5, sh = sbit & 31u;
    uint32_t W[6];
#if ASCM_NO_VARIABLE_SHIFTS
    /* the same words as (hi:lo) * 2^sh >> 32 (mod 2^32), with p = 2^sh built
     * exactly: 2^(sh & 15) through a float's exponent times 2^16 or 1 */
    uint32_t p = (uint32_t)(int32_t)ascm_u2f(((sh & 15u) + 127u) << 23) * ascm_selu(sh >= 16u, 0x10000u, 1u);
    for (int i = 0; i < 6; i++)
        W[i] = two_over_pi[w + i] * p + (uint32_t)(((uint64_t)two_over_pi[w + i + 1] * p) >> 32);
#else
    for (int i = 0; i < 6; i++) {
        uint64_t pair = ((uint64_t)two_over_pi[w + i] << 32) | two_over_pi[w + i + 1];
        W[i] = (uint32_t)(pair >> (32u - sh));
    }
#endif
    uint64_t M = (ix & 0x000fffffffffffffull) | 0x0010000000000000ull;
    uint64_t mlo = M & 0xffffffffull, mhi = M >> 32;
    uint64_t a1 = mlo * W[1], a2 = mlo * W[2], a3 = mlo * W[3], a4 = mlo * W[4];
    uint64_t b2 = mhi * W[2], b3 = mhi * W[3], b4 = mhi * W[4], b5 = mhi * W[5];
    uint32_t a0lo = (uint32_t)mlo * W[0], b1lo = (uint32_t)mhi * W[1];
    const uint64_t lo32 = 0xffffffffull;
    uint64_t c2 = (a3 & lo32) + (a4 >> 32) + (b4 & lo32) + (b5 >> 32);
    uint64_t c3 = (a2 & lo32) + (a3 >> 32) + (b3 & lo32) + (b4 >> 32) + (c2 >> 32);
    uint64_t c4 = (a1 & lo32) + (a2 >> 32) + (b2 & lo32) + (b3 >> 32) + (c3 >> 32);
    uint32_t L5 = a0lo + (uint32_t)(a1 >> 32) + b1lo + (uint32_t)(b2 >> 32) + (uint32_t)(c4 >> 32);
    /* round to the nearest quadrant: V = L5:L4:L3:L2 * 2^-126, unit = bit 30 of L5 */
    L5 += 0x20000000u;
    out.q = L5 >> 30;
    int32_t f5 = (int32_t)(L5 & 0x3fffffffu) - 0x20000000;
    double e1, e2, e3;
    double h = ascm_two_sum((double)f5 * 0x1p96, ascm_u32_to_d((uint32_t)c4) * 0x1p64, &e1);
    h = ascm_two_sum(h, ascm_u32_to_d((uint32_t)c3) * 0x1p32, &e2);
    h = ascm_two_sum(h, ascm_u32_to_d((uint32_t)c2), &e3);
    double l = (e1 + e2) + e3;
    h = ascm_fast_two_sum(h, l, &l);
    h *= 0x1p-126;
    l *= 0x1p-126;
    double pl;
    double ph = ascm_two_prod(h, 0x1.921fb54442d18p+0, &pl);
    pl += h * 0x1.1a62633145c07p-54 + l * 0x1.921fb54442d18p+0;
    out.hi = ascm_fast_two_sum(ph, pl, &out.lo);
    return out;
}

/* |x| = q*pi/2 + (hi + lo) for any finite x. */
ASCM_INLINE ascm_red_t ascm_sincos_reduce_any(double ax) {
    ascm_red_t sm = ascm_sincos_reduce(ascm_mind(ax, ASC_SINCOS_F64_MAX));
    ascm_red_t lg = ascm_sincos_reduce_large(ax);
    int big = ax >= ASC_SINCOS_F64_MAX;
    sm.hi = ascm_seld(big, lg.hi, sm.hi);
    sm.lo = ascm_seld(big, lg.lo, sm.lo);
    sm.q = ascm_selu(big, lg.q, sm.q);
    return sm;
}

/* FreeBSD k_sin.c / k_cos.c kernels on [-pi/4, pi/4] with tail y. */
ASCM_INLINE double ascm_sin_kernel(double x, double y) {
    double z = x * x, w = z * z;
    double r = 0x1.111111110f8a6p-7 + z * (-0x1.a01a019c161d5p-13 + z * 0x1.71de357b1fe7dp-19) +
               z * w * (-0x1.ae5e68a2b9cebp-26 + z * 0x1.5d93a5acfd57cp-33);
    double v = z * x;
    return x - ((z * (0.5 * y - v * r) - y) - v * -0x1.5555555555549p-3);
}
ASCM_INLINE double ascm_cos_kernel(double x, double y) {
    double z = x * x, w = z * z;
    double r = z * (0x1.555555555554cp-5 + z * (-0x1.6c16c16c15177p-10 + z * 0x1.a01a019cb1590p-16)) +
               w * w * (-0x1.27e4f809c52adp-22 + z * (0x1.1ee9ebdb4b1c4p-29 + z * -0x1.8fae9be8838d4p-37));
    double hz = 0.5 * z;
    double ww = 1.0 - hz;
    return ww + (((1.0 - ww) - hz) + (z * r - x * y));
}

ASCM_INLINE double asc_sin_f64(double x) {
    double ax = ascm_abs(x);
    ascm_red_t red = ascm_sincos_reduce_any(ax);
    double s = ascm_sin_kernel(red.hi, red.lo), c = ascm_cos_kernel(red.hi, red.lo);
    double v = ascm_seld(red.q & 1u, c, s);
    v = ascm_u2d(ascm_d2u(v) ^ ((uint64_t)(red.q & 2u) << 62) ^ (ascm_d2u(x) & 0x8000000000000000ull));
    v = ascm_seld(ax == ASCM_INF_F64, ASCM_NAN_F64, v);
    return ascm_seld(ascm_isnan(x), x, v);
}

ASCM_INLINE double asc_cos_f64(double x) {
    double ax = ascm_abs(x);
    ascm_red_t red = ascm_sincos_reduce_any(ax);
    double s = ascm_sin_kernel(red.hi, red.lo), c = ascm_cos_kernel(red.hi, red.lo);
    double v = ascm_seld(red.q & 1u, s, c);
    v = ascm_u2d(ascm_d2u(v) ^ ((uint64_t)((red.q + 1u) & 2u) << 62));
    v = ascm_seld(ax == ASCM_INF_F64, ASCM_NAN_F64, v);
    return ascm_seld(ascm_isnan(x), x, v);
}

/* rsqrt: Newton-Raphson from a bit-trick seed (4 steps: relative error at
 * the rounding level), then one correction step with an exactly computed
 * residual e = 1 - x*y*y:  y' = y + y*e/2.  Inputs outside [2^-900, 2^900]
 * are prescaled by 2^(-+200) so that y*y neither overflows nor underflows. */
ASCM_INLINE double asc_rsqrt_f64(double x) {
    double ax = ascm_abs(x);
    int tiny = ax < 0x1p-900, huge = ax > 0x1p900;
    double xs = ax * ascm_seld(tiny, 0x1p200, ascm_seld(huge, 0x1p-200, 1.0));
    double y = ascm_u2d(0x5fe6eb50c7b537a9ull - (ascm_d2u(xs) >> 1));
    double hx = 0.5 * xs;
    y = y * (1.5 - hx * y * y);
    y = y * (1.5 - hx * y * y);
    y = y * (1.5 - hx * y * y);
    y = y * (1.5 - hx * y * y);
    double tl, ul;
    double th = ascm_two_prod(y, y, &tl);
    double uh = ascm_two_prod(xs, th, &ul);
    double e = ((1.0 - uh) - ul) - xs * tl;
    y = ASCM_FMA(0.5 * y, e, y);
    double res = y * ascm_seld(tiny, 0x1p100, ascm_seld(huge, 0x1p-100, 1.0));
    res = ascm_seld(ax == ASCM_INF_F64, 0.0, res);
    res = ascm_seld(x == 0.0, ascm_with_sign(ASCM_INF_F64, x), res);
    res = ascm_seld(x < 0.0, ASCM_NAN_F64, res);
    return ascm_seld(ascm_isnan(x), x, res);
}

/* log(x) as a double-double for pow: x = 2^k m, f = m - 1, s = f/(2+f) (as
 * sh+sl), log(m) = 2s + (2/3)s^3 + s^5 T(s^2); the first two terms are kept
 * in double-double, T is a minimax polynomial (rel. err 2^-57.6).  Relative
 * error of hi+lo ~2^-64.  x must be positive, finite and normal. */
ASCM_INLINE double ascm_log_dd(double xs, int32_t k0, double *lo) {
    uint64_t ix = ascm_d2u(xs);
    uint32_t hx = (uint32_t)(ix >> 32) + (0x3ff00000u - 0x3fe6a09eu);
    int32_t k = k0 + (int32_t)(hx >> 20) - 0x3ff;
    hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
    ix = ((uint64_t)hx << 32) | (ix & 0xffffffffull);
    double f = ascm_u2d(ix) - 1.0;
    double uh = 2.0 + f;
    double ul = f - (uh - 2.0);
    double sh = f / uh;
    double pe;
    double pp = ascm_two_prod(sh, uh, &pe);
    double sl = (((f - pp) - pe) - sh * ul) / uh;
    double zl;
    double zh = ascm_two_prod(sh, sh, &zl);
    double s3l;
    double s3h = ascm_two_prod(zh, sh, &s3l);
    s3l += zl * sh + 3.0 * zh * sl;
    double t3l;
    double t3h = ascm_two_prod(0x1.5555555555555p-1, s3h, &t3l);
    t3l += 0x1.5555555555555p-1 * s3l + 0x1.5555555555555p-55 * s3h;
    double T = 0x1.999999999999ap-2 + zh * (0x1.2492492492523p-2 + zh * (0x1.c71c71c6ea442p-3 +
               zh * (0x1.745d177ae638bp-3 + zh * (0x1.3b1395b15296bp-3 + zh * (0x1.1118cebb749f0p-3 +
               zh * (0x1.df7b6046ce062p-4 + zh * 0x1.e03cf82035c1dp-4))))));
    double e1;
    double h = ascm_two_sum(2.0 * sh, t3h, &e1);
    double l = ((e1 + 2.0 * sl) + t3l) + s3h * zh * T;
    double dk = (double)k;
    double e2;
    double Lh = ascm_two_sum(dk * 0x1.62e42feep-1, h, &e2);
    double Ll = (e2 + l) + dk * 0x1.a39ef35793c76p-33;
    return ascm_fast_two_sum(Lh, Ll, lo);
}

/* pow: exp(y * log|x|) with log in double-double and the product kept as
 * hi+lo; then the C99 sign / special-case rules. */
ASCM_INLINE double asc_pow_f64(double x, double y) {
    double ax = ascm_abs(x), ay = ascm_abs(y);
    uint64_t ix0 = ascm_d2u(ax);
    int dn = ix0 < 0x0010000000000000ull;
    double xs = ascm_seld(dn, ax * 0x1p54, ax);
    double Ll;
    double Lh = ascm_log_dd(xs, -(int32_t)dn & -54, &Ll);
    Lh = ascm_seld(ax == 0.0, -ASCM_INF_F64, Lh);
    Lh = ascm_seld(ax == ASCM_INF_F64, ASCM_INF_F64, Lh);
    double Yl;
    double Yh = ascm_two_prod(y, Lh, &Yl);
    Yl += y * Ll;
    double Yc = ascm_maxd(ascm_mind(Yh, 710.0), -746.0); /* NaN -> 710 */
    Yl = ascm_seld(Yc == Yh, Yl, 0.0);
    double res = ascm_exp_dd(Yc, Yl);
    /* integer / odd integer tests on y */
    double yr = (ay + 0x1p52) - 0x1p52;
    int lt52 = ay < 0x1p52;
    int is_int = (yr == ay) | !lt52;
    int odd = is_int & ((lt52 & (int)(ascm_d2u(ay + 0x1p52) & 1u)) |
                        (!lt52 & (ay < 0x1p53) & (int)(ascm_d2u(ay) & 1u)));
    res = ascm_u2d(ascm_d2u(res) ^ ((ascm_d2u(x) & 0x8000000000000000ull) & ((uint64_t)0 - (uint64_t)odd)));
    res = ascm_seld((x < 0.0) & (x > -ASCM_INF_F64) & !is_int, ASCM_NAN_F64, res);
    res = ascm_seld(ascm_isnan(x) | ascm_isnan(y), x + y, res);
    res = ascm_seld((y == 0.0) | (x == 1.0) | ((x == -1.0) & (ay == ASCM_INF_F64)), 1.0, res);
    return res;
}

/* pow (float32): log and exp evaluated in double (|y*log x| error < 2^-44),
 * one final rounding to float; special cases as asc_pow_f64. */
ASCM_INLINE float asc_pow_f32(float x, float y) {
    float ax = ascm_absf(x), ay = ascm_absf(y);
    double L = ascm_log_core((double)ax, 0);
    L = ascm_seld(ax == 0.0f, -ASCM_INF_F64, L);
    L = ascm_seld(ax == ASCM_INF_F32, ASCM_INF_F64, L);
    double t = (double)y * L;
    double tc = ascm_maxd(ascm_mind(t, 710.0), -746.0); /* NaN -> 710 */
    float res = (float)ascm_exp_dd(tc, 0.0);
    float yr = (ay + 0x1p23f) - 0x1p23f;
    int lt23 = ay < 0x1p23f;
    int is_int = (yr == ay) | !lt23;
    int odd = is_int & ((lt23 & (int)(ascm_f2u(ay + 0x1p23f) & 1u)) |
                        (!lt23 & (ay < 0x1p24f) & (int)(ascm_f2u(ay) & 1u)));
    res = ascm_u2f(ascm_f2u(res) ^ ((ascm_f2u(x) & 0x80000000u) & ((uint32_t)0 - (uint32_t)odd)));
    res = ascm_self((x < 0.0f) & (x > -ASCM_INF_F32) & !is_int, ASCM_NAN_F32, res);
    res = ascm_self(ascm_isnanf(x) | ascm_isnanf(y), x + y, res);
    res = ascm_self((y == 0.0f) | (x == 1.0f) | ((x == -1.0f) & (ay == ASCM_INF_F32)), 1.0f, res);
    return res;
}

#endif /* ASC_MATH_H */

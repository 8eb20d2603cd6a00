/*
 * asc_math.h -- header-only, vectorizer-friendly elementary functions for asc.
 *
 * DOC-BLOCK-PLACEHOLDER
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

/* sqrt: with -fno-math-errno this is a single sqrtss/sqrtsd (vsqrtps/pd in
 * vector loops).  The argument is always non-negative or NaN (we pass |x|),
 * so the result never depends on errno semantics. */
#if defined(__GNUC__) || defined(__clang__)
#define ASCM_SQRTF(x) __builtin_sqrtf(x)
#define ASCM_SQRT(x) __builtin_sqrt(x)
#else
#include <math.h>
#define ASCM_SQRTF(x) sqrtf(x)
#define ASCM_SQRT(x) sqrt(x)
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

/* exp(x) for x in [-104, 89] (callers clamp; NaN must not reach here).
 * x = k*ln2 + r, |r| <= ~0.35, exp(r) = 1 + r + r^2*P(r) (minimax, rel. err
 * 2^-28), result = 2^k * exp(r) scaled in two steps so that subnormal results
 * are rounded only once and 2^128 * m overflows to +inf. */
ASCM_INLINE float ascm_expf_core(float x) {
    const float shift = 0x1.8p23f;
    float kf = ASCM_FMAF(x, 0x1.715476p+0f, shift);
    int32_t k = (int32_t)(ascm_f2u(kf) - 0x4b400000u);
    kf -= shift;
    /* ln2 = 0x1.63p-1 (9 bits: k*C1 exact) + -0x1.bd0106p-13 */
    float r = ASCM_FMAF(kf, -0x1.63p-1f, x);
    r = ASCM_FMAF(kf, 0x1.bd0106p-13f, r);
    float r2 = r * r;
    float p01 = ASCM_FMAF(0x1.555482p-3f, r, 0x1.fffffcp-2f);
    float p23 = ASCM_FMAF(0x1.1245d4p-7f, r, 0x1.55593ep-5f);
    float p = ASCM_FMAF(ASCM_FMAF(0x1.6a106ap-10f, r2, p23), r2, p01);
    float y = ASCM_FMAF(r2, p, r); /* exp(r) - 1 */
    int32_t k1 = k >> 1;
    int32_t k2 = k - k1;
    float s1 = ascm_u2f((uint32_t)(k1 + 127) << 23);
    float s2 = ascm_u2f((uint32_t)(k2 + 127) << 23);
    return ASCM_FMAF(y, s1, s1) * s2;
}

/* Same as ascm_expf_core for x in [-87, 88] (normal results only). */
ASCM_INLINE float ascm_expf_core_normal(float x) {
    const float shift = 0x1.8p23f;
    float kf = ASCM_FMAF(x, 0x1.715476p+0f, shift);
    int32_t k = (int32_t)(ascm_f2u(kf) - 0x4b400000u);
    kf -= shift;
    float r = ASCM_FMAF(kf, -0x1.63p-1f, x);
    r = ASCM_FMAF(kf, 0x1.bd0106p-13f, r);
    float r2 = r * r;
    float p01 = ASCM_FMAF(0x1.555482p-3f, r, 0x1.fffffcp-2f);
    float p23 = ASCM_FMAF(0x1.1245d4p-7f, r, 0x1.55593ep-5f);
    float p = ASCM_FMAF(ASCM_FMAF(0x1.6a106ap-10f, r2, p23), r2, p01);
    float y = ASCM_FMAF(r2, p, r);
    float s = ascm_u2f((uint32_t)(k + 127) << 23);
    return ASCM_FMAF(y, s, s);
}

ASCM_INLINE float asc_exp_f32(float x) {
    float xc = ascm_maxf(ascm_minf(x, 89.0f), -104.0f); /* NaN -> 89 */
    float r = ascm_expf_core(xc);
    return ascm_self(ascm_isnanf(x), x, r);
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

/* tanh: |x| < 0.625: x + x^3*P(x^2) (minimax, rel. err 2^-29);
 *       otherwise  1 - 2/(exp(2|x|) + 1), |x| clamped to 9.5 (tanh = 1). */
ASCM_INLINE float asc_tanh_f32(float x) {
    float a = ascm_absf(x);
    float z = a * a;
    float p = ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(
                  0x1.383aaap-9f, z, -0x1.147320p-7f), z, 0x1.6534bep-6f), z,
                  -0x1.ba12b4p-5f), z, 0x1.111108p-3f), z, -0x1.555556p-2f);
    float small = ASCM_FMAF(a * z, p, a);
    float ac = ascm_minf(a, 9.5f); /* NaN -> 9.5 */
    float e = ascm_expf_core_normal(2.0f * ac);
    float large = 1.0f - 2.0f / (e + 1.0f);
    float res = ascm_self(a < 0.625f, small, large);
    res = ascm_with_signf(res, x);
    return ascm_self(ascm_isnanf(x), x, res);
}

/* sigmoid(x) = 1/(1+exp(-x)); with t = exp(-|x|):
 *   x >= 0: 1/(1+t),  x < 0: t/(1+t)   (no overflow, gradual underflow). */
ASCM_INLINE float asc_sigmoid_f32(float x) {
    float a = ascm_absf(x);
    float ac = ascm_minf(a, 104.0f); /* NaN -> 104 */
    float t = ascm_expf_core(-ac);
    float num = ascm_self(x < 0.0f, t, 1.0f);
    float res = num / (1.0f + t);
    return ascm_self(ascm_isnanf(x), x, res);
}

/* erf: |x| < 1: x + x*P(x^2) (minimax, rel. err 2^-29.6);
 *      1 <= |x|: 1 - exp(-x^2) * Q(1/(1.5+|x|)), Q ~ erfcx (rel. err 2^-27),
 *      |x| clamped to 4 (erf = 1 in float beyond 3.92). */
ASCM_INLINE float asc_erf_f32(float x) {
    float a = ascm_absf(x);
    float z = a * a;
    float q = ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(
                  0x1.496a32p-14f, z, -0x1.a3f700p-11f), z, 0x1.5405b2p-8f), z,
                  -0x1.b7f90ep-6f), z, 0x1.ce2cf8p-4f), z, -0x1.81273ep-2f), z,
                  0x1.06eba8p-3f);
    float small = ASCM_FMAF(a, q, a);
    float ac = ascm_minf(a, 4.0f); /* NaN -> 4 */
    float t = 1.0f / (1.5f + ac);
    float g = ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(ASCM_FMAF(
                  0x1.3508f4p+1f, t, -0x1.2dd0dcp+2f), t, 0x1.298da8p+1f), t,
                  0x1.347fbcp-1f), t, 0x1.cb9842p-1f), t, 0x1.1ef0a2p-1f), t,
                  0x1.e99ef2p-14f);
    float e = ascm_expf_core_normal(-(ac * ac));
    float large = ASCM_FMAF(-e, g, 1.0f);
    float res = ascm_self(a < 1.0f, small, large);
    res = ascm_with_signf(res, x);
    return ascm_self(ascm_isnanf(x), x, res);
}

/* Range reduction for sin/cos (float32 input, double output).
 * Returns r in ~[-pi/4, pi/4] (double, ~2^-33 relative accuracy or better)
 * and quadrant q with |x| = q*pi/2 + r (mod 2*pi).
 *  |x| < 2 : r = |x| - k*(pi/2) with pi/2 split in two doubles.
 *  |x| >= 2: exact integer reduction with a 192-bit table of 4/pi (the
 *            "fast integer" Payne-Hanek variant of ARM optimized-routines):
 *            valid for every finite float. */
typedef struct { double r; uint32_t q; } ascm_redf_t;

ASCM_INLINE ascm_redf_t ascm_sincosf_reduce(float ax) {
    static const uint32_t inv_pio4[24] = {
        0x000000a2u, 0x0000a2f9u, 0x00a2f983u, 0xa2f9836eu, 0xf9836e4eu, 0x836e4e44u,
        0x6e4e4415u, 0x4e441529u, 0x441529fcu, 0x1529fc27u, 0x29fc2757u, 0xfc2757d1u,
        0x2757d1f5u, 0x57d1f534u, 0xd1f534ddu, 0xf534ddc0u, 0x34ddc0dbu, 0xddc0db62u,
        0xc0db6295u, 0xdb629599u, 0x6295993cu, 0x95993c43u, 0x993c4390u, 0x3c439041u};
    ascm_redf_t out;
    double xd = (double)ax;
    /* small path */
    double kd = (xd * 0x1.45f306dc9c883p-1 + 0x1.8p52) - 0x1.8p52;
    double rs = (xd - kd * 0x1.921fb54442d18p+0) - kd * 0x1.1a62633145c07p-54;
    uint32_t qs = (uint32_t)(int32_t)kd;
    /* large path */
    uint32_t xi = ascm_f2u(ax);
    uint32_t idx = (xi >> 26) & 15u;
    uint32_t sh = (xi >> 23) & 7u;
    uint32_t m = ((xi & 0x007fffffu) | 0x00800000u) << sh;
    uint32_t a0 = inv_pio4[idx], a1 = inv_pio4[idx + 4], a2 = inv_pio4[idx + 8];
    uint64_t res0 = (uint64_t)(uint32_t)(m * a0);
    uint64_t res1 = (uint64_t)m * a1;
    uint64_t res2 = (uint64_t)m * a2;
    res0 = (res2 >> 32) | (res0 << 32);
    res0 += res1;
    uint64_t n = (res0 + (1ull << 61)) >> 62;
    res0 -= n << 62;
    /* (double)(int64_t)res0 without a 64-bit int -> double conversion */
    int32_t hi = (int32_t)(uint32_t)(res0 >> 32);
    int32_t lo = (int32_t)(uint32_t)((res0 >> 1) & 0x7fffffffu);
    double rl = ((double)hi * 0x1p32 + (double)lo * 2.0) * 0x1.921fb54442d18p-62;
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

/* rsqrt: 1/sqrt(x) evaluated in double and rounded once to float
 * (<= 0.5 ulp + 2^-29). rsqrt(+-0) = +-inf, rsqrt(x<0) = NaN, rsqrt(inf)=0. */
ASCM_INLINE float asc_rsqrt_f32(float x) {
    double xd = (double)x;
    double r = 1.0 / ASCM_SQRT(ascm_abs(xd));
    float res = (float)r;
    res = ascm_self(x < 0.0f, ASCM_NAN_F32, res);
    res = ascm_self(x == 0.0f, ascm_with_signf(ASCM_INF_F32, x), res);
    return ascm_self(ascm_isnanf(x), x, res);
}

/* ======================================================================== */
/* float64                                                                  */
/* ======================================================================== */

/* exp(xh + xl) for xh in [-746, 710], |xl| <= 2^-40 |xh| (or tiny).
 * FreeBSD e_exp.c rational scheme (error < 1 ulp) made branch-free, with the
 * 2^k scaling done in two steps (gradual underflow rounded once). */
ASCM_INLINE double ascm_exp_dd(double xh, double xl) {
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
    double y = 1.0 + ((r * c) / (2.0 - c) - lo + hi);
    /* k = k1 + k2, k1 = round(k/2) */
    double hd = ASCM_FMA(kd, 0.5, shift);
    int64_t k = (int64_t)(kb - ascm_d2u(shift));
    int64_t k1 = (int64_t)(ascm_d2u(hd) - ascm_d2u(shift));
    int64_t k2 = k - k1;
    double s1 = ascm_u2d((uint64_t)(k1 + 1023) << 52);
    double s2 = ascm_u2d((uint64_t)(k2 + 1023) << 52);
    return (y * s1) * s2;
}

ASCM_INLINE double asc_exp_f64(double x) {
    double xc = ascm_maxd(ascm_mind(x, 710.0), -746.0); /* NaN -> 710 */
    double r = ascm_exp_dd(xc, 0.0);
    return ascm_seld(ascm_isnan(x), x, r);
}

/* log: FreeBSD e_log.c scheme (error < 1 ulp), branch-free. */
ASCM_INLINE double asc_log_f64(double x) {
    uint64_t ix0 = ascm_d2u(x);
    int dn = ix0 < 0x0010000000000000ull; /* +0 or positive subnormal */
    double xs = ascm_seld(dn, x * 0x1p54, x);
    int32_t k = -(int32_t)dn & -54;
    uint64_t ix = ascm_d2u(xs);
    uint32_t hx = (uint32_t)(ix >> 32) + (0x3ff00000u - 0x3fe6a09eu);
    k += (int32_t)(hx >> 20) - 0x3ff;
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
    double res = s * (hfsq + R) + dk * 0x1.a39ef35793c76p-33 - hfsq + f + dk * 0x1.62e42feep-1;
    res = ascm_seld(x < 0.0, ASCM_NAN_F64, res);
    res = ascm_seld(x == 0.0, -ASCM_INF_F64, res);
    res = ascm_seld((ix0 == 0x7ff0000000000000ull) | ascm_isnan(x), x, res);
    return res;
}

#endif /* ASC_MATH_H */

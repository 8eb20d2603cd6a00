// ascend-sim (kernel_operator.h): the 16-bit float formats (half, bfloat16_t) and their rounding, the enums of
// positions, round modes, pipes and events, the memory of each position, QuantMode_t.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace ascend_sim {

// ------------------------------------------------------------------ 16-bit float formats and rounding

enum Mode { RM_NONE = 0, RM_RINT, RM_FLOOR, RM_CEIL, RM_ROUND, RM_TRUNC, RM_ODD };

// Rounds a float to a binary format with `mbits` mantissa bits and exponent bias `bias` (half: 10, 15;
// bfloat16: 7, 127) with the given rounding mode; returns the bit pattern.
inline uint16_t to_bits(float f, int mode, int mbits, int ebits) {
    const int bias = (1 << (ebits - 1)) - 1;
    const int emin = 1 - bias;
    const uint16_t sign = std::signbit(f) ? uint16_t(1u << 15) : uint16_t(0);
    const uint16_t expmask = uint16_t(((1u << ebits) - 1) << mbits);
    if (std::isnan(f)) {                      // sign and the top of the payload, not quieted (asc_cpu.h's rule)
        uint32_t u;
        std::memcpy(&u, &f, 4);
        const uint32_t p = (u & 0x7fffffu) >> (23 - mbits);
        return uint16_t(sign | expmask | (p ? p : 1u));
    }
    if (std::isinf(f)) return uint16_t(sign | expmask);
    double a = std::fabs(double(f));
    if (a == 0.0) return sign;
    if (mode == RM_NONE) mode = RM_RINT;
    if (mode == RM_FLOOR) mode = sign ? RM_CEIL : RM_TRUNC;       // magnitude rounding from here on
    else if (mode == RM_CEIL) mode = sign ? RM_TRUNC : RM_CEIL;
    int e;
    std::frexp(a, &e);
    e -= 1;                                   // a in [2^e, 2^(e+1))
    if (e < emin) e = emin;                   // subnormal range: fixed quantum
    double q = std::ldexp(1.0, e - mbits);
    double s = a / q;                         // exact: a has 24 significant bits
    double fl = std::floor(s);
    double r;
    switch (mode) {
        case RM_RINT: r = std::nearbyint(s); break;          // the default rounding of the FPU: ties to even
        case RM_ROUND: r = std::floor(s + 0.5); break;
        case RM_TRUNC: r = fl; break;
        case RM_CEIL: r = std::ceil(s); break;
        case RM_ODD: r = (s == fl) ? fl : (std::fmod(fl, 2.0) == 0.0 ? fl + 1.0 : fl); break;
        default: r = std::nearbyint(s);
    }
    double v = r * q;
    const int emax = bias;
    const double maxfin = std::ldexp(2.0 - std::ldexp(1.0, -mbits), emax);
    if (v > maxfin) {
        if (mode == RM_TRUNC || mode == RM_ODD) v = maxfin;
        else return uint16_t(sign | expmask);
    }
    if (v == 0.0) return sign;
    int e2;
    std::frexp(v, &e2);
    e2 -= 1;
    if (e2 < emin) {                          // subnormal
        return uint16_t(sign | uint16_t(std::lround(v / std::ldexp(1.0, emin - mbits))));
    }
    uint32_t m = uint32_t(std::lround(v / std::ldexp(1.0, e2 - mbits))) - (1u << mbits);
    return uint16_t(sign | uint16_t(uint32_t(e2 + bias) << mbits) | m);
}

inline float from_bits(uint16_t b, int mbits, int ebits) {
    const int bias = (1 << (ebits - 1)) - 1;
    const bool neg = b >> 15;
    const uint32_t ex = (b >> mbits) & ((1u << ebits) - 1);
    const uint32_t m = b & ((1u << mbits) - 1);
    double v;
    if (ex == (1u << ebits) - 1 && m) {       // a NaN: its sign and payload, exactly (not quieted)
        const uint32_t u = (uint32_t(neg) << 31) | 0x7f800000u | (m << (23 - mbits));
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    if (ex == 0) v = std::ldexp(double(m), 1 - bias - mbits);
    else if (ex == (1u << ebits) - 1) v = INFINITY;
    else v = std::ldexp(double(m | (1u << mbits)), int(ex) - bias - mbits);
    return float(neg ? -v : v);
}

}  // namespace ascend_sim

// The device's 16-bit float types (software classes here, as in the CANN CPU debug library).
struct half {
    uint16_t bits;
    half() = default;
    half(float f) : bits(ascend_sim::to_bits(f, ascend_sim::RM_RINT, 10, 5)) {}
    half(double f) : half(float(f)) {}
    template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    half(I v) : half(float(v)) {}   // any integer (int, uint32_t from GetSize, int64_t)
    operator float() const { return ascend_sim::from_bits(bits, 10, 5); }
    static half raw(uint16_t b) { half h; h.bits = b; return h; }
};

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(ascend_sim::to_bits(f, ascend_sim::RM_RINT, 7, 8)) {}
    bfloat16_t(double f) : bfloat16_t(float(f)) {}
    template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    bfloat16_t(I v) : bfloat16_t(float(v)) {}   // any integer (int, uint32_t from GetSize, int64_t)
    operator float() const { return ascend_sim::from_bits(bits, 7, 8); }
    static bfloat16_t raw(uint16_t b) { bfloat16_t h; h.bits = b; return h; }
};

namespace AscendC {

using ascend_sim::fail;
using ascend_sim::str;

enum KernelMetaType { KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
                      KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2 };

enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, SPM, TSCM, C2PIPE2GM,
                                 C2PIPE2LOCAL, MAX };

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2,
              PIPE_FIX };

enum class HardEvent : uint8_t { MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
                                 MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2,
                                 MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S,
                                 FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX };

using TEventID = int8_t;

}  // namespace AscendC

// the pipes are a global enum on the NPU (the compiler's pipe_t): PipeBarrier<PIPE_ALL>() as kernels write it
using AscendC::pipe_t;
using AscendC::PIPE_S; using AscendC::PIPE_V; using AscendC::PIPE_M; using AscendC::PIPE_MTE1;
using AscendC::PIPE_MTE2; using AscendC::PIPE_MTE3; using AscendC::PIPE_ALL; using AscendC::PIPE_MTE4;
using AscendC::PIPE_MTE5; using AscendC::PIPE_V2; using AscendC::PIPE_FIX;

namespace ascend_sim {
inline int mem_of(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return 1;
        case TPosition::A2: return 2;
        case TPosition::B2: return 3;
        case TPosition::CO1: return 4;
        case TPosition::C2: return 5;
        default: return 0;
    }
}
}  // namespace ascend_sim

// Fixpipe's quantization pre-modes: a global enum in CANN (the compiler's QuantMode_t), not a member of AscendC
enum QuantMode_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };

// twin_extra_model.cpp -- asc's own bodies for the Ascend C intrinsics that the CANN twin's shared intrinsic model
// (ASC_CANN_TWIN/twin_model.cpp) does not define yet: the cube path (ND->NZ copies into L1, LoadData 2D into
// L0A/L0B, with transpose (LoadDataWithTranspose), LoadData 3Dv2 (img2col, the form Huawei's Matmul loads L0A / L0B
// with, and its FMATRIX registers), Fill / InitConstValue of L1, L0A and L0B, mad with C from L0C or from the bias
// table, Fixpipe's L0C -> GM copy with its float conversion), the cross-core flags of a MIX kernel (ffts_cross_core_sync / wait_flag_dev, which
// SyncAll<false>() lowers to) and of a KERNEL_TYPE_MIX_AIV_1_0 vector kernel (the hard SyncAll<true>(); its launch:
// LaunchMixAiv10), the remaining vconv conversions (int8, int32, float->float rounding, bfloat16) and the members of
// Huawei's bfloat16 class.
//
// Not Huawei code. The declarations are Huawei's (asc-devkit tests/unit/basic_api/ut/stub/stub_fun.h); the bodies are
// written from the documented semantics of the 910B (dav-2201) instructions:
//   * vector: 256-byte repeats of 8 blocks of 32 bytes, block / repeat strides in 32-byte blocks, the elements of a
//     repeat counted in the wider operand (a conversion f16 -> s8 has 128 per repeat), the 128-bit mask in normal
//     mode, an element count in counter mode; conversions round by the mode their suffix names (r: to nearest even,
//     a: to nearest away from zero, f: down, c: up, z: toward zero; no suffix: to nearest even) and saturate to the
//     destination's range, NaN -> 0 for integer destinations;
//   * cube: fractals of 16 rows x 32 bytes (16 x 16 halfs, 16 x 8 floats); L1 holds ND->NZ copies (strips of C0 =
//     32 bytes of columns, dstNzC0Stride / dstNzNStride in 32-byte units, the columns of a strip past dValue zero
//     padded); LoadData 2D moves one 512-byte fractal per repeat (source fractal startIndex + i * srcStride,
//     destination fractal i * (dstGap + 1)), transposing it when asked; mad takes A in L0A as Zz fractals, B in L0B
//     as Zn fractals (each stored [n][k]), and writes C in L0C as Nz fractals (16 x 16 floats, column strips of
//     M rows), C = A B when cmatrixInitVal, C += A B otherwise; Fixpipe (copy_matrix_cc_to_gm, NZ2ND) writes mSize
//     rows of nSize columns from L0C (srcStride = the strip's row count) to GM rows of dstStride elements, with ReLU
//     first when asked and the float -> half / bfloat16 conversion (round to nearest even) of QuantPRE;
//   * cross-core flags (ffts_cross_core_sync(pipe, 1 + (mode << 4) + (flag << 8))): mode 0 completes once every core
//     of the sender's type has set the flag, then each of them may pass one wait; mode 1 the same for the two AIVs of
//     a group; mode 2 from an AIC lets each AIV of its group pass one wait, from AIVs lets their AIC pass one wait
//     once both have set it (in a MIX AIV 1:0 launch mode 0 counts its blockDim AIVs; in an AIV_ONLY one any
//     cross-core flag is refused, as the devkit's SyncAll docs ask for KERNEL_TYPE_MIX_AIV_1_0). wait_flag_dev(flag)
//     blocks until the core may pass (a wait that never can would hang the NPU: reported after TWIN_FLAG_TIMEOUT_S
//     seconds, default 60).
// The vector intrinsics the Ascend C of pyasc's kernels needs beyond these are in twin_extra_vector.cpp (included
// below). Every body is a weak symbol: a later twin_model.cpp that defines the same intrinsic takes precedence.
//
// scripts/cann_twin.py compiles this file into each kernel's translation unit (its entry file NAME_twin.cpp includes it).
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <sys/mman.h>
#include <sched.h>
#include <time.h>
#include "kernel_operator.h"

uint64_t ModelFactoryGetMaskHigh();  // twin_model.cpp: the vector mask and its mode
uint64_t ModelFactoryGetMaskLow();
uint64_t ModelFactoryGetMaskMode();

#define TWIN_WEAK __attribute__((weak))

namespace twin_extra {
// ------------------------------------------------------------------------------------------------ vector helpers
template <typename F> static void ForEach(uint32_t per, uint32_t repeat, F f)
{
    const uint64_t hi = ModelFactoryGetMaskHigh(), lo = ModelFactoryGetMaskLow();
    if (ModelFactoryGetMaskMode() == 1) {  // counter mode: the first `lo` elements, repeat ignored
        for (uint64_t k = 0; k < lo; ++k) f(static_cast<uint32_t>(k / per), static_cast<uint32_t>(k % per));
        return;
    }
    for (uint32_t r = 0; r < repeat; ++r) {
        for (uint32_t i = 0; i < per; ++i) {
            const bool on = i < 64 ? ((lo >> i) & 1ULL) : ((hi >> (i - 64)) & 1ULL);
            if (on) f(r, i);
        }
    }
}

template <typename T> static inline T* At(void* base, uint32_t r, uint32_t i, uint32_t blk, uint32_t rep)
{
    constexpr uint32_t perBlk = 32 / sizeof(T);
    uint8_t* p = static_cast<uint8_t*>(base) + static_cast<uint64_t>(r) * rep * 32 +
                 static_cast<uint64_t>(i / perBlk) * blk * 32 + (i % perBlk) * sizeof(T);
    return reinterpret_cast<T*>(p);
}

template <typename TD, typename TS, typename Op>
static void Convert(TD* dst, TS* src, uint32_t repeat, uint32_t dBlk, uint32_t sBlk, uint32_t dRep, uint32_t sRep,
    Op op)
{
    constexpr uint32_t w = sizeof(TD) > sizeof(TS) ? sizeof(TD) : sizeof(TS);
    ForEach(256 / w, repeat, [&](uint32_t r, uint32_t i) {
        *At<TD>(dst, r, i, dBlk, dRep) = op(*At<TS>(src, r, i, sBlk, sRep));
    });
}

// ------------------------------------------------------------------------------------------------ rounding
// v rounded to an integer by mode ('r' nearest even, 'a' nearest away, 'f' floor, 'c' ceil, 'z' trunc)
static double RoundIntegral(double v, char mode)
{
    switch (mode) {
        case 'a': return std::round(v);
        case 'f': return std::floor(v);
        case 'c': return std::ceil(v);
        case 'z': return std::trunc(v);
        default: {
            const double f = std::floor(v), d = v - f;
            if (d > 0.5) return f + 1;
            if (d < 0.5) return f;
            return std::fmod(f, 2.0) == 0.0 ? f : f + 1;
        }
    }
}

// a finite v rounded to a binary format with `mant` fraction bits and smallest normal exponent `emin`
static double RoundBinary(double v, int mant, int emin, char mode)
{
    if (v == 0 || !std::isfinite(v)) return v;
    int e;
    std::frexp(std::fabs(v), &e);  // |v| = m 2^e, m in [0.5, 1)
    int exp = e - 1;
    if (exp < emin) exp = emin;
    const double ulp = std::ldexp(1.0, exp - mant);
    return RoundIntegral(v / ulp, mode) * ulp;  // v / ulp is exact: a power-of-two scaling
}

static float ToFloat32(double v, char mode)
{
    if (std::isnan(v)) return NAN;
    const double r = RoundBinary(v, 23, -126, mode);
    const double mx = 3.4028234663852886e38;
    if (std::fabs(r) > mx) {
        const bool neg = r < 0;
        const bool toInf = mode == 'r' || mode == 'a' || (mode == 'c' && !neg) || (mode == 'f' && neg);
        return static_cast<float>(toInf ? (neg ? -INFINITY : INFINITY) : (neg ? -mx : mx));
    }
    return static_cast<float>(r);  // exact
}

static uint16_t ToBf16Bits(float f, char mode)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
    if (std::isinf(f)) return static_cast<uint16_t>(x >> 16);
    double r = RoundBinary(f, 7, -126, mode);
    const double mx = 3.3895313892515355e38;  // the largest finite bfloat16
    const bool neg = std::signbit(f);
    if (std::fabs(r) > mx) {
        const bool toInf = mode == 'r' || mode == 'a' || (mode == 'c' && !neg) || (mode == 'f' && neg);
        return static_cast<uint16_t>((neg ? 0x8000u : 0u) | (toInf ? 0x7F80u : 0x7F7Fu));
    }
    float rf = static_cast<float>(r);  // exact: r is a bfloat16 value
    if (rf == 0) rf = neg ? -0.0f : 0.0f;
    uint32_t y;
    std::memcpy(&y, &rf, 4);
    return static_cast<uint16_t>(y >> 16);
}

static inline float Bf16BitsToFloat(uint16_t b)
{
    const uint32_t x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

// float (exactly representable in half or not) -> IEEE half bits, rounded by mode
static uint16_t ToHalfBits(double v, char mode)
{
    const bool neg = std::signbit(v);
    const uint16_t sign = neg ? 0x8000u : 0u;
    if (std::isnan(v)) return static_cast<uint16_t>(sign | 0x7E00u);
    if (std::isinf(v)) return static_cast<uint16_t>(sign | 0x7C00u);
    const double r = std::fabs(RoundBinary(v, 10, -14, mode));
    if (r > 65504.0) {
        const bool toInf = mode == 'r' || mode == 'a' || (mode == 'c' && !neg) || (mode == 'f' && neg);
        return static_cast<uint16_t>(sign | (toInf ? 0x7C00u : 0x7BFFu));
    }
    if (r == 0) return sign;
    int e;
    std::frexp(r, &e);
    const int ex = e - 1;
    if (ex < -14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(r, 24)));  // subnormal
    const uint32_t m = static_cast<uint32_t>((std::ldexp(r, -ex) - 1.0) * 1024.0);
    return static_cast<uint16_t>(sign | (static_cast<uint32_t>(ex + 15) << 10) | m);
}

static inline half MakeHalf(uint16_t bits)
{
    half h;
    h.val = bits;
    return h;
}

template <typename I> static I SaturateInt(double v, char mode)
{
    if (std::isnan(v)) return 0;
    const double r = RoundIntegral(v, mode);
    const double lo = static_cast<double>(std::numeric_limits<I>::min());
    const double hi = static_cast<double>(std::numeric_limits<I>::max());
    return static_cast<I>(r < lo ? lo : (r > hi ? hi : r));
}

// ------------------------------------------------------------------------------------------------ cross-core flags
// Shared by the fork()ed cores of a launch: created in the host process before ICPU_RUN_KF forks.
struct Flags {
    std::atomic<int32_t> pass[128][16];      // per process index and flag: waits the core may pass
    std::atomic<int32_t> arrived[128][16];   // per group / type and flag: sets counted towards a completion
};
static Flags* g_flags = nullptr;
static struct FlagsInit {
    FlagsInit()
    {
        void* p = mmap(nullptr, sizeof(Flags), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            std::memset(p, 0, sizeof(Flags));
            g_flags = static_cast<Flags*>(p);
        }
    }
} g_flagsInit;

// KERNEL_TYPE_MIX_AIV_1_0 (a vector kernel with the hard SyncAll): the driver's AIV mode starts blockDim processes;
// scripts/cann_twin.py's entry calls LaunchMixAiv10() in each of them before the kernel, which makes every AIV a
// block of its own with no sub-blocks (GetBlockIdx 0 .. blockDim - 1, GetSubBlockIdx 0, GetTaskRatio 1: the devkit's
// tables for this kernel type). Only such a launch may use the AIV-only cross-core flags in AIV mode.
static bool g_mixAiv10 = false;
inline void LaunchMixAiv10()
{
    if (g_kernelMode != KernelMode::AIV_MODE || g_coreType != AscendC::AIV) {
        std::fprintf(stderr, "[TWIN] a KERNEL_TYPE_MIX_AIV_1_0 launch needs the driver's AIV mode "
                             "(TWIN_KERNEL_MODE=aiv)\n");
        std::exit(3);
    }
    block_idx = block_idx * g_taskRation + sub_block_idx;
    sub_block_idx = 0;
    g_taskRation = 1;
    g_mixAiv10 = true;
}

static int Ration() { return g_kernelMode == KernelMode::MIX_MODE ? g_taskRation : 1; }
static bool IsAic() { return g_coreType == AscendC::AIC; }
// the launcher's process index of the AIC of group b and of its AIV s (twin_model.cpp's set_block_dim, inverted)
static int AicProc(int b) { return g_kernelMode == KernelMode::MIX_MODE ? b * (g_taskRation + 1) : b; }
static int AivProc(int b, int s)
{
    if (g_kernelMode == KernelMode::MIX_MODE) return b * (g_taskRation + 1) + 1 + s;
    return b * g_taskRation + s;
}
static int SelfProc()
{
    return IsAic() ? AicProc(static_cast<int>(block_idx)) : AivProc(static_cast<int>(block_idx), sub_block_idx);
}
static int Aivs() { return g_kernelMode == KernelMode::MIX_MODE ? static_cast<int>(block_num) * g_taskRation
                                                                 : static_cast<int>(block_num); }

static void Release(int proc, int flag) { g_flags->pass[proc][flag].fetch_add(1); }

// one more set of `flag` among `need` setters counted at arrived[slot][flag]; true for the set that completes them
static bool Arrive(int slot, int flag, int need)
{
    const int n = g_flags->arrived[slot][flag].fetch_add(1) + 1;
    if (n < need) return false;
    g_flags->arrived[slot][flag].fetch_sub(need);
    return true;
}
// ------------------------------------------------------------------------------------------------ in-place params
// scripts/cann_twin.py's entry: a parameter the kernel writes is copied from its input buffer into the buffer the
// driver reads back, once, before any core runs the kernel (every core calls the entry).
struct Copy {
    void* dst;
    const void* src;
    size_t bytes;
};
static std::atomic<int32_t>* g_copyState = nullptr;  // 0: not started, 1: copying, 2: done
static struct CopyStateInit {
    CopyStateInit()
    {
        void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) g_copyState = new (p) std::atomic<int32_t>(0);
    }
} g_copyStateInit;
inline void CopyOnce(std::initializer_list<Copy> copies)
{
    int32_t expect = 0;
    if (g_copyState->compare_exchange_strong(expect, 1)) {
        for (const Copy& c : copies) std::memcpy(c.dst, c.src, c.bytes);
        g_copyState->store(2);
        return;
    }
    while (g_copyState->load() != 2) sched_yield();
}
}  // namespace twin_extra

// ------------------------------------------------------------------------------------------------ intrinsics
namespace AscendC {
using namespace twin_extra;

// ---- vconv: int8, int32, float -> float rounding, bfloat16
#define TWIN_X_CVT(NAME, TD, TS, RT, EXPR)                                                                        \
    TWIN_WEAK void NAME(TD* dst, TS* src, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, RT dRep, RT sRep)          \
    {                                                                                                             \
        Convert<TD, TS>(dst, src, repeat, dBlk, sBlk, dRep, sRep, [](TS x) { return EXPR; });                     \
    }
#define TWIN_X_CVT_MODES(PREFIX, TD, TS, RT, FN)                                                                  \
    TWIN_X_CVT(PREFIX##r, TD, TS, RT, FN(x, 'r'))                                                                 \
    TWIN_X_CVT(PREFIX##a, TD, TS, RT, FN(x, 'a'))                                                                 \
    TWIN_X_CVT(PREFIX##f, TD, TS, RT, FN(x, 'f'))                                                                 \
    TWIN_X_CVT(PREFIX##c, TD, TS, RT, FN(x, 'c'))                                                                 \
    TWIN_X_CVT(PREFIX##z, TD, TS, RT, FN(x, 'z'))

static inline int8_t HalfToS8(half x, char m) { return SaturateInt<int8_t>(static_cast<float>(x), m); }
static inline int32_t F32ToS32(float x, char m) { return SaturateInt<int32_t>(x, m); }
static inline float F32ToF32(float x, char m) { return std::isfinite(x) ? static_cast<float>(RoundIntegral(x, m)) : x; }
static inline float S32ToF32(int32_t x, char m) { return ToFloat32(static_cast<double>(x), m); }
static inline bfloat16_t F32ToBf16(float x, char m)
{
    bfloat16_t b;
    b.val = ToBf16Bits(x, m);
    return b;
}

TWIN_X_CVT(vconv_f162s8, int8_t, half, uint8_t, HalfToS8(x, 'r'))
TWIN_X_CVT_MODES(vconv_f162s8, int8_t, half, uint8_t, HalfToS8)
TWIN_X_CVT(vconv_f162s8r, int8_t, half, uint16_t, HalfToS8(x, 'r'))
TWIN_X_CVT_MODES(vconv_f322s32, int32_t, float, uint8_t, F32ToS32)
TWIN_X_CVT_MODES(vconv_f322f32, float, float, uint16_t, F32ToF32)
TWIN_X_CVT(vconv_s322f32, float, int32_t, uint8_t, S32ToF32(x, 'r'))
TWIN_X_CVT_MODES(vconv_s322f32, float, int32_t, uint16_t, S32ToF32)
TWIN_X_CVT_MODES(vconv_f322bf16, bfloat16_t, float, uint16_t, F32ToBf16)
TWIN_X_CVT(vconv_s82f16, half, int8_t, uint8_t, MakeHalf(ToHalfBits(x, 'r')))  // exact
TWIN_X_CVT(vconv_bf162f32, float, bfloat16_t, uint16_t, Bf16BitsToFloat(x.val))

// ---- cube: GM -> L1 (ND -> NZ)
template <typename T>
static void Nd2Nz(T* dst, T* src, uint16_t ndNum, uint16_t nValue, uint16_t dValue, uint16_t srcNdMatrixStride,
    uint16_t srcDValue, uint16_t dstNzC0Stride, uint16_t dstNzNStride, uint16_t dstNzMatrixStride)
{
    constexpr uint32_t c0 = 32 / sizeof(T);
    const uint32_t cols = (dValue + c0 - 1) / c0 * c0;
    for (uint32_t i = 0; i < ndNum; ++i) {
        const T* s = src + static_cast<uint64_t>(i) * srcNdMatrixStride;
        T* d = dst + static_cast<uint64_t>(i) * dstNzMatrixStride;
        for (uint32_t r = 0; r < nValue; ++r) {
            for (uint32_t c = 0; c < cols; ++c) {
                T* o = d + (static_cast<uint64_t>(c / c0) * dstNzC0Stride + static_cast<uint64_t>(r) * dstNzNStride) *
                               c0 + c % c0;
                if (c < dValue) {
                    *o = s[static_cast<uint64_t>(r) * srcDValue + c];
                } else {
                    std::memset(static_cast<void*>(o), 0, sizeof(T));
                }
            }
        }
    }
}
#define TWIN_X_ND2NZ(NAME, T)                                                                                     \
    TWIN_WEAK void NAME(T* dst, T* src, uint8_t, uint16_t ndNum, uint16_t nValue, uint16_t dValue,                \
        uint16_t srcNdMatrixStride, uint16_t srcDValue, uint16_t dstNzC0Stride, uint16_t dstNzNStride,             \
        uint16_t dstNzMatrixStride)                                                                               \
    {                                                                                                             \
        Nd2Nz<T>(dst, src, ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride,      \
            dstNzMatrixStride);                                                                                   \
    }
TWIN_X_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b16, half)
TWIN_X_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b16, bfloat16_t)
TWIN_X_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b32s, float)
TWIN_X_ND2NZ(copy_gm_to_cbuf_multi_nd2nz_b8, int8_t)

// ---- cube: L1 -> L0A / L0B, one 512-byte fractal (16 rows of 32 bytes) per repeat
template <typename T>
static void Load2D(T* dst, T* src, uint16_t baseIdx, uint8_t repeat, uint16_t srcStride, uint16_t dstGap,
    bool transpose)
{
    constexpr uint32_t c0 = 32 / sizeof(T), fe = 16 * c0;  // elements per row of a fractal, per fractal
    for (uint32_t i = 0; i < repeat; ++i) {
        const T* s = src + (static_cast<uint64_t>(baseIdx) + static_cast<uint64_t>(i) * srcStride) * fe;
        T* d = dst + static_cast<uint64_t>(i) * (dstGap + 1u) * fe;
        if (!transpose) {
            std::memcpy(static_cast<void*>(d), s, fe * sizeof(T));
            continue;
        }
        if (c0 != 16) {
            std::fprintf(stderr, "[TWIN] load_cbuf_to_ca/cb: a transposed fractal of %zu-byte elements is not "
                                 "modelled\n", sizeof(T));
            std::abort();
        }
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t c = 0; c < 16; ++c) d[r * 16 + c] = s[c * 16 + r];
    }
}
#define TWIN_X_LOAD(NAME, TD, T)                                                                                  \
    TWIN_WEAK void NAME(TD* dst, T* src, uint16_t baseIdx, uint8_t repeat, uint16_t srcStride, uint16_t dstGap,    \
        uint8_t, bool transpose, addr_cal_mode_t)                                                                 \
    {                                                                                                             \
        Load2D<T>(reinterpret_cast<T*>(dst), src, baseIdx, repeat, srcStride, dstGap, transpose);                 \
    }
TWIN_X_LOAD(load_cbuf_to_ca, half, half)
TWIN_X_LOAD(load_cbuf_to_cb, half, half)
TWIN_X_LOAD(load_cbuf_to_ca, bfloat16_t, bfloat16_t)
TWIN_X_LOAD(load_cbuf_to_cb, bfloat16_t, bfloat16_t)
TWIN_X_LOAD(load_cbuf_to_ca, float, float)
TWIN_X_LOAD(load_cbuf_to_cb, float, float)

// ---- cube: LoadDataWithTranspose, L1 -> L0A / L0B (asc-devkit docs/api/context/LoadDataWithTranspose.md).
// Repeat i takes square i' = indexID + i * srcStride of the source (squares of 512 B x the fractals per square). With
// 16-bit data the square is one 16 x 16 fractal, transposed into destination fractal i * (dstGap + 1). With 32-bit
// data it is two consecutive 16 x 8 fractals side by side (element (r, c) of the square is element (r, c % 8) of
// fractal c / 8), transposed, and split the same way into two 16 x 8 fractals: the first at destination fractal
// i * (dstGap + 1) (dstGap: 512-byte units from the end of one repeat's first fractal to the next one's), the second
// dstFracGap fractals after the end of the first.
template <typename T>
static void Load2DTranspose(T* dst, T* src, uint16_t indexID, uint8_t repeat, uint16_t srcStride, uint16_t dstGap,
    uint16_t dstFracGap)
{
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithTranspose of 16- and 32-bit data is modelled");
    constexpr uint32_t c0 = 32 / sizeof(T), fe = 16 * c0, frac = 16 / c0;  // fractals per 16 x 16 square
    for (uint32_t i = 0; i < repeat; ++i) {
        const T* sq = src + (static_cast<uint64_t>(indexID) + static_cast<uint64_t>(i) * srcStride) * frac * fe;
        T* first = dst + static_cast<uint64_t>(i) * (dstGap + 1u) * fe;
        T* part[2] = {first, first + (frac == 2 ? (dstFracGap + 1u) * fe : 0)};
        for (uint32_t r = 0; r < 16; ++r) {
            for (uint32_t c = 0; c < 16; ++c) {  // result (r, c) = square (c, r)
                part[c / c0][r * c0 + c % c0] = sq[(r / c0) * fe + c * c0 + r % c0];
            }
        }
    }
}
#define TWIN_X_LOAD_T(NAME, TD, T)                                                                                \
    TWIN_WEAK void NAME(TD* dst, T* src, uint16_t indexID, uint8_t repeat, uint16_t srcStride, uint16_t dstGap,    \
        bool, uint16_t dstFracGap)                                                                                \
    {                                                                                                             \
        Load2DTranspose<T>(dst, src, indexID, repeat, srcStride, dstGap, dstFracGap);                             \
    }
TWIN_X_LOAD_T(load_cbuf_to_ca_transpose, half, half)
TWIN_X_LOAD_T(load_cbuf_to_cb_transpose, half, half)
TWIN_X_LOAD_T(load_cbuf_to_ca_transpose, bfloat16_t, bfloat16_t)
TWIN_X_LOAD_T(load_cbuf_to_cb_transpose, bfloat16_t, bfloat16_t)
TWIN_X_LOAD_T(load_cbuf_to_ca_transpose, float, float)
TWIN_X_LOAD_T(load_cbuf_to_cb_transpose, float, float)
TWIN_X_LOAD_T(load_cbuf_to_ca_transpose, int32_t, int32_t)
TWIN_X_LOAD_T(load_cbuf_to_cb_transpose, int32_t, int32_t)
TWIN_X_LOAD_T(load_cbuf_to_ca_transpose, uint32_t, uint32_t)
TWIN_X_LOAD_T(load_cbuf_to_cb_transpose, uint32_t, uint32_t)

// ---- cube: LoadData 3Dv2 (img2col) L1 -> L0A / L0B, the form Huawei's Matmul loads its operands with
// (asc-devkit docs/api/context/Load3D.md, SetFmatrix.md). The feature map in L1 is NC1HWC0: channel block c1 of
// C0 = 32 bytes of channels, then H rows of W positions of C0 channels (set_fmatrix: W [15:0], H [31:16], the
// four pads [63:32]; set_fmatrix_b the same for fmatrixCtrl = true). The img2col matrix X has a row per output
// position and a column per channel; with a 1 x 1 filter, stride 1 and no padding (what Matmul uses: H = 1 and W
// = the L1 operand's aligned rows), X[p][c] = L1[((c / C0) * H * W + p) * C0 + c % C0]. The instruction takes rows
// [posM, posM + stepM) and columns [posK, posK + stepK) of X: into L0A as Zz fractals (16 rows x C0 columns,
// fractals row-major, rows inside), or, with transpose (L0A and 16-bit data only), their transpose (stepK rows x
// stepM columns) the same way; into L0B as Zn fractals (16 rows of X x C0 columns per fractal, fractals in the
// same order, each stored column by column), the layout mad reads B in. Other filters, strides, dilations and
// padding are refused, as are transposes of 32-bit data.
static uint64_t g_fmatrix = 0, g_fmatrixB = 0, g_ctrl = 0;
template <typename T>
static void Img2colV2(T* dst, const T* src, uint16_t stepK, uint16_t stepM, uint16_t posK, uint16_t posM,
    uint8_t strideW, uint8_t strideH, uint8_t wk, uint8_t hk, uint8_t dilW, uint8_t dilH, bool sizeW, bool sizeH,
    bool transpose, bool fmatrixCtrl, uint16_t channels, bool toL0B)
{
    constexpr uint32_t c0 = 32 / sizeof(T);
    const uint64_t fm = fmatrixCtrl ? g_fmatrixB : g_fmatrix;
    const uint64_t w = fm & 0xFFFFu, h = (fm >> 16) & 0xFFFFu, pads = fm >> 32;
    if (strideW != 1 || strideH != 1 || wk != 1 || hk != 1 || dilW != 1 || dilH != 1 || sizeW || sizeH ||
        pads != 0) {
        std::fprintf(stderr, "[TWIN] img2colv2_cbuf_to_c%c: only a 1 x 1 filter, stride 1, dilation 1 and no "
                             "padding are modelled\n", toL0B ? 'b' : 'a');
        std::abort();
    }
    if (transpose && (toL0B || c0 != 16)) {
        std::fprintf(stderr, "[TWIN] img2colv2_cbuf_to_c%c: a transpose is modelled for 16-bit data into L0A only\n",
            toL0B ? 'b' : 'a');
        std::abort();
    }
    if (stepM % 16 != 0 || stepK % c0 != 0 || channels % c0 != 0) {
        std::fprintf(stderr, "[TWIN] img2colv2_cbuf_to_c%c: stepM %u, stepK %u, channelSize %u not whole fractals "
                             "are not modelled\n", toL0B ? 'b' : 'a', stepM, stepK, channels);
        std::abort();
    }
    auto x = [&](uint64_t p, uint64_t c) -> T {  // element (p, c) of the img2col matrix
        if (p >= w * h || c >= channels) {
            std::fprintf(stderr, "[TWIN] img2colv2: position %lu / channel %lu outside the feature map (%lu x %lu, "
                                 "%u channels)\n", (unsigned long)p, (unsigned long)c, (unsigned long)w,
                (unsigned long)h, channels);
            std::abort();
        }
        return src[((c / c0) * h * w + p) * c0 + c % c0];
    };
    const uint32_t rows = transpose ? stepK : stepM, cols = transpose ? stepM : stepK;  // the matrix written
    for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t c = 0; c < cols; ++c) {
            const T v = transpose ? x(posM + c, posK + r) : x(posM + r, posK + c);
            const uint64_t frac = (static_cast<uint64_t>(r / 16) * (cols / c0) + c / c0) * 16 * c0;
            dst[frac + (toL0B ? (c % c0) * 16 + r % 16 : (r % 16) * c0 + c % c0)] = v;
        }
    }
}
#define TWIN_X_IMG2COL(NAME, T, TOB)                                                                              \
    TWIN_WEAK void NAME(T* dst, T* src, uint16_t stepK, uint16_t stepM, uint16_t posK, uint16_t posM,             \
        uint8_t strideW, uint8_t strideH, uint8_t wk, uint8_t hk, uint8_t dilW, uint8_t dilH, bool sizeW,          \
        bool sizeH, bool transpose, bool fmatrixCtrl, uint16_t channels)                                          \
    {                                                                                                             \
        Img2colV2<T>(dst, src, stepK, stepM, posK, posM, strideW, strideH, wk, hk, dilW, dilH, sizeW, sizeH,      \
            transpose, fmatrixCtrl, channels, TOB);                                                               \
    }
TWIN_X_IMG2COL(img2colv2_cbuf_to_ca, half, false)
TWIN_X_IMG2COL(img2colv2_cbuf_to_cb, half, true)
TWIN_X_IMG2COL(img2colv2_cbuf_to_ca, float, false)
TWIN_X_IMG2COL(img2colv2_cbuf_to_cb, float, true)
TWIN_WEAK void set_fmatrix(uint64_t config) { g_fmatrix = config; }
TWIN_WEAK void set_fmatrix_b(uint64_t config) { g_fmatrixB = config; }
// the CTRL register: kept as written (no bit of it changes what the modelled intrinsics compute)
TWIN_WEAK int64_t get_ctrl() { return static_cast<int64_t>(g_ctrl); }
TWIN_WEAK void set_ctrl(uint64_t config) { g_ctrl = config; }
// atomic GM writes: twin_model.cpp's set_atomic_none clears g_isAtomic; an accumulating mode is recorded there, and
// a Fixpipe write under one is refused below (not modelled)
static int g_atomicMode = 0;  // 1 add, 2 max, 3 min (the last mode set; meaningful while g_isAtomic)
TWIN_WEAK void set_atomic_add() { g_isAtomic = true; g_atomicMode = 1; }
TWIN_WEAK void set_atomic_max() { g_isAtomic = true; g_atomicMode = 2; }
TWIN_WEAK void set_atomic_min() { g_isAtomic = true; g_atomicMode = 3; }
// the data type of an atomic operation: no effect of its own
TWIN_WEAK void set_atomic_f32() {}
TWIN_WEAK void set_atomic_f16() {}
TWIN_WEAK void set_atomic_bf16() {}
TWIN_WEAK void set_atomic_s32() {}
TWIN_WEAK void set_atomic_s16() {}
TWIN_WEAK void set_atomic_s8() {}

// the hardware block index (GetBlockIdx of an AIC; an AIV's adds its sub-block); a data-cache preload has no effect
TWIN_WEAK int64_t get_block_idx() { return static_cast<int64_t>(block_idx); }
TWIN_WEAK void dc_preload(uint64_t*, int64_t) {}

// ---- cube: InitConstValue / Fill of L1 (create_cbuf_matrix), L0A (create_ca_matrix), L0B (create_cb_matrix)
// (asc-devkit docs/api/context/InitConstValue.md). config: repeatTimes [15:0], blockNum [31:16], dstGap [47:32];
// repeat i writes blockNum blocks (32 B in L1, 512 B in L0A / L0B) of the value's bits from block
// i * (blockNum + dstGap). The value comes as the bits of the element: a half for 16-bit elements, a uint32_t for
// 32-bit ones.
template <typename T, typename V>
static void CreateMatrix(void* dst, int64_t config, V value, uint32_t block)
{
    static_assert(sizeof(T) == sizeof(V), "the value has the element's size");
    const uint64_t c = static_cast<uint64_t>(config);
    const uint32_t repeat = c & 0xFFFFu, blocks = (c >> 16) & 0xFFFFu, gap = (c >> 32) & 0xFFFFu;
    uint8_t* d = static_cast<uint8_t*>(dst);
    for (uint64_t i = 0; i < repeat; ++i) {
        uint8_t* at = d + i * (static_cast<uint64_t>(blocks) + gap) * block;
        for (uint64_t e = 0; e < static_cast<uint64_t>(blocks) * block / sizeof(T); ++e)
            std::memcpy(at + e * sizeof(T), &value, sizeof(T));
    }
}
#define TWIN_X_CREATE(NAME, T, V, BLOCK)                                                                          \
    TWIN_WEAK void NAME(T* dst, int64_t config, V value) { CreateMatrix<T, V>(dst, config, value, BLOCK); }
#define TWIN_X_CREATE_ALL(NAME, BLOCK)                                                                            \
    TWIN_X_CREATE(NAME, half, half, BLOCK)                                                                        \
    TWIN_X_CREATE(NAME, int16_t, half, BLOCK)                                                                     \
    TWIN_X_CREATE(NAME, uint16_t, half, BLOCK)                                                                    \
    TWIN_X_CREATE(NAME, float, uint32_t, BLOCK)                                                                   \
    TWIN_X_CREATE(NAME, int32_t, uint32_t, BLOCK)                                                                 \
    TWIN_X_CREATE(NAME, uint32_t, uint32_t, BLOCK)                                                                \
    TWIN_X_CREATE(NAME##_bf16, bfloat16_t, bfloat16_t, BLOCK)
TWIN_X_CREATE_ALL(create_cbuf_matrix, 32)
TWIN_X_CREATE_ALL(create_ca_matrix, 512)
TWIN_X_CREATE_ALL(create_cb_matrix, 512)

// ---- cube: mad. A: Zz fractals of 16 x K0 (row-major inside), B: Zn fractals of K0 x 16 stored [n][k], C: Nz
// fractals of 16 x 16 floats in column strips of M16 rows; K0 = 32 bytes of the input type.
template <typename T> static inline float ToF(T v) { return static_cast<float>(v); }
template <> inline float ToF<bfloat16_t>(bfloat16_t v) { return Bf16BitsToFloat(v.val); }
template <typename T>
static void Mad(float* c, T* a, T* b, uint16_t m, uint16_t k, uint16_t n, bool initC, const float* bias = nullptr)
{
    constexpr uint32_t k0 = 32 / sizeof(T);
    const uint32_t M16 = (m + 15) / 16 * 16, K0 = (k + k0 - 1) / k0 * k0, N16 = (n + 15) / 16 * 16;
    for (uint32_t mi = 0; mi < m; ++mi) {
        for (uint32_t ni = 0; ni < n; ++ni) {
            float acc = 0.0f;
            for (uint32_t ki = 0; ki < k; ++ki) {
                const float av = ToF(a[((static_cast<uint64_t>(mi / 16) * (K0 / k0) + ki / k0) * 16 + mi % 16) * k0 +
                                       ki % k0]);
                const float bv = ToF(b[((static_cast<uint64_t>(ki / k0) * (N16 / 16) + ni / 16) * 16 + ni % 16) * k0 +
                                       ki % k0]);
                acc += av * bv;
            }
            float* o = c + ((static_cast<uint64_t>(ni / 16) * (M16 / 16) + mi / 16) * 16 + mi % 16) * 16 + ni % 16;
            *o = bias ? bias[ni] + acc : (initC ? acc : *o + acc);  // bias: C starts from the bias table's row
        }
    }
}
// cmatrixSource: C starts from the bias table (C2); in this form, which names no table address, from its start (Huawei's
// Matmul keeps its one C2 buffer there)
static const float* BiasTable()
{
    return reinterpret_cast<const float*>(ConstDefiner::Instance().GetHardwareBaseAddr(Hardware::BIAS));
}
#define TWIN_X_MAD(T)                                                                                             \
    TWIN_WEAK void mad(float* c, T* a, T* b, uint16_t m, uint16_t k, uint16_t n, uint8_t, bool,                   \
        bool cmatrixSource, bool cmatrixInitVal)                                                                  \
    {                                                                                                             \
        Mad<T>(c, a, b, m, k, n, cmatrixInitVal, cmatrixSource ? BiasTable() : nullptr);                          \
    }
TWIN_X_MAD(half)
TWIN_X_MAD(bfloat16_t)
TWIN_X_MAD(float)
// mad with the bias table (C2): with cmatrixSource, C = bias row + A B; otherwise as above
#define TWIN_X_MAD_BIAS(T)                                                                                        \
    TWIN_WEAK void mad(float* c, T* a, T* b, uint64_t bias, uint16_t m, uint16_t k, uint16_t n, uint8_t, bool,     \
        bool cmatrixSource, bool cmatrixInitVal)                                                                  \
    {                                                                                                             \
        Mad<T>(c, a, b, m, k, n, cmatrixInitVal,                                                                  \
            cmatrixSource ? reinterpret_cast<const float*>(static_cast<uintptr_t>(bias)) : nullptr);              \
    }
TWIN_X_MAD_BIAS(half)
TWIN_X_MAD_BIAS(bfloat16_t)
TWIN_X_MAD_BIAS(float)

// ---- Fixpipe: L0C -> GM
static uint64_t g_ndPara = 1;  // ND_PARA: ndNum [15:0], srcNdStride [31:16], dstNdStride [47:32]
TWIN_WEAK void set_nd_para(uint64_t config) { g_ndPara = config; }
TWIN_WEAK void set_quant_pre(uint64_t) {}  // the scalar of the DEQ / REQ modes: those modes are refused below

template <typename T> static inline void Store(T* o, float v, QuantMode_t q);
template <> inline void Store<float>(float* o, float v, QuantMode_t q)
{
    if (q != QuantMode_t::NoQuant) {
        std::fprintf(stderr, "[TWIN] copy_matrix_cc_to_gm: a float output with QuantPRE %d is not modelled\n", int(q));
        std::abort();
    }
    *o = v;
}
template <> inline void Store<half>(half* o, float v, QuantMode_t q)
{
    if (q != QuantMode_t::F322F16) {
        std::fprintf(stderr, "[TWIN] copy_matrix_cc_to_gm: a half output with QuantPRE %d is not modelled\n", int(q));
        std::abort();
    }
    *o = MakeHalf(ToHalfBits(v, 'r'));
}
template <> inline void Store<bfloat16_t>(bfloat16_t* o, float v, QuantMode_t q)
{
    if (q != QuantMode_t::F322BF16) {
        std::fprintf(stderr, "[TWIN] copy_matrix_cc_to_gm: a bfloat16 output with QuantPRE %d is not modelled\n",
            int(q));
        std::abort();
    }
    o->val = ToBf16Bits(v, 'r');
}
template <typename T>
static void CcToGm(T* dst, float* src, uint16_t nSize, uint16_t mSize, uint32_t dstStride, uint16_t srcStride,
    QuantMode_t quant, uint8_t relu, bool nz2nd)
{
    if (g_isAtomic) {
        std::fprintf(stderr, "[TWIN] copy_matrix_cc_to_gm: an atomic write (mode %d) is not modelled\n", g_atomicMode);
        std::abort();
    }
    if (!nz2nd || (g_ndPara & 0xFFFFu) != 1) {
        std::fprintf(stderr, "[TWIN] copy_matrix_cc_to_gm: only one ND output matrix (NZ2ND, ndNum 1) is modelled\n");
        std::abort();
    }
    for (uint32_t mi = 0; mi < mSize; ++mi) {
        for (uint32_t ni = 0; ni < nSize; ++ni) {
            float v = src[(static_cast<uint64_t>(ni / 16) * srcStride + mi) * 16 + ni % 16];
            if (relu && v < 0) v = 0;
            Store<T>(dst + static_cast<uint64_t>(mi) * dstStride + ni, v, quant);
        }
    }
}
#define TWIN_X_FIX(T)                                                                                             \
    TWIN_WEAK void copy_matrix_cc_to_gm(T* dst, float* src, uint8_t, uint16_t nSize, uint16_t mSize,              \
        uint32_t dstStride, uint16_t srcStride, uint8_t, QuantMode_t quant, uint8_t relu, bool split, bool nz2nd) \
    {                                                                                                             \
        if (split) {                                                                                              \
            std::fprintf(stderr, "[TWIN] copy_matrix_cc_to_gm: channelSplit is not modelled\n");                \
            std::abort();                                                                                         \
        }                                                                                                         \
        CcToGm<T>(dst, src, nSize, mSize, dstStride, srcStride, quant, relu, nz2nd);                              \
    }
TWIN_X_FIX(half)
TWIN_X_FIX(bfloat16_t)
TWIN_X_FIX(float)

// ---- cross-core flags (SyncAll<false>, CrossCoreSetFlag / CrossCoreWaitFlag)
TWIN_WEAK void ffts_cross_core_sync(pipe_t, uint64_t config)
{
    const int mode = static_cast<int>((config >> 4) & 0x3), flag = static_cast<int>((config >> 8) & 0xF);
    const int b = static_cast<int>(block_idx), r = Ration();
    if (g_flags == nullptr) {
        std::fprintf(stderr, "[TWIN] ffts_cross_core_sync: no shared flag memory\n");
        std::exit(3);
    }
    if (g_kernelMode == KernelMode::AIV_MODE && !g_mixAiv10) {
        std::fprintf(stderr, "[TWIN SYNC ERROR][AIV %ld] ffts_cross_core_sync (the hard SyncAll, CrossCoreSetFlag) in "
                             "a KERNEL_TYPE_AIV_ONLY kernel: a vector kernel needs KERNEL_TYPE_MIX_AIV_1_0 for it\n",
            static_cast<long>(GetBlockIdx()));
        std::exit(3);
    }
    if (mode == 0) {  // every core of the sender's type
        const int need = IsAic() ? static_cast<int>(block_num) : Aivs();
        if (Arrive(IsAic() ? 126 : 127, flag, need)) {
            for (int i = 0; i < need; ++i) {
                const bool mix = g_kernelMode == KernelMode::MIX_MODE;
                Release(IsAic() ? AicProc(i) : (mix ? AivProc(i / r, i % r) : i), flag);
            }
        }
    } else if (mode == 1) {  // the AIVs of one group
        if (IsAic()) {
            std::fprintf(stderr, "[TWIN] ffts_cross_core_sync mode 1 on an AIC\n");
            std::exit(3);
        }
        if (Arrive(b, flag, g_taskRation)) {
            for (int s = 0; s < g_taskRation; ++s) Release(AivProc(b, s), flag);
        }
    } else if (mode == 2) {  // AIC <-> the AIVs of its group
        if (IsAic()) {
            for (int s = 0; s < r; ++s) Release(AivProc(b, s), flag);
        } else if (Arrive(64 + b, flag, r)) {
            Release(AicProc(b), flag);
        }
    } else {
        std::fprintf(stderr, "[TWIN] ffts_cross_core_sync mode %d is not modelled\n", mode);
        std::exit(3);
    }
}

TWIN_WEAK void wait_flag_dev(int64_t flagID)
{
    const int flag = static_cast<int>(flagID & 0xF), me = SelfProc();
    const char* env = std::getenv("TWIN_FLAG_TIMEOUT_S");
    const double limit = env ? std::atof(env) : 60.0;
    timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int v = g_flags->pass[me][flag].load();
        if (v > 0 && g_flags->pass[me][flag].compare_exchange_weak(v, v - 1)) return;
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 > limit) {
            std::fprintf(stderr, "[TWIN SYNC ERROR][%s %ld sub %d] wait_flag_dev(%d) was never released: the NPU "
                                 "would hang here\n", IsAic() ? "AIC" : "AIV", static_cast<long>(block_idx),
                sub_block_idx, flag);
            std::exit(3);
        }
    }
}
TWIN_WEAK void wait_flag_dev(pipe_t, int64_t flagID) { wait_flag_dev(flagID); }
}  // namespace AscendC

#include "twin_extra_vector.cpp"  // the vector intrinsics of pyasc's kernels (integer arithmetic, SoftMax, Copy)

// ------------------------------------------------------------------------------------------------ bfloat16 class
// Huawei's kernel_bf16.h declares these members; their bodies are in the closed CPU-debug library.
namespace bfloat16 {
using twin_extra::Bf16BitsToFloat;
using twin_extra::ToBf16Bits;
TWIN_WEAK uint16_t Bf16T::FloatToBf16(const float& f) const { return ToBf16Bits(f, 'r'); }
TWIN_WEAK Bf16T& Bf16T::operator=(const Bf16T& fp)
{
    val = fp.val;
    return *this;
}
TWIN_WEAK Bf16T& Bf16T::operator=(const float& f)
{
    val = ToBf16Bits(f, 'r');
    return *this;
}
TWIN_WEAK Bf16T Bf16T::operator+(const Bf16T fp) const { return Bf16T(ToFloat() + fp.ToFloat()); }
TWIN_WEAK Bf16T Bf16T::operator+=(const Bf16T fp)
{
    val = ToBf16Bits(ToFloat() + fp.ToFloat(), 'r');
    return *this;
}
TWIN_WEAK Bf16T Bf16T::operator-() const
{
    Bf16T r;
    r.val = static_cast<uint16_t>(val ^ 0x8000u);
    return r;
}
TWIN_WEAK Bf16T Bf16T::operator-(const Bf16T fp) const { return Bf16T(ToFloat() - fp.ToFloat()); }
TWIN_WEAK Bf16T Bf16T::operator-=(const Bf16T fp)
{
    val = ToBf16Bits(ToFloat() - fp.ToFloat(), 'r');
    return *this;
}
TWIN_WEAK Bf16T::operator float() const { return Bf16BitsToFloat(val); }
TWIN_WEAK float Bf16T::ToFloat() const { return Bf16BitsToFloat(val); }
}  // namespace bfloat16

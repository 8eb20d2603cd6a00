// twin_extra_vector.cpp -- asc's own bodies for vector-unit intrinsics that the CANN twin's shared model
// (ASC_CANN_TWIN/twin_model.cpp) lacks and that the Ascend C emitted for pyasc's kernels reaches through Huawei's API
// implementation: integer element-wise arithmetic, the DataBlock reductions and broadcast of SoftMax (vcgadd, vcgmax,
// vcgmin, vbrcb), Copy (vcopy), LeakyRelu (vlrelu), the L1 -> bias table copy that Huawei's Matmul makes for its
// bias (copy_cbuf_to_bt), and the L1 -> fixpipe buffer copy (aborts when reached: nothing here models FB).
//
// Not Huawei code. The declarations are Huawei's (asc-devkit tests/unit/basic_api/ut/stub/stub_fun.h, revision
// 9f35240); each body is written from what the asc-devkit API implementation passes to the intrinsic
// (impl/basic_api/dav_c220/*.h) and the documented semantics (asc-devkit docs/zh/api/SIMD-API):
//   * a repeat is 256 bytes: 8 DataBlocks of 32 bytes; block strides and repeat strides count 32-byte blocks; the
//     vector mask (normal mode: one bit per element of a repeat; counter mode: the first N elements) selects the
//     elements an instruction touches; masked-off destination elements keep their value;
//   * integer element-wise results wrap (two's complement);
//   * vcgadd / vcgmax / vcgmin (BlockReduceSum / Max / Min): per repeat, one result per DataBlock over its active
//     elements, the 8 results written contiguously at dst + r * dstRepStride * 8 elements (the stride counts a
//     repeat's 8 results: 16 bytes for half, 32 for float); the sum adds pairwise (a binary tree inside the block),
//     and for half each partial sum saturates at +-65504; a block with no active element is left unwritten; the
//     repeat's inputs are all read before its results are written (Huawei's SoftMax reduces in place);
//   * vbrcb (Brcb): per repeat, 8 consecutive source elements, element j filling the 32-byte block at
//     dst + (r * dstRepStride + j * dstBlkStride) blocks (a block stride of 0 counts as 1); no mask;
//   * vcopy (Copy): per repeat, the active elements of 8 blocks copied, block strides and repeat sizes in blocks;
//   * vaxpy (Axpy): dst = src * a + dst; vtranspose (Transpose): one 16 x 16 matrix of 16-bit elements;
//   * scatter_vnchwconv_b16 (TransDataTo5HD): the 16 x 16 transpose of 16 listed source blocks into 16 listed
//     destination blocks, the lists in the VA registers (set_va_reg_sb), repeats offset as its docs state;
//   * set_aipp_spr_N (SetAippFunctions): the registers are kept, nothing reads them here.
//
// Included by twin_extra_model.cpp (after its helpers: twin_extra::ForEach, At); every body is a weak symbol, so a
// later twin_model.cpp that defines the same intrinsic takes precedence.

#include <type_traits>

namespace twin_extra {
// is element i of repeat r (of `per` elements per repeat) active under the current mask?
static inline bool Active(uint32_t per, uint32_t r, uint32_t i)
{
    if (ModelFactoryGetMaskMode() == 1) return static_cast<uint64_t>(r) * per + i < ModelFactoryGetMaskLow();
    return i < 64 ? ((ModelFactoryGetMaskLow() >> i) & 1ULL) : ((ModelFactoryGetMaskHigh() >> (i - 64)) & 1ULL);
}
// the repeats an instruction runs: `repeat` in normal mode, enough for the element count in counter mode
static inline uint32_t Repeats(uint32_t per, uint32_t repeat)
{
    if (ModelFactoryGetMaskMode() == 1) return static_cast<uint32_t>((ModelFactoryGetMaskLow() + per - 1) / per);
    return repeat;
}

template <typename T> static inline T Wrap(int64_t v)
{
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<uint64_t>(v)));
}

template <typename T, typename Op>
static void IntBinary(T* dst, T* s0, T* s1, uint32_t repeat, uint32_t dBlk, uint32_t s0Blk, uint32_t s1Blk,
    uint32_t dRep, uint32_t s0Rep, uint32_t s1Rep, Op op)
{
    ForEach(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t i) {
        const int64_t a = *At<T>(s0, r, i, s0Blk, s0Rep), b = *At<T>(s1, r, i, s1Blk, s1Rep);
        *At<T>(dst, r, i, dBlk, dRep) = Wrap<T>(op(a, b));
    });
}

template <typename T, typename Op>
static void IntScalar(T* dst, T* src, T a, uint32_t repeat, uint32_t dBlk, uint32_t sBlk, uint32_t dRep,
    uint32_t sRep, Op op)
{
    ForEach(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t i) {
        *At<T>(dst, r, i, dBlk, dRep) = Wrap<T>(op(static_cast<int64_t>(*At<T>(src, r, i, sBlk, sRep)),
                                                   static_cast<int64_t>(a)));
    });
}

// ---- DataBlock reductions
static inline float Val(float v) { return v; }
static inline float Val(half v) { return static_cast<float>(v); }
static inline half SatHalf(float v)  // to half (nearest even), saturating at +-65504
{
    if (v > 65504.0f) v = 65504.0f;
    if (v < -65504.0f) v = -65504.0f;
    return MakeHalf(ToHalfBits(v, 'r'));
}
static inline float Add(float a, float b, float*) { return a + b; }
static inline float Add(float a, float b, half*) { return static_cast<float>(SatHalf(a + b)); }

template <typename T> static inline T Out(float v);
template <> inline float Out<float>(float v) { return v; }
template <> inline half Out<half>(float v) { return MakeHalf(ToHalfBits(v, 'r')); }  // exact: v is a half value

// kind: 0 sum, 1 max, 2 min
template <typename T>
static void BlockReduce(T* dst, T* src, uint32_t repeat, uint32_t dstRepStride, uint32_t sBlk, uint32_t sRep,
    int kind)
{
    constexpr uint32_t perBlk = 32 / sizeof(T), per = 256 / sizeof(T);
    const uint32_t reps = Repeats(per, repeat);
    for (uint32_t r = 0; r < reps; ++r) {
        float res[8];
        bool any[8];
        for (uint32_t b = 0; b < 8; ++b) {
            float v[16];
            bool on[16];
            any[b] = false;
            for (uint32_t e = 0; e < perBlk; ++e) {
                on[e] = Active(per, r, b * perBlk + e);
                v[e] = on[e] ? Val(*At<T>(src, r, b * perBlk + e, sBlk, sRep)) : 0.0f;
                any[b] = any[b] || on[e];
            }
            if (kind == 0) {  // pairwise: (v0 + v1), (v2 + v3), ... then the pairs of those
                for (uint32_t w = perBlk; w > 1; w /= 2)
                    for (uint32_t e = 0; e < w / 2; ++e) v[e] = Add(v[2 * e], v[2 * e + 1], static_cast<T*>(nullptr));
                res[b] = v[0];
                continue;
            }
            bool have = false;
            for (uint32_t e = 0; e < perBlk; ++e) {
                if (!on[e]) continue;
                if (!have || (kind == 1 ? v[e] > res[b] : v[e] < res[b])) res[b] = v[e];
                have = true;
            }
        }
        for (uint32_t b = 0; b < 8; ++b) {
            if (any[b]) dst[static_cast<uint64_t>(r) * dstRepStride * 8 + b] = Out<T>(res[b]);
        }
    }
}
}  // namespace twin_extra

namespace AscendC {
using namespace twin_extra;

// ---- integer element-wise arithmetic (all strides u8 for the binary forms; u16 for the scalar forms)
#define TWIN_X_IBIN(NAME, T, EXPR)                                                                                \
    TWIN_WEAK void NAME(T* dst, T* s0, T* s1, uint8_t repeat, uint8_t dBlk, uint8_t s0Blk, uint8_t s1Blk,         \
        uint8_t dRep, uint8_t s0Rep, uint8_t s1Rep)                                                               \
    {                                                                                                             \
        IntBinary<T>(dst, s0, s1, repeat, dBlk, s0Blk, s1Blk, dRep, s0Rep, s1Rep,                                 \
            [](int64_t x, int64_t y) { return EXPR; });                                                           \
    }
TWIN_X_IBIN(vadd, int16_t, x + y)
TWIN_X_IBIN(vadd, int32_t, x + y)
TWIN_X_IBIN(vsub, int16_t, x - y)
TWIN_X_IBIN(vsub, int32_t, x - y)
TWIN_X_IBIN(vmul, int16_t, x * y)
TWIN_X_IBIN(vmul, int32_t, x * y)
TWIN_X_IBIN(vmax, int16_t, x > y ? x : y)
TWIN_X_IBIN(vmax, int32_t, x > y ? x : y)
TWIN_X_IBIN(vmin, int16_t, x < y ? x : y)
TWIN_X_IBIN(vmin, int32_t, x < y ? x : y)

#define TWIN_X_ISCALAR(NAME, T, EXPR)                                                                             \
    TWIN_WEAK void NAME(T* dst, T* src, T a, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint16_t dRep,          \
        uint16_t sRep)                                                                                            \
    {                                                                                                             \
        IntScalar<T>(dst, src, a, repeat, dBlk, sBlk, dRep, sRep, [](int64_t x, int64_t y) { return EXPR; });     \
    }
TWIN_X_ISCALAR(vadds, int16_t, x + y)
TWIN_X_ISCALAR(vadds, int32_t, x + y)
TWIN_X_ISCALAR(vmuls, int16_t, x * y)
TWIN_X_ISCALAR(vmuls, int32_t, x * y)
TWIN_X_ISCALAR(vmaxs, int16_t, x > y ? x : y)
TWIN_X_ISCALAR(vmaxs, int32_t, x > y ? x : y)
TWIN_X_ISCALAR(vmins, int16_t, x < y ? x : y)
TWIN_X_ISCALAR(vmins, int32_t, x < y ? x : y)
// the form with u8 repeat strides and the two stride-mode flags (Huawei's Maxs / Mins pass false, false)
#define TWIN_X_ISCALAR_MODE(NAME, T, EXPR)                                                                        \
    TWIN_WEAK void NAME(T* dst, T* src, T a, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint8_t dRep,           \
        uint8_t sRep, bool repeatStrideMode, bool strideSizeMode)                                                 \
    {                                                                                                             \
        if (repeatStrideMode || strideSizeMode) {                                                                 \
            std::fprintf(stderr, "[TWIN] " #NAME ": the stride modes are not modelled\n");                        \
            std::abort();                                                                                         \
        }                                                                                                         \
        IntScalar<T>(dst, src, a, repeat, dBlk, sBlk, dRep, sRep, [](int64_t x, int64_t y) { return EXPR; });     \
    }
TWIN_X_ISCALAR_MODE(vmaxs, int16_t, x > y ? x : y)
TWIN_X_ISCALAR_MODE(vmaxs, int32_t, x > y ? x : y)
TWIN_X_ISCALAR_MODE(vmins, int16_t, x < y ? x : y)
TWIN_X_ISCALAR_MODE(vmins, int32_t, x < y ? x : y)

// ---- Duplicate of an integer scalar (the source strides are unused)
#define TWIN_X_IDUP(T)                                                                                            \
    TWIN_WEAK void vector_dup(T* dst, T a, uint8_t repeat, uint16_t dBlk, uint16_t, uint8_t dRep, uint8_t)        \
    {                                                                                                             \
        ForEach(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t i) { *At<T>(dst, r, i, dBlk, dRep) = a; });    \
    }
TWIN_X_IDUP(int16_t)
TWIN_X_IDUP(int32_t)

// ---- DataBlock reductions (BlockReduceSum / Max / Min)
#define TWIN_X_BLKRED(NAME, T, KIND)                                                                              \
    TWIN_WEAK void NAME(T* dst, T* src, uint8_t repeat, uint16_t dstRepStride, uint16_t sBlk, uint16_t sRep)      \
    {                                                                                                             \
        BlockReduce<T>(dst, src, repeat, dstRepStride, sBlk, sRep, KIND);                                         \
    }
TWIN_X_BLKRED(vcgadd, float, 0)
TWIN_X_BLKRED(vcgadd, half, 0)
TWIN_X_BLKRED(vcgmax, float, 1)
TWIN_X_BLKRED(vcgmax, half, 1)
TWIN_X_BLKRED(vcgmin, float, 2)
TWIN_X_BLKRED(vcgmin, half, 2)

// ---- Brcb: 8 source elements per repeat, each filling one 32-byte block
template <typename T>
static void Brcb(T* dst, T* src, uint16_t dBlk, uint16_t dRep, uint8_t repeat)
{
    constexpr uint32_t perBlk = 32 / sizeof(T);
    const uint32_t blk = dBlk == 0 ? 1 : dBlk;
    for (uint32_t r = 0; r < repeat; ++r) {
        for (uint32_t j = 0; j < 8; ++j) {
            const T v = src[r * 8 + j];
            T* d = dst + (static_cast<uint64_t>(r) * dRep + static_cast<uint64_t>(j) * blk) * perBlk;
            for (uint32_t e = 0; e < perBlk; ++e) d[e] = v;
        }
    }
}
TWIN_WEAK void vbrcb(uint16_t* dst, uint16_t* src, uint16_t dBlk, uint16_t dRep, uint8_t repeat)
{
    Brcb<uint16_t>(dst, src, dBlk, dRep, repeat);
}
TWIN_WEAK void vbrcb(uint32_t* dst, uint32_t* src, uint16_t dBlk, uint16_t dRep, uint8_t repeat)
{
    Brcb<uint32_t>(dst, src, dBlk, dRep, repeat);
}

// ---- Copy: the active elements of each repeat, block strides and repeat sizes in 32-byte blocks
#define TWIN_X_VCOPY(T)                                                                                           \
    TWIN_WEAK void vcopy(T* dst, T* src, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint16_t dRep, uint16_t sRep) \
    {                                                                                                             \
        ForEach(256 / sizeof(T), repeat,                                                                          \
            [&](uint32_t r, uint32_t i) { *At<T>(dst, r, i, dBlk, dRep) = *At<T>(src, r, i, sBlk, sRep); });      \
    }
TWIN_X_VCOPY(uint16_t)
TWIN_X_VCOPY(uint32_t)
TWIN_X_VCOPY(int16_t)
TWIN_X_VCOPY(int32_t)

// ---- Axpy: dst = src * a + dst (the product rounded to the destination type, then the sum), same-type and
// half src -> float dst
template <typename TD, typename TS>
static void Axpy(TD* dst, TS* src, TS a, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint32_t dRep, uint32_t sRep)
{
    constexpr uint32_t w = sizeof(TD) > sizeof(TS) ? sizeof(TD) : sizeof(TS);
    ForEach(256 / w, repeat, [&](uint32_t r, uint32_t i) {
        TD* d = At<TD>(dst, r, i, dBlk, dRep);
        const float p = Val(*At<TS>(src, r, i, sBlk, sRep)) * Val(a);
        if constexpr (sizeof(TD) == 2) {
            *d = MakeHalf(ToHalfBits(static_cast<float>(MakeHalf(ToHalfBits(p, 'r'))) + Val(*d), 'r'));
        } else {
            *d = p + *d;
        }
    });
}
#define TWIN_X_AXPY(TD, TS)                                                                                       \
    TWIN_WEAK void vaxpy(TD* dst, TS* src, TS a, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint8_t dRep,      \
        uint8_t sRep)                                                                                             \
    {                                                                                                             \
        Axpy<TD, TS>(dst, src, a, repeat, dBlk, sBlk, dRep, sRep);                                                \
    }
TWIN_X_AXPY(float, float)
TWIN_X_AXPY(half, half)
TWIN_X_AXPY(float, half)

// ---- LeakyRelu (vlrelu): dst = src where src >= 0, src * alpha elsewhere (one rounding, in half for half data;
// a NaN stays NaN), in the repeat form of the scalar family
template <typename T> static inline T LeakyRelu(T x, T a) { return x >= T(0) ? x : x * a; }
template <> inline half LeakyRelu<half>(half x, half a)
{
    const float f = static_cast<float>(x);
    return f >= 0.0f ? x : MakeHalf(ToHalfBits(f * static_cast<float>(a), 'r'));
}
template <typename T>
static void LRelu(T* dst, T* src, T a, uint32_t repeat, uint32_t dBlk, uint32_t sBlk, uint32_t dRep, uint32_t sRep)
{
    ForEach(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t i) {
        *At<T>(dst, r, i, dBlk, dRep) = LeakyRelu<T>(*At<T>(src, r, i, sBlk, sRep), a);
    });
}
#define TWIN_X_LRELU(T)                                                                                           \
    TWIN_WEAK void vlrelu(T* dst, T* src, T a, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint16_t dRep,       \
        uint16_t sRep)                                                                                            \
    {                                                                                                             \
        LRelu<T>(dst, src, a, repeat, dBlk, sBlk, dRep, sRep);                                                    \
    }                                                                                                             \
    TWIN_WEAK void vlrelu(T* dst, T* src, T a, uint8_t repeat, uint16_t dBlk, uint16_t sBlk, uint8_t dRep,        \
        uint8_t sRep, bool, bool)                                                                                 \
    {                                                                                                             \
        LRelu<T>(dst, src, a, repeat, dBlk, sBlk, dRep, sRep);                                                    \
    }
TWIN_X_LRELU(float)
TWIN_X_LRELU(half)

// ---- Transpose: one 16 x 16 matrix of 16-bit elements (512 contiguous bytes), dst = src^T
TWIN_WEAK void vtranspose(uint16_t* dst, uint16_t* src)
{
    uint16_t t[256];
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < 16; ++c) t[c * 16 + r] = src[r * 16 + c];
    std::memcpy(dst, t, sizeof(t));
}
TWIN_WEAK void vtranspose(int16_t* dst, int16_t* src)
{
    vtranspose(reinterpret_cast<uint16_t*>(dst), reinterpret_cast<uint16_t*>(src));
}

// ---- TransDataTo5HD (16-bit): the VA registers hold 8 UB addresses each (set_va_reg_sb); scatter_vnchwconv_b16
// takes the 16 destination addresses from dst and dst + 1 and the 16 sources from src and src + 1; per repeat, block
// j of the result (16 elements) is element j of each of the 16 source blocks: dst_j[i] = src_i[j]. Repeat r reads
// and writes r * RepStride blocks past the listed addresses, the one repeat of repeat == 1 one stride past them.
static uint64_t g_vaReg[8][8];
TWIN_WEAK void set_va_reg_sb(ub_addr8_t addr, uint64_t* array)
{
    std::memcpy(g_vaReg[static_cast<int>(addr) & 7], array, sizeof(g_vaReg[0]));
}
static uint64_t VaAddr(ub_addr8_t reg, uint32_t i) { return g_vaReg[(static_cast<int>(reg) + i / 8) & 7][i % 8]; }
TWIN_WEAK void scatter_vnchwconv_b16(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dRep, uint16_t sRep)
{
    for (uint32_t r = 0; r < repeat; ++r) {
        const uint64_t k = repeat == 1 ? 1 : r;
        uint16_t in[16][16];
        for (uint32_t i = 0; i < 16; ++i)
            std::memcpy(in[i], reinterpret_cast<const uint8_t*>(VaAddr(src, i)) + k * sRep * 32, 32);
        for (uint32_t j = 0; j < 16; ++j) {
            uint16_t out[16];
            for (uint32_t i = 0; i < 16; ++i) out[i] = in[i][j];
            std::memcpy(reinterpret_cast<uint8_t*>(VaAddr(dst, j)) + k * dRep * 32, out, 32);
        }
    }
}

// ---- AIPP configuration (SetAippFunctions): the ten special registers are kept; nothing here reads them
// (LoadImageToLocal, which applies them, is not modelled)
static uint64_t g_aippSpr[10];
#define TWIN_X_AIPP_SPR(N)                                                                                        \
    TWIN_WEAK void set_aipp_spr_##N(uint64_t config) { g_aippSpr[N] = config; }
TWIN_X_AIPP_SPR(0)
TWIN_X_AIPP_SPR(1)
TWIN_X_AIPP_SPR(2)
TWIN_X_AIPP_SPR(3)
TWIN_X_AIPP_SPR(4)
TWIN_X_AIPP_SPR(5)
TWIN_X_AIPP_SPR(6)
TWIN_X_AIPP_SPR(7)
TWIN_X_AIPP_SPR(8)
TWIN_X_AIPP_SPR(9)

// ---- L1 -> bias table (copy_cbuf_to_bt, DataCopy L1 -> C2) and L1 -> fixpipe buffer
// The bias table holds the float row Mmad starts C from (cmatrixSource). Its address is the C2 LocalTensor's physical
// address (host memory in this CPU build). Each of nBurst bursts moves lenBurst units of 64 bytes of the source
// (Huawei's Matmul: lenBurst = ceil(2 * dataLen * (bytes per bias element / 2) / 64)); with convControl a 16-bit source
// (half, or bfloat16 for a bfloat16 source) is widened to float, so the table receives twice the bytes. Gaps
// between bursts are not modelled (Matmul copies one burst).
[[noreturn]] static void NotModelled(const char* what)
{
    std::fprintf(stderr, "[TWIN] %s is not modelled (no L1 -> FB buffer in this twin)\n", what);
    std::abort();
}
template <typename T>
static void CbufToBt(uint64_t dst, const T* src, uint16_t conv, uint16_t nBurst, uint16_t lenBurst, uint16_t srcGap,
    uint16_t dstGap)
{
    if (nBurst != 1 && (srcGap != 0 || dstGap != 0)) {
        std::fprintf(stderr, "[TWIN] copy_cbuf_to_bt: gaps between bursts are not modelled\n");
        std::abort();
    }
    const uint64_t bytes = static_cast<uint64_t>(nBurst) * lenBurst * 64;
    float* out = reinterpret_cast<float*>(static_cast<uintptr_t>(dst));
    if (!conv) {
        std::memcpy(static_cast<void*>(out), static_cast<const void*>(src), bytes);
        return;
    }
    if constexpr (sizeof(T) != 2) {
        std::fprintf(stderr, "[TWIN] copy_cbuf_to_bt: a conversion from %zu-byte elements is not modelled\n", sizeof(T));
        std::abort();
    } else {
        for (uint64_t e = 0; e < bytes / 2; ++e) out[e] = ToF(src[e]);
    }
}
#define TWIN_X_CBUF_TO_BT(T, S)                                                                                   \
    TWIN_WEAK void copy_cbuf_to_bt(uint64_t dst, T* src, uint16_t conv, uint16_t nBurst, uint16_t lenBurst,       \
        uint16_t srcGap, uint16_t dstGap)                                                                         \
    {                                                                                                             \
        CbufToBt<S>(dst, reinterpret_cast<const S*>(src), conv, nBurst, lenBurst, srcGap, dstGap);                \
    }
TWIN_X_CBUF_TO_BT(void, half)   // DataCopy passes every source as void*: a converted one is taken as half
TWIN_X_CBUF_TO_BT(float, float)
TWIN_X_CBUF_TO_BT(half, half)
TWIN_X_CBUF_TO_BT(int32_t, int32_t)
TWIN_X_CBUF_TO_BT(bfloat16_t, bfloat16_t)
TWIN_WEAK void copy_cbuf_to_fbuf(void*, void*, uint16_t, uint16_t, uint16_t, uint16_t)
{
    NotModelled("copy_cbuf_to_fbuf");
}
}  // namespace AscendC

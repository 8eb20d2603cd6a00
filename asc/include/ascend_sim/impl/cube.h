// ascend-sim (kernel_operator.h): the cube path (AIC): GM -> L1 (ND -> NZ), LoadData into L0A / L0B, Mmad into L0C,
// Fixpipe to GM.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// ------------------------------------------------------------------ cube path (AIC): GM -> L1 (ND -> NZ) -> L0A / L0B -> Mmad -> L0C -> Fixpipe -> GM
// Fractals are 512 B: 16 x C0 elements with C0 = 32 B / sizeof(T) (16 for 16-bit data, 8 for float). NZ in L1:
// element (r, c) of a matrix with R (padded) rows at ((c / C0) * R + r) * C0 + c % C0; L0A "Zz": 16 x C0 fractals
// (rows of M, columns of K) row-major, inside row-major; L0B "Zn": C0 x 16 fractals (K x N) row-major, inside
// column-major (element (k, n) of a fractal at n * C0 + k); L0C "Nz": 16 x 16 float fractals column-major, inside
// row-major. The cube computes whole fractals: Mmad reads M and N rounded up to 16 and K rounded up to C0 (A2,
// kDirectionAlign = false), so the K padding must hold zeros; a result element is valid (written) only where every
// element it read was, and Fixpipe refuses to move an invalid one (so padding garbage may sit in rows and columns
// whose results are never written back).

struct Nd2NzParams {
    uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0,
             dstNzNStride = 1, dstNzMatrixStride = 0;
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t a, uint16_t n, uint16_t d, uint16_t sm, uint16_t sd, uint16_t c0, uint16_t ns, uint16_t dm)
        : ndNum(a), nValue(n), dValue(d), srcNdMatrixStride(sm), srcDValue(sd), dstNzC0Stride(c0), dstNzNStride(ns),
          dstNzMatrixStride(dm) {}
};

struct LoadData2DParams {
    uint16_t startIndex = 0, dstGap = 0, srcStride = 0;
    bool ifTranspose = false;
    uint8_t repeatTimes = 0, sid = 0, addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t start, uint8_t rep, uint16_t srcS, uint8_t sid_, uint16_t gap, bool tr, uint8_t mode)
        : startIndex(start), dstGap(gap), srcStride(srcS), ifTranspose(tr), repeatTimes(rep), sid(sid_), addrMode(mode) {}
};

// LoadDataWithTranspose (A2): each repeat takes a 16 x 16 square (for float: two consecutive 16 x 8 fractals, side by
// side), transposes it and splits it into two 16 x 8 fractals; srcStride in squares, dstGap / dstFracGap in 512 B
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0, dstGap = 0, dstFracGap = 0;
    uint8_t addrMode = 0;
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t start, uint8_t rep, uint16_t srcS, uint16_t gap, uint16_t fracGap, uint8_t mode)
        : startIndex(start), repeatTimes(rep), srcStride(srcS), dstGap(gap), dstFracGap(fracGap), addrMode(mode) {}
};

// Fill (InitConstValue): repeatTimes x blockNum blocks of 32 B (L1) or 512 B (L0A / L0B), dstGap blocks apart
template <class T>
struct InitConstValueParams {
    uint16_t repeatTimes = 0, blockNum = 0, dstGap = 0;
    T initValue = T(0.0f);
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t rep, uint16_t blocks, uint16_t gap, T value)
        : repeatTimes(rep), blockNum(blocks), dstGap(gap), initValue(value) {}
};

struct MmadParams {
    uint16_t m = 0, n = 0, k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false, enWinogradA = false, enWinogradB = false;
    uint8_t unitFlag = 0;
    bool cmatrixSource = false, cmatrixInitVal = true;
    MmadParams() = default;
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, uint8_t unit, bool src, bool init)
        : m(m_), n(n_), k(k_), unitFlag(unit), cmatrixSource(src), cmatrixInitVal(init) {}
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, bool bias, int32_t fmOff, bool ssparse, bool wa, bool wb)
        : m(m_), n(n_), k(k_), isBias(bias), fmOffset(fmOff), enSsparse(ssparse), enWinogradA(wa), enWinogradB(wb) {}
};

struct FixpipeParamsV220 {
    uint16_t nSize = 0, mSize = 0, srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1, srcNdStride = 0, dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t ss, uint32_t ds, bool relu)
        : nSize(n), mSize(m), srcStride(ss), dstStride(ds), reluEn(relu) {}
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t ss, uint32_t ds, bool relu, QuantMode_t q, int64_t deq,
                      uint16_t nd, uint16_t srcNd, uint16_t dstNd, uint8_t unit, bool split = false)
        : nSize(n), mSize(m), srcStride(ss), dstStride(ds), quantPre(q), deqScalar(uint64_t(deq)), ndNum(nd),
          srcNdStride(srcNd), dstNdStride(dstNd), reluEn(relu), unitFlag(unit), isChannelSplit(split) {}
};

struct FixpipeConfig { bool rowMajor; };
constexpr FixpipeConfig CFG_ROW_MAJOR = {true};
constexpr FixpipeConfig CFG_NZ = {false};

namespace detail {
// the cube operand types asc-sim emulates: 16-bit (half, bfloat16), float and int8_t (16 x 32 fractals)
template <class T> constexpr bool cube_type() {
    return sizeof(T) == 2 || std::is_same<T, float>::value || std::is_same<T, int8_t>::value;
}
template <class T> constexpr uint32_t cube_c0() { return 32 / sizeof(T); }
// element i of tensor t holds written data (the shadow marks every byte)
template <class T> inline bool elem_written(const LocalTensor<T>& t, uint64_t i) {
    const uint8_t* w = t.shadow() + i * sizeof(T);
    for (size_t b = 0; b < sizeof(T); ++b)
        if (!w[b]) return false;
    return true;
}
// dst[d] = src[s] with its written state (LoadData moves whole fractals, garbage included)
template <class T> inline void move_elem(const LocalTensor<T>& dst, uint64_t d, const LocalTensor<T>& src, uint64_t s) {
    dst.ptr()[d] = src.ptr()[s];
    std::memcpy(dst.shadow() + d * sizeof(T), src.shadow() + s * sizeof(T), sizeof(T));
}
}  // namespace detail

// the system workspace (the Matmul / cross-core workspace of a kernel): SetSysWorkspace keeps the first one given,
// as CANN's g_sysWorkspaceReserved; GetSysWorkspacePtr before any refuses (it would hand out a null pointer)
inline void SetSysWorkspace(GM_ADDR workspace, int line = __builtin_LINE()) {
    ascend_sim::BlockCtx& c = ascend_sim::ctx("SetSysWorkspace", line);
    if (workspace == nullptr) fail("SetSysWorkspace", line, "workspace can not be nullptr");
    if (c.sysWorkspace == nullptr) c.sysWorkspace = workspace;
}

inline GM_ADDR GetSysWorkspacePtr(int line = __builtin_LINE()) {
    ascend_sim::BlockCtx& c = ascend_sim::ctx("GetSysWorkspacePtr", line);
    if (c.sysWorkspace == nullptr)
        fail("GetSysWorkspacePtr", line, "no system workspace: call SetSysWorkspace(workspace) first");
    return c.sysWorkspace;
}

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p,
                     int line = __builtin_LINE()) {
    const char* api = "DataCopy(Nd2Nz)";
    static_assert(detail::cube_type<T>(), "asc-sim emulates ND->NZ copies of 16-bit data, float and int8_t");
    constexpr uint32_t C0 = detail::cube_c0<T>();
    if (dst.mem_ != 1) fail(api, line, "the destination of an ND->NZ copy must be in L1 (A1/B1)");
    if (p.ndNum != 1) fail(api, line, "ndNum != 1 is not emulated");
    if (p.dstNzNStride != 1) fail(api, line, "dstNzNStride != 1 is not emulated");
    if (p.dstNzC0Stride < p.nValue) fail(api, line, "dstNzC0Stride is smaller than nValue (strips would overlap)");
    const uint32_t strips = (p.dValue + C0 - 1) / C0;
    dst.use(api, uint64_t(strips) * p.dstNzC0Stride * C0, line);
    src.check(api, 0, p.nValue ? uint64_t(p.nValue - 1) * p.srcDValue + p.dValue : 0, line);
    T* d = dst.ptr();
    for (uint32_t r = 0; r < p.nValue; ++r)
        for (uint32_t c = 0; c < strips * C0; ++c) {
            uint64_t at = (uint64_t(c / C0) * p.dstNzC0Stride + r) * C0 + c % C0;
            d[at] = c < p.dValue ? src.base_[uint64_t(r) * p.srcDValue + c] : T(0);   // columns zero padded
            dst.mark_written(at, 1);
        }
}

template <class T>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<T>& p, int line = __builtin_LINE()) {
    const char* api = "Fill";
    ascend_sim::ctx(api, line);
    if (dst.mem_ < 1 || dst.mem_ > 3) fail(api, line, "Fill initialises L1 (A1/B1), L0A (A2) or L0B (B2) tensors");
    const uint32_t block = dst.mem_ == 1 ? 32 : 512;
    if (dst.addr_ % block) fail(api, line, "the destination is not " + str(block) + "-byte aligned");
    const uint64_t per = block / sizeof(T);
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint64_t at = uint64_t(i) * (uint64_t(p.blockNum) + p.dstGap) * per;
        dst.use(api, at + p.blockNum * per, line);
        for (uint64_t e = 0; e < p.blockNum * per; ++e) dst.ptr()[at + e] = p.initValue;
        dst.mark_written(at, p.blockNum * per);
    }
}

template <class T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p,
                     int line = __builtin_LINE()) {
    const char* api = "LoadData";
    static_assert(detail::cube_type<T>(), "asc-sim emulates LoadData of 16-bit, float and int8_t fractals");
    constexpr uint32_t FE = 512 / sizeof(T);       // elements of one fractal
    if (src.mem_ != 1 || (dst.mem_ != 2 && dst.mem_ != 3))
        fail(api, line, "LoadData2D moves fractals from L1 (A1/B1) to L0A/L0B (A2/B2)");
    if (p.repeatTimes == 0) fail(api, line, "repeatTimes must be in [1, 255]");
    if (dst.addr_ % 512) fail(api, line, "the L0 destination is not 512-byte aligned");
    if (p.ifTranspose && sizeof(T) != 2)
        fail(api, line, "ifTranspose transposes fractals of 16-bit data only (float: LoadDataWithTranspose)");
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint64_t sf = uint64_t(p.startIndex) + uint64_t(i) * p.srcStride;
        const uint64_t df = uint64_t(i) * (1u + p.dstGap);
        src.use(api, (sf + 1) * FE, line);
        dst.use(api, (df + 1) * FE, line);
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t c = 0; c < FE / 16; ++c)
                detail::move_elem(dst, df * FE + r * (FE / 16) + c, src,
                                  sf * FE + (p.ifTranspose ? c * 16 + r : r * (FE / 16) + c));
    }
}

template <class T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LoadData2dTransposeParams& p, int line = __builtin_LINE()) {
    const char* api = "LoadDataWithTranspose";
    static_assert(std::is_same<T, float>::value, "asc-sim emulates LoadDataWithTranspose of float");
    if (src.mem_ != 1 || (dst.mem_ != 2 && dst.mem_ != 3))
        fail(api, line, "LoadDataWithTranspose moves fractals from L1 (A1/B1) to L0A/L0B (A2/B2)");
    if (dst.addr_ % 512) fail(api, line, "the L0 destination is not 512-byte aligned");
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint64_t sq = (uint64_t(p.startIndex) + uint64_t(i) * p.srcStride) * 256;   // 16 x 16 floats
        const uint64_t d0 = uint64_t(i) * (1u + p.dstGap) * 128;
        const uint64_t d1 = d0 + (1u + p.dstFracGap) * 128;
        src.use(api, sq + 256, line);
        dst.use(api, d1 + 128, line);
        // square element (r, c): fractal c / 8 of the pair, (r, c % 8) inside; the result is its transpose
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t c = 0; c < 16; ++c) {
                const uint64_t from = sq + (c / 8) * 128 + r * 8 + c % 8;     // S(r, c)
                const uint64_t to = (r / 8 ? d1 : d0) + c * 8 + r % 8;       // T(c, r) = S(r, c)
                detail::move_elem(dst, to, src, from);
            }
    }
}

template <class T, class U, class S, class B>
inline void mmad_impl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                      const LocalTensor<B>* bias, const MmadParams& p, int line) {
    const char* api = "Mmad";
    constexpr bool int8 = std::is_same<U, int8_t>::value;
    static_assert(std::is_same<U, S>::value && detail::cube_type<U>() &&
                  (int8 ? std::is_same<T, int32_t>::value : std::is_same<T, float>::value),
                  "asc-sim emulates Mmad of half x half, bfloat16 x bfloat16 and float x float into float, and of "
                  "int8_t x int8_t into int32_t (the pairs of Mmad.md for Atlas A2/A3)");
    using Acc = typename std::conditional<int8, int32_t, float>::type;
    constexpr uint32_t C0 = detail::cube_c0<U>();
    if (ascend_sim::ctx(api, line).coreType == 2) fail(api, line, "Mmad runs on the cube core (AIC), not on an AIV");
    if (fm.mem_ != 2 || filter.mem_ != 3 || dst.mem_ != 4)
        fail(api, line, "Mmad takes the left matrix in L0A (A2), the right in L0B (B2), the result in L0C (CO1)");
    if (p.isBias) fail(api, line, "isBias is not emulated (accumulate into L0C with cmatrixInitVal = false)");
    static_assert(std::is_same<B, T>::value, "the bias of Mmad is of the L0C's type (float; int32_t for int8_t)");
    if (bias) {
        if (bias->mem_ != 5) fail(api, line, "the bias of Mmad is in the BiasTable buffer (C2)");
        if (bias->addr_ % 64) fail(api, line, "the bias is not 64-byte aligned");
        if (!p.cmatrixInitVal)
            fail(api, line, "cmatrixInitVal = false with a bias tensor: the bias form initializes C from the "
                 "BiasTable (accumulate without a bias)");
    }
    if (p.fmOffset || p.enSsparse || p.enWinogradA || p.enWinogradB)
        fail(api, line, "fmOffset, enSsparse and enWinogradA/B are not emulated");
    if (p.cmatrixSource) fail(api, line, "cmatrixSource = true (the initial C matrix from the bias table C2) is not "
                                         "emulated");
    if (p.m == 0 || p.n == 0 || p.k == 0) return;
    if (p.m == 1) fail(api, line, "m == 1 switches Mmad to GEMV (A read as ND): pad m to 16");
    // whole fractals: M and N up to 16, K up to C0 (16-bit: 16; float: 8, kDirectionAlign = false; int8_t: 32)
    const uint32_t M = (p.m + 15u) / 16u * 16u, N = (p.n + 15u) / 16u * 16u, K = (p.k + C0 - 1) / C0 * C0;
    const uint32_t KF = K / C0;
    fm.use(api, uint64_t(M) * K, line);
    filter.use(api, uint64_t(K) * N, line);
    dst.use(api, uint64_t(M) * N, line);
    if (bias) {
        bias->use(api, p.n, line);
        bias->check_written(api, 0, p.n, line);
    }
    const U* a = fm.ptr();
    const S* b = filter.ptr();
    T* c = dst.ptr();
    for (uint32_t mi = 0; mi < M; ++mi)
        for (uint32_t ni = 0; ni < N; ++ni) {
            const uint64_t at = (((ni / 16) * (M / 16) + mi / 16) * 16 + mi % 16) * 16 + ni % 16;
            bool ok = p.cmatrixInitVal || detail::elem_written(dst, at);
            // the bias form: C starts from the bias row (columns past n are invalid)
            if (bias && ni >= p.n) ok = false;
            Acc acc = bias && ok ? Acc(bias->ptr()[ni]) : Acc(0);
            for (uint32_t ki = 0; ki < K && ok; ++ki) {
                const uint64_t ai = ((uint64_t(mi / 16) * KF + ki / C0) * 16 + mi % 16) * C0 + ki % C0;
                const uint64_t bi = ((uint64_t(ki / C0) * (N / 16) + ni / 16) * 16 + ni % 16) * C0 + ki % C0;
                ok = detail::elem_written(fm, ai) && detail::elem_written(filter, bi);
                if (int8)        // int8_t products are exact in int32_t; the sum wraps as the int32_t accumulator
                    acc = Acc(uint32_t(acc) + uint32_t(int32_t(a[ai]) * int32_t(b[bi])));
                else
                    acc += Acc(float(a[ai]) * float(b[bi]));
            }
            if (ok) {
                if (int8)
                    c[at] = p.cmatrixInitVal ? T(acc) : T(uint32_t(c[at]) + uint32_t(acc));
                else
                    c[at] = p.cmatrixInitVal ? T(acc) : T(float(c[at]) + float(acc));
                dst.mark_written(at, 1);
            } else {                     // read padding garbage: an invalid result (Fixpipe refuses to move it)
                c[at] = int8 ? T(0) : T(std::numeric_limits<float>::quiet_NaN());
                std::memset(dst.shadow() + at * sizeof(T), 0, sizeof(T));
            }
        }
}

template <class T, class U, class S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& p, int line = __builtin_LINE()) {
    mmad_impl<T, U, S, T>(dst, fm, filter, nullptr, p, line);
}

// the bias form: C = A B + the bias row (1 x n, in the BiasTable buffer: float, int32_t for int8_t operands)
template <class T, class U, class S, class B>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<B>& bias, const MmadParams& p, int line = __builtin_LINE()) {
    mmad_impl<T, U, S, B>(dst, fm, filter, &bias, p, line);
}

namespace detail {
// Fixpipe's quantization word (deqScalar, or one uint64_t of the cbufWorkspace per column), as the Fixpipe docs'
// "随路量化" table gives it for NPU architecture 2201: bits [31:0] a float of which the hardware uses only
// 1 sign + 8 exponent + 10 mantissa bits ([31:13]; the low 13 bits are cleared), [35:32] N (the right shift of
// (V)REQ8), bit 36 MCB (shift the int32_t by N into int16_t first), [45:37] Offset (a 9-bit integer added after the
// scaling; not used by (V)DEQF16), bit 46 Sign (1: an int8_t result, 0: uint8_t; (V)REQ8, (V)QF322B8_PRE).
// asc emulates MCB = 0 and Offset = 0 only: the docs give N two encodings (the table: b'0000 shifts by 1; the
// reference script: by 0) and do not say whether Offset is signed, so a word using either is refused.
struct QuantWord {
    float m1;
    bool sign;
};
inline QuantWord quant_word(uint64_t w, const char* api, int line, const std::string& which) {
    const uint32_t f = uint32_t(w) & 0xFFFFE000u;
    const uint32_t ex = (f >> 23) & 0xFF, man = (f >> 13) & 0x3FF;
    if (ex == 0xFF) fail(api, line, which + ": the scale (bits [31:13]) is inf or nan, which the docs forbid");
    if (ex == 0 && man != 0) fail(api, line, which + ": the scale (bits [31:13]) is a subnormal float, which the "
                                  "docs forbid");
    if ((w >> 36) & 1)
        fail(api, line, which + ": MCB (bit 36, shift the int32_t right by N first) is not emulated: the docs give "
             "N two encodings");
    if ((w >> 37) & 0x1FF)
        fail(api, line, which + ": a nonzero Offset (bits [45:37]) is not emulated: the docs do not say whether "
             "the 9-bit Offset is signed");
    float m1;
    std::memcpy(&m1, &f, sizeof(f));
    return {m1, bool((w >> 46) & 1)};
}
// one element through the pre-quantization stage: M1 for a value >= 0, M2 (= M1, or 0 with reluEn) below
template <class T, class U> inline T quantize(U v, float m1, bool relu) {
    const float x = float(v);                 // an int32_t L0C element converted to float (round to nearest even)
    const float y = x * (x >= 0.0f ? m1 : (relu ? 0.0f : m1));
    if constexpr (std::is_same<T, half>::value) {          // (V)DEQF16: to half, saturating (no inf)
        half h(y);
        if (std::isinf(float(h))) h = half(y > 0 ? 65504.0f : -65504.0f);
        return h;
    } else {                                                // (V)REQ8 / (V)QF322B8_PRE: rint, saturate
        constexpr float lo = std::is_same<T, int8_t>::value ? -128.0f : 0.0f;
        constexpr float hi = std::is_same<T, int8_t>::value ? 127.0f : 255.0f;
        float r = std::nearbyint(std::min(std::max(y, -256.0f), 255.0f));
        return T(std::min(std::max(r, lo), hi));
    }
}
inline bool vector_quant(QuantMode_t q) { return q == VDEQF16 || q == VQF322B8_PRE || q == VREQ8; }
inline const char* quant_name(QuantMode_t q) {
    static const char* names[] = {"NoQuant", "F322F16", "F322BF16", "DEQF16", "VDEQF16", "QF322B8_PRE",
                                  "VQF322B8_PRE", "REQ8", "VREQ8"};
    return unsigned(q) < 9 ? names[q] : "?";
}
}  // namespace detail

// Fixpipe from L0C: a float L0C (Mmad of half / bfloat16 / float) to float (NoQuant), half (F322F16), bfloat16_t
// (F322BF16), int8_t / uint8_t ((V)QF322B8_PRE); an int32_t L0C (Mmad of int8_t) to int32_t (NoQuant), half
// ((V)DEQF16), int8_t / uint8_t ((V)REQ8) -- the pairs the Fixpipe docs give for Atlas A2 / A3. The V modes take
// one quantization word per column (column j of the nSize moved) from cbufWorkspace (a uint64_t tensor in L1,
// 32-byte aligned); the scalar modes take deqScalar.
template <class T, class U, const FixpipeConfig& cfg, class S>
inline void fixpipe_impl(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>* cbuf,
                         const FixpipeParamsV220& p, int line) {
    const char* api = "Fixpipe";
    constexpr bool i32 = std::is_same<U, int32_t>::value;
    static_assert(std::is_same<U, float>::value || i32, "Fixpipe reads a float or int32_t L0C");
    static_assert(i32 ? (std::is_same<T, int32_t>::value || std::is_same<T, half>::value ||
                         std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value)
                      : (std::is_same<T, float>::value || std::is_same<T, half>::value ||
                         std::is_same<T, bfloat16_t>::value || std::is_same<T, int8_t>::value ||
                         std::is_same<T, uint8_t>::value),
                  "Fixpipe moves a float L0C to float, half, bfloat16_t, int8_t or uint8_t and an int32_t L0C to "
                  "int32_t, half, int8_t or uint8_t (Atlas A2 / A3)");
    if (!cfg.rowMajor) fail(api, line, "CFG_NZ output is not emulated");
    if (src.mem_ != 4) fail(api, line, "Fixpipe reads L0C (CO1)");
    const QuantMode_t q = p.quantPre;
    if (unsigned(q) > unsigned(VREQ8)) fail(api, line, "quantPre " + str(uint64_t(q)) + " is not a QuantMode_t");
    if (p.ndNum != 1) fail(api, line, "ndNum != 1 is not emulated");
    if (p.srcStride % 16 || p.srcStride < p.mSize) fail(api, line, "srcStride must be the row count padded to 16");
    const bool b8 = std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value;
    const std::string qn = detail::quant_name(q), src_t = type_name<U>::get(), dst_t = type_name<T>::get();
    // the dtype / quantPre pairs (the Fixpipe docs' quantPre list)
    if (std::is_same<T, half>::value && !i32 && q != F322F16) fail(api, line, "a half output needs quantPre = F322F16");
    if (std::is_same<T, bfloat16_t>::value && q != F322BF16)
        fail(api, line, "a bfloat16 output needs quantPre = F322BF16");
    if ((std::is_same<T, float>::value || std::is_same<T, int32_t>::value) && q != NoQuant)
        fail(api, line, (dst_t[0] == 'i' ? "an " : "a ") + dst_t + " output needs NoQuant, not " + qn);
    QuantMode_t need_s, need_v = NoQuant;
    if (std::is_same<T, half>::value) need_s = i32 ? DEQF16 : F322F16, need_v = i32 ? VDEQF16 : NoQuant;
    else if (std::is_same<T, bfloat16_t>::value) need_s = F322BF16;
    else if (b8) need_s = i32 ? REQ8 : QF322B8_PRE, need_v = i32 ? VREQ8 : VQF322B8_PRE;
    else need_s = NoQuant;
    if (q != need_s && (need_v == NoQuant || q != need_v)) {
        std::string want = detail::quant_name(need_s);
        if (need_v != NoQuant) want += std::string(" or ") + detail::quant_name(need_v);
        fail(api, line, (i32 ? "an " : "a ") + src_t + " L0C to " + (dst_t[0] == 'i' ? "an " : "a ") + dst_t +
             " output needs quantPre = " + want + ", not " + qn);
    }
    const bool vec = detail::vector_quant(q);
    if (vec && cbuf == nullptr)
        fail(api, line, "quantPre = " + qn + " takes its per-column scales from a cbufWorkspace: call "
             "Fixpipe(dst, src, cbufWorkspace, params)");
    if (!vec && cbuf != nullptr)
        fail(api, line, "a cbufWorkspace is used with quantPre VDEQF16, VQF322B8_PRE or VREQ8 only, not " + qn);
    const uint32_t strips = (p.nSize + 15) / 16;
    src.use(api, uint64_t(strips) * p.srcStride * 16, line);
    dst.check(api, 0, p.mSize ? uint64_t(p.mSize - 1) * p.dstStride + p.nSize : 0, line);
    if (ascend_sim::ctx(api, line).coreType == 2) fail(api, line, "Fixpipe runs on the cube core (AIC), not on an AIV");
    // the scales: one word for every column (deqScalar repeated, or the cbufWorkspace's)
    const bool quant = q == DEQF16 || q == VDEQF16 || q == QF322B8_PRE || q == VQF322B8_PRE || q == REQ8 ||
                       q == VREQ8;
    std::vector<detail::QuantWord> words;
    if (quant) {
        if (vec) {
            if (cbuf->mem_ != 1) fail(api, line, "the cbufWorkspace must be in L1 (A1/B1/C1)");
            if (cbuf->addr_ % 32) fail(api, line, "the cbufWorkspace is not 32-byte aligned");
            cbuf->use(api, p.nSize, line);
            cbuf->check_written(api, 0, p.nSize, line);
        }
        for (uint32_t j = 0; j < p.nSize; ++j) {
            const uint64_t w = vec ? uint64_t(cbuf->ptr()[j]) : p.deqScalar;
            const std::string which = vec ? "cbufWorkspace[" + str(j) + "]" : std::string("deqScalar");
            words.push_back(detail::quant_word(w, api, line, which));
            if (b8 && words.back().sign != std::is_same<T, int8_t>::value)
                fail(api, line, which + ": the Sign bit (46) is " + str(uint64_t(words.back().sign)) + " but the "
                     "output is " + dst_t + " (1: int8_t, 0: uint8_t)");
            if (!vec) break;
        }
    }
    const U* c = src.ptr();
    ascend_sim::Launch* L = ascend_sim::launch;
    for (uint32_t mi = 0; mi < p.mSize; ++mi)
        for (uint32_t ni = 0; ni < p.nSize; ++ni) {
            uint64_t at = (uint64_t(ni / 16) * p.srcStride + mi) * 16 + ni % 16;
            src.check_written(api, at, 1, line);
            T* o = &dst.base_[uint64_t(mi) * p.dstStride + ni];
            if (quant) {
                const detail::QuantWord& w = words[vec ? ni : 0];
                if constexpr (std::is_same<T, half>::value || std::is_same<T, int8_t>::value ||
                              std::is_same<T, uint8_t>::value)
                    *o = detail::quantize<T>(c[at], w.m1, p.reluEn);
            } else {
                U v = c[at];
                if (p.reluEn && v < U(0)) v = U(0);
                if constexpr (std::is_same<T, int32_t>::value) *o = T(v);
                else *o = T(float(v));
            }
            if (L && L->mix) ascend_sim::cube_write(o, sizeof(T), api, line);
        }
}

template <class T, class U, const FixpipeConfig& cfg = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p,
                    int line = __builtin_LINE()) {
    fixpipe_impl<T, U, cfg, uint64_t>(dst, src, nullptr, p, line);
}

// the per-column (tensor) quantization: cbufWorkspace holds one uint64_t word per column
template <class T, class U, const FixpipeConfig& cfg = CFG_ROW_MAJOR, class S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& p, int line = __builtin_LINE()) {
    fixpipe_impl<T, U, cfg, S>(dst, src, &cbufWorkspace, p, line);
}

}  // namespace AscendC

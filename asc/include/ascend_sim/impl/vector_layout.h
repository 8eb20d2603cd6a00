// ascend-sim (kernel_operator.h): Brcb, Axpy, Transpose and TransDataTo5HD.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// Brcb (A2: 16- and 32-bit elements): repeat i reads src[8 i .. 8 i + 7] and fills DataBlock j of the repeat
// (at block i * dstRepStride + j * dstBlkStride of dst) with src[8 i + j]. asc-devkit's rules: dst and src 32-byte
// aligned (LocalTensor::use), src holds at least 8 * repeatTime elements, src and dst are not the same memory,
// dstBlkStride 0 is undefined behaviour, repeatTime 0 is a NOP; the source reads contiguously (no stride).
struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1, dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t d, uint16_t dr) : dstBlkStride(d), dstRepStride(dr) {}
};
template <class T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                 const BrcbRepeatParams& p, int line = __builtin_LINE()) {
    static_assert(detail::one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),
                  "Brcb: this element type is not one the API takes on A2 (asc-devkit's list)");
    const char* api = "Brcb";
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    src.use(api, 0, line);
    if (repeatTime == 0) return;
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (p.dstBlkStride == 0) fail(api, line, "dstBlkStride is 0 (undefined behaviour on the NPU)");
    const uint64_t n = 8ull * repeatTime;
    if (n > src.size_)
        fail(api, line, "repeatTime " + str(uint32_t(repeatTime)) + " reads " + str(n) + " elements of a source "
             "LocalTensor<" + type_name<T>::get() + "> of " + str(src.size_) + " elements (8 per repeat)");
    const uint32_t epb = 32 / sizeof(T);
    const uint64_t last = (uint64_t(repeatTime - 1) * p.dstRepStride + 7ull * p.dstBlkStride + 1) * epb;
    if (last > dst.size_)
        fail(api, line, "repeat " + str(uint32_t(repeatTime - 1)) + " writes up to element " + str(last) + " of a dst "
             "LocalTensor<" + type_name<T>::get() + "> of " + str(dst.size_) + " elements");
    const uint64_t s0 = src.addr_, s1 = src.addr_ + n * sizeof(T);
    for (uint32_t i = 0; i < repeatTime; ++i)
        for (uint32_t j = 0; j < 8; ++j) {
            const uint64_t d0 = dst.addr_ + (uint64_t(i) * p.dstRepStride + uint64_t(j) * p.dstBlkStride) * 32;
            if (src.mem_ == dst.mem_ && d0 < s1 && s0 < d0 + 32)
                fail(api, line, "the destination overlaps the source (UB bytes [" + str(s0) + ", " + str(s1) +
                     ")): asc-devkit forbids the same memory for both");
        }
    src.check_written(api, 0, n, line);
    src.vector_reads(api, 0, n * sizeof(T), line);
    for (uint32_t i = 0; i < repeatTime; ++i)
        for (uint32_t j = 0; j < 8; ++j) {
            const T v = src.ptr()[uint64_t(i) * 8 + j];
            const uint64_t b = (uint64_t(i) * p.dstRepStride + uint64_t(j) * p.dstBlkStride) * epb;
            for (uint32_t e = 0; e < epb; ++e) dst.ptr()[b + e] = v;
            dst.mark_written(b, epb);
            ascend_sim::note(c.pendingV, uint32_t(dst.addr_ + b * sizeof(T)), 32);
            dst.vector_writes(b * sizeof(T), 32);
        }
}

// Axpy: dst = scalar * src + dst, (half, half), (float, float), (half src -> float dst); count and repeat forms
namespace detail {
template <class T, class U> inline void axpy_types() {
    static_assert((std::is_same<T, U>::value && (std::is_same<T, half>::value || std::is_same<T, float>::value)) ||
                  (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Axpy takes (dst, src) = (half, half), (float, float) or (float, half) on A2");
}
}  // namespace detail
template <class T, class U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count,
                 int line = __builtin_LINE()) {
    detail::axpy_types<T, U>();
    const char* api = "Axpy";
    detail::reading(api, src, count, line);
    detail::reading(api, dst, count, line);          // dst is an input too
    detail::same_or_apart(api, dst, count, src, count, line);
    const float s = float(scalarValue);
    T* d = dst.ptr();
    const U* x = src.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = T(s * float(x[i]) + float(d[i]));
    detail::done(dst, count);
}
template <class T, class U, bool isSetMask = true>
inline void Axpy_rep(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint8_t repeatTime,
                     const UnaryRepeatParams& p, int line) {
    detail::axpy_types<T, U>();
    const float s = float(scalarValue);
    const LocalTensor<U>* sr[1] = {&src};
    const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};
    detail::repeat_op<T, U, 1, true>("Axpy", dst, {p.dstBlkStride, p.dstRepStride}, sr, ss, repeatTime, line,
                                     [s](const U* v, T old) { return T(s * float(v[0]) + float(old)); });
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Axpy", mask, line);
    Axpy_rep<T, U, isSetMask>(dst, src, scalarValue, repeatTime, p, line);
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Axpy", mask, line);
    Axpy_rep<T, U, isSetMask>(dst, src, scalarValue, repeatTime, p, line);
}


// Transpose: the 16 x 16 transpose of 2-byte elements, and the [N,C,H,W] <-> [N,H,W,C] conversions of
// TransposeParamsExt (with a sharedTmpBuffer that must be a UB tensor apart from src and dst; its size is not
// checked here)
enum class TransposeType : uint8_t { TRANSPOSE_TYPE_NONE = 0, TRANSPOSE_NZ2ND_0213, TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N, TRANSPOSE_NZ2ND_012_WITH_N, TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N, TRANSPOSE_ND2ND_ONLY, TRANSPOSE_ND_UB_GM, TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW };

struct TransposeParamsExt {
    uint16_t nSize = 0, cSize = 0, hSize = 0, wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
    TransposeParamsExt() = default;
    TransposeParamsExt(uint16_t n, uint16_t c, uint16_t h, uint16_t w, TransposeType t)
        : nSize(n), cSize(c), hSize(h), wSize(w), transposeType(t) {}
};

template <class T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, int line = __builtin_LINE()) {
    static_assert(detail::one_of<T, half, int16_t, uint16_t>(), "Transpose (16 x 16) takes half, int16_t or "
                  "uint16_t on A2");
    detail::reading("Transpose", src, 256, line);
    detail::writing("Transpose", dst, 256, line);
    detail::same_or_apart("Transpose", dst, 256, src, 256, line);
    std::vector<T> t(src.ptr(), src.ptr() + 256);
    T* d = dst.ptr();
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) d[c * 16 + r] = t[r * 16 + c];
    detail::done(dst, 256);
}

template <class T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                      const TransposeParamsExt& p, int line = __builtin_LINE()) {
    const char* api = "Transpose";
    if (p.transposeType == TransposeType::TRANSPOSE_ND2ND_B16) {
        if constexpr (std::is_same<T, uint16_t>::value) {
            Transpose(dst, src, line);
            return;
        }
        fail(api, line, "TRANSPOSE_ND2ND_B16 with TransposeParamsExt takes uint16_t on A2");
    }
    static_assert(detail::one_of<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>(),
                  "Transpose (NCHW <-> NHWC) takes int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t or "
                  "float on A2");
    const bool toNhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    if (!toNhwc && p.transposeType != TransposeType::TRANSPOSE_NHWC2NCHW)
        fail(api, line, "this TransposeType is not emulated (ND2ND_B16, NCHW2NHWC, NHWC2NCHW are)");
    const uint32_t N = p.nSize, C = p.cSize, HW = uint32_t(p.hSize) * p.wSize;
    if (C > 4095) fail(api, line, "cSize " + str(C) + " is outside [0, 4095]");
    if (HW > 4095) fail(api, line, "hSize * wSize = " + str(HW) + " is outside [0, 4095]");
    if ((HW * sizeof(T)) % 32)
        fail(api, line, "hSize * wSize * sizeof(T) = " + str(HW * sizeof(T)) + " B is not 32-byte aligned");
    const uint32_t total = N * C * HW;
    tmp.use(api, 0, line);
    uint64_t t0 = tmp.addr_, t1 = t0 + tmp.size_;
    for (uint64_t a0 : {uint64_t(src.addr_), uint64_t(dst.addr_)})
        if (a0 < t1 && t0 < a0 + uint64_t(total) * sizeof(T)) fail(api, line, "sharedTmpBuffer overlaps src or dst");
    detail::reading(api, src, int32_t(total), line);
    detail::writing(api, dst, int32_t(total), line);
    detail::same_or_apart(api, dst, int32_t(total), src, int32_t(total), line);
    std::vector<T> s(src.ptr(), src.ptr() + total);
    T* d = dst.ptr();
    for (uint32_t n = 0; n < N; ++n)
        for (uint32_t c = 0; c < C; ++c)
            for (uint32_t k = 0; k < HW; ++k) {
                const uint64_t nchw = (uint64_t(n) * C + c) * HW + k, nhwc = (uint64_t(n) * HW + k) * C + c;
                if (toNhwc) d[nhwc] = s[nchw];
                else d[nchw] = s[nhwc];
            }
    detail::done(dst, int32_t(total));
    std::memset(tmp.ptr(), 0xFF, tmp.size_);       // scratch contents are undefined after
}


// TransDataTo5HD (16-bit elements): each repeat reads one 32-byte DataBlock (16 elements) at each of the 16 source
// addresses and writes the 16 x 16 transpose, dst block j element i = src block i element j, at each of the 16
// destination addresses. Repeat r starts srcRepStride / dstRepStride DataBlocks times r further on; with
// repeatTimes == 1 the one repeat starts one stride further on (set the strides to 0 to start at the lists);
// repeatTimes == 0 is a no-op. Three forms give the addresses: lists of 16 LocalTensors, two uint64_t[16] arrays
// of UB addresses (GetPhyAddr), and two LocalTensor<uint64_t> holding 16 such addresses each.
struct TransDataTo5HDParams {
    bool dstHighHalf = false, srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0, srcRepStride = 0;
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dh, bool sh, uint8_t rep, uint16_t ds, uint16_t ss)
        : dstHighHalf(dh), srcHighHalf(sh), repeatTimes(rep), dstRepStride(ds), srcRepStride(ss) {}
};

namespace detail {
// one DataBlock of the UB at byte address `a`, for TransDataTo5HD's address forms: 32-byte aligned and inside
// the UB; a source block must have been written, by a pipe synchronized with the vector pipe
inline void ub_block(const char* api, const char* which, int i, uint64_t a, bool read, int line) {
    if (a % ascend_sim::UB_BLOCK)
        fail(api, line, std::string(which) + "[" + str(i) + "] = UB address " + str(a) + " is not 32-byte aligned");
    if (a + 32 > ascend_sim::UB_SIZE)
        fail(api, line, std::string(which) + "[" + str(i) + "]: the DataBlock at UB address " + str(a) +
             " is not inside the " + str(ascend_sim::UB_SIZE) + " B Unified Buffer");
    if (!read) return;
    const uint8_t* w = ascend_sim::cur->written + a;
    for (int k = 0; k < 32; ++k)
        if (!w[k])
            fail(api, line, std::string(which) + "[" + str(i) + "]: reads UB byte " + str(a + k) +
                 ", which was never written (poisoned with NaN)");
    if (auto* p = ascend_sim::unsynced(ascend_sim::cur->mte2V, uint32_t(a), 32))
        fail(api, line, "vector read of UB bytes [" + str(p->a) + ", " + str(p->b) + ") written by a GM->UB copy "
             "(MTE2) without an MTE2_V sync between them: SetFlag<HardEvent::MTE2_V> / WaitFlag<HardEvent::MTE2_V>");
    for (auto& r : ascend_sim::cur->sWrites)
        if (r.first < a + 32 && a < r.second)
            fail(api, line, "vector read of UB byte " + str(r.first) + ", written by a scalar SetValue, without an "
                 "S_V sync (SetFlag<HardEvent::S_V> / WaitFlag<HardEvent::S_V>)");
}

// the size of each tensor of the list form: Huawei's check (asc-tools cpudebug api_check, TransDataTo5HD's tensor
// sizes, which its CPU-debug build runs on every call with repeatTimes > 0) asks each listed tensor for
// repeatTimes * repStride + 1 DataBlocks from its start: one stride more than the last repeat reaches by the docs'
// offsets (repeat r at r * repStride blocks, so (repeatTimes - 1) * repStride + 1 blocks). ascend-sim asks the same.
template <class T>
inline void trans_5hd_size(const char* api, const char* which, int i, const LocalTensor<T>& t, uint8_t repeatTimes,
                           uint16_t repStride, int line) {
    if (repeatTimes == 0) return;
    t.use(api, 0, line);
    const uint64_t blocks = uint64_t(repeatTimes) * repStride + 1;
    const uint64_t have = uint64_t(t.size_) * sizeof(T);
    if (have < blocks * 32)
        fail(api, line, std::string(which) + "[" + str(i) + "] is a LocalTensor<" + type_name<T>::get() + "> of " +
             str(t.size_) + " elements (" + str(have) + " B), but each listed tensor must hold repeatTimes * " +
             (which[0] == 's' ? "srcRepStride" : "dstRepStride") + " + 1 = " + str(repeatTimes) + " * " +
             str(repStride) + " + 1 = " + str(blocks) + " DataBlocks (" + str(blocks * 32) + " B) from its start: "
             "Huawei's TransDataTo5HD check (asc-tools api_check) asks one stride more than the last repeat reaches");
}

template <class T>
inline void trans_5hd_addrs(const char* api, const uint64_t (&dst)[16], const uint64_t (&src)[16],
                            const TransDataTo5HDParams& p, int line) {
    static_assert(sizeof(T) == 2, "ascend-sim emulates TransDataTo5HD for 16-bit elements (half, int16_t, "
                  "uint16_t); 8- and 32-bit layouts are not emulated yet");
    auto& c = ascend_sim::ctx(api, line);
    uint8_t* ub = c.ub;
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t k = p.repeatTimes == 1 ? 1 : r;
        T blk[16][16];
        for (int i = 0; i < 16; ++i) {
            const uint64_t a = src[i] + k * p.srcRepStride * 32;
            ub_block(api, "srcList", i, a, true, line);
            std::memcpy(blk[i], ub + a, 32);
        }
        for (int j = 0; j < 16; ++j) {
            const uint64_t a = dst[j] + k * p.dstRepStride * 32;
            ub_block(api, "dstList", j, a, false, line);
            T* d = reinterpret_cast<T*>(ub + a);
            for (int i = 0; i < 16; ++i) d[i] = blk[i][j];
            std::memset(c.written + a, 1, 32);
            ascend_sim::note(c.pendingV, uint32_t(a), 32);
            ascend_sim::wrote(c.vMte3, c.seq, uint32_t(a), 32);
        }
    }
}
}  // namespace detail

template <class T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[16], const LocalTensor<T> (&srcList)[16],
                           const TransDataTo5HDParams& p, int line = __builtin_LINE()) {
    const char* api = "TransDataTo5HD";
    auto& c = ascend_sim::ctx(api, line);
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {      // in Huawei's order: srcList[i], then dstList[i]
        detail::trans_5hd_size(api, "srcList", i, srcList[i], p.repeatTimes, p.srcRepStride, line);
        detail::trans_5hd_size(api, "dstList", i, dstList[i], p.repeatTimes, p.dstRepStride, line);
        s[i] = srcList[i].addr_;
        d[i] = dstList[i].addr_;
    }
    detail::trans_5hd_addrs<T>(api, d, s, p, line);
}

template <class T>
inline void TransDataTo5HD(uint64_t dstList[16], uint64_t srcList[16], const TransDataTo5HDParams& p,
                           int line = __builtin_LINE()) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) { d[i] = dstList[i]; s[i] = srcList[i]; }
    detail::trans_5hd_addrs<T>("TransDataTo5HD", d, s, p, line);
}

// the address-tensor form: dst and src hold the 16 UB addresses each (read by the scalar unit, so their SetValue
// needs no S_V sync; the data blocks they point at do)
template <class T>
inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                           const TransDataTo5HDParams& p, int line = __builtin_LINE()) {
    const char* api = "TransDataTo5HD";
    uint64_t d[16], s[16];
    for (const LocalTensor<uint64_t>* t : {&dst, &src}) {
        t->use(api, 16, line);
        t->check_written(api, 0, 16, line);
    }
    for (int i = 0; i < 16; ++i) { d[i] = dst.ptr()[i]; s[i] = src.ptr()[i]; }
    detail::trans_5hd_addrs<T>(api, d, s, p, line);
}

}  // namespace AscendC

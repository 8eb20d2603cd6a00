// ascend-sim (kernel_operator.h): the vector instructions' repeat / mask form.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// ------------------------------------------------------------------ vector instructions (repeat / mask form)
// One repeat reads 8 DataBlocks of 32 B (256 B: 128 16-bit or 64 32-bit elements). Element e of repeat r of an
// operand with (blkStride, repStride) in DataBlocks is at element (r * repStride + (e / epb) * blkStride) * epb +
// e % epb, epb = 32 / sizeof(T). The mask selects the elements of each repeat: bit mode (uint64_t mask[2], bit e;
// for 32-bit types only mask[0] counts on A2) or continuous mode (the first `mask` elements, at most one repeat's).
// Elements the mask leaves out keep their value in dst.

struct BinaryRepeatParams {
    uint32_t blockNumber = 8;
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1, dstRepStride = 8, src0RepStride = 8,
            src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t d, uint8_t s0, uint8_t s1, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(d), src0BlkStride(s0), src1BlkStride(s1), dstRepStride(dr), src0RepStride(s0r),
          src1RepStride(s1r) {}
};

struct UnaryRepeatParams {
    uint32_t blockNumber = 8;
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false, halfBlock = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t d, uint16_t s, uint8_t dr, uint8_t sr)
        : dstBlkStride(d), srcBlkStride(s), dstRepStride(dr), srcRepStride(sr) {}
    UnaryRepeatParams(uint16_t d, uint16_t s, uint8_t dr, uint8_t sr, bool h)
        : dstBlkStride(d), srcBlkStride(s), dstRepStride(dr), srcRepStride(sr), halfBlock(h) {}
};

struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t d, uint16_t s, uint16_t dr, uint16_t sr)
        : dstStride(d), srcStride(s), dstRepeatSize(dr), srcRepeatSize(sr) {}
};

namespace detail {
struct Stride { uint32_t blk, rep; };

// sets (isSetMask) or reads (!isSetMask) the block's mask register; the mask as (lo, hi, cont)
template <class T, bool isSetMask>
inline void mask_bits(const char* api, const uint64_t mask[], int line) {
    auto& c = ascend_sim::ctx(api, line);
    if (isSetMask) {
        c.maskLo = mask[0]; c.maskHi = sizeof(T) == 2 ? mask[1] : 0; c.maskCont = -1; c.maskSet = true;
    } else if (!c.maskSet) {
        fail(api, line, "isSetMask = false uses the mask register, which no earlier call set");
    }
}
template <class T, bool isSetMask>
inline void mask_cont(const char* api, uint64_t mask, int line) {
    auto& c = ascend_sim::ctx(api, line);
    const uint64_t per = 256 / sizeof(T);
    if (isSetMask) {
        if (mask > per)
            fail(api, line, "mask " + str(mask) + " is outside [0, " + str(per) + "]: one repeat of " +
                 str(sizeof(T) * 8) + "-bit elements has " + str(per));
        c.maskCont = int64_t(mask); c.maskLo = c.maskHi = 0; c.maskSet = true;
    } else if (!c.maskSet) {
        fail(api, line, "isSetMask = false uses the mask register, which no earlier call set");
    }
}
inline bool mask_on(const ascend_sim::BlockCtx& c, uint32_t e) {
    if (c.maskCont >= 0) return e < uint64_t(c.maskCont);
    return e < 64 ? ((c.maskLo >> e) & 1) : ((c.maskHi >> (e - 64)) & 1);
}
template <class T> inline uint64_t rep_at(uint32_t r, uint32_t e, Stride s) {
    const uint32_t epb = 32 / sizeof(T);
    return (uint64_t(r) * s.rep + uint64_t(e / epb) * s.blk) * epb + e % epb;
}

// dst[at(dst)] = f(src_0[at(src_0)], ..., src_{N-1}[...]) (and dst's own old value, if readsDst) for each element
// the mask selects, repeat by repeat; D is dst's element type, S the sources'.
template <class D, class S, int N, bool readsDst = false, class F>
inline void repeat_op(const char* api, const LocalTensor<D>& dst, Stride ds, const LocalTensor<S>* const* src,
                      const Stride* ss, uint32_t repeat, int line, F f) {
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    for (int i = 0; i < N; ++i) src[i]->use(api, 0, line);
    if (N > 0 && c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (ds.blk == 0) fail(api, line, "the dst block stride is 0 (undefined behaviour on the NPU)");
    const uint32_t per = 256 / uint32_t(std::max(sizeof(D), sizeof(S)));
    std::vector<std::pair<uint64_t, D>> out;
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    for (uint32_t r = 0; r < repeat; ++r) {
        out.clear();
        for (uint32_t e = 0; e < per; ++e) {
            if (!mask_on(c, e)) continue;
            S v[N > 0 ? N : 1];
            for (int i = 0; i < N; ++i) {
                const uint64_t at = rep_at<S>(r, e, ss[i]);
                if (at >= src[i]->size_)
                    fail(api, line, "repeat " + str(r) + ", element " + str(e) + " reads element " + str(at) +
                         " of a source LocalTensor<" + type_name<S>::get() + "> of " + str(src[i]->size_) +
                         " elements");
                src[i]->check_written(api, at, 1, line);
                v[i] = src[i]->ptr()[at];
            }
            const uint64_t d = rep_at<D>(r, e, ds);
            if (d >= dst.size_)
                fail(api, line, "repeat " + str(r) + ", element " + str(e) + " writes element " + str(d) +
                     " of a dst LocalTensor<" + type_name<D>::get() + "> of " + str(dst.size_) + " elements");
            D old{};
            if (readsDst) { dst.check_written(api, d, 1, line); old = dst.ptr()[d]; }
            out.emplace_back(d, f(v, old));
        }
        for (auto& w : out) {
            dst.ptr()[w.first] = w.second;
            dst.mark_written(w.first, 1);
            if (!runs.empty() && runs.back().second == w.first) runs.back().second++;
            else runs.emplace_back(w.first, w.first + 1);
        }
    }
    for (auto& rr : runs)
        ascend_sim::note(c.pendingV, uint32_t(dst.addr_ + rr.first * sizeof(D)), (rr.second - rr.first) * sizeof(D));
}
}  // namespace detail

// (dst, src0, src1, mask[] / mask, repeatTime, BinaryRepeatParams)
#define ASC_SIM_BINARY_REP(NAME, TYPES, EXPR)                                                                   \
    template <class T, bool isSetMask = true, class M>                                                          \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                           const uint8_t repeatTime, const BinaryRepeatParams& p, int line) {                   \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        detail::vec_check<T>(#NAME);                                                                            \
        const LocalTensor<T>* s[2] = {&src0, &src1};                                                            \
        const detail::Stride ss[2] = {{p.src0BlkStride, p.src0RepStride}, {p.src1BlkStride, p.src1RepStride}};  \
        detail::repeat_op<T, T, 2>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,       \
            [](const T* v, T) { auto x = detail::ld(v[0]), y = detail::ld(v[1]); return detail::st<T>(EXPR); }); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& p,              \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask, int>(dst, src0, src1, repeatTime, p, line);                                    \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p,                      \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask, int>(dst, src0, src1, repeatTime, p, line);                                    \
    }
ASC_SIM_BINARY_REP(Add, ASC_SIM_TYPES_ARITH, x + y)
ASC_SIM_BINARY_REP(Sub, ASC_SIM_TYPES_ARITH, x - y)
ASC_SIM_BINARY_REP(Mul, ASC_SIM_TYPES_ARITH, x * y)
ASC_SIM_BINARY_REP(Div, ASC_SIM_TYPES_FLOAT, x / y)
ASC_SIM_BINARY_REP(Max, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x > y ? x : y)
ASC_SIM_BINARY_REP(Min, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x < y ? x : y)
#undef ASC_SIM_BINARY_REP

// (dst, src, mask[] / mask, repeatTime, UnaryRepeatParams) and the scalar form (dst, src, scalar, mask, ...)
#define ASC_SIM_UNARY_REP(NAME, TYPES, EXPR)                                                                    \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,      \
                           const UnaryRepeatParams& p, int line) {                                              \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        const LocalTensor<T>* s[1] = {&src};                                                                    \
        const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};                                        \
        detail::repeat_op<T, T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,       \
            [](const T* x, T) { auto v = detail::ld(x[0]); return detail::st<T>(EXPR); });                      \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],               \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, repeatTime, p, line);                                                \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                       \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, repeatTime, p, line);                                                \
    }
ASC_SIM_UNARY_REP(Exp, ASC_SIM_TYPES_FLOAT, std::exp(v))
ASC_SIM_UNARY_REP(Ln, ASC_SIM_TYPES_FLOAT, std::log(v))
ASC_SIM_UNARY_REP(Abs, ASC_SIM_TYPES_FLOAT, std::fabs(v))
ASC_SIM_UNARY_REP(Reciprocal, ASC_SIM_TYPES_FLOAT, 1.0f / v)
ASC_SIM_UNARY_REP(Sqrt, ASC_SIM_TYPES_FLOAT, std::sqrt(v))
ASC_SIM_UNARY_REP(Rsqrt, ASC_SIM_TYPES_FLOAT, 1.0f / std::sqrt(v))
ASC_SIM_UNARY_REP(Relu, ASC_SIM_TYPES_RELU, v > 0 ? v : (detail::nan_of(v) ? v : decltype(v)(0)))
#undef ASC_SIM_UNARY_REP

#define ASC_SIM_SCALAR_REP(NAME, EXPR)                                                                          \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,          \
                           const uint8_t repeatTime, const UnaryRepeatParams& p, int line) {                    \
        static_assert(ASC_SIM_TYPES_ARITH(T), #NAME ": this element type is not one the API takes on A2");      \
        const auto s = detail::ld(scalarValue);                                                                 \
        const LocalTensor<T>* sr[1] = {&src};                                                                   \
        const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};                                        \
        detail::repeat_op<T, T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, sr, ss, repeatTime, line,      \
            [s](const T* v, T) { auto x = detail::ld(v[0]); return detail::st<T>(EXPR); });                    \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p,               \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, scalarValue, repeatTime, p, line);                                   \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask, \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, scalarValue, repeatTime, p, line);                                   \
    }
ASC_SIM_SCALAR_REP(Adds, x + s)
ASC_SIM_SCALAR_REP(Muls, x * s)
ASC_SIM_SCALAR_REP(Maxs, detail::nan_of(x) || x > s ? x : s)
ASC_SIM_SCALAR_REP(Mins, detail::nan_of(x) || x < s ? x : s)
ASC_SIM_SCALAR_REP(LeakyRelu, x >= 0 ? x : x * s)
#undef ASC_SIM_SCALAR_REP

// Duplicate(dst, scalar, mask[] / mask, repeatTime, dstBlockStride, dstRepeatStride)
template <class T, bool isSetMask = true>
inline void Duplicate_rep(const LocalTensor<T>& dst, const T& v, uint8_t repeatTime, uint16_t blk, uint8_t rep,
                          int line) {
    detail::vec_check<T>("Duplicate");
    detail::repeat_op<T, T, 0>("Duplicate", dst, {blk, rep}, nullptr, nullptr, repeatTime, line,
                               [v](const T*, T) { return v; });
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Duplicate", mask, line);
    Duplicate_rep<T, isSetMask>(dst, scalarValue, repeatTime, dstBlockStride, dstRepeatStride, line);
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Duplicate", mask, line);
    Duplicate_rep<T, isSetMask>(dst, scalarValue, repeatTime, dstBlockStride, dstRepeatStride, line);
}

// Copy (UB -> UB, 16- and 32-bit elements): (dst, src, mask[] / mask, repeatTime, CopyRepeatParams)
template <class T, bool isSetMask = true>
inline void Copy_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint8_t repeatTime,
                     const CopyRepeatParams& p, int line) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Copy takes 16- or 32-bit elements");
    const LocalTensor<T>* s[1] = {&src};
    const detail::Stride ss[1] = {{p.srcStride, p.srcRepeatSize}};
    detail::repeat_op<T, T, 1>("Copy", dst, {p.dstStride, p.dstRepeatSize}, s, ss, repeatTime, line,
                               [](const T* v, T) { return v[0]; });
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Copy", mask, line);
    Copy_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Copy", mask, line);
    Copy_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}

}  // namespace AscendC

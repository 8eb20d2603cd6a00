// ascend-sim (kernel_operator.h): WholeReduceMax / Min / Sum and BlockReduceSum / Max / Min.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// ------------------------------------------------------------------ WholeReduceMax / Min / Sum, BlockReduceSum / Max / Min
// (A2: half and float; mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride). Per repeat, over the elements the
// mask selects (element e of repeat r at the repeat form's address): WholeReduceMax / Min give the extreme and its
// index inside the repeat (the first on ties), stored as ReduceOrder says: [value, index] (the default), [index,
// value], [value] or [index] (a uint32_t); the index is an integer in the bits of the element type (uint16_t for
// half, uint32_t for float). dstRepStride counts one repeat's result: 2 elements for value and index, 1 element for
// the value alone, 4 bytes for the index alone. WholeReduceSum gives the sum at dst[r * dstRepStride]. BlockReduce*
// give one result per DataBlock with an active element, the 8 results of a repeat at dst[r * dstRepStride * 8 + b];
// BlockReduceSum adds pairwise inside the block (a binary tree), a half partial sum saturating at +-65504. A repeat
// reads all its inputs before it writes.
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace detail {
// the (index in the repeat, value) of the elements of repeat r the mask selects
template <class T>
inline void rep_elems(const char* api, const LocalTensor<T>& src, uint32_t r, Stride s, int line,
                      std::vector<std::pair<uint32_t, float>>& out) {
    const auto& c = *ascend_sim::cur;
    out.clear();
    for (uint32_t e = 0; e < 256 / sizeof(T); ++e) {
        if (!mask_on(c, e)) continue;
        const uint64_t at = rep_at<T>(r, e, s);
        if (at >= src.size_)
            fail(api, line, "repeat " + str(r) + ", element " + str(e) + " reads element " + str(at) +
                 " of a source LocalTensor<" + type_name<T>::get() + "> of " + str(src.size_) + " elements");
        src.check_written(api, at, 1, line);
        out.emplace_back(e, float(src.ptr()[at]));
    }
}
template <class T> inline void put_bytes(const char* api, const LocalTensor<T>& dst, uint64_t byte, const void* v,
                                         uint64_t n, int line) {
    if (byte + n > uint64_t(dst.size_) * sizeof(T))
        fail(api, line, "writes bytes [" + str(byte) + ", " + str(byte + n) + ") of a dst LocalTensor<" +
             type_name<T>::get() + "> of " + str(uint64_t(dst.size_) * sizeof(T)) + " B");
    std::memcpy(reinterpret_cast<uint8_t*>(dst.ptr()) + byte, v, size_t(n));
    dst.mark_written(byte / sizeof(T), (n + sizeof(T) - 1) / sizeof(T));
    ascend_sim::note(ascend_sim::cur->pendingV, uint32_t(dst.addr_ + byte), n);
}
template <class T> inline T index_bits(uint32_t i) {
    typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type b = decltype(b)(i);
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> inline float add_sat(float a, float b) {
    float v = float(T(a + b));
    if (sizeof(T) == 2) v = std::min(65504.0f, std::max(-65504.0f, v));
    return v;
}

// kind 0: max, 1: min, 2: sum
template <class T>
inline void whole_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                         int32_t dstRep, int32_t srcBlk, int32_t srcRep, ReduceOrder order, int kind, int line) {
    static_assert(ASC_SIM_TYPES_FLOAT(T), "WholeReduce / BlockReduce take half or float on A2");
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    src.use(api, 0, line);
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (repeat < 0 || repeat > 255) fail(api, line, "repeatTime " + str(repeat) + " is outside [0, 255]");
    std::vector<std::pair<uint32_t, float>> el;
    for (int32_t r = 0; r < repeat; ++r) {
        rep_elems<T>(api, src, uint32_t(r), {uint32_t(srcBlk), uint32_t(srcRep)}, line, el);
        if (el.empty()) continue;
        if (kind == 2) {
            float acc = 0.0f;
            for (auto& p : el) acc += p.second;
            const T v = T(acc);
            put_bytes(api, dst, uint64_t(r) * dstRep * sizeof(T), &v, sizeof(T), line);
            continue;
        }
        uint32_t bi = el[0].first;
        float bv = el[0].second;
        for (auto& p : el)
            if (kind == 0 ? p.second > bv : p.second < bv) { bv = p.second; bi = p.first; }
        const T v = T(bv), ix = index_bits<T>(bi);
        const uint64_t pair = uint64_t(r) * dstRep * 2 * sizeof(T);
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX: { T w[2] = {v, ix}; put_bytes(api, dst, pair, w, sizeof w, line); break; }
            case ReduceOrder::ORDER_INDEX_VALUE: { T w[2] = {ix, v}; put_bytes(api, dst, pair, w, sizeof w, line); break; }
            case ReduceOrder::ORDER_ONLY_VALUE: put_bytes(api, dst, uint64_t(r) * dstRep * sizeof(T), &v, sizeof v, line); break;
            default: { uint32_t u = bi; put_bytes(api, dst, uint64_t(r) * dstRep * 4, &u, 4, line); break; }
        }
    }
}

template <class T>
inline void block_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                         int32_t dstRep, int32_t srcBlk, int32_t srcRep, int kind, int line) {
    static_assert(ASC_SIM_TYPES_FLOAT(T), "WholeReduce / BlockReduce take half or float on A2");
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    src.use(api, 0, line);
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (repeat < 0 || repeat > 255) fail(api, line, "repeatTime " + str(repeat) + " is outside [0, 255]");
    const uint32_t epb = 32 / sizeof(T);
    std::vector<std::pair<uint32_t, float>> el;
    for (int32_t r = 0; r < repeat; ++r) {
        rep_elems<T>(api, src, uint32_t(r), {uint32_t(srcBlk), uint32_t(srcRep)}, line, el);
        float v[8][16];
        bool on[8][16] = {};
        for (auto& p : el) { v[p.first / epb][p.first % epb] = p.second; on[p.first / epb][p.first % epb] = true; }
        for (uint32_t b = 0; b < 8; ++b) {
            bool any = false;
            for (uint32_t e = 0; e < epb; ++e) any = any || on[b][e];
            if (!any) continue;
            float res = 0.0f;
            if (kind == 2) {
                float w[16];
                for (uint32_t e = 0; e < epb; ++e) w[e] = on[b][e] ? v[b][e] : 0.0f;
                for (uint32_t n = epb; n > 1; n /= 2)
                    for (uint32_t e = 0; e < n / 2; ++e) w[e] = add_sat<T>(w[2 * e], w[2 * e + 1]);
                res = w[0];
            } else {
                bool have = false;
                for (uint32_t e = 0; e < epb; ++e)
                    if (on[b][e] && (!have || (kind == 0 ? v[b][e] > res : v[b][e] < res))) { res = v[b][e]; have = true; }
            }
            const T t = T(res);
            put_bytes(api, dst, (uint64_t(r) * dstRep * 8 + b) * sizeof(T), &t, sizeof t, line);
        }
    }
}
}  // namespace detail

#define ASC_SIM_WHOLE(NAME, KIND)                                                                               \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],               \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,            \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        detail::whole_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, KIND, line); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                  \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,            \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_cont<T, isSetMask>(#NAME, uint64_t(mask), line);                                           \
        detail::whole_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, KIND, line); \
    }
ASC_SIM_WHOLE(WholeReduceMax, 0)
ASC_SIM_WHOLE(WholeReduceMin, 1)
#undef ASC_SIM_WHOLE

template <class T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("WholeReduceSum", mask, line);
    detail::whole_reduce("WholeReduceSum", dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                         ReduceOrder::ORDER_ONLY_VALUE, 2, line);
}
template <class T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("WholeReduceSum", uint64_t(mask), line);
    detail::whole_reduce("WholeReduceSum", dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                         ReduceOrder::ORDER_ONLY_VALUE, 2, line);
}

#define ASC_SIM_BLOCKRED(NAME, KIND)                                                                            \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,            \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,             \
                     const int32_t srcRepStride, int line = __builtin_LINE()) {                                 \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        detail::block_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, line); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,            \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride, int line = __builtin_LINE()) {                                 \
        detail::mask_cont<T, isSetMask>(#NAME, uint64_t(mask), line);                                           \
        detail::block_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, line); \
    }
ASC_SIM_BLOCKRED(BlockReduceMax, 0)
ASC_SIM_BLOCKRED(BlockReduceMin, 1)
ASC_SIM_BLOCKRED(BlockReduceSum, 2)
#undef ASC_SIM_BLOCKRED

}  // namespace AscendC

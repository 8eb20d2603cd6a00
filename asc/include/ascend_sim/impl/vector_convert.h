// ascend-sim (kernel_operator.h): Cast, Compare / CompareScalar / Select, and ReduceSum / Max / Min (count form).
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// Cast: the (src -> dst, round mode) pairs accepted on A2 (Ascend C Cast doc, table 4).
namespace detail {
template <class T> struct tcode { static constexpr int v = -1; };
template <> struct tcode<float> { static constexpr int v = 0; };
template <> struct tcode<half> { static constexpr int v = 1; };
template <> struct tcode<bfloat16_t> { static constexpr int v = 2; };
template <> struct tcode<int32_t> { static constexpr int v = 3; };
template <> struct tcode<int8_t> { static constexpr int v = 4; };
template <> struct tcode<uint8_t> { static constexpr int v = 5; };
template <> struct tcode<int16_t> { static constexpr int v = 6; };

inline bool cast_ok(int src, int dst, RoundMode m) {
    const int mi = int(m);
    const bool rint_trunc = mi >= 1 && mi <= 5;
    if (src == 1 && dst == 0) return m == RoundMode::CAST_NONE;                      // half -> float
    if (src == 2 && dst == 0) return m == RoundMode::CAST_NONE;                      // bfloat16 -> float
    if (src == 0 && dst == 1) return rint_trunc || m == RoundMode::CAST_ODD || m == RoundMode::CAST_NONE;
    if (src == 0 && dst == 2) return rint_trunc;                                     // float -> bfloat16
    if (src == 0 && dst == 0) return rint_trunc;                                     // float -> float (integral)
    if (src == 0 && dst == 3) return rint_trunc;                                     // float -> int32
    if (src == 3 && dst == 0) return rint_trunc || m == RoundMode::CAST_NONE;        // int32 -> float
    if ((src == 4 || src == 5) && dst == 1) return m == RoundMode::CAST_NONE;        // int8 / uint8 -> half
    if (src == 1 && (dst == 4 || dst == 5)) return rint_trunc || m == RoundMode::CAST_NONE;  // half -> int8 / uint8
    if (src == 6 && dst == 1) return rint_trunc || m == RoundMode::CAST_NONE;        // int16 -> half
    if (src == 6 && dst == 0) return m == RoundMode::CAST_NONE;                      // int16 -> float
    if ((src == 1 || src == 0) && dst == 6) return rint_trunc;                       // half / float -> int16
    if (src == 1 && dst == 3) return rint_trunc;                                     // half -> int32
    if (src == 3 && dst == 6) return m == RoundMode::CAST_NONE;                      // int32 -> int16
    return false;
}

inline float round_integral(float v, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_RINT: return std::nearbyint(v);
        case RoundMode::CAST_FLOOR: return std::floor(v);
        case RoundMode::CAST_CEIL: return std::ceil(v);
        case RoundMode::CAST_ROUND: return std::round(v);
        case RoundMode::CAST_TRUNC: return std::trunc(v);
        default: return v;
    }
}

template <class D> inline D convert(float v, RoundMode m);
template <> inline float convert<float>(float v, RoundMode m) { return round_integral(v, m); }
template <> inline half convert<half>(float v, RoundMode m) { return half::raw(ascend_sim::to_bits(v, int(m), 10, 5)); }
template <> inline bfloat16_t convert<bfloat16_t>(float v, RoundMode m) {
    return bfloat16_t::raw(ascend_sim::to_bits(v, int(m), 7, 8));
}
// half -> int8 / uint8: rounded by the mode (CAST_NONE: rint), out-of-range results saturate (Cast doc), NaN is 0
template <class I> inline I convert_small(float v, RoundMode m) {
    float r = round_integral(v, m == RoundMode::CAST_NONE ? RoundMode::CAST_RINT : m);
    if (std::isnan(r)) return 0;
    if (r > float(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    if (r < float(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    return I(r);
}
template <> inline int8_t convert<int8_t>(float v, RoundMode m) { return convert_small<int8_t>(v, m); }
template <> inline uint8_t convert<uint8_t>(float v, RoundMode m) { return convert_small<uint8_t>(v, m); }
// int16: as int8 (rounded by the mode, saturating; int32 -> int16 saturates too, its values exact in float there)
template <> inline int16_t convert<int16_t>(float v, RoundMode m) { return convert_small<int16_t>(v, m); }
template <> inline int32_t convert<int32_t>(float v, RoundMode m) {
    float r = round_integral(v, m);
    if (std::isnan(r)) return 0;
    if (r >= 2147483648.0f) return INT32_MAX;
    if (r < -2147483648.0f) return INT32_MIN;
    return int32_t(r);
}
}  // namespace detail

template <class T, class U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t count, int line = __builtin_LINE()) {
    static const char* names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                  "CAST_ODD"};
    if (!detail::cast_ok(detail::tcode<U>::v, detail::tcode<T>::v, round_mode))
        fail("Cast", line, std::string("Cast ") + type_name<U>::get() + " -> " + type_name<T>::get() +
             " does not accept RoundMode::" + names[int(round_mode)] + " on Ascend910B (A2)");
    detail::reading("Cast", src, int32_t(count), line);
    detail::writing("Cast", dst, int32_t(count), line);
    detail::same_or_apart("Cast", dst, int32_t(count), src, int32_t(count), line);
    std::vector<float> tmp(count);
    const U* s = src.ptr();
    for (uint32_t i = 0; i < count; ++i) tmp[i] = float(s[i]);
    T* d = dst.ptr();
    for (uint32_t i = 0; i < count; ++i) d[i] = detail::convert<T>(tmp[i], round_mode);
    detail::done(dst, int32_t(count));
}

// Compare / Select: the mask is one bit per element, little-endian (element i -> byte i / 8, bit i % 8).
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

namespace detail {
template <class A> inline bool cmp(A a, A b, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

template <class T, class U, class F>
inline void compare(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, uint32_t count, int line,
                    F rhs, CMPMODE mode) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, int32_t>::value,
                  "Compare / CompareScalar take half, float or int32_t (CMPMODE::EQ only) on A2");
    if (std::is_same<T, int32_t>::value && mode != CMPMODE::EQ)
        fail(api, line, "int32_t takes CMPMODE::EQ only on A2");
    if ((uint64_t(count) * sizeof(T)) % 256)
        fail(api, line, "count " + str(count) + " x " + str(sizeof(T)) + " B is not a multiple of 256 B");
    reading(api, src0, int32_t(count), line);
    writing(api, dst, int32_t((count + 7) / 8 / sizeof(U)), line);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr());
    std::memset(d, 0, count / 8);
    const T* a = src0.ptr();
    for (uint32_t i = 0; i < count; ++i)
        if (cmp(ld(a[i]), rhs(i), mode)) d[i / 8] |= uint8_t(1u << (i % 8));
    dst.mark_written(0, count / 8 / sizeof(U));
    ascend_sim::note(ascend_sim::cur->pendingV, dst.addr_, count / 8);
    dst.vector_writes(0, count / 8);
}
}  // namespace detail

template <class T, class U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count, int line = __builtin_LINE()) {
    detail::reading("Compare", src1, int32_t(count), line);
    const T* b = src1.ptr();
    detail::compare("Compare", dst, src0, count, line, [b](uint32_t i) { return detail::ld(b[i]); }, cmpMode);
}

template <class T, class U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count, int line = __builtin_LINE()) {
    const auto s = detail::ld(src1Scalar);
    detail::compare("CompareScalar", dst, src0, count, line, [s](uint32_t) { return s; }, cmpMode);
}

template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, int line = __builtin_LINE()) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "Select takes half or float");
    if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE) fail("Select", line, "only VSEL_TENSOR_TENSOR_MODE is emulated");
    {
        auto& c = ascend_sim::ctx("Select", line);
        if (c.usedMem[0] + ascend_sim::SELECT_SCRATCH > ascend_sim::UB_SIZE)
            fail("Select", line, "Select (VSEL_TENSOR_TENSOR_MODE) needs " + str(ascend_sim::SELECT_SCRATCH) +
                 " B of Unified Buffer reserved as its temporary space on A2, but InitBuffer has handed out " +
                 str(c.usedMem[0]) + " B of the " + str(ascend_sim::UB_SIZE) + " B (at most " +
                 str(ascend_sim::UB_SIZE - ascend_sim::SELECT_SCRATCH) + " B with Select)");
    }
    detail::reading("Select", src0, int32_t(count), line);
    detail::reading("Select", src1, int32_t(count), line);
    selMask.use("Select", (count + 7) / 8 / sizeof(U), line);
    selMask.check_written("Select", 0, (count + 7) / 8 / sizeof(U), line);
    selMask.vector_reads("Select", 0, (count + 7) / 8, line);
    detail::writing("Select", dst, int32_t(count), line);
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.ptr());
    const T* a = src0.ptr();
    const T* b = src1.ptr();
    std::vector<T> r(count);
    for (uint32_t i = 0; i < count; ++i) r[i] = ((m[i / 8] >> (i % 8)) & 1) ? a[i] : b[i];
    std::memcpy(dst.ptr(), r.data(), count * sizeof(T));
    detail::done(dst, int32_t(count));
}

// Reductions (count form) with a work tensor of the documented size.
namespace detail {
template <class T> inline uint32_t reduce_work_elems(int32_t count, bool isMax) {
    int32_t per = int32_t(256 / sizeof(T));
    int32_t first = std::max<int32_t>(1, count / per);
    int32_t blk = int32_t(32 / sizeof(T));
    uint32_t w = uint32_t((first + blk - 1) / blk * blk);
    return isMax ? 2 * w : w;
}

template <class T, class F>
inline void reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                   int32_t count, bool isMax, int line, F f) {
    vec_check<T>(api);
    if (count <= 0) fail(api, line, "count must be positive");
    reading(api, src, count, line);
    writing(api, dst, 1, line);
    const uint32_t need = reduce_work_elems<T>(count, isMax);
    work.use(api, 0, line);
    if (work.size_ < need)
        fail(api, line, "the work tensor has " + str(work.size_) + " elements, " + str(need) + " are needed for count " +
             str(count));
    const T* s = src.ptr();
    float acc = 0.0f;
    if (isMax) {                                   // the extreme value does not depend on the order
        acc = ld(s[0]);
        for (int32_t i = 1; i < count; ++i) acc = f(acc, ld(s[i]));
    } else {
        // A2's count-form ReduceSum (asc-devkit dav_c220 ReduceSumImpl: one vcadd in counter mode into the
        // accumulator; ReduceSum.md's key features: the first of its ways for the count interface on Atlas A2):
        // each repeat of 256 B summed as a binary tree of adjacent pairs, the repeats' sums added in repeat order
        const int32_t per = int32_t(256 / sizeof(T));
        float lanes[128];
        for (int32_t r = 0; r * per < count; ++r) {
            const int32_t n = std::min(per, count - r * per);
            for (int32_t i = 0; i < n; ++i) lanes[i] = ld(s[r * per + i]);
            const float part = tree_sum(lanes, n, per);
            acc = r == 0 ? part : acc + part;
        }
    }
    work.mark_written(0, need);
    dst.ptr()[0] = st<T>(acc);
    done(dst, 1);
}
}  // namespace detail

template <class T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                      const int32_t count, int line = __builtin_LINE()) {
    // summed as the NPU adds it (detail::reduce): a binary tree inside each 256-byte repeat, the repeats in order;
    // each addition rounds to float (also for half: the docs do not say how the vector unit rounds half partials)
    detail::reduce("ReduceSum", dst, src, work, count, false, line, [](float a, float b) { return a + b; });
}

namespace detail {
// calIndex: dst[1] holds the index of the first element equal to the result dst[0], an integer in the bits of T
// (uint16_t for half, uint32_t for float; the docs: a half index is at most 65535)
template <class T>
inline void reduce_index(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count, int line) {
    if (sizeof(T) == 2 && count > 65536) fail(api, line, "calIndex with half: an index above 65535 has no uint16_t");
    writing(api, dst, 2, line);
    const float best = float(dst.ptr()[0]);
    int32_t at = 0;
    while (at < count - 1 && float(src.ptr()[at]) != best) ++at;
    dst.ptr()[1] = index_bits<T>(uint32_t(at));
    done(dst, 2);
}
}  // namespace detail

template <class T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                      const int32_t count, bool calIndex = false, int line = __builtin_LINE()) {
    detail::reduce("ReduceMax", dst, src, work, count, true, line,
                   [](float a, float b) { return (std::isnan(a) || a >= b) ? a : b; });
    if (calIndex) detail::reduce_index("ReduceMax", dst, src, count, line);
}

template <class T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                      const int32_t count, bool calIndex = false, int line = __builtin_LINE()) {
    detail::reduce("ReduceMin", dst, src, work, count, true, line,
                   [](float a, float b) { return (std::isnan(a) || a <= b) ? a : b; });
    if (calIndex) detail::reduce_index("ReduceMin", dst, src, count, line);
}

}  // namespace AscendC

// ascend-sim (kernel_operator.h): AddRelu / SubRelu, And / Or / Not, ShiftLeft / ShiftRight.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// ------------------------------------------------------------------ AddRelu / SubRelu, And / Or / Not, ShiftLeft / ShiftRight
// Count and repeat forms. The A2 type lists of the asc-devkit docs: AddRelu / SubRelu int16_t, half, float (relu of
// the sum / difference); And / Or / Not int16_t, uint16_t; ShiftLeft / ShiftRight int16_t, uint16_t, int32_t, uint32_t
// with a shift in [0, 16] (16-bit) or [0, 32] (32-bit). Unsigned types shift logically; signed ones arithmetically:
// ShiftRight copies the sign bit in, ShiftLeft keeps the sign bit and drops the bit below it (the docs' example: the
// int16_t 1010101010101010 << 1 is 1101010101010100).
#define ASC_SIM_TYPES_ADDRELU(T) detail::one_of<T, half, float, int16_t>()
#define ASC_SIM_TYPES_BITS(T) detail::one_of<T, int16_t, uint16_t>()
#define ASC_SIM_TYPES_SHIFT(T) detail::one_of<T, int16_t, uint16_t, int32_t, uint32_t>()

namespace detail {
// dst[i] = f(src_0[i], ..., src_{N-1}[i]) for i < count (the count form; the element types are the API's to check)
template <class T, int N, class F>
inline void elementwise(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>* const* src, int32_t count,
                        int line, F f) {
    for (int i = 0; i < N; ++i) reading(api, *src[i], count, line);
    writing(api, dst, count, line);
    for (int i = 0; i < N; ++i) same_or_apart(api, dst, count, *src[i], count, line);
    T* d = dst.ptr();
    for (int32_t k = 0; k < count; ++k) {
        T v[N];
        for (int i = 0; i < N; ++i) v[i] = src[i]->ptr()[k];
        d[k] = f(v);
    }
    done(dst, count);
}
template <class T> inline T shift_left(T x, T s) {
    using U = typename std::make_unsigned<T>::type;
    const U r = U(uint64_t(U(x)) << uint64_t(s));
    if (!std::is_signed<T>::value) return T(r);
    const U sign = U(U(1) << (sizeof(T) * 8 - 1));
    return T(U((r & U(~sign)) | (U(x) & sign)));
}
template <class T> inline T shift_right(T x, T s) {
    if (std::is_signed<T>::value) return T(int64_t(x) >> int64_t(s));
    return T(uint64_t(x) >> uint64_t(s));
}
template <class T> inline void shift_range(const char* api, T s, int line) {
    if (int64_t(s) < 0 || int64_t(s) > int64_t(sizeof(T) * 8))
        fail(api, line, "the shift " + str(int64_t(s)) + " is outside [0, " + str(sizeof(T) * 8) + "] for " +
             str(sizeof(T) * 8) + "-bit elements");
}
}  // namespace detail

#define ASC_SIM_BIN2(NAME, TYPES, EXPR)                                                                         \
    template <class T>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        const LocalTensor<T>* s[2] = {&src0, &src1};                                                            \
        detail::elementwise<T, 2>(#NAME, dst, s, count, line, [](const T* v) {                                  \
            auto x = detail::ld(v[0]), y = detail::ld(v[1]); return detail::st<T>(EXPR); });                    \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                           const uint8_t repeatTime, const BinaryRepeatParams& p, int line) {                   \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
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
        NAME##_rep<T, isSetMask>(dst, src0, src1, repeatTime, p, line);                                         \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p,                      \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src0, src1, repeatTime, p, line);                                         \
    }
ASC_SIM_BIN2(AddRelu, ASC_SIM_TYPES_ADDRELU, (x + y) > 0 ? (x + y) : decltype(x + y)(0))
ASC_SIM_BIN2(SubRelu, ASC_SIM_TYPES_ADDRELU, (x - y) > 0 ? (x - y) : decltype(x - y)(0))
ASC_SIM_BIN2(And, ASC_SIM_TYPES_BITS, x & y)
ASC_SIM_BIN2(Or, ASC_SIM_TYPES_BITS, x | y)
#undef ASC_SIM_BIN2

template <class T>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, int line = __builtin_LINE()) {
    static_assert(ASC_SIM_TYPES_BITS(T), "Not: this element type is not one the API takes on A2 (asc-devkit's list)");
    const LocalTensor<T>* s[1] = {&src};
    detail::elementwise<T, 1>("Not", dst, s, count, line, [](const T* v) { return T(~v[0]); });
}
template <class T, bool isSetMask = true>
inline void Not_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                    const UnaryRepeatParams& p, int line) {
    static_assert(ASC_SIM_TYPES_BITS(T), "Not: this element type is not one the API takes on A2 (asc-devkit's list)");
    const LocalTensor<T>* s[1] = {&src};
    const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};
    detail::repeat_op<T, T, 1>("Not", dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,
                               [](const T* v, T) { return T(~v[0]); });
}
template <class T, bool isSetMask = true>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Not", mask, line);
    Not_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}
template <class T, bool isSetMask = true>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,
                const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Not", mask, line);
    Not_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}

#define ASC_SIM_SHIFT(NAME, FN)                                                                                 \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(ASC_SIM_TYPES_SHIFT(T), #NAME ": this element type is not one the API takes on A2");     \
        detail::shift_range(#NAME, scalarValue, line);                                                          \
        const T s = scalarValue;                                                                                \
        const LocalTensor<T>* sr[1] = {&src};                                                                   \
        detail::elementwise<T, 1>(#NAME, dst, sr, count, line, [s](const T* v) { return detail::FN(v[0], s); }); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,          \
                           const uint8_t repeatTime, const UnaryRepeatParams& p, int line) {                    \
        static_assert(ASC_SIM_TYPES_SHIFT(T), #NAME ": this element type is not one the API takes on A2");     \
        detail::shift_range(#NAME, scalarValue, line);                                                          \
        const T s = scalarValue;                                                                                \
        const LocalTensor<T>* sr[1] = {&src};                                                                   \
        const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};                                        \
        detail::repeat_op<T, T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, sr, ss, repeatTime, line,      \
                                   [s](const T* v, T) { return detail::FN(v[0], s); });                         \
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
ASC_SIM_SHIFT(ShiftLeft, shift_left)
ASC_SIM_SHIFT(ShiftRight, shift_right)
#undef ASC_SIM_SHIFT

}  // namespace AscendC

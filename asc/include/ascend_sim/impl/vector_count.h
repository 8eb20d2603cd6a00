// ascend-sim (kernel_operator.h): the vector instructions' count form.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// ------------------------------------------------------------------ vector instructions (count form)

namespace detail {
// the arithmetic type of an element: integers exactly (int64_t, wrapped back to T on the store, as the vector unit
// wraps), half and float in float
template <class T> using acc_t = typename std::conditional<std::is_integral<T>::value, int64_t, float>::type;
template <class T> inline acc_t<T> ld(T v) { return acc_t<T>(v); }
template <class T, class A> inline T st(A v) { return T(v); }
template <class T> inline bool nan_of(T v) { return v != v; }

// the sum of v[0..n) as the vector unit's in-repeat reduction adds it (asc-devkit ReduceDataBlock.md, its key
// features: a binary tree, element 2i with element 2i+1, then those sums pairwise, and so on) over `width` lanes (a
// power of two, n <= width); a lane past n is inactive (masked off) and a pair with one active lane passes that
// lane's value on. Each addition rounds to float. v is overwritten.
inline float tree_sum(float* v, int32_t n, int32_t width) {
    if (n <= 0) return 0.0f;
    while (width > 1) {
        const int32_t half_w = width / 2;
        int32_t m = 0;
        for (int32_t i = 0; i < half_w; ++i) {
            if (2 * i + 1 < n) v[i] = v[2 * i] + v[2 * i + 1];
            else if (2 * i < n) v[i] = v[2 * i];
            else break;
            m = i + 1;
        }
        n = m;
        width = half_w;
    }
    return v[0];
}

// the element types an API takes on A2 (910B), as the asc-devkit headers' dtype checks list them: a kernel that
// instantiates an API for another type does not compile for the NPU, so it does not compile here either
template <class T, class... U> constexpr bool one_of() { return (std::is_same<T, U>::value || ...); }
#define ASC_SIM_TYPES_ARITH(T) detail::one_of<T, half, float, int16_t, int32_t>()
#define ASC_SIM_TYPES_FLOAT(T) detail::one_of<T, half, float>()
#define ASC_SIM_TYPES_RELU(T) detail::one_of<T, half, float, int32_t>()

template <class T> inline void vec_check(const char* api) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, int32_t>::value ||
                  std::is_same<T, int16_t>::value, "vector instructions take half, float, int16_t or int32_t on A2 "
                  "(bfloat16_t must be Cast to float first)");
    (void)api;
}

template <class T> inline void reading(const char* api, const LocalTensor<T>& t, int32_t count, int line) {
    if (count < 0) fail(api, line, "negative count");
    t.use(api, uint64_t(count), line);
    t.check_written(api, 0, uint64_t(count), line);
    t.vector_reads(api, 0, uint64_t(count) * sizeof(T), line);
    if (ascend_sim::cur->pendingS)
        fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
}
template <class T> inline void writing(const char* api, const LocalTensor<T>& t, int32_t count, int line) {
    if (count < 0) fail(api, line, "negative count");
    t.use(api, uint64_t(count), line);
}
template <class T> inline void done(const LocalTensor<T>& t, int32_t count) {
    t.mark_written(0, uint64_t(count));
    ascend_sim::note(ascend_sim::cur->pendingV, t.addr_, uint64_t(count) * sizeof(T));
    t.vector_writes(0, uint64_t(count) * sizeof(T));
}
template <class A, class B> inline void same_or_apart(const char* api, const LocalTensor<A>& d, int32_t dn,
                                                      const LocalTensor<B>& s, int32_t sn, int line) {
    uint64_t d0 = d.addr_, d1 = d0 + uint64_t(dn) * sizeof(A), s0 = s.addr_, s1 = s0 + uint64_t(sn) * sizeof(B);
    if (d0 != s0 && d0 < s1 && s0 < d1)
        fail(api, line, "dst and src overlap without being the same address (only 100% overlap is allowed)");
}

template <class T, class F>
inline void binary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                   int32_t count, int line, F f) {
    vec_check<T>(api);
    reading(api, a, count, line);
    reading(api, b, count, line);
    writing(api, dst, count, line);
    same_or_apart(api, dst, count, a, count, line);
    same_or_apart(api, dst, count, b, count, line);
    T* d = dst.ptr(); const T* x = a.ptr(); const T* y = b.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
    done(dst, count);
}

template <class T, class F>
inline void unary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count, int line, F f) {
    vec_check<T>(api);
    reading(api, a, count, line);
    writing(api, dst, count, line);
    same_or_apart(api, dst, count, a, count, line);
    T* d = dst.ptr(); const T* x = a.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = f(x[i]);
    done(dst, count);
}

template <class T> inline T fl(T x, float (*g)(float)) { return st<T>(g(ld(x))); }
}  // namespace detail

#define ASC_SIM_BINARY(NAME, TYPES, EXPR)                                                                       \
    template <class T>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        detail::binary(#NAME, dst, src0, src1, count, line, [](T x0, T y0) {                                    \
            auto x = detail::ld(x0), y = detail::ld(y0); return detail::st<T>(EXPR); });                        \
    }
ASC_SIM_BINARY(Add, ASC_SIM_TYPES_ARITH, x + y)
ASC_SIM_BINARY(Sub, ASC_SIM_TYPES_ARITH, x - y)
ASC_SIM_BINARY(Mul, ASC_SIM_TYPES_ARITH, x * y)
ASC_SIM_BINARY(Div, ASC_SIM_TYPES_FLOAT, x / y)
ASC_SIM_BINARY(Max, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x > y ? x : y)
ASC_SIM_BINARY(Min, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x < y ? x : y)
#undef ASC_SIM_BINARY

#define ASC_SIM_SCALAR(NAME, EXPR)                                                                              \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(ASC_SIM_TYPES_ARITH(T), #NAME ": this element type is not one the API takes on A2");      \
        const auto s = detail::ld(scalarValue);                                                                 \
        detail::unary(#NAME, dst, src, count, line, [s](T x0) { auto x = detail::ld(x0); return detail::st<T>(EXPR); }); \
    }
ASC_SIM_SCALAR(Adds, x + s)
ASC_SIM_SCALAR(Muls, x * s)
ASC_SIM_SCALAR(Maxs, detail::nan_of(x) || x > s ? x : s)
ASC_SIM_SCALAR(Mins, detail::nan_of(x) || x < s ? x : s)
#undef ASC_SIM_SCALAR

// LeakyRelu (count form): x >= 0 ? x : x * scalarValue, of half or float
template <class T, bool isSetMask = true>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,
                      const int32_t& count, int line = __builtin_LINE()) {
    static_assert(ASC_SIM_TYPES_FLOAT(T), "LeakyRelu: this element type is not one the API takes on A2 (half, float)");
    const auto s = detail::ld(scalarValue);
    detail::unary("LeakyRelu", dst, src, count, line, [s](T x0) {
        auto x = detail::ld(x0); return detail::st<T>(x >= 0 ? x : x * s); });
}

#define ASC_SIM_UNARY(NAME, TYPES, EXPR)                                                                        \
    template <class T>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,                \
                     int line = __builtin_LINE()) {                                                             \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        detail::unary(#NAME, dst, src, count, line, [](T x) { auto v = detail::ld(x); return detail::st<T>(EXPR); }); \
    }
ASC_SIM_UNARY(Exp, ASC_SIM_TYPES_FLOAT, std::exp(v))
ASC_SIM_UNARY(Ln, ASC_SIM_TYPES_FLOAT, std::log(v))
ASC_SIM_UNARY(Abs, ASC_SIM_TYPES_FLOAT, std::fabs(v))
ASC_SIM_UNARY(Reciprocal, ASC_SIM_TYPES_FLOAT, 1.0f / v)
ASC_SIM_UNARY(Sqrt, ASC_SIM_TYPES_FLOAT, std::sqrt(v))
ASC_SIM_UNARY(Rsqrt, ASC_SIM_TYPES_FLOAT, 1.0f / std::sqrt(v))
ASC_SIM_UNARY(Relu, ASC_SIM_TYPES_RELU, v > 0 ? v : (detail::nan_of(v) ? v : decltype(v)(0)))
#undef ASC_SIM_UNARY

template <class T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count, int line = __builtin_LINE()) {
    detail::writing("Duplicate", dst, count, line);
    T* d = dst.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = scalarValue;
    detail::done(dst, count);
}

}  // namespace AscendC

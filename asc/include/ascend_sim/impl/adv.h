// ascend-sim (kernel_operator.h): SoftMax, the advanced math APIs (Tanh, Erf, ...), printf and DumpTensor.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

// SoftMax (the advanced API, last axis): for each of the M rows of K elements, max = max_k x, sum = sum_k
// exp(x - max) (added in the order of Huawei's implementation: detail::softmax_row_sum), dst = exp(x - max) / sum,
// computed in float; sumTensor and maxTensor hold each row's value repeated over one 32-byte block (8 floats / 16
// halves). The shape is softmaxShapeInfo's (srcM, srcK) or, where that is zero, the src tensor's ShapeInfo (the last
// axis is K). The SoftMaxTiling the host computes for the NPU's internal split is not used here (the result does not
// depend on it: rows are independent, and one row or several reduce their 64 lanes in the same tree). CANN declares
// it where its generated kernel_tiling.h does: AscendC::tiling::SoftMaxTiling, exported to the global scope
// (`SoftMaxTiling`, the name kernels use); `AscendC::SoftMaxTiling` is not a name there, so it is none here.
namespace tiling {
struct SoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0,
             splitSize = 0, reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0,
             tailReduceSize = 0;
};
}  // namespace tiling
}  // namespace AscendC
using AscendC::tiling::SoftMaxTiling;
namespace AscendC {
struct SoftMaxShapeInfo {
    uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};

namespace detail {
// A row's sum of exponentials in the order Huawei's SoftMax adds it on A2 (asc-devkit NewReduceSumLastNDImpl, float
// lanes of 64 per repeat): a row shorter than 64 is one WholeReduceSum (a tree over its elements); otherwise 64 lane
// partials t[l], then the tail's elements into the first lanes (one masked Add), then a tree over the 64 lanes
// (BlockReduceSum twice, or WholeReduceSum for one row: the same tree). The partials: for K >= 512, t[l] the tree of
// elements 8l..8l+7 (BlockReduceSum over the first 512) and each further repeat of 64 added in order; for 128 <= K <
// 512, x[l] + x[64 + l] and the further repeats in order; for 64 <= K < 128, the first repeat itself.
inline float softmax_row_sum(const float* e, uint64_t K) {
    float t[64];
    if (K < 64) {
        for (uint64_t l = 0; l < K; ++l) t[l] = e[l];
        return tree_sum(t, int32_t(K), 64);
    }
    const uint64_t reps = K / 64, tail = K % 64;
    if (K >= 512) {
        float blk[8];
        for (uint64_t l = 0; l < 64; ++l) {
            for (int j = 0; j < 8; ++j) blk[j] = e[8 * l + j];
            t[l] = tree_sum(blk, 8, 8);
        }
        for (uint64_t r = 8; r < reps; ++r)
            for (uint64_t l = 0; l < 64; ++l) t[l] = e[64 * r + l] + t[l];
    } else if (K >= 128) {
        for (uint64_t l = 0; l < 64; ++l) t[l] = e[l] + e[64 + l];
        for (uint64_t r = 2; r < reps; ++r)
            for (uint64_t l = 0; l < 64; ++l) t[l] = t[l] + e[64 * r + l];
    } else {
        for (uint64_t l = 0; l < 64; ++l) t[l] = e[l];
    }
    for (uint64_t l = 0; l < tail; ++l) t[l] = t[l] + e[64 * reps + l];
    return tree_sum(t, 64, 64);
}
}  // namespace detail

template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& src, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& si = {},
                    int line = __builtin_LINE()) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "SoftMax takes half or float");
    static_assert(!isDataFormatNZ, "ascend-sim emulates SoftMax on ND data");
    (void)tiling;
    const char* api = "SoftMax";
    uint64_t M = si.srcM, K = si.srcK;
    if (M == 0 || K == 0) {
        const ShapeInfo& sh = src.shape_;
        if (sh.shapeDim == 0)
            fail(api, line, "the src tensor has no ShapeInfo (SetShapeInfo) and no SoftMaxShapeInfo was given: the "
                 "row length is unknown");
        K = sh.shape[sh.shapeDim - 1];
        M = 1;
        for (int i = 0; i + 1 < sh.shapeDim; ++i) M *= sh.shape[i];
    }
    if ((K * sizeof(T)) % 32)
        fail(api, line, "the last axis, " + str(K) + " x " + str(sizeof(T)) + " B, is not a multiple of 32 B");
    const uint64_t epb = 32 / sizeof(T);
    detail::reading(api, src, int32_t(M * K), line);
    detail::writing(api, dst, int32_t(M * K), line);
    detail::writing(api, sumTensor, int32_t(M * epb), line);
    detail::writing(api, maxTensor, int32_t(M * epb), line);
    detail::same_or_apart(api, dst, int32_t(M * K), src, int32_t(M * K), line);
    std::vector<float> row(K);
    for (uint64_t m = 0; m < M; ++m) {
        const T* x = src.ptr() + m * K;
        float mx = -INFINITY;
        for (uint64_t k = 0; k < K; ++k) {          // a NaN in the row makes the row NaN (as numpy.max)
            row[k] = float(x[k]);
            if (std::isnan(row[k]) || std::isnan(mx)) mx = NAN;
            else if (row[k] > mx) mx = row[k];
        }
        for (uint64_t k = 0; k < K; ++k) row[k] = std::exp(row[k] - mx);
        const float sum = detail::softmax_row_sum(row.data(), K);
        T* d = dst.ptr() + m * K;
        for (uint64_t k = 0; k < K; ++k) d[k] = T(row[k] / sum);
        for (uint64_t j = 0; j < epb; ++j) {
            sumTensor.ptr()[m * epb + j] = T(sum);
            maxTensor.ptr()[m * epb + j] = T(mx);
        }
    }
    detail::done(dst, int32_t(M * K));
    detail::done(sumTensor, int32_t(M * epb));
    detail::done(maxTensor, int32_t(M * epb));
}

// Advanced math APIs: (dst, src, sharedTmpBuffer, calCount). asc sizes the temporary buffer as
// ascend_sim::adv_tmp_bytes(count) (see docs/ascend.md); it must not overlap src or dst.
namespace detail {
// at least 3 * 32 floats: Huawei's Erf / Sin / Cos work in chunks of tmp / 4 / 3 floats rounded down to 32 and abort
// on none (asc/backends/ascend/soc.py ADV_MIN_BYTES)
inline uint64_t adv_tmp_bytes(uint32_t count, uint32_t typeSize) {
    const uint64_t b = uint64_t(count) * typeSize * 2 + 256;
    return b > 384 ? b : 384;
}

template <class T, class F>
inline void adv(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                uint32_t count, int line, F f) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value,
                  "advanced math APIs take half or float on A2");
    tmp.use(api, 0, line);
    const uint64_t need = adv_tmp_bytes(count, sizeof(T));
    if (tmp.size_ < need)
        fail(api, line, "sharedTmpBuffer has " + str(tmp.size_) + " B, " + str(need) + " B are needed for " +
             str(count) + " elements");
    // the Ascend C docs of every advanced API emulated here (Tanh, Sigmoid, Erf, Sin, Cos, Floor, Ceil): source and
    // destination must not overlap at all -- in place (dst == src) included, unlike the basic vector APIs
    {
        uint64_t d0 = dst.addr_, d1 = d0 + uint64_t(count) * sizeof(T), s0 = src.addr_, s1 = s0 + uint64_t(count) * sizeof(T);
        if (count && d0 < s1 && s0 < d1)
            fail(api, line, std::string(d0 == s0 ? "in place (dst == src): " : "dst and src overlap: ") + api +
                 " does not support a destination that overlaps its source (use a separate buffer)");
    }
    uint64_t t0 = tmp.addr_, t1 = t0 + tmp.size_;
    for (auto* r : {&src, &dst}) {
        uint64_t a0 = r->addr_, a1 = a0 + uint64_t(count) * sizeof(T);
        if (a0 < t1 && t0 < a1) fail(api, line, "sharedTmpBuffer overlaps src or dst");
    }
    unary(api, dst, src, int32_t(count), line, f);
    std::memset(tmp.ptr(), 0xFF, size_t(need));     // scratch contents are undefined after
}
}  // namespace detail

#define ASC_SIM_ADV(NAME, EXPR)                                                                                 \
    template <class T, bool isReuseSource = false>                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const uint32_t calCount, int line = __builtin_LINE()) {                                    \
        detail::adv(#NAME, dst, src, sharedTmpBuffer, calCount, line,                                           \
                    [](T x) { float v = detail::ld(x); return detail::st<T>(EXPR); });                          \
    }
ASC_SIM_ADV(Tanh, std::tanh(v))
ASC_SIM_ADV(Sigmoid, 1.0f / (1.0f + std::exp(-v)))
ASC_SIM_ADV(Erf, std::erf(v))
ASC_SIM_ADV(Sin, std::sin(v))
ASC_SIM_ADV(Cos, std::cos(v))
ASC_SIM_ADV(Floor, std::floor(v))
ASC_SIM_ADV(Ceil, std::ceil(v))
ASC_SIM_ADV(Exp, std::exp(v))
#undef ASC_SIM_ADV

// printf / DumpTensor: the kernel's output on the host's stdout (flushed at each call, so that it stays in order with
// the host's own output). DumpTensor prints its desc, the element type, the position and dumpSize elements.
namespace detail {
template <class V> inline auto print_arg(V v) {
    if constexpr (std::is_same<V, half>::value || std::is_same<V, bfloat16_t>::value) return double(float(v));
    else if constexpr (std::is_floating_point<V>::value) return double(v);
    else if constexpr (std::is_same<V, bool>::value) return int(v);
    else return v;
}
}  // namespace detail
template <class... A> inline void printf(const char* fmt, A... args) {
    ascend_sim::ctx("printf", 0);
    std::printf(fmt, detail::print_arg(args)...);
    std::fflush(stdout);
}
template <class T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, int line = __builtin_LINE()) {
    t.use("DumpTensor", dumpSize, line);
    t.check_written("DumpTensor", 0, dumpSize, line);
    std::string out = "DumpTensor: desc=" + std::to_string(desc) + ", dtype=" + type_name<T>::get() +
                      ", position=" + std::to_string(int(t.pos_)) + ", size=" + std::to_string(dumpSize) + ": [";
    char buf[64];
    for (uint32_t i = 0; i < dumpSize; ++i) {
        std::snprintf(buf, sizeof buf, i ? ", %g" : "%g", double(detail::print_arg(t.ptr()[i])));
        out += buf;
    }
    std::printf("%s]\n", out.c_str());
    std::fflush(stdout);
}

}  // namespace AscendC

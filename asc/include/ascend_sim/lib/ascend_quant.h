// ascend-sim: AscendC::AscendQuant, the per-tensor quantization of the advanced API (int8_t output), on the CPU.
//
// AscendQuant<T, isReuseSource, config>(dst, src[, sharedTmpBuffer], scale, offset[, calCount]) with dst int8_t and
// T half or float, as the Ascend C docs describe it for A2 (910B) and as its v220 implementation computes it, in
// chunks of the temporary buffer, all on the vector unit:
//   1. src of float is Cast to half (CAST_NONE: round to nearest even); scale and offset are static_cast to half;
//   2. Muls: t = half(x * scale);  3. Adds: t = half(t + offset)  (each result rounded to half, to nearest even);
//   4. Cast half -> int8_t with CAST_NONE: rounded to nearest even, out-of-range values saturate to [-128, 127].
// Each step is the ascend-sim instruction of the same name, so the result is what a kernel writing the four calls
// itself gets (half overflow: ascend-sim's half, as its Cast/Muls/Adds; NaN -> 0 as its Cast).
//
// config (AscendQuantConfig {calcCount, offsetCount, scaleCount, workLocalSize}): when calcCount and workLocalSize
// are both non-zero, the implementation uses them as compile-time constants: it computes config.calcCount elements
// (whatever calCount says) in chunks of workLocalSize / 2 halves rounded down to 32; otherwise calCount elements in
// chunks of sharedTmpBuffer.GetSize() / 2 rounded down to 32. Chunk by chunk as the NPU, so a dst that overlaps src
// gives the NPU's result (the docs allow src and dst to be the same buffer).
//
// The rules, each a violation naming AscendQuant, the rule and the line:
//   - sharedTmpBuffer smaller than 512 B (GetAscendQuantMaxMinTmpSize's minimum: 2 x 256 B, "the temporary space
//     must not be smaller than the minimum for a correct result"); config.workLocalSize non-zero and below 512 B or
//     above sharedTmpBuffer's size;
//   - calCount or config.calcCount above src's or dst's size; the one used not 32-byte aligned for the int8_t
//     output (the docs: the data length each operand takes part in the computation with is 32 B aligned);
//   - the temporary space the call uses overlapping src or dst; operands not in the Unified Buffer, not 32-byte
//     aligned, unwritten source elements and the pipe synchronization of every vector instruction.
// The form without sharedTmpBuffer takes the framework's space (PopStackBuffer on the NPU), not checked here.
// T other than half / float and a dst other than int8_t do not compile, as for the NPU. isReuseSource is reserved
// (asc-devkit logs that true "may not be effective"): it changes nothing.
// This header is part of asc; the API names and parameter lists follow the Ascend C docs (asc-devkit).
#pragma once

#include "kernel_operator.h"

namespace ascend_sim {
// the caller's line, as the last parameter of an overload set whose forms differ by a trailing count: explicit, so
// that a count never binds to it
struct CallLine {
    int v;
    explicit constexpr CallLine(int l) : v(l) {}
};
}  // namespace ascend_sim

namespace AscendC {

struct AscendQuantConfig {
    constexpr AscendQuantConfig(const uint32_t calcCount_, const uint32_t offsetCount_, const uint32_t scaleCount_,
                                const uint32_t workLocalSize_)
        : calcCount(calcCount_), offsetCount(offsetCount_), scaleCount(scaleCount_), workLocalSize(workLocalSize_) {}
    uint32_t calcCount = 0;
    uint32_t offsetCount = 0;
    uint32_t scaleCount = 0;
    uint32_t workLocalSize = 0;
};

constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

namespace detail {
constexpr uint32_t QUANT_MIN_TMP_BYTES = 2 * 256;   // GetAscendQuantMaxMinTmpSize: minValue

template <class T>
inline void ascend_quant(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
                         const float scale, const float offset, uint32_t calCount, const AscendQuantConfig& config,
                         int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                  "AscendQuant (int8_t output) takes a src of half or float");
    const char* api = "AscendQuant";
    ascend_sim::BlockCtx& c = ascend_sim::ctx(api, line);
    if (c.coreType == 1) return;                          // ASCEND_IS_AIC: the vector API returns on the cube core
    src.use(api, 0, line);
    dst.use(api, 0, line);
    const bool constant = config.calcCount != 0 && config.workLocalSize != 0;
    uint64_t tmpBytes = 0;
    if (tmp != nullptr) {
        tmp->use(api, 0, line);
        tmpBytes = tmp->GetSize();
        if (tmpBytes < QUANT_MIN_TMP_BYTES)
            fail(api, line, "sharedTmpBuffer has " + str(tmpBytes) + " B: AscendQuant needs at least " +
                 str(QUANT_MIN_TMP_BYTES) + " B (GetAscendQuantMaxMinTmpSize's minValue, 2 x 256 B)");
        if (config.workLocalSize > tmpBytes)
            fail(api, line, "config.workLocalSize is " + str(config.workLocalSize) + " B, above the " + str(tmpBytes) +
                 " B of sharedTmpBuffer");
    }
    if (config.workLocalSize != 0 && config.workLocalSize < QUANT_MIN_TMP_BYTES)
        fail(api, line, "config.workLocalSize is " + str(config.workLocalSize) + " B: the temporary space must be at "
             "least " + str(QUANT_MIN_TMP_BYTES) + " B (GetAscendQuantMaxMinTmpSize's minValue)");
    // asc-devkit's checks bound calCount and config.calcCount by both tensors, whichever of the two is used
    for (int k = 0; k < 2; ++k) {
        const uint32_t v = k ? config.calcCount : calCount;
        if (v > src.GetSize() || v > dst.GetSize())
            fail(api, line, std::string(k ? "config.calcCount" : "calCount") + " is " + str(v) + ", above the " +
                 str(v > src.GetSize() ? src.GetSize() : dst.GetSize()) + " elements of " +
                 (v > src.GetSize() ? "srcTensor" : "dstTensor"));
    }
    const uint32_t n = constant ? config.calcCount : calCount;
    const char* what = constant ? "config.calcCount" : "calCount";
    if (n % ascend_sim::UB_BLOCK)
        fail(api, line, std::string(what) + " is " + str(n) + ": the int8_t output of " + str(n) + " B is not 32-byte "
             "aligned (the data length each operand takes part in the computation with must be a multiple of 32 B)");
    // the chunk, in halves: the temporary space / sizeof(half), rounded down to whole 32-element groups
    uint64_t split = n ? n : 1;
    if (constant) split = config.workLocalSize / 2 / 32 * 32;
    else if (tmp != nullptr) split = tmpBytes / 2 / 32 * 32;
    detail::reading(api, src, int32_t(n), line);
    detail::writing(api, dst, int32_t(n), line);
    if (tmp != nullptr && n) {
        const uint64_t used = 2 * (split < n ? split : n);
        const uint64_t t0 = tmp->addr_, t1 = t0 + used;
        const uint64_t s0 = src.addr_, s1 = s0 + uint64_t(n) * sizeof(T), d0 = dst.addr_, d1 = d0 + n;
        if ((t0 < s1 && s0 < t1) || (t0 < d1 && d0 < t1))
            fail(api, line, std::string("the ") + str(used) + " B of sharedTmpBuffer the call uses overlap " +
                 (t0 < s1 && s0 < t1 ? "srcTensor" : "dstTensor"));
    }
    const half hs = half(scale), ho = half(offset);
    const float fs = float(hs), fo = float(ho);
    std::vector<half> stage(size_t(split < n ? split : n));
    for (uint64_t base = 0; base < n; base += split) {
        const uint64_t len = (n - base) < split ? (n - base) : split;
        const T* s = src.ptr() + base;
        for (uint64_t i = 0; i < len; ++i) {
            const half x = half(float(s[i]));                            // Cast<half, float> (or x itself)
            const half m = half(float(x) * fs);                          // Muls
            stage[size_t(i)] = half(float(m) + fo);                     // Adds
        }
        int8_t* d = dst.ptr() + base;
        for (uint64_t i = 0; i < len; ++i) d[i] = convert<int8_t>(float(stage[size_t(i)]), RoundMode::CAST_NONE);
    }
    detail::done(dst, int32_t(n));
    if (tmp != nullptr && n)                                            // scratch contents are undefined after
        std::memset(tmp->ptr(), 0xFF, size_t(2 * (split < n ? split : n)));
}
}  // namespace detail

template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                        const uint32_t calCount, ascend_sim::CallLine line = ascend_sim::CallLine(__builtin_LINE())) {
    detail::ascend_quant<T>(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, calCount, config, line.v);
}

template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                        ascend_sim::CallLine line = ascend_sim::CallLine(__builtin_LINE())) {
    detail::ascend_quant<T>(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, srcTensor.GetSize(), config,
                            line.v);
}

template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, const uint32_t calCount,
                        ascend_sim::CallLine line = ascend_sim::CallLine(__builtin_LINE())) {
    detail::ascend_quant<T>(dstTensor, srcTensor, nullptr, scale, offset, calCount, config, line.v);
}

template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, ascend_sim::CallLine line = ascend_sim::CallLine(__builtin_LINE())) {
    detail::ascend_quant<T>(dstTensor, srcTensor, nullptr, scale, offset, srcTensor.GetSize(), config, line.v);
}

}  // namespace AscendC

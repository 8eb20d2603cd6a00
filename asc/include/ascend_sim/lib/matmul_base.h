// ascend-sim: the Matmul library's types (MatmulType, MatmulConfig, CubeFormat, LayoutMode) and the arithmetic
// its Matmul class uses (the float / int32 accumulators of the inputs' types, the blocked product). Part of
// lib/matmul_intf.h, which includes it.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"

// global enums in CANN (adv_api/matmul/matmul_config.h), not members of AscendC: kernels write CubeFormat::ND
enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace AscendC {


template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

// the configuration a Matmul is instantiated with; ascend-sim runs every configuration the same way (the
// templates differ in scheduling on the NPU, not in the result)
struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0, basicN = 0, basicK = 0;
};
constexpr MatmulConfig CFG_NORM{};
constexpr MatmulConfig CFG_MDL{false, false, true, 0, 0, 0};

}  // namespace AscendC

namespace ascend_sim {
namespace mm {

inline float to_f(float v) { return v; }
inline int32_t to_f(int8_t v) { return int32_t(v); }
inline int32_t to_f(int32_t v) { return v; }
inline float to_f(half h) {
    uint32_t s = uint32_t(h.bits & 0x8000u) << 16, e = (h.bits >> 10) & 0x1fu, m = h.bits & 0x3ffu, u;
    if (e == 0) {
        if (m == 0) {
            u = s;
        } else {                                     // subnormal: normalize
            e = 113;
            while (!(m & 0x400u)) { m <<= 1; --e; }
            u = s | (e << 23) | ((m & 0x3ffu) << 13);
        }
    } else if (e == 31) {
        u = s | 0x7f800000u | (m << 13);
    } else {
        u = s | ((e + 112) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline float to_f(bfloat16_t b) {
    uint32_t u = uint32_t(b.bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

#pragma GCC push_options
#pragma GCC optimize("O3")
// C[rows x cols] += A[rows x K] B[K x cols] in float32 (or int32_t, exact, for int8_t operands), row-major with
// leading dimensions lda, ldb, ldc; four rows of C at a time so that each row of B is loaded once per four rows
template <class V>
inline void gemm(const V* __restrict A, int lda, const V* __restrict B, int ldb, V* __restrict C,
                 int ldc, int rows, int cols, int K) {
    int i = 0;
    for (; i + 4 <= rows; i += 4) {
        V* c0 = C + i * ldc;
        V* c1 = c0 + ldc;
        V* c2 = c1 + ldc;
        V* c3 = c2 + ldc;
        const V* a0 = A + i * lda;
        for (int k = 0; k < K; ++k) {
            const V x0 = a0[k], x1 = a0[lda + k], x2 = a0[2 * lda + k], x3 = a0[3 * lda + k];
            const V* b = B + k * ldb;
            for (int j = 0; j < cols; ++j) {
                const V bv = b[j];
                c0[j] += x0 * bv;
                c1[j] += x1 * bv;
                c2[j] += x2 * bv;
                c3[j] += x3 * bv;
            }
        }
    }
    for (; i < rows; ++i) {
        V* c = C + i * ldc;
        const V* a = A + i * lda;
        for (int k = 0; k < K; ++k) {
            const V x = a[k];
            const V* b = B + k * ldb;
            for (int j = 0; j < cols; ++j) c[j] += x * b[j];
        }
    }
}
#pragma GCC pop_options

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t align(int64_t a, int64_t b) { return cdiv(a, b) * b; }

}  // namespace mm
}  // namespace ascend_sim

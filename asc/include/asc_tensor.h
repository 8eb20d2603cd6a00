// asc_tensor.h: tensor-level support for generated cpu-target code: the matrix product of strided views
// (ir.MatMul) on asc's GEMM. Hand-written; ships with asc. Included by kernels that have a matrix product.
#ifndef ASC_TENSOR_H
#define ASC_TENSOR_H

#include "asc_cpu.h"

#if defined(__has_include)
#if __has_include("asc_gemm.h")
#include "asc_gemm.h"
#endif
#endif

#ifndef ASC_GEMM_H
typedef void (*asc_gemm_epilogue_f32)(void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols, float* tile,
                                      int64_t ldc);
typedef void (*asc_gemm_epilogue_f64)(void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols, double* tile,
                                      int64_t ldc);
// A plain reference GEMM, used only where asc_gemm.h is absent: row-major, op(X) = X^T when transX,
// C = alpha * op(A) @ op(B) + beta * C, beta == 0: C is not read. 16-bit inputs accumulate in float32.
template <typename TA, typename TC, typename LD>
static void asc_ref_gemm(int ta, int tb, int64_t M, int64_t N, int64_t K, TC alpha, const TA* A, int64_t lda,
                         const TA* B, int64_t ldb, TC beta, TC* C, int64_t ldc, LD ld) {
  if (M <= 0 || N <= 0) return;
  asc::Buffer<TC> bt(K * N > 0 ? K * N : 1);                       // op(B), converted, k-major
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) bt.data[k * N + j] = ld(tb ? B[j * ldb + k] : B[k * ldb + j]);
#pragma omp parallel for schedule(static) num_threads(ASC_MAX_THREADS()) if (M * N * K > (1 << 16))
  for (int64_t i = 0; i < M; ++i) {
    TC* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = beta == 0 ? (TC)0 : beta * c[j];
    for (int64_t k = 0; k < K; ++k) {
      const TC a = alpha * ld(ta ? A[k * lda + i] : A[i * lda + k]);
      const TC* b = bt.data + k * N;
#pragma omp simd
      for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}
struct asc_ref_id_f { float operator()(float x) const { return x; } };
struct asc_ref_id_d { double operator()(double x) const { return x; } };
struct asc_ref_h2f { float operator()(uint16_t x) const { return asc_h2f(x); } };
struct asc_ref_bf2f { float operator()(uint16_t x) const { return asc_bf2f(x); } };
static void asc_gemm_f32_t(int ta, int tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                           const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_ref_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, asc_ref_id_f());
}
static void asc_gemm_f64_t(int ta, int tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A,
                           int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  asc_ref_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, asc_ref_id_d());
}
static void asc_gemm_f16_t(int ta, int tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                           int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_ref_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, asc_ref_h2f());
}
static void asc_gemm_bf16_t(int ta, int tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                            int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  asc_ref_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, asc_ref_bf2f());
}
// the epilogue hook, the reference way: once over the whole result
#define ASC_REF_EX(name, T, TC, E)                                                                                 \
  static void name##_ex(int ta, int tb, int64_t M, int64_t N, int64_t K, TC alpha, const T* A, int64_t lda,        \
                        const T* B, int64_t ldb, TC beta, TC* C, int64_t ldc, E epi, void* ctx) {                 \
    name##_t(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                               \
    if (epi && M > 0 && N > 0) epi(ctx, 0, 0, M, N, C, ldc);                                                      \
  }
ASC_REF_EX(asc_gemm_f32, float, float, asc_gemm_epilogue_f32)
ASC_REF_EX(asc_gemm_f16, uint16_t, float, asc_gemm_epilogue_f32)
ASC_REF_EX(asc_gemm_bf16, uint16_t, float, asc_gemm_epilogue_f32)
ASC_REF_EX(asc_gemm_f64, double, double, asc_gemm_epilogue_f64)
#undef ASC_REF_EX
#endif

// ---------------------------------------------------------------- products of strided views
// dtype codes: 0 float32, 1 float16, 2 bfloat16, 3 float64
static inline int asc_tsize(int t) { return t == 3 ? 8 : (t == 0 ? 4 : 2); }
static inline double asc_tload(int t, const void* p, int64_t i) {
  switch (t) {
    case 0: return ((const float*)p)[i];
    case 1: return asc_h2f(((const uint16_t*)p)[i]);
    case 2: return asc_bf2f(((const uint16_t*)p)[i]);
    default: return ((const double*)p)[i];
  }
}
static inline void asc_tstore(int t, void* p, int64_t i, double v) {
  switch (t) {
    case 0: ((float*)p)[i] = (float)v; break;
    case 1: ((uint16_t*)p)[i] = asc_f2h((float)v); break;
    case 2: ((uint16_t*)p)[i] = asc_f2bf((float)v); break;
    default: ((double*)p)[i] = v;
  }
}

// An operand as the GEMM takes it: rows or columns contiguous (a transposed view costs nothing), else packed.
struct asc_operand {
  const void* p; int64_t ld; int trans;
  char* packed;
  asc_operand() : p(0), ld(0), trans(0), packed(0) {}
  ~asc_operand() { free(packed); }
};
static void asc_prepare(asc_operand* o, int t, const void* X, int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  if (s1 == 1 && s0 >= cols) { o->p = X; o->ld = s0 > 0 ? s0 : 1; o->trans = 0; return; }
  if (s0 == 1 && s1 >= rows) { o->p = X; o->ld = s1 > 0 ? s1 : 1; o->trans = 1; return; }
  int sz = asc_tsize(t);
  o->packed = (char*)malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sz);
  if (!o->packed) { fprintf(stderr, "asc: out of memory in a matrix product\n"); abort(); }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      memcpy(o->packed + (i * cols + j) * sz, (const char*)X + (i * s0 + j * s1) * sz, sz);
  o->p = o->packed; o->ld = cols > 0 ? cols : 1; o->trans = 0;
}

// C (+)= A @ B for one matrix: A M x K, B K x N, C M x N, strides in elements, `ta` the operands' dtype and `tc`
// the result's. The product accumulates in float32 (float64 for float64 operands); a 16-bit result is rounded once.
// With an epilogue (e32 / e64, ctx): it runs on each tile of C right after the tile is final (when the GEMM writes
// C directly), else over C after the conversion to its dtype.
static void asc_matmul_one(int ta, int tc, int64_t M, int64_t N, int64_t K, const void* A, int64_t sa0, int64_t sa1,
                           const void* B, int64_t sb0, int64_t sb1, void* C, int64_t sc0, int64_t sc1, int acc,
                           asc_gemm_epilogue_f32 e32 = 0, asc_gemm_epilogue_f64 e64 = 0, void* ctx = 0) {
  if (M <= 0 || N <= 0) return;
  asc_operand a, b;
  asc_prepare(&a, ta, A, M, K, sa0, sa1);
  asc_prepare(&b, ta, B, K, N, sb0, sb1);
  const int wide = ta == 3;                      // the GEMM's C type: double for float64 operands, else float
  const int ct = wide ? 3 : 0;
  const int direct = tc == ct && sc1 == 1 && sc0 >= N;
  void* out = C;
  int64_t ldc = sc0;
  char* tmp = 0;
  if (!direct) {
    tmp = (char*)malloc((size_t)(M * N) * asc_tsize(ct));
    if (!tmp) { fprintf(stderr, "asc: out of memory in a matrix product\n"); abort(); }
    out = tmp; ldc = N;
    if (acc)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) asc_tstore(ct, tmp, i * N + j, asc_tload(tc, C, i * sc0 + j * sc1));
  }
  const float beta = acc ? 1.0f : 0.0f;
  asc_gemm_epilogue_f32 t32 = direct ? e32 : 0;        // the hook only where the GEMM writes C itself
  asc_gemm_epilogue_f64 t64 = direct ? e64 : 0;
  switch (ta) {
    case 0: asc_gemm_f32_ex(a.trans, b.trans, M, N, K, 1.0f, (const float*)a.p, a.ld, (const float*)b.p, b.ld, beta,
                            (float*)out, ldc, t32, ctx); break;
    case 1: asc_gemm_f16_ex(a.trans, b.trans, M, N, K, 1.0f, (const uint16_t*)a.p, a.ld, (const uint16_t*)b.p, b.ld,
                            beta, (float*)out, ldc, t32, ctx); break;
    case 2: asc_gemm_bf16_ex(a.trans, b.trans, M, N, K, 1.0f, (const uint16_t*)a.p, a.ld, (const uint16_t*)b.p,
                             b.ld, beta, (float*)out, ldc, t32, ctx); break;
    default: asc_gemm_f64_ex(a.trans, b.trans, M, N, K, 1.0, (const double*)a.p, a.ld, (const double*)b.p, b.ld,
                             (double)beta, (double*)out, ldc, t64, ctx);
  }
  if (!direct) {
    if (tc == 1 && ct == 0 && sc1 == 1) {       // the common case: float32 -> float16 rows, vectorizable
#pragma omp parallel for schedule(static) num_threads(ASC_MAX_THREADS()) if (M * N > (1 << 16))
      for (int64_t i = 0; i < M; ++i) {
        const float* src = (const float*)tmp + i * N;
        uint16_t* dst = (uint16_t*)C + i * sc0;
        for (int64_t j = 0; j < N; ++j) dst[j] = asc_f2h(src[j]);
      }
    } else if (tc == 2 && ct == 0 && sc1 == 1) {
#pragma omp parallel for schedule(static) num_threads(ASC_MAX_THREADS()) if (M * N > (1 << 16))
      for (int64_t i = 0; i < M; ++i) {
        const float* src = (const float*)tmp + i * N;
        uint16_t* dst = (uint16_t*)C + i * sc0;
        for (int64_t j = 0; j < N; ++j) dst[j] = asc_f2bf(src[j]);
      }
    } else {
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) asc_tstore(tc, C, i * sc0 + j * sc1, asc_tload(ct, tmp, i * N + j));
    }
    free(tmp);
    if (e32 || e64) {                             // the epilogue over C in its own dtype, by blocks of rows
#pragma omp parallel for schedule(static) num_threads(ASC_MAX_THREADS()) if (M * N > (1 << 15))
      for (int64_t i = 0; i < M; i += 16) {
        const int64_t rows = M - i < 16 ? M - i : 16;
        if (e32) e32(ctx, i, 0, rows, N, 0, 0); else e64(ctx, i, 0, rows, N, 0, 0);
      }
    }
  }
}

template <typename F> static void asc_epi_f32(void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols, float*,
                                              int64_t) {
  (*(F*)ctx)(i0, j0, rows, cols);
}
template <typename F> static void asc_epi_f64(void* ctx, int64_t i0, int64_t j0, int64_t rows, int64_t cols, double*,
                                              int64_t) {
  (*(F*)ctx)(i0, j0, rows, cols);
}
// C = A @ B with a fused epilogue f(i0, j0, rows, cols) over a block of C (view coordinates); f may run on several
// threads at once, for disjoint blocks.
template <typename F>
static void asc_matmul_fused(int ta, int tc, int64_t M, int64_t N, int64_t K, const void* A, int64_t sa0,
                             int64_t sa1, const void* B, int64_t sb0, int64_t sb1, void* C, int64_t sc0, int64_t sc1,
                             int acc, F& f) {
  asc_matmul_one(ta, tc, M, N, K, A, sa0, sa1, B, sb0, sb1, C, sc0, sc1, acc, asc_epi_f32<F>, asc_epi_f64<F>,
                 (void*)&f);
}

// A batch of products: operand t of the batch starts `batch stride` elements after operand t - 1 (0: shared).
static void asc_matmul(int ta, int tc, int64_t batch, int64_t M, int64_t N, int64_t K,
                       const void* A, int64_t sab, int64_t sa0, int64_t sa1,
                       const void* B, int64_t sbb, int64_t sb0, int64_t sb1,
                       void* C, int64_t scb, int64_t sc0, int64_t sc1, int acc) {
  const int sa = asc_tsize(ta), sc = asc_tsize(tc);
  for (int64_t t = 0; t < batch; ++t)
    asc_matmul_one(ta, tc, M, N, K, (const char*)A + t * sab * sa, sa0, sa1, (const char*)B + t * sbb * sa, sb0, sb1,
                   (char*)C + t * scb * sc, sc0, sc1, acc);
}

#endif  // ASC_TENSOR_H

"""The seed's element-level kernels, as a user writes them (sections 1, 3.1, 4, 5.3, 7), and variants for any dtype.

Used by `python -m asc demo` and by the tests."""
from __future__ import annotations

import asc.language as lang
from asc.math import erf, pi, sqrt


@lang.kernel
def vector_add(a: lang.float32[1024], b: lang.float32[1024]) -> lang.float32[1024]:
    c = lang.empty(1024, dtype=lang.float32)
    for i in range(1024):
        c[i] = a[i] + b[i]
    return c


@lang.kernel
def add(a: lang.Tensor, b: lang.Tensor):
    """vector_add for any dtype and size."""
    c = lang.empty_like(a)
    for i in range(len(a)):
        c[i] = a[i] + b[i]
    return c


@lang.kernel
def gelu_naive(x: lang.float32[N]) -> lang.float32[N]:
    """基础GELU实现"""
    out = lang.empty_like(x)
    sqrt2 = sqrt(2.0)
    for i in range(N):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt2))
    return out


@lang.kernel
def gelu_approx(x: lang.float32[N]) -> lang.float32[N]:
    """近似GELU实现"""
    out = lang.empty_like(x)
    for i in range(N):
        xi = x[i]
        # 使用0.044715x^3 + x的近似
        cube = 0.044715 * xi * xi * xi
        out[i] = 0.5 * xi * (1.0 + lang.tanh(sqrt(2 / pi) * (xi + cube)))
    return out


@lang.kernel
def gelu_any(x):
    """gelu_naive for any dtype: 16-bit inputs are computed in float32."""
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))
    return out


@lang.kernel
def gelu_tanh_any(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        xi = x[i]
        out[i] = 0.5 * xi * (1.0 + lang.tanh(sqrt(2 / pi) * (xi + 0.044715 * xi * xi * xi)))
    return out


@lang.kernel
def saxpy(a: lang.float32, x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = a * x[i] + y[i]
    return out


@lang.kernel
def swish_glu(xw: lang.float16[N, D],
              xv: lang.float16[N, D],
              beta: lang.float16 = 1.0) -> lang.float16[N, D]:
    out = lang.empty_like(xw)
    for i in lang.range(N):
        for j in lang.range(D):
            # 合并计算Swish和GLU
            z = xw[i, j]
            swish = z * (1.0 / (1.0 + lang.exp(-beta * z)))
            out[i, j] = swish * xv[i, j]
    return out


@lang.kernel
def swiglu_any(a, b):
    out = lang.empty_like(a)
    R, C = a.shape
    for i in range(R):
        for j in range(C):
            out[i, j] = a[i, j] * lang.sigmoid(a[i, j]) * b[i, j]
    return out


@lang.parallel(num_workers=4)
def parallel_sum(arr: lang.float32[1024]) -> lang.float32:
    local_sum = lang.zeros(1, dtype=lang.float32)
    for i in lang.distributed_range(1024):
        local_sum[0] += arr[i]
    return lang.allreduce(local_sum)


@lang.kernel
def matmul(A: lang.float16[M, N], B: lang.float16[N, K]) -> lang.float16[M, K]:
    C = lang.empty((M, K), dtype=lang.float16)
    for i in range(M):
        for j in range(K):
            C[i, j] = 0.0
            for k in range(N):
                C[i, j] += A[i, k] * B[k, j]
    return C


@lang.kernel
def matmul_naive(A, B):
    M, K = A.shape
    K, N = B.shape
    C = lang.zeros((M, N), dtype=A.dtype)
    for i in range(M):
        for j in range(N):
            for k in range(K):
                C[i, j] += A[i, k] * B[k, j]
    return C


@lang.kernel
def softmax(x: lang.float32[R, C]) -> lang.float32[R, C]:
    """Row softmax in the element style: a max pass, an exp-and-sum pass, a scaling pass per row."""
    out = lang.empty_like(x)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            e = lang.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        inv = 1.0 / s
        for j in range(C):
            out[i, j] = out[i, j] * inv
    return out


@lang.kernel
def layernorm(x: lang.float32[R, C], w: lang.float32[C], b: lang.float32[C], eps: float = 1e-5) -> lang.float32[R, C]:
    """Row layer normalization: mean and variance per row, then scale and shift."""
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        mean = s / C
        v = 0.0
        for j in range(C):
            d = x[i, j] - mean
            v += d * d
        rstd = lang.rsqrt(v / C + eps)
        for j in range(C):
            out[i, j] = (x[i, j] - mean) * rstd * w[j] + b[j]
    return out

"""The seed's tensor-level kernels as a user writes them (sections 3.2, 3.3, 5.3 and 8.3): the cube matmul, the
tiled matmul with local buffers, the fused MLP. Used by the tests and the benchmarks."""
from __future__ import annotations

import asc.language as lang


@lang.cube_kernel
def matmul_cube(A: lang.float16[256, 256],
                B: lang.float16[256, 256]) -> lang.float16[256, 256]:
    return A @ B  # 使用专用矩阵计算单元


@lang.kernel
def matmul_opt(A, B):
    M, K = A.shape
    K, N = B.shape
    C = lang.zeros((M, N), dtype=A.dtype)
    # 分块优化
    BLOCK = 32
    for i in lang.range(0, M, BLOCK):
        for j in lang.range(0, N, BLOCK):
            # 局部内存缓存
            local_a = lang.local_buffer((BLOCK, BLOCK), dtype=A.dtype)
            local_b = lang.local_buffer((BLOCK, BLOCK), dtype=B.dtype)

            # 分块加载
            lang.load_2d(A[i:i+BLOCK, 0:K], local_a)
            lang.load_2d(B[0:K, j:j+BLOCK], local_b)

            # 分块计算
            for ii in range(BLOCK):
                for jj in range(BLOCK):
                    for kk in range(K):
                        C[i+ii, j+jj] += local_a[ii, kk] * local_b[kk, jj]
    return C


@lang.fused_kernel
def fused_mlp(x, w1, w2):
    # 自动融合多个操作
    x = lang.matmul(x, w1)
    x = lang.gelu(x)
    return lang.matmul(x, w2)


@lang.cube_kernel
def matmul_any(A, B):
    """A @ B for any float dtype and shape (the benchmarks' GEMM)."""
    return A @ B


@lang.kernel
def mlp_unfused(x, w1, w2):
    """fused_mlp as a plain kernel: each step makes its own pass over memory."""
    h = lang.matmul(x, w1)
    h = lang.gelu(h)
    return lang.matmul(h, w2)

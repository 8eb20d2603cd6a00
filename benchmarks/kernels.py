"""The benchmarked asc kernels: the natural (allocating) form and an `out` form writing a preallocated array."""
from __future__ import annotations

import os

import asc.language as lang
from asc.examples.seed import gelu_any as gelu_erf, gelu_tanh_any as gelu_tanh, swiglu_any as swiglu  # noqa: F401
from asc.examples.seed import layernorm, saxpy, softmax  # noqa: F401
from asc.math import erf, pi, sqrt

THREADS = int(os.environ.get("OMP_NUM_THREADS", 2))


@lang.kernel
def gelu_erf_out(x, out):
    for i in range(len(x)):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))


@lang.kernel
def gelu_tanh_out(x, out):
    for i in range(len(x)):
        xi = x[i]
        out[i] = 0.5 * xi * (1.0 + lang.tanh(sqrt(2 / pi) * (xi + 0.044715 * xi * xi * xi)))


@lang.kernel
def swiglu_out(a, b, out):
    R, C = a.shape
    for i in range(R):
        for j in range(C):
            out[i, j] = a[i, j] * lang.sigmoid(a[i, j]) * b[i, j]


# precision="mixed" (docs/tensors.md, "Precision"): the float16 rows computed in float16, each operation rounded
gelu_erf_mixed_out = lang.kernel(precision="mixed")(gelu_erf_out.pyfunc)
gelu_tanh_mixed_out = lang.kernel(precision="mixed")(gelu_tanh_out.pyfunc)
swiglu_mixed_out = lang.kernel(precision="mixed")(swiglu_out.pyfunc)


@lang.kernel
def saxpy_out(a: lang.float32, x: lang.float32[N], y: lang.float32[N], out: lang.float32[N]):
    for i in range(N):
        out[i] = a * x[i] + y[i]


@lang.kernel
def saxpy_f16_out(a: lang.float16, x: lang.float16[N], y: lang.float16[N], out: lang.float16[N]):
    for i in range(N):
        out[i] = a * x[i] + y[i]


@lang.parallel(num_workers=THREADS)
def parallel_sum(arr: lang.float32[N]) -> lang.float32:
    """The seed's parallel_sum, for any size."""
    local_sum = lang.zeros(1, dtype=lang.float32)
    for i in lang.distributed_range(N):
        local_sum[0] += arr[i]
    return lang.allreduce(local_sum)

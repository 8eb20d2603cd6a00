"""ascend: device functions of straight-line scalar code (`@lang.func`, and `@lang.vectorize` kernels, which call
their element function once per element) are inlined before planning (the pass `inline_calls`, the first stage of
the ascend targets), so such kernels take the vector path; before, every one was refused ("a call of a @lang.func
device function has no scalar form on the AI core"). Compared with the interpreter over float32 / float16 and sizes
that leave tails."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc import compiler
from asc.backends.ascend.rendering import AscendFallbackWarning
from asc.errors import CompileError
from helpers import close, interpreted


@lang.func
def cube(x: lang.float32) -> lang.float32:
    return x * x * x


@lang.func
def gelu_tanh(x: lang.float32) -> lang.float32:
    inner = 0.7978845608 * (x + 0.044715 * cube(x))
    return 0.5 * x * (1.0 + lang.tanh(inner))


@lang.kernel(target="ascend-sim")
def bias_gelu(a: lang.float32[N], b: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(a)
    for i in range(N):
        out[i] = gelu_tanh(a[i] + b[i]) * 2.0
    return out


@lang.vectorize(target="ascend-sim")
def silu_mul(x: lang.float32, y: lang.float32) -> lang.float32:
    return x / (1.0 + lang.exp(-x)) * y


@lang.func
def scaled(v: lang.float32, s: lang.float32) -> lang.float32:
    return v * s


@lang.kernel(target="ascend-sim")
def row_scale(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        for j in range(C):
            out[i, j] = scaled(x[i, j] - m, 0.5)
    return out


@lang.func
def halve(x: lang.float32, n: lang.int32) -> lang.float32:
    return x if n <= 0 else halve(x * 0.5, n - 1)


@lang.kernel(target="ascend-sim")
def recursive(x: lang.float32[N], k: lang.int32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = halve(x[i], k[i])
    return out


def _vector(kernel, *args) -> bool:
    return "scalar code on one AI core" not in kernel.source("ascend", *args)


@pytest.mark.parametrize("n", [1, 37, 4099])
def test_a_device_function_in_a_map_is_vector_code(n):
    rng = np.random.default_rng(n)
    a, b = rng.uniform(-4, 4, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)
        got = bias_gelu(a, b)
    close(got, interpreted(bias_gelu)(a, b), np.float32, ulps=8)
    assert _vector(bias_gelu, a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n", [5, 1000])
def test_a_vectorize_kernel_is_vector_code(dtype, n):
    rng = np.random.default_rng(n)
    x, y = rng.uniform(-6, 6, n).astype(dtype), rng.uniform(-2, 2, n).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)
        got = silu_mul(x, y)
    want = lang.vectorize(target="interpret")(silu_mul.fn)(x, y)
    assert got.dtype == want.dtype == np.float32         # the annotations' dtype
    close(got, want, np.float32, ulps=4)


def test_a_device_function_in_a_row_kernel():
    x = np.random.default_rng(0).standard_normal((33, 130)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)
        got = row_scale(x)
    close(got, interpreted(row_scale)(x), np.float32, ulps=2)


def test_the_ascend_stages_start_with_inlining():
    assert compiler.stages("ascend-sim")[compiler.stages("ascend-sim").index("classify") - 1] == "inline_calls"


def test_a_recursive_device_function_is_still_refused_with_its_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CompileError, match="device function") as e:
            recursive(np.ones(5, np.float32), np.arange(5, dtype=np.int32))
    assert "halve(x[i], k[i])" in str(e.value)

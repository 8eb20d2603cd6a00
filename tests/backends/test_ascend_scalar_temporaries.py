"""ascend scalar code with temporary tensors (allocations that are not returned): they live in the Unified Buffer
and the scalar unit reads and writes them (LocalTensor GetValue / SetValue); a math function after a scalar write to
UB waits for it (an S_V flag). Before, every such kernel was refused. Sizes beyond the Unified Buffer, or known only
at run time, are refused with the line and the numbers."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError
from helpers import close, interpreted


@lang.kernel(target="ascend-sim")
def attention_row(q: lang.float32[D], k: lang.float32[T, D], v: lang.float32[T, D]) -> lang.float32[D]:
    att = lang.empty((T,))                  # llama2.c's per-head scores, a temporary
    out = lang.zeros((D,))
    m = -1e30
    for t in range(T):
        s = 0.0
        for d in range(D):
            s += q[d] * k[t, d]
        att[t] = s / lang.sqrt(lang.float32(D))
        m = max(m, att[t])
    tot = 0.0
    for t in range(T):
        att[t] = lang.exp(att[t] - m)
        tot += att[t]
    for t in range(T):
        for d in range(D):
            out[d] += att[t] / tot * v[t, d]
    return out


@lang.kernel(target="ascend-sim")
def histogram(x: lang.int32[N]) -> lang.float16[N]:
    h = lang.zeros((16,), dtype=lang.float16)
    for i in range(N):
        h[x[i] % 16] += 1.0
    out = lang.empty((N,), dtype=lang.float16)
    for i in range(N):
        out[i] = h[x[i] % 16]
    return out


@pytest.mark.parametrize("t, d", [(1, 1), (29, 17), (130, 64)])
def test_a_temporary_in_the_unified_buffer(t, d):
    rng = np.random.default_rng(t)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((d,), (t, d), (t, d)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = attention_row(q, k, v)
        src = attention_row.source("ascend", q, k, v)
    close(got, interpreted(attention_row)(q, k, v), np.float32, ulps=16)
    assert "LocalTensor<float> attUb" in src and "HardEvent::S_V" in src


def test_a_float16_temporary_with_integer_indices():
    x = np.random.default_rng(1).integers(-50, 50, 1001).astype(np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = histogram(x)
    want = interpreted(histogram)(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


def test_temporaries_beyond_the_unified_buffer_are_refused():
    @lang.kernel(target="ascend-sim")
    def big(x: lang.float32[N]) -> lang.float32[N]:
        tmp = lang.empty((60000,))
        out = lang.empty_like(x)
        for i in range(N):
            tmp[i] = x[i] * 2.0
            out[i] = tmp[i] + tmp[i - 1 if i > 0 else 0]
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CompileError, match=r"need \d+ B of Unified Buffer \('tmp' \(60000,\) float32: 240000 B\)"):
            big(np.ones(5, np.float32))


def test_a_temporary_sized_at_run_time_is_refused():
    @lang.kernel(target="ascend-sim", dynamic_shape=True)
    def dyn(x: lang.float32[N]) -> lang.float32[N]:
        tmp = lang.empty_like(x)
        out = lang.empty_like(x)
        s = lang.float32(0.0)
        for i in range(N):
            s = s + x[i]
            tmp[i] = s
        for i in range(N):
            out[i] = tmp[N - 1 - i]
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CompileError, match="a temporary tensor whose size is known only at run time"):
            dyn(np.ones(5, np.float32))

"""int arguments as sizes of allocations (issue 15, item 8): `lang.empty((n_heads, T))` (llama2.c), vLLM's `(T, k)`.
With specialized shapes the value is part of the specialization (one build per value, the launcher's rows check
it); with dynamic_shape=True it is a run-time size (one build serves every value). Compiled (cpu, ascend-sim)
against the interpreter and NumPy."""
from __future__ import annotations

import math

import numpy as np
import pytest

import asc.language as lang
from asc.errors import ArgumentError
from helpers import close, rand


def attention_scores(q: lang.float32[NH, HD], k_cache: lang.float32[S, NH, HD], n_heads: int, pos: int,
                     scale: float):
    """llama2.c's attention scores: for each head, q . k over the cache positions 0..pos, times 1 / sqrt(HD)."""
    T = pos + 1
    att = lang.empty((n_heads, S), dtype=lang.float32)
    for h in range(n_heads):
        for t in range(S):
            att[h, t] = float("-inf")
        for t in range(T):
            s = 0.0
            for d in range(HD):
                s += q[h, d] * k_cache[t, h, d]
            att[h, t] = s * scale
    return att


def topk_values(x: lang.float32[T, V], k: int):
    """vLLM's sampler buffer: the k largest logits of each row, by selection (k passes over the row)."""
    out = lang.empty((T, k), dtype=lang.float32)
    for t in range(T):
        prev = float("inf")
        for j in range(k):
            best = float("-inf")
            for v in range(V):
                if x[t, v] < prev and x[t, v] > best:
                    best = x[t, v]
            out[t, j] = best
            prev = best
    return out


def _scores_ref(q, kc, n_heads, pos):
    s = np.einsum("hd,thd->ht", q[:n_heads].astype(np.float64), kc[:pos + 1, :n_heads].astype(np.float64))
    out = np.full((n_heads, kc.shape[0]), -np.inf)
    out[:, :pos + 1] = s * np.float32(1 / math.sqrt(q.shape[1]))
    return out


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target", ["cpu", "ascend-sim"])
def test_llama2c_attention_scores(target, dynamic):
    q, kc = rand((4, 8), np.float32, 1), rand((6, 4, 8), np.float32, 2)
    kern = lang.kernel(target=target, dynamic_shape=dynamic)(attention_scores)
    interp = lang.kernel(target="interpret", dynamic_shape=dynamic)(attention_scores)
    for n_heads, pos in ((4, 5), (2, 0), (4, 5), (3, 2)):
        got = kern(q, kc, n_heads, pos, 1 / math.sqrt(8))
        assert got.shape == (n_heads, 6)
        ref = interp(q, kc, n_heads, pos, 1 / math.sqrt(8))
        np.testing.assert_array_equal(got, ref)
        close(got[:, :pos + 1], _scores_ref(q, kc, n_heads, pos)[:, :pos + 1], np.float32, ulps=8)
        assert np.isneginf(got[:, pos + 1:]).all()
    assert len(kern._cache) == (1 if dynamic else 3)        # one build per n_heads value unless dynamic


@pytest.mark.parametrize("dynamic", [False, True])
def test_vllm_topk_buffer(dynamic):
    x = rand((5, 16), np.float32, 3)
    kern = lang.kernel(dynamic_shape=dynamic)(topk_values)
    interp = lang.kernel(target="interpret", dynamic_shape=dynamic)(topk_values)
    for k in (3, 1, 3, 7, 1):                                # repeated values: served by the launcher's rows
        got = kern(x, k)
        np.testing.assert_array_equal(got, -np.sort(-x, axis=1)[:, :k])
        np.testing.assert_array_equal(got, interp(x, k))
    assert len(kern._cache) == (1 if dynamic else 3)
    assert kern.cache_info()["calls"] == 5


@pytest.mark.parametrize("dynamic", [False, True])
def test_bad_size_arguments(dynamic):
    x = rand((2, 4), np.float32, 4)
    kern = lang.kernel(dynamic_shape=dynamic)(topk_values)
    kern(x, 2)
    with pytest.raises(ArgumentError, match="argument 'k' is a size of an allocation and must not be negative, "
                                            "got -1"):
        kern(x, -1)
    np.testing.assert_array_equal(kern(x, 0), np.empty((2, 0), np.float32))

"""Sizes unpacked from a shape under dynamic_shape=True (issue 15, item 10): `B, H, N, D = Q.shape` names the run-time
sizes themselves, so they work where sizes do (loop bounds, allocation shapes, arithmetic), also when the names
are those of the annotation's dims. One build serves every size. Compiled (cpu) against the interpreter and NumPy."""
from __future__ import annotations

import math

import numpy as np

import asc.language as lang
from helpers import close, interpreted, rand


@lang.kernel(dynamic_shape=True)
def attention_rowmax(Q: lang.float32[B, H, N, D], K: lang.float32[B, H, N, D]) -> lang.float32[B, H, N]:
    """FlashAttention's first pass: the running max of the scaled scores of each query row, from -inf."""
    B, H, N, D = Q.shape
    m = lang.empty((B, H, N), dtype=lang.float32)
    scale = 1.0 / math.sqrt(D)
    for b in range(B):
        for h in range(H):
            for i in range(N):
                mi = -math.inf
                for j in range(N):
                    s = 0.0
                    for d in range(D):
                        s += Q[b, h, i, d] * K[b, h, j, d]
                    mi = max(mi, s * scale)
                m[b, h, i] = mi
    return m


@lang.kernel(dynamic_shape=True)
def head_means(Q: lang.Tensor):
    """Free axes (no annotation): the unpacked names are the only names of the sizes."""
    B, H, N, D = Q.shape
    out = lang.zeros((B, H, D), dtype=lang.float32)
    for b in range(B):
        for h in range(H):
            for n in range(N):
                for d in range(D):
                    out[b, h, d] += Q[b, h, n, d] / N
    return out


def _ref_rowmax(q, k):
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k.astype(np.float64)) / math.sqrt(q.shape[-1])
    return s.max(axis=-1)


def test_flash_attention_shapes_unpacked():
    for shape in ((2, 3, 5, 4), (1, 2, 7, 8)):
        q, k = rand(shape, np.float32, 1), rand(shape, np.float32, 2)
        got, ref = attention_rowmax(q, k), interpreted(attention_rowmax)(q, k)
        np.testing.assert_array_equal(got, ref)
        close(got, _ref_rowmax(q, k), np.float32, ulps=16)
    assert len(attention_rowmax._cache) == 1            # one build for both sizes


def test_free_axes_unpacked_into_allocation_shape():
    for shape in ((2, 2, 3, 4), (3, 1, 6, 5)):
        q = rand(shape, np.float32, 3)
        got, ref = head_means(q), interpreted(head_means)(q)
        np.testing.assert_array_equal(got, ref)
        close(got, q.astype(np.float64).mean(axis=2), np.float32, ulps=8)
    assert len(head_means._cache) == 1


def _merged_heads(Q: lang.Tensor):
    B, H, N, D = Q.shape
    out = lang.empty((B * H, N), dtype=lang.float32)
    for bh in range(B * H):
        for n in range(N):
            out[bh, n] = Q[bh // H, bh % H, n, 0]
    return out


def test_expression_of_sizes_in_a_dynamic_allocation():
    # (B * H, N) is a size computed at each call under dynamic_shape=True (tests/frontend/test_alloc_shape_arith.py)
    q = rand((2, 2, 3, 4), np.float32, 4)
    np.testing.assert_array_equal(lang.kernel(_merged_heads)(q), q[:, :, :, 0].reshape(4, 3))
    dyn = lang.kernel(dynamic_shape=True)(_merged_heads)
    for shape in ((2, 2, 3, 4), (3, 5, 2, 1)):
        q = rand(shape, np.float32, 4)
        np.testing.assert_array_equal(dyn(q), q[:, :, :, 0].reshape(shape[0] * shape[1], shape[2]))
    assert len(dyn._cache) == 1

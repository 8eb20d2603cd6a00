"""asc.grad of kernels as ported from other projects (issue 15, item 6): a softmax whose running max starts at
-math.inf (its backward must be valid Python: inf is written math.inf), and @lang.vectorize functions (the element
function is inlined into the generated kernel before differentiation). Compiled (cpu) against the interpreter and
against NumPy references."""
from __future__ import annotations

import math

import numpy as np

import asc
import asc.language as lang
from helpers import close, interpreted, rand


@lang.kernel
def softmax_neg_inf(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        m = -math.inf
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            s += lang.exp(x[i, j] - m)
        for j in range(C):
            out[i, j] = lang.exp(x[i, j] - m) / s
    return out


@lang.kernel
def rowmax_pos_inf_min(x: lang.float64[R, C]) -> lang.float64[R]:
    """The smallest element of each row, from +inf (as llama.cpp's argmin-style loops start)."""
    out = lang.empty((R,), dtype=lang.float64)
    for i in range(R):
        m = math.inf
        for j in range(C):
            m = min(m, x[i, j])
        out[i] = m
    return out


def _softmax_grad_ref(x, g):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    return y * (g - (g * y).sum(axis=1, keepdims=True))


def test_softmax_from_minus_inf_backward_runs_and_matches():
    x, g = rand((5, 33), np.float32, 1), rand((5, 33), np.float32, 2, 1.0)
    src = asc.grad(softmax_neg_inf).source(x, g)
    assert "math.inf" in src and "(-inf)" not in src
    compiled = asc.grad(softmax_neg_inf)(x, g)
    interp = asc.grad(interpreted(softmax_neg_inf))(x, g)
    ref = _softmax_grad_ref(x, g)
    close(compiled, ref, np.float32, ulps=8)
    close(interp, ref, np.float32, ulps=8)
    close(compiled, interp, np.float32, ulps=4)


def test_min_from_plus_inf_backward():
    x, g = rand((4, 9), np.float64, 3), rand((4,), np.float64, 4, 1.0)
    ref = np.zeros_like(x)
    ref[np.arange(4), x.argmin(axis=1)] = g
    np.testing.assert_array_equal(asc.grad(rowmax_pos_inf_min)(x, g), ref)
    np.testing.assert_array_equal(asc.grad(interpreted(rowmax_pos_inf_min))(x, g), ref)


def _swiglu(a, b):
    """Liger's SwiGLU, one element: silu(a) * b."""
    return a * lang.sigmoid(a) * b


def _bias_gelu(x, bias):
    """Megatron's bias-GELU (tanh form), one element, with a local."""
    v = x + bias
    return 0.5 * v * (1.0 + lang.tanh(0.79788456 * v * (1.0 + 0.044715 * v * v)))


def test_grad_of_vectorize_swiglu():
    a, b, g = rand((6, 17), np.float32, 5), rand((6, 17), np.float32, 6), rand((6, 17), np.float32, 7, 1.0)
    a64, b64, g64 = (v.astype(np.float64) for v in (a, b, g))
    s = 1 / (1 + np.exp(-a64))
    ref_a, ref_b = g64 * b64 * (s + a64 * s * (1 - s)), g64 * a64 * s
    for vec in (lang.vectorize(_swiglu), lang.vectorize(target="interpret")(_swiglu)):
        da, db = asc.grad(vec)(a, b, g)
        close(da, ref_a, np.float32, ulps=8)
        close(db, ref_b, np.float32, ulps=8)


def test_grad_of_vectorize_broadcast_and_scalar():
    x, g = rand((8, 12), np.float32, 8), rand((8, 12), np.float32, 9, 1.0)
    bias = rand((12,), np.float32, 10)
    vec = lang.vectorize(_bias_gelu)
    dx, dbias = asc.grad(vec)(x, bias, g)
    idx, idb = asc.grad(lang.vectorize(target="interpret")(_bias_gelu))(x, bias, g)
    v = x.astype(np.float64) + bias
    k = 0.79788456
    t = np.tanh(k * v * (1 + 0.044715 * v * v))
    dv = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v)
    close(dx, g * dv, np.float32, ulps=16)
    close(dbias, (g * dv).sum(axis=0), np.float32, ulps=64)     # a sum of 8 rows
    close(dx, idx, np.float32, ulps=4)
    close(dbias, idb, np.float32, ulps=16)
    d = asc.grad(vec)(x, 0.25, g)                 # a Python number: no gradient for it
    v = x.astype(np.float64) + 0.25
    t = np.tanh(k * v * (1 + 0.044715 * v * v))
    close(d, g * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v)), np.float32, ulps=16)

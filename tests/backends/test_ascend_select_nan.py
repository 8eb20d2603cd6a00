"""ascend: a selection becomes Max/Min only where nan gives the same answer. `x if x > 0 else 0.0` (and
lang.where(x > 0, x, 0.0)) is 0.0 for a nan x, as the interpreter and NumPy say; Max(nan, 0) is nan, so it stays a
Compare and Select; Python's max(x, 0.0) (`0.0 if 0.0 > x else x`) is nan for nan either way and keeps Maxs."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from helpers import interpreted


@lang.kernel(target="ascend-sim")
def relu_ternary(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] if x[i] > 0 else 0.0
    return out


@lang.kernel(target="ascend-sim")
def relu_where(x: lang.float32[N]) -> lang.float32[N]:
    return lang.where(x > 0, x, 0.0)


@lang.kernel(target="ascend-sim")
def relu_max(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = max(x[i], 0.0)
    return out


X = np.array([0.5, np.nan, -1.0, np.inf, -np.inf, 0.0, -0.0, 3.0] * 40, np.float32)


@pytest.mark.parametrize("kernel", [relu_ternary, relu_where])
def test_selection_keeps_nan_semantics(kernel):
    got = kernel(X)
    np.testing.assert_array_equal(got, np.where(X > 0, X, np.float32(0.0)))
    np.testing.assert_array_equal(got, interpreted(kernel)(X))
    src = kernel.source("ascend", X)
    assert "Maxs(" not in src and "Select(" in src


def test_python_max_is_still_maxs():
    got = relu_max(X)
    np.testing.assert_array_equal(got, interpreted(relu_max)(X))
    assert "Maxs(" in relu_max.source("ascend", X)


@lang.kernel(target="ascend-sim")
def scaled_by_choice(x: lang.float32[N], a: lang.float32, b: lang.float32) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * (a if a > b else b) + min(a, a)
    return out


@pytest.mark.parametrize("a, b", [(2.0, 3.0), (3.0, 2.0), (float("nan"), 1.0), (1.0, float("nan"))])
def test_selection_of_scalars_stays_vector_code(a, b):
    got = scaled_by_choice(X, np.float32(a), np.float32(b))
    np.testing.assert_array_equal(got, interpreted(scaled_by_choice)(X, np.float32(a), np.float32(b)))
    assert "GetValue" not in scaled_by_choice.source("ascend", X, np.float32(a), np.float32(b))

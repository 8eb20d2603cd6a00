"""NaN and inf in max / min (issue 15, item 2). The rule is NumPy's: `lang.max` / `lang.min` are numpy.max / min,
`lang.maximum` / `lang.minimum` and Python's `max` / `min` of floats are numpy.maximum / minimum: a NaN operand
gives NaN, wherever it is. A running `m = max(m, x[i])` is therefore numpy.maximum.reduce over m's start and the
elements (a NaN start stays NaN, a NaN element makes it NaN), and means the same serial, vectorized (lanes of
partials, asc/passes/reduce_lanes.py), parallel (reduce_split's fixed partials) and on ascend-sim. inf is an ordinary value."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import asc.language as lang

TARGETS = ("interpret", "cpu", "ascend-sim")


def running_max(x: lang.float32[N]) -> lang.float32[1]:
    out = lang.empty((1,), dtype=lang.float32)
    m = x[0]
    for i in range(N):
        m = max(m, x[i])
    out[0] = m
    return out


def running_min_inf(x: lang.float32[N]) -> lang.float32[1]:
    out = lang.empty((1,), dtype=lang.float32)
    m = math.inf
    for i in range(N):
        m = min(x[i], m)
    out[0] = m
    return out


def running_maximum(x: lang.float32[N]) -> lang.float32[1]:
    out = lang.empty((1,), dtype=lang.float32)
    m = -math.inf
    for i in range(N):
        m = lang.maximum(m, x[i])
    out[0] = m
    return out


def tensor_max(x: lang.float32[N]) -> lang.float32[1]:
    out = lang.empty((1,), dtype=lang.float32)
    out[0] = lang.max(x)
    return out


def tensor_min(x: lang.float32[N]) -> lang.float32[1]:
    out = lang.empty((1,), dtype=lang.float32)
    out[0] = lang.min(x)
    return out


WANT = {running_max: lambda x: np.max(x), running_min_inf: lambda x: np.min(x),
        running_maximum: lambda x: np.max(x), tensor_max: np.max, tensor_min: np.min}


def _data(n, where, value):
    x = (np.arange(n, dtype=np.float32) % 7) - 3
    for w in where:
        x[w % n] = value
    return x


# n = 8: a serial/short loop; 5000 and 100_003: a vectorized reduction cut into parallel partials (reduce_split)
CASES = [(8, (0,), np.nan), (8, (5,), np.nan), (8, (7,), np.nan), (5000, (0,), np.nan), (5000, (4999,), np.nan),
         (100_003, (77_777,), np.nan), (100_003, (0, 50_000), np.nan), (100_003, (), 0.0),
         (5000, (3, 4000), np.inf), (5000, (3, 4000), -np.inf), (8, (0, 1, 2, 3, 4, 5, 6, 7), np.inf),
         (8, (0, 1, 2, 3, 4, 5, 6, 7), np.nan)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", list(WANT), ids=lambda f: f.__name__)
def test_max_min_reductions_follow_numpy_on_nan_and_inf(fn, target):
    # one build for every size (ascend-sim: static shapes, one size, 5000; its scalar plan has no dynamic form)
    sim = target == "ascend-sim"
    k = lang.kernel(target=target, dynamic_shape=not sim)(fn)
    for n, where, value in CASES:
        if sim and n != 5000:
            continue
        x = _data(n, where, value)
        got = k(x)[0]
        want = WANT[fn](x)
        np.testing.assert_array_equal(got, want, err_msg=f"{fn.__name__} {target} n={n} {value} at {where}")


def test_running_max_is_a_nan_propagating_vectorized_reduction():
    x = _data(100_003, (), 0.0)
    src = lang.kernel(running_max).source("cpu", x)
    # vectorized into lanes of partials (not a serial loop), the lanes and the parallel partials combined
    # NaN-propagating
    assert "float m = asc_m_ln[asc_i_lk];" in src
    assert "asc_m_ln[asc_i_lj] = asc_maximum_f32(asc_m_ln[asc_i_lj], asc_m_ln[asc_i_lj + asc_i_lw]);" in src
    assert "m = asc_maximum_f32(m, asc_m_ln[0]);" in src
    assert "asc_maximum_f32(m, asc_m_part" in src
    src = lang.kernel(tensor_min).source("cpu", x)
    assert re.search(r"(\w+) = asc_minimum_f32\(\1, asc_\1_ln\[0\]\);", src)


def elementwise(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[4, N]:
    out = lang.empty((4, N), dtype=lang.float32)
    for i in range(N):
        out[0, i] = max(x[i], y[i])
        out[1, i] = min(x[i], y[i])
        out[2, i] = lang.maximum(x[i], y[i])
        out[3, i] = max(x[i], y[i], 0.0)
    return out


@pytest.mark.parametrize("target", ("interpret", "cpu"))
def test_python_max_of_floats_is_numpy_maximum(target):
    x = np.array([1, np.nan, 3, np.nan, np.inf, -np.inf, -1, 2] * 5, np.float32)
    y = np.array([np.nan, 2, np.nan, np.nan, 1, np.nan, -np.inf, np.inf] * 5, np.float32)
    got = lang.kernel(target=target)(elementwise)(x, y)
    np.testing.assert_array_equal(got[0], np.maximum(x, y))
    np.testing.assert_array_equal(got[1], np.minimum(x, y))
    np.testing.assert_array_equal(got[2], np.maximum(x, y))
    np.testing.assert_array_equal(got[3], np.maximum(np.maximum(x, y), np.float32(0)))


def rows_max(x: lang.float32[R, C]) -> lang.float32[R]:
    return lang.max(x, axis=1)


def rows_min16(x: lang.float16[R, C]) -> lang.float16[R]:
    return lang.min(x, axis=1)


@pytest.mark.parametrize("target", TARGETS)
def test_row_reductions_propagate_nan(target):
    x = np.tile(np.arange(37, dtype=np.float32) - 18, (6, 1))
    x[1, 0] = np.nan
    x[2, 36] = np.nan
    x[3, :] = np.nan
    x[4, 5] = np.inf
    x[5, 7] = -np.inf
    np.testing.assert_array_equal(lang.kernel(target=target)(rows_max)(x), np.max(x, axis=1))
    h = x.astype(np.float16)
    np.testing.assert_array_equal(lang.kernel(target=target)(rows_min16)(h), np.min(h, axis=1))


def running_max_any(x: lang.Tensor) -> lang.Tensor:
    out = lang.empty((2,), dtype=x.dtype)
    m = x[0]
    k = x[0]
    for i in range(x.shape[0]):
        m = max(m, x[i])
        k = min(x[i], k)
    out[0] = m
    out[1] = k
    return out


def tensor_minmax_any(x: lang.Tensor) -> lang.Tensor:
    out = lang.empty((2,), dtype=x.dtype)
    out[0] = lang.max(x)
    out[1] = lang.min(x)
    return out


@pytest.mark.parametrize("dt", [np.float16, "bfloat16", np.float32, np.float64], ids=str)
@pytest.mark.parametrize("fn", [running_max_any, tensor_minmax_any], ids=lambda f: f.__name__)
def test_random_special_values_every_float_dtype(fn, dt):
    """Differential: compiled vs interpreted vs NumPy on random data seeded with nan, inf, -inf and signed zeros."""
    import ml_dtypes
    dt = ml_dtypes.bfloat16 if dt == "bfloat16" else dt
    rng = np.random.default_rng(2)
    compiled = lang.kernel(dynamic_shape=True)(fn)
    interpreted = lang.kernel(target="interpret")(fn)
    for trial in range(12):
        n = int(rng.choice([1, 7, 64, 1000, 9000]))
        x = rng.standard_normal(n).astype(np.float32)
        specials = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32), size=int(rng.integers(0, 4)))
        x[rng.integers(0, n, size=len(specials))] = specials
        x = x.astype(dt)
        want = np.array([np.max(x.astype(np.float32)), np.min(x.astype(np.float32))], np.float32)
        got_c = compiled(x).astype(np.float32)
        got_i = interpreted(x).astype(np.float32)
        # NaN where NumPy has it; otherwise the value (a zero's sign may depend on the order)
        np.testing.assert_array_equal(got_c, want, err_msg=f"compiled, trial {trial}, n={n}: {specials}")
        np.testing.assert_array_equal(got_i, want, err_msg=f"interpreted, trial {trial}, n={n}: {specials}")


def row_centered(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        m = -1e30
        for j in range(C):
            m = max(m, x[i, j])
        for j in range(C):
            out[i, j] = x[i, j] - m
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_row_plan_reduce_max_propagates_nan(target):
    """ascend-sim runs this as a row kernel (ReduceMax per row, combined with the running value): the combine is
    numpy.maximum too (it kept -1e30 for a NaN row max before)."""
    x = np.tile(np.arange(64, dtype=np.float32), (8, 1))
    x[2, 5] = np.nan
    x[3, 63] = np.inf
    x[4, 0] = -np.inf
    x[5, :] = np.nan
    got = lang.kernel(target=target)(row_centered)(x)
    m = np.maximum(np.max(x, axis=1, keepdims=True), np.float32(-1e30))
    np.testing.assert_array_equal(got, x - m)
    if target == "ascend-sim":
        assert "ReduceMax(" in lang.kernel(row_centered).source("ascend", x)


def ternary_max(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] if x[i] > y[i] else y[i]
    return out


def python_max(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = max(x[i], y[i])
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_ternary_keeps_python_meaning_and_max_is_numpy_maximum(target):
    """A float ternary `x if x > y else y` is Python's (a NaN x gives y): on ascend it was lowered to Max, which
    propagates the NaN; now a Compare and a Select. Python's max is numpy.maximum on every target (vector Max)."""
    x = np.array([1, np.nan, 3, np.nan, -np.inf, 2] * 8, np.float32)
    y = np.array([np.nan, 2, np.nan, np.nan, np.inf, -0.0] * 8, np.float32)
    np.testing.assert_array_equal(lang.kernel(target=target)(ternary_max)(x, y), np.where(x > y, x, y))
    np.testing.assert_array_equal(lang.kernel(target=target)(python_max)(x, y), np.maximum(x, y))


@lang.func
def larger(a, b):
    return max(a, b)


def via_device_function(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = larger(x[i], y[i])
    return out


@pytest.mark.parametrize("target", ("interpret", "cpu"))
def test_max_in_a_device_function_is_numpy_maximum(target):
    """Interpreted, a @lang.func runs as Python with the kernel language's max (called from Python, Python's)."""
    x = np.array([1, np.nan, 3, np.nan], np.float32)
    y = np.array([np.nan, 2, np.nan, np.nan], np.float32)
    np.testing.assert_array_equal(lang.kernel(target=target)(via_device_function)(x, y), np.maximum(x, y))
    assert larger(1.0, float("nan")) == 1.0

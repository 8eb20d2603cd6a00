"""An integer raised to a negative integer power: NumPy 2 raises ValueError ("Integers to negative integer powers are
not allowed"), and so does the interpreter (the specification). The compiled cpu kernel raises the same ValueError,
naming the line and the exponent (before, it returned 0 for each such element); non-negative exponents still give
NumPy's wrapped integer powers."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang

N = lang.dim("N")


def ipow_scalar(x: lang.int32[N], e: int) -> lang.int32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] ** e
    return out


def ipow_tensor(x: lang.int64[N], y: lang.int64[N]) -> lang.int64[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = lang.pow(x[i], y[i])
    return out


@lang.func
def _cube(v):
    return v ** 3


def ipow_func(x: lang.int32[N], e: int) -> lang.int32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = _cube(x[i]) + x[i] ** e
    return out


MSG = "Integers to negative integer powers are not allowed"


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_a_negative_exponent_raises_value_error(target):
    x = np.arange(-3, 40, dtype=np.int32)
    k = lang.kernel(target=target)(ipow_scalar)
    with pytest.raises(ValueError, match=MSG):
        k(x, -1)
    y = np.full(43, 2, np.int64)
    y[37] = -5                                       # one element of 43
    k2 = lang.kernel(target=target)(ipow_tensor)
    with pytest.raises(ValueError, match=MSG):
        k2(x.astype(np.int64), y)
    k3 = lang.kernel(target=target)(ipow_func)
    with pytest.raises(ValueError, match=MSG):
        k3(x, -2)


def test_the_cpu_error_names_the_line_and_exponent():
    k = lang.kernel(target="cpu")(ipow_scalar)
    with pytest.raises(ValueError, match=r"test_int_negative_power\.py:\d+:\d+: kernel 'ipow_scalar': .*exponent was "
                                         r"-7"):
        k(np.arange(5, dtype=np.int32), -7)


def test_non_negative_exponents_still_equal_numpy():
    x = np.arange(-30, 31, dtype=np.int32)
    for e in (0, 1, 2, 5, 31):
        np.testing.assert_array_equal(lang.kernel(target="cpu")(ipow_scalar)(x, e), x ** np.int32(e))
    xs, ys = np.arange(-20, 21, dtype=np.int64), np.arange(41, dtype=np.int64) % 7
    np.testing.assert_array_equal(lang.kernel(target="cpu")(ipow_tensor)(xs, ys), xs ** ys)
    # after an error, the next call is clean (the error is per call)
    k = lang.kernel(target="cpu")(ipow_scalar)
    with pytest.raises(ValueError):
        k(x, -1)
    np.testing.assert_array_equal(k(x, 3), x ** np.int32(3))

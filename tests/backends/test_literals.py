"""Negative literals render as C primary expressions on every target: `x + (-lang.float32(-7))` was `--7.0f` (a
decrement of a constant, a compile error), and INT32_MIN / INT64_MIN have no C literal of their own."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.backends.cstyle import float_literal, int_literal

I32_MIN, I64_MIN = -2 ** 31, -2 ** 63


def test_int_literal_text():
    assert int_literal(-7, 32) == "(-7)" and int_literal(7, 8) == "7"
    assert int_literal(I32_MIN, 32) == "(-2147483647 - 1)"
    assert int_literal(-7, 64) == "(-7LL)" and int_literal(I64_MIN, 64) == "(-9223372036854775807LL - 1)"
    assert float_literal("-7.0f") == "(-7.0f)" and float_literal("-0.0") == "(-0.0)" and float_literal("2.5") == "2.5"


@lang.kernel
def neg_f32(x: lang.float32[N]):
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + (-lang.float32(-7)) - (-(-2.5)) + (+lang.float32(-0.0)) * (-x[i])
    return out


@pytest.mark.parametrize("target", ["cpu", "ascend-sim", "interpret"])
def test_negated_negative_float_literal(target):
    x = np.array([0.0, 1.5, -3.0, 1e30], np.float32)
    k = lang.kernel(target=target)(neg_f32.pyfunc)
    want = x + (-np.float32(-7)) - 2.5 + np.float32(-0.0) * (-x)
    np.testing.assert_array_equal(k(x), want)


@lang.kernel
def neg_ints(a: lang.int32[N], b: lang.int64[N], c: lang.int8[N]):
    o1 = lang.empty_like(a)
    o2 = lang.empty_like(b)
    o3 = lang.empty_like(c)
    for i in range(N):
        o1[i] = a[i] - (-lang.int32(-2147483648)) + (~lang.int32(-7)) + (-lang.int32(-7)) + (+lang.int32(-3))
        o2[i] = b[i] + (-lang.int64(-9223372036854775808)) - (~lang.int64(-9223372036854775808)) + (-(-5))
        o3[i] = c[i] - (-lang.int8(-128)) + (~lang.int8(-128)) + (-lang.int8(-7))
    return o1, o2, o3


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_negated_negative_int_literals_and_minimums(target):
    a = np.array([0, 5, -2 ** 31, 2 ** 31 - 1], np.int32)
    b = np.array([0, 5, I64_MIN, 2 ** 63 - 1], np.int64)
    c = np.array([0, 5, -128, 127], np.int8)
    k = lang.kernel(target=target)(neg_ints.pyfunc)
    with np.errstate(over="ignore"):
        w1 = a - (-np.int32(I32_MIN)) + (~np.int32(-7)) + (-np.int32(-7)) + np.int32(-3)
        w2 = b + (-np.int64(I64_MIN)) - (~np.int64(I64_MIN)) + 5
        w3 = c - (-np.int8(-128)) + (~np.int8(-128)) + (-np.int8(-7))
    got = k(a, b, c)
    for g, w in zip(got, (w1, w2, w3)):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)

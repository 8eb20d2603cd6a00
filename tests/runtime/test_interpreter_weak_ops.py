"""`/`, `//`, `%` and `**` of two Python numbers in a kernel mean what NumPy 2 gives (float64, int64), in the
interpreter as in compiled code: `7 // 0` is 0, `1.0 / 0.0` is inf, `(-2.0) ** 0.5` is nan. Before, the interpreter
(the specification) ran Python's operators and raised ZeroDivisionError or produced a complex number where the
compiled kernel returned NumPy's value; a folded `(-2.0) ** 0.5` crashed the frontend."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.errors import KernelTypeError
from helpers import interpreted


@lang.kernel
def weak_ops(x, out, a: int = 7, b: int = 0, c: float = 0.0, d: float = -2.0, e: float = 3.5):
    for i in range(x.shape[0]):
        out[0] = a // b
        out[1] = a % b
        out[2] = a / b
        out[3] = 1.0 / c
        out[4] = d ** 0.5
        out[5] = d % c
        out[6] = d // c
        out[7] = c ** -1.0
        out[8] = d % e                  # defined values keep Python's (= NumPy's) meaning
        out[9] = d // e
        out[10] = a % -3
        out[11] = a // -3
        f = e
        f /= c                          # an augmented assignment of two Python numbers
        out[12] = f


@lang.kernel
def folded(x, out):
    for i in range(x.shape[0]):
        out[0] = (-2.0) ** 0.5
        out[1] = x[i] + (-8.0) ** (1.0 / 3.0)


def _numpy(a=7, b=0, c=0.0, d=-2.0, e=3.5):
    a, b, c, d, e = np.int64(a), np.int64(b), np.float64(c), np.float64(d), np.float64(e)
    with np.errstate(all="ignore"):
        vals = [a // b, a % b, a / b, 1.0 / c, d ** 0.5, d % c, d // c, c ** -1.0, d % e, d // e,
                a % np.int64(-3), a // np.int64(-3), e / c]
    return np.array(vals, np.float64).astype(np.float32)


@pytest.mark.parametrize("scalars", [{}, {"b": 3, "c": 2.0, "d": 9.0}, {"a": -7, "b": 2, "c": -0.0, "d": -0.0}])
def test_weak_ops_match_numpy(scalars):
    x = np.ones(1, np.float32)
    want = _numpy(**scalars)
    for k in (weak_ops, interpreted(weak_ops)):
        out = np.full(13, 123.0, np.float32)
        k(x, out, **scalars)
        np.testing.assert_array_equal(out, want, err_msg=str(k))


def test_folded_complex_is_nan():
    x = np.ones(2, np.float32)
    for k in (folded, interpreted(folded)):
        out = np.zeros(2, np.float32)
        k(x, out)
        assert np.isnan(out).all(), (k, out)


def test_int_negative_power_of_constants_is_refused_with_line():
    @lang.kernel
    def neg_pow(out):
        out[0] = 2 ** -1
    with pytest.raises(KernelTypeError, match=r"negative integer power.*\n.*2 \*\* -1\n.*\^") as e:
        neg_pow(np.zeros(1, np.float32))
    assert "test_interpreter_weak_ops.py:" in str(e.value)


def test_int_negative_power_at_run_time_raises_in_both():
    @lang.kernel
    def ipow(out, a: int = 2, b: int = -1):
        out[0] = a ** b
    for k in (ipow, interpreted(ipow)):
        with pytest.raises(ValueError, match="negative integer power"):
            k(np.zeros(1, np.float32))

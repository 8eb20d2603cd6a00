"""ascend: a scalar that carries a value from one iteration to the next (`s = s * 0.5 + x[i]`, a value kept from an
earlier iteration by an `if`, a running value across rows) is not an element-wise map: the vector path computed
each lane from the value before the loop (wrong results, silently), and a row kernel split the rows over cores that
do not share the value. Such loops are now refused by the vector planner, with the reason, and run as scalar code,
equal to the interpreter."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend.rendering import AscendFallbackWarning
from helpers import interpreted


@lang.kernel(target="ascend-sim")
def recurrence(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    s = lang.float32(0.0)
    for i in range(N):
        s = s * 0.5 + x[i]
        out[i] = s
    return out


@lang.kernel(target="ascend-sim")
def last_positive(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    s = lang.float32(1.0)
    for i in range(N):
        if x[i] > 0.0:
            s = x[i]
        out[i] = s
    return out


@lang.kernel(target="ascend-sim")
def along_row(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    t = lang.float32(0.0)
    for i in range(R):
        for j in range(C):
            t = t * 0.5 + x[i, j]
            out[i, j] = t
    return out


@lang.kernel(target="ascend-sim")
def across_rows(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    t = lang.float32(0.0)
    for i in range(R):
        t = t + x[i, 0]
        for j in range(C):
            out[i, j] = x[i, j] + t
    return out


@lang.kernel(target="ascend-sim")
def sum_across_rows(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    s = lang.float32(0.0)
    for i in range(R):
        for j in range(C):
            s += x[i, j]
        for j in range(C):
            out[i, j] = x[i, j] - s
    return out


X1 = np.linspace(-2, 2, 37).astype(np.float32)
X2 = np.random.default_rng(0).standard_normal((40, 9)).astype(np.float32)     # rows over several cores


@pytest.mark.parametrize("kernel, x, why", [
    (recurrence, X1, "'s' carries a value from one iteration of the loop to the next"),
    (last_positive, X1, "'s' carries a value from one iteration of the loop to the next"),
    (along_row, X2, "'t' carries a value from one iteration of the loop to the next"),
    (across_rows, X2, "'t' carries a value from one row to the next"),
    (sum_across_rows, X2, "'s' carries a value from one iteration of the loop to the next"),
])
def test_a_carried_value_is_scalar_code_equal_to_the_interpreter(kernel, x, why):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = kernel(x)
    np.testing.assert_allclose(got, interpreted(kernel)(x), rtol=1e-6, atol=1e-6)
    msgs = [str(m.message) for m in w if issubclass(m.category, AscendFallbackWarning)]
    assert any(why in m for m in msgs), msgs


@lang.kernel(target="ascend-sim")
def reassigned(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        s = x[i] * 2.0
        s = s + 1.0
        out[i] = s
    return out


def test_a_value_assigned_before_it_is_read_is_still_a_map():
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)
        np.testing.assert_array_equal(reassigned(X1), X1 * 2 + 1)

"""Which max/min loops become vectorized reductions: `m = max(m, x)` skips a NaN element whatever the order, so it
is a reduction; `m = max(x, m)` takes a NaN and forgets it at the next element, an order-dependent result, so its
loop stays serial. Both agree with the interpreter on data with NaN."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang


@lang.kernel
def max_acc_first(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty((R,), dtype=lang.float32)
    for i in range(R):
        m = -1e30
        for j in range(C):
            m = max(m, x[i, j])
        out[i] = m
    return out


@lang.kernel
def max_elem_first(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty((R,), dtype=lang.float32)
    for i in range(R):
        m = -1e30
        for j in range(C):
            m = max(x[i, j], m)
        out[i] = m
    return out


@lang.kernel
def min_elem_first(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty((R,), dtype=lang.float32)
    for i in range(R):
        m = 1e30
        for j in range(C):
            m = min(x[i, j], m)
        out[i] = m
    return out


def data():
    x = np.tile(np.array([3, 1, np.nan], np.float32), (5, 7))
    x[1, -1] = 5
    x[2, 4] = np.nan
    x[3] = np.nan
    x[4] = np.arange(21, dtype=np.float32)
    return x


@pytest.mark.parametrize("kernel", [max_acc_first, max_elem_first, min_elem_first])
def test_agrees_with_the_interpreter_on_nan(kernel):
    x = data()
    got = kernel(x)
    want = lang.kernel(target="interpret")(kernel.pyfunc)(x)
    np.testing.assert_array_equal(got, want)


def test_only_the_order_free_form_is_a_reduction():
    x = data()
    assert "reduction(max:" in max_acc_first.source("cpu", x)
    assert "reduction(" not in max_elem_first.source("cpu", x)
    assert "reduction(" not in min_elem_first.source("cpu", x)

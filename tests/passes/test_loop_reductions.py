"""Which max/min loops become vectorized reductions: Python's max/min of floats is numpy.maximum / minimum (a NaN
gives NaN, wherever it is), so `m = max(m, x)` and `m = max(x, m)` are both order-free and both vectorized
reductions (NaN-propagating ones). A float ternary `x if x > m else m` keeps Python's order-dependent NaN rule, so
its loop stays serial. All agree with the interpreter and with NumPy on data with NaN."""
from __future__ import annotations

import re

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


@lang.kernel
def max_ternary(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty((R,), dtype=lang.float32)
    for i in range(R):
        m = -1e30
        for j in range(C):
            m = x[i, j] if x[i, j] > m else m
        out[i] = m
    return out


def _numpy(kernel, x):
    if kernel is max_ternary:                       # Python's rule: a NaN element is never > m: skipped
        return np.fmax.reduce(x, axis=1, initial=np.float32(-1e30))
    f = np.minimum if kernel is min_elem_first else np.maximum
    return f.reduce(np.concatenate([np.full((x.shape[0], 1), 1e30 if f is np.minimum else -1e30, np.float32), x],
                                   axis=1), axis=1)


@pytest.mark.parametrize("kernel", [max_acc_first, max_elem_first, min_elem_first, max_ternary])
def test_agrees_with_the_interpreter_and_numpy_on_nan(kernel):
    x = data()
    got = kernel(x)
    want = lang.kernel(target="interpret")(kernel.pyfunc)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, _numpy(kernel, x))


def test_max_min_are_nan_propagating_reductions_and_a_float_ternary_is_not():
    x = data()
    def lanes_combined_by(src):     # the function that combines a reduction's lanes of partials into its accumulator
        found = re.findall(r"(\w+) = (asc_\w+)\(\1, asc_\1_ln\[0\]\);", src)
        return {fn for _, fn in found}
    assert "[simd max:m]" in max_acc_first.source("cpu", x, stage="classify")
    assert "[simd max:m]" in max_elem_first.source("cpu", x, stage="classify")
    assert "[simd min:m]" in min_elem_first.source("cpu", x, stage="classify")
    assert "[serial]" in max_ternary.source("cpu", x, stage="classify")
    wide = np.tile(x, (1, 3))       # 63 columns: whole groups of lanes, combined NaN-propagating
    assert lanes_combined_by(max_acc_first.source("cpu", wide)) == {"asc_maximum_f32"}
    assert lanes_combined_by(max_elem_first.source("cpu", wide)) == {"asc_maximum_f32"}
    assert lanes_combined_by(min_elem_first.source("cpu", wide)) == {"asc_minimum_f32"}
    src = max_ternary.source("cpu", wide)
    assert "_ln[" not in src and "reduction(" not in src
    for k in (max_acc_first, max_elem_first, min_elem_first, max_ternary):
        np.testing.assert_array_equal(k(wide), lang.kernel(target="interpret")(k.pyfunc)(wide))

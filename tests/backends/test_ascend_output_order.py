"""ascend: a kernel's outputs are its GM arguments in the order it returns them, whatever the order it allocates
them in (the launchers pass them in that order). The emitted kernel took them in allocation order: outputs of one
dtype came back swapped, and outputs of different sizes made ascend-sim write past an output (heap corruption)."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang


def swapped(x: lang.float32[N]):
    later = lang.empty_like(x)
    first = lang.empty_like(x)
    for i in range(N):
        later[i] = x[i] + 1.0
        first[i] = x[i] * 2.0
    return first, later


def mixed(x: lang.float16[N], y: lang.float16[N]):
    n = N
    wide = lang.empty_like(x, lang.float32)
    for i in range(n):
        wide[i] = x[i]
    halves = lang.empty_like(y)
    halves[0:n // 2] = y[n - n // 2:n]
    halves[n // 2:n] = y[0:n - n // 2]
    return halves, wide


@pytest.mark.parametrize("target", ["ascend-sim", "cpu"])
def test_outputs_come_back_in_return_order(target):
    x = np.arange(300, dtype=np.float32)
    first, later = lang.kernel(target=target)(swapped)(x)
    np.testing.assert_array_equal(first, x * 2)
    np.testing.assert_array_equal(later, x + 1)


@pytest.mark.parametrize("target", ["ascend-sim", "cpu"])
def test_outputs_of_different_sizes_in_return_order(target):
    x = np.arange(300).astype(np.float16)
    y = (np.arange(300) - 150).astype(np.float16)
    halves, wide = lang.kernel(target=target)(mixed)(x, y)
    np.testing.assert_array_equal(halves, np.concatenate([y[150:], y[:150]]))
    np.testing.assert_array_equal(wide, x.astype(np.float32))

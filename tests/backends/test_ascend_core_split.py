"""How the ascend target splits a kernel over the vector cores: rows of ragged byte lengths over many cores (a core
boundary inside a 32-byte block of GM, which DataCopyPad writes only its own bytes of; ascend-sim refuses two cores in
one block through DataCopy) equal the interpreter, and a Compare/Select kernel at its largest tile fits the Unified
Buffer with Select's 8 KB scratch."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from helpers import close, interpreted

R = lang.dim("R")
C = lang.dim("C")
N = lang.dim("N")


@lang.kernel(target="ascend-sim")
def row_scale(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for r in range(R):
        s = 0.0
        for c in range(C):
            s += x[r, c]
        for c in range(C):
            out[r, c] = x[r, c] - s
    return out


@lang.kernel(target="ascend-sim")
def row_scale16(x: lang.float16[R, C]) -> lang.float16[R, C]:
    out = lang.empty_like(x)
    for r in range(R):
        m = x[r, 0]
        for c in range(C):
            m = max(m, x[r, c])
        for c in range(C):
            out[r, c] = x[r, c] - m
    return out


@pytest.mark.parametrize("kernel, shape, dtype", [(row_scale, (100, 7), np.float32), (row_scale, (97, 5), np.float32),
                                                  (row_scale16, (50, 3), np.float16),
                                                  (row_scale16, (300, 33), np.float16)])
def test_ragged_rows_over_many_cores(kernel, shape, dtype):
    # 7 floats a row (28 B): 3 rows per core put a core boundary inside a 32-byte block of the output
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    close(kernel(x), interpreted(kernel)(x), dtype, ulps=4, scale=shape[1])


@lang.kernel(target="ascend-sim")
def relu_ternary(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] if x[i] > 0 else 0.0
    return out


def test_select_kernel_at_its_largest_tile_fits_with_the_select_scratch():
    from asc.backends.ascend import budget, kinds
    from asc import compiler
    x = np.random.default_rng(2).standard_normal(48 * 9000 + 37).astype(np.float32)
    got = relu_ternary(x)
    np.testing.assert_array_equal(got, np.where(x > 0, x, np.float32(0.0)))
    spec = relu_ternary._last
    _, values = kinds.tiling(spec.ascend, {"N": x.size})
    assert values["tile"] == budget.max_tile(spec.ascend.plan) >= 8192      # the largest tile was used

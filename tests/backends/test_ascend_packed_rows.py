"""Packed rows (asc/backends/ascend/packed_rows.py): short rows (q8_0's blocks of 32) several to a UB tile, the
per-row scale spread by Brcb and applied by one repeat-form Mul / Add per row. On ascend-sim against the
interpreter, bit for bit (each element is one rounding of the same product or sum), at 1 row, 7, primes, row counts
that are not multiples of the rows per tile, one tile per core and several, 48 and 3 cores; the plan it takes, the
kernels that keep one row per tile, and the estimate against the unpacked plan."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend.packed_rows import PACK_MAX
from asc.runtime import ascend_sim
from ascend_corpus import dequant_q8_0
from helpers import interpreted

R = lang.dim("R")
F16 = np.float16


@lang.kernel
def shift_rows16(x: lang.float32[R, 16], b: lang.float16[R]) -> lang.float32[R, 16]:
    """A per-row offset over rows of 16 float32 (two blocks), then an element-wise tail."""
    out = lang.empty((R, 16), dtype=lang.float32)
    for i in range(R):
        bi = lang.float32(b[i])
        for j in range(16):
            out[i, j] = (x[i, j] + bi) * 0.5
    return out


@lang.kernel
def scaled_twice(q: lang.int8[R, 32], d: lang.float16[R]) -> lang.float32[R, 32]:
    """The scale is arithmetic on the per-row value, not a read of it: one row per tile."""
    out = lang.empty((R, 32), dtype=lang.float32)
    for i in range(R):
        di = lang.float32(d[i]) * 2.0
        for j in range(32):
            out[i, j] = lang.float32(q[i, j]) * di
    return out


def _sim(kernel):
    return lang.kernel(target="ascend-sim")(kernel.pyfunc)


def _q8(rows, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.integers(-128, 128, (rows, 32)).astype(np.int8)
    d = rng.uniform(-0.1, 0.1, rows).astype(F16)
    if rows > 3:
        d[1], d[2] = 0.0, np.float16(65504.0)          # zero and the largest half: still exact products
    return q, d


ROWS = [1, 7, 8, 61, 997, 2 * PACK_MAX + 9]
CORES = [{}, {"cores": 3}, {"cores": 1}]


@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("cfg", CORES, ids=["48cores", "3cores", "1core"])
def test_dequant_q8_0_packed_equals_the_interpreter(rows, cfg):
    q, d = _q8(rows, rows)
    want = interpreted(dequant_q8_0)(q, d)
    with ascend_sim.configured(**cfg):
        got = _sim(dequant_q8_0)(q, d)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32))


@pytest.mark.parametrize("rows", [1, 13, 509])
@pytest.mark.parametrize("cfg", CORES[:2], ids=["48cores", "3cores"])
def test_a_per_row_offset_packed_equals_the_interpreter(rows, cfg):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 16)).astype(np.float32)
    b = rng.standard_normal(rows).astype(F16)
    want = interpreted(shift_rows16)(x, b)
    with ascend_sim.configured(**cfg):
        got = _sim(shift_rows16)(x, b)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32))


def test_the_plans():
    q, d = _q8(61)
    src = dequant_q8_0.source("ascend", q, d)
    assert "tiles of several short rows" in src.split("\n", 2)[1]
    assert "Brcb(diBrcb, dRowsF[r]" in src and "BinaryRepeatParams(1, 1, 0, 4, 4, 1)" in src
    assert "GetValue" not in src.split("Compute(uint32_t r, uint32_t m)")[1].split("CopyOut")[0]
    x = np.zeros((13, 16), np.float32)
    assert "Add(" in shift_rows16.source("ascend", x, np.zeros(13, F16))
    other = scaled_twice.source("ascend", q, d)
    assert "Brcb" not in other and "one double-buffered UB tile per row" in other
    np.testing.assert_array_equal(_sim(scaled_twice)(q, d), interpreted(scaled_twice)(q, d))


def test_the_estimate_is_near_the_gm_bound():
    rows = 1 << 19
    q, d = np.zeros((rows, 32), np.int8), np.ones(rows, F16)
    est = dequant_q8_0.estimate("ascend", q, d, soc="Ascend910B1")
    bound = (q.nbytes + d.nbytes + rows * 32 * 4) / 1.6e12 + 3e-6
    assert est.kind == "row" and est.seconds < 1.3 * bound, (est, bound)
    slow = scaled_twice.estimate("ascend", q, d, soc="Ascend910B1")
    assert slow.seconds > 2 * est.seconds, (slow, est)


def test_per_row_slices_too_large_for_a_tile_of_8_rows_are_refused():
    from asc.errors import CompileError
    q, d = np.zeros((32000, 32), np.int8), np.ones(32000, F16)
    with ascend_sim.configured(cores=1), pytest.raises(CompileError, match=r"32000 rows per core of the per-row "
                                                                           r"tensors \(d\) need 192000 B .* tile of "
                                                                           r"8 rows"):
        _sim(dequant_q8_0)(q, d)

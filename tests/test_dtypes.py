"""asc.dtypes: scalars converted to a parameter's dtype, bfloat16 rounded once from the exact value."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np

import pytest

from asc import ir
from asc.dtypes import HANDLES, convert, to_bfloat16

BF16 = ml_dtypes.bfloat16


def exact_bf16(value) -> int:
    """The bits of the bfloat16 nearest to `value` (ties to even), from exact rational arithmetic."""
    x = Fraction(value)
    finite = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    finite = finite[(finite & 0x7f80) != 0x7f80]
    vals = finite.view(BF16).astype(np.float64)
    order = np.argsort(vals, kind="stable")
    vals, bits = vals[order], finite[order]
    i = int(np.searchsorted(vals, float(x)))
    best = None
    for j in (i - 2, i - 1, i, i + 1):
        if 0 <= j < len(vals):
            d = abs(Fraction(float(vals[j])) - x)
            key = (d, int(bits[j]) & 1)        # nearest, then the even one
            if best is None or key < best[0]:
                best = (key, int(bits[j]))
    largest = Fraction(float(vals[-1]))
    if abs(x) >= largest + (largest - Fraction(float(vals[-2]))) / 2:      # beyond the last midpoint: inf
        return 0x7f80 if x > 0 else 0xff80
    return best[1]


def test_to_bfloat16_rounds_once():
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 1 << 16, 400).astype(np.uint16)
    bits = bits[(bits & 0x7f80) != 0x7f80]
    v = bits.view(BF16).astype(np.float64)
    nxt = (bits + 1).astype(np.uint16).view(BF16).astype(np.float64)
    mids = (v + nxt) / 2
    cases = [1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -8, 1 + 2 ** -8 - 2 ** -40, 3.3961e38, 3.39e38, 1e-40, -1e-45]
    cases += list(mids[np.isfinite(mids)]) + list(np.nextafter(mids, np.inf)) + list(np.nextafter(mids, -np.inf))
    for c in cases:
        c = float(c)
        if np.isfinite(c):
            got = int(np.array(to_bfloat16(c)).view(np.uint16))
            want = exact_bf16(c)
            assert got == want or (got & 0x7fff == 0 and want & 0x7fff == 0), (c, hex(got), hex(want))


def test_to_bfloat16_ints_exact():
    for n in (0, 7, -7, 257, 259, 2 ** 53 + 1, 2 ** 60 + 2 ** 52 + 1, -(2 ** 60 + 2 ** 52 + 1), 10 ** 30):
        assert int(np.array(to_bfloat16(n)).view(np.uint16)) == exact_bf16(n), n
    with pytest.raises(OverflowError):         # as float(n) and float16 do
        to_bfloat16(10 ** 400)
    assert np.isnan(np.float32(to_bfloat16(float("nan"))))
    assert np.isinf(np.float32(to_bfloat16(1e300)))


def test_arrays_convert_as_scalars():
    rng = np.random.default_rng(5)
    bits = rng.integers(0, 1 << 16, 2000).astype(np.uint16)
    bits = bits[(bits & 0x7f80) != 0x7f80]
    v = bits.view(BF16).astype(np.float64)
    mids = (v[:-1] + v[1:]) / 2
    cases = np.concatenate([mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf), [1 + 2 ** -8 + 2 ** -30]])
    got = convert(cases, HANDLES[ir.bfloat16]).astype(BF16).view(np.uint16)
    want = np.array([np.array(to_bfloat16(float(c))).view(np.uint16) for c in cases])
    np.testing.assert_array_equal(got, want)

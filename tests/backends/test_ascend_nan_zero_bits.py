"""ascend: the bits the interpreter gives for -0.0 and NaN, where the vector lowering had its own (found by
tests/test_fuzz_bits.py): lang.maximum / minimum with the scalar first (Maxs(x, s) swapped the operands: on a tie,
0.0 against -0.0, numpy.maximum(s, x) is x, and of two NaNs s); a selection `s if s >= x else x` (the then operand
on a tie: not a Max); a NaN literal (emitted as 0.0f / 0.0f, the hardware's default NaN: -nan on x86); an explicit
lang.bfloat16(v) of a computed bfloat16 value (not rounded, as if v were a load). On every target."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang
from helpers import on_target

TARGETS = ["ascend-sim", "cpu", "cpu-checked"]


def ties(x: lang.float32[N]):
    lo = lang.empty_like(x)
    hi = lang.empty_like(x)
    ge = lang.empty_like(x)
    le = lang.empty_like(x)
    for i in range(N):
        lo[i] = lang.minimum(0.0, x[i])
        hi[i] = lang.maximum(-0.0, x[i])
        ge[i] = 0.0 if 0.0 >= x[i] else x[i]
        le[i] = -0.0 if -0.0 <= x[i] else x[i]
    return lo, hi, ge, le


def nans(x: lang.float16[N]):
    lit = lang.empty_like(x)
    neg = lang.empty_like(x)
    mn = lang.empty_like(x)
    for i in range(N):
        lit[i] = float("nan") if x[i] > 0.0 else x[i]
        neg[i] = -float("nan") if x[i] > 0.0 else x[i]
        mn[i] = lang.minimum(float("nan"), x[i])
    return lit, neg, mn


def rounded(x: lang.float16[N], y: lang.bfloat16[N]):
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = max(lang.bfloat16(y[i] * y[i]), x[i])
    return out


def run(fn, target, *args):
    got = on_target(target, fn)(*args)
    ref = lang.kernel(target="interpret")(fn)(*args)
    return (got if isinstance(got, tuple) else (got,)), (ref if isinstance(ref, tuple) else (ref,))


def bits(a):
    a = np.asarray(a)
    return a.view(np.uint16 if a.itemsize == 2 else np.uint32)


@pytest.mark.parametrize("target", TARGETS)
def test_ties_of_zeros(target):
    x = np.array([-0.0, 0.0, 1.0, -2.0] * 20, np.float32)
    got, ref = run(ties, target, x)
    want = [np.minimum(np.float32(0.0), x), np.maximum(np.float32(-0.0), x), np.where(0.0 >= x, np.float32(0.0), x),
            np.where(-0.0 <= x, np.float32(-0.0), x)]
    for g, r, w in zip(got, ref, want):
        np.testing.assert_array_equal(bits(r), bits(w))
        np.testing.assert_array_equal(bits(g), bits(w))


@pytest.mark.parametrize("target", TARGETS)
def test_nan_literals_and_nan_operands(target):
    x = np.array([0x3c00, 0x7c01, 0xfd55, 0x8000] * 20, np.uint16).view(np.float16)   # 1.0, NaNs, -0.0
    got, ref = run(nans, target, x)
    b = bits(x)
    positive = x > 0
    want = [np.where(positive, 0x7e00, b), np.where(positive, 0xfe00, b), np.full(b.shape, 0x7e00)]
    for g, r, w in zip(got, ref, want):
        np.testing.assert_array_equal(bits(r), w)
        np.testing.assert_array_equal(bits(g), w)


@pytest.mark.parametrize("target", TARGETS)
def test_an_explicit_cast_of_a_computed_value_rounds(target):
    x = np.full(70, -np.inf, np.float16)
    y = np.full(70, -2.34375, ml_dtypes.bfloat16)       # y * y = 5.4931640625: 5.5 in bfloat16
    got, ref = run(rounded, target, x, y)
    np.testing.assert_array_equal(np.asarray(ref[0]), np.full(70, 5.5, np.float16))
    np.testing.assert_array_equal(np.asarray(got[0]), np.full(70, 5.5, np.float16))

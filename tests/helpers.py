"""Shared test helpers: run a kernel compiled and interpreted, compare with references at each dtype's precision."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

import asc.language as lang

BF16 = np.dtype(ml_dtypes.bfloat16)
# relative / absolute tolerance by storage dtype, for results rounded once to that dtype
TOL = {np.dtype(np.float32): (1e-5, 1e-6), np.dtype(np.float64): (1e-12, 1e-14),
       np.dtype(np.float16): (2e-3, 2e-3), BF16: (1.6e-2, 1.6e-2)}

_interp = {}


def on_target(target: str, fn, **options):
    """fn as a kernel for one of the test targets: "cpu-checked" is the cpu target with memory checks, any other
    name is asc's target of that name."""
    if target == "cpu-checked":
        return lang.kernel(target="cpu", memory_check=True, **options)(fn)
    return lang.kernel(target=target, **options)(fn)


def interpreted(kernel):
    """The same kernel with target="interpret" (the specification)."""
    k = _interp.get(kernel)
    if k is None:
        k = _interp[kernel] = lang.kernel(target="interpret")(kernel.pyfunc)
    return k


def close(actual, expected, dtype=None, scale=1.0, ulps=1.0):
    """Asserts actual ~ expected within `ulps` roundings of `dtype` (atol is relative to the largest magnitude)."""
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    assert a.shape == e.shape, (a.shape, e.shape)
    dt = np.dtype(dtype or np.asarray(actual).dtype)
    if dt.kind in "biu":
        np.testing.assert_array_equal(a, e)
        return
    rtol, atol = TOL[dt]
    big = float(np.max(np.abs(e))) if e.size else 1.0
    np.testing.assert_allclose(a, e, rtol=rtol * ulps, atol=atol * ulps * max(big, 1.0) * scale)


def erf64(x):
    return np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x, np.float64))


def gelu_erf_ref(x):
    x = np.asarray(x, np.float64)
    return 0.5 * x * (1.0 + erf64(x / math.sqrt(2.0)))


def gelu_tanh_ref(x):
    x = np.asarray(x, np.float64)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def rand(shape, dtype, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def ulps_from_exact(got, exact):
    """|got - exact| in ulp of the float32 nearest the exact (float64) value, over finite, nonzero results."""
    with np.errstate(over="ignore", invalid="ignore"):
        ref = exact.astype(np.float32)
    ok = np.isfinite(ref) & (ref != 0) & np.isfinite(got)
    return np.abs(got[ok].astype(np.float64) - exact[ok]) / np.spacing(np.abs(ref[ok])).astype(np.float64)


def ulp_distance(a, b):
    """How many values of a's float dtype (float16, bfloat16, float32) a and b are apart, elementwise, over the
    elements finite in both."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    bits = 8 * a.dtype.itemsize
    itype = {16: np.int16, 32: np.int32}[bits]

    def ordered(v):
        i = v.view(itype).astype(np.int64)
        return np.where(i < 0, -(i & (2 ** (bits - 1) - 1)), i)
    ok = np.isfinite(a.astype(np.float32)) & np.isfinite(b.astype(np.float32))
    return np.abs(ordered(a[ok]) - ordered(b[ok]))

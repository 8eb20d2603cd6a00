"""@lang.vectorize: an element function over arrays, with NumPy broadcasting and scalars, for any dtype."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.language as lang


@lang.vectorize
def saxpy(a: lang.float32, x: lang.float32[1024], y: lang.float32[1024]) -> lang.float32[1024]:
    return a * x + y


@lang.vectorize
def clip_gelu(x, lo, hi):
    v = 0.5 * x * (1.0 + lang.erf(x / lang.sqrt(2.0)))
    return lang.minimum(lang.maximum(v, lo), hi)


def test_seed_saxpy():
    x = np.random.default_rng(0).random(1024).astype(np.float32)
    y = np.random.default_rng(1).random(1024).astype(np.float32)
    out = saxpy(np.float32(2.0), x, y)
    assert out.dtype == np.float32 and out.shape == (1024,)
    np.testing.assert_array_equal(out, np.float32(2.0) * x + y)


def test_broadcasting_and_scalars():
    col = np.arange(3, dtype=np.float32).reshape(3, 1)
    row = np.arange(5, dtype=np.float32)
    out = saxpy(2.0, col, row)
    np.testing.assert_array_equal(out, 2 * col + row)
    assert out.shape == (3, 5)
    assert saxpy(2.0, 3.0, 1.0) == 7.0
    with pytest.raises(asc.ArgumentError, match="broadcast"):
        saxpy(1.0, np.ones(3, np.float32), np.ones(4, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_every_dtype_it_is_called_with(dtype):
    x = np.linspace(-3, 3, 101).astype(dtype)
    out = clip_gelu(x, -0.1, 2.0)
    assert out.dtype == np.dtype(dtype)
    import math
    ref = np.array([min(max(0.5 * v * (1 + math.erf(v / math.sqrt(2))), -0.1), 2.0)
                    for v in x.astype(np.float64)]).astype(dtype)
    np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64),
                               rtol=1e-2 if np.dtype(dtype).itemsize == 2 else 1e-5, atol=1e-6)


def test_integers_and_interpreter():
    @lang.vectorize
    def mix(a, b):
        return a * 3 + b // 2

    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.array([10, 11, 12], np.int32)
    np.testing.assert_array_equal(mix(a, b), a * 3 + b // 2)
    interp = lang.vectorize(target="interpret")(mix.__wrapped__)
    np.testing.assert_array_equal(interp(a, b), a * 3 + b // 2)
    assert "for i1 in range(3)" in mix.source(a, b)

"""The seed's kernels on the cpu target: against NumPy references and against the interpreter."""
import numpy as np
import pytest

from helpers import BF16, close, gelu_erf_ref, gelu_tanh_ref, interpreted, rand
from asc.examples import seed as sk

SIZES = [0, 1, 7, 1000, 1 << 20]
INTERP_MAX = 1000          # the interpreter runs Python per element: check it on the small sizes
FLOATS = [np.float32, np.float16, BF16]


def both(kernel, *args, n=None):
    """Compiled result, and the interpreter's when the problem is small enough."""
    out = kernel(*args)
    ref = interpreted(kernel)(*args) if (n is None or n <= INTERP_MAX) else None
    return out, ref


def test_vector_add():
    a, b = rand(1024, np.float32, 1), rand(1024, np.float32, 2)
    c, ci = both(sk.vector_add, a, b)
    assert c.dtype == np.float32 and c.shape == (1024,)
    np.testing.assert_array_equal(c, a + b)
    np.testing.assert_array_equal(ci, c)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, BF16, np.int32, np.int8, np.uint8, np.int64])
def test_add_any_dtype(n, dtype):
    a, b = rand(n, dtype, 1), rand(n, dtype, 2)
    c, ci = both(sk.add, a, b, n=n)
    assert c.dtype == np.dtype(dtype)
    expected = (a.astype(np.float64) + b.astype(np.float64))
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(c, (a + b))          # wraps like NumPy
    else:
        close(c, expected.astype(dtype), dtype)
    if ci is not None:
        np.testing.assert_array_equal(c.view(np.uint8), ci.view(np.uint8))


@pytest.mark.parametrize("n", SIZES)
def test_gelu_naive(n):
    x = rand(n, np.float32, 3)
    y, yi = both(sk.gelu_naive, x, n=n)
    close(y, gelu_erf_ref(x), np.float32, ulps=4)
    if yi is not None:
        close(y, yi, np.float32, ulps=4)


@pytest.mark.parametrize("n", SIZES)
def test_gelu_approx(n):
    x = rand(n, np.float32, 4)
    y, yi = both(sk.gelu_approx, x, n=n)
    close(y, gelu_tanh_ref(x), np.float32, ulps=4)
    if yi is not None:
        close(y, yi, np.float32, ulps=4)


@pytest.mark.parametrize("n", [0, 1, 7, 1000, 1 << 20])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("form", ["erf", "tanh"])
def test_gelu_16bit_and_32bit(n, dtype, form):
    kernel, ref = (sk.gelu_any, gelu_erf_ref) if form == "erf" else (sk.gelu_tanh_any, gelu_tanh_ref)
    x = rand(n, dtype, 5)
    y, yi = both(kernel, x, n=n)
    assert y.dtype == np.dtype(dtype)
    close(y, ref(x.astype(np.float64)).astype(dtype), dtype, ulps=2)
    if yi is not None:
        close(y, yi, dtype, ulps=1)


@pytest.mark.parametrize("n", SIZES)
def test_saxpy(n):
    x, y = rand(n, np.float32, 6), rand(n, np.float32, 7)
    out, outi = both(sk.saxpy, 2.5, x, y, n=n)
    close(out, 2.5 * x.astype(np.float64) + y, np.float32)
    if outi is not None:
        np.testing.assert_array_equal(out, outi)


@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (7, 33), (31, 1000), (512, 2048)])
def test_swish_glu_float16(shape):
    xw, xv = rand(shape, np.float16, 8, 2.0), rand(shape, np.float16, 9, 2.0)
    out, outi = both(sk.swish_glu, xw, xv, n=shape[0] * shape[1])
    assert out.dtype == np.float16 and out.shape == shape
    z = xw.astype(np.float64)
    close(out, (z / (1 + np.exp(-z)) * xv.astype(np.float64)).astype(np.float16), np.float16, ulps=2)
    if outi is not None:
        close(out, outi, np.float16)
    beta = np.float16(1.5)
    out_b = sk.swish_glu(xw, xv, beta)
    close(out_b, (z / (1 + np.exp(-1.5 * z)) * xv.astype(np.float64)).astype(np.float16), np.float16, ulps=2)


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (64, 1000)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_swiglu_any(shape, dtype):
    a, b = rand(shape, dtype, 10, 2.0), rand(shape, dtype, 11, 2.0)
    out, outi = both(sk.swiglu_any, a, b, n=shape[0] * shape[1])
    a64 = a.astype(np.float64)
    close(out, (a64 / (1 + np.exp(-a64)) * b.astype(np.float64)).astype(dtype), dtype, ulps=2)
    if outi is not None:
        close(out, outi, dtype)


@pytest.mark.parametrize("mkn", [(1, 1, 1), (5, 7, 3), (17, 33, 9), (64, 48, 80)])
def test_matmul_annotated_float16(mkn):
    m, k, n = mkn
    A, B = rand((m, k), np.float16, 12, 0.5), rand((k, n), np.float16, 13, 0.5)
    C, Ci = both(sk.matmul, A, B)
    assert C.dtype == np.float16 and C.shape == (m, n)
    np.testing.assert_array_equal(C, Ci)  # same float16 accumulation order as the interpreter
    close(C, A.astype(np.float64) @ B.astype(np.float64), np.float16, ulps=max(k, 4))


@pytest.mark.parametrize("mkn", [(1, 1, 1), (5, 7, 3), (31, 17, 13), (96, 64, 80)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_matmul_naive_unannotated(mkn, dtype):
    m, k, n = mkn
    A, B = rand((m, k), dtype, 14, 2.0), rand((k, n), dtype, 15, 2.0)
    C, Ci = both(sk.matmul_naive, A, B, n=m * n * k)
    assert C.dtype == np.dtype(dtype) and C.shape == (m, n)
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(C, A @ B)
    else:
        close(C, A.astype(np.float64) @ B.astype(np.float64), dtype, ulps=k)
    if Ci is not None:
        close(C, Ci, dtype, ulps=k)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (17, 1000), (256, 4096)])
def test_softmax_rows(shape):
    x = rand(shape, np.float32, 16, 4.0)
    y, yi = both(sk.softmax, x, n=shape[0] * shape[1])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    close(y, e / e.sum(axis=1, keepdims=True), np.float32, ulps=8)
    if yi is not None:
        close(y, yi, np.float32, ulps=8)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (17, 1000), (256, 4096)])
def test_layernorm_rows(shape):
    x = rand(shape, np.float32, 17, 2.0) + 3.0
    w, b = rand(shape[1], np.float32, 18), rand(shape[1], np.float32, 19)
    y, yi = both(sk.layernorm, x, w, b, n=shape[0] * shape[1])
    x64 = x.astype(np.float64)
    mu, var = x64.mean(axis=1, keepdims=True), x64.var(axis=1, keepdims=True)
    close(y, (x64 - mu) / np.sqrt(var + 1e-5) * w + b, np.float32, ulps=50)
    if yi is not None:
        close(y, yi, np.float32, ulps=50)

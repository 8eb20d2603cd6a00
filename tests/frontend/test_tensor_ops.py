"""Tensor-level code in kernels: whole tensors and views in arithmetic and math, broadcasting, reductions, softmax,
transposes, matrix products; compiled (cpu) against NumPy and against the interpreter; shape errors at the line."""
import os

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError, KernelTypeError
from helpers import BF16, close, interpreted, rand

N = lang.dim("N")
R = lang.dim("R")
C = lang.dim("C")
FLOATS = [np.float32, np.float16, BF16]

THIS_FILE = os.path.realpath(__file__)
with open(THIS_FILE, encoding="utf-8") as _f:
    LINES = _f.read().splitlines()


def line_of(marker):
    hits = [n for n, text in enumerate(LINES, 1) if f"# <{marker}>" in text]
    assert len(hits) == 1
    return hits[0]


def both(kernel, *args):
    return kernel(*args), interpreted(kernel)(*args)


def f64(x):
    return np.asarray(x).astype(np.float64)


# ------------------------------------------------------------------ elementwise, broadcasting, math

@lang.kernel
def affine_gelu(x: lang.Tensor, w: lang.Tensor, b: lang.Tensor):
    return lang.gelu(x * w + b) - 0.5 * x


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (64, 128)])
def test_broadcast_arithmetic_and_gelu(dtype, shape):
    x = rand(shape, dtype, 1)
    w = rand(shape[1:], dtype, 2, 0.5)          # a row broadcast along the rows
    b = rand((shape[0], 1), dtype, 3)           # a column broadcast along the columns
    y, yi = both(affine_gelu, x, w, b)
    assert y.dtype == np.dtype(dtype) and y.shape == shape
    t = f64(x) * f64(w) + f64(b)
    ref = np.asarray(lang.gelu(t.astype(np.float32)), np.float64) - 0.5 * f64(x)
    close(y, ref.astype(dtype), dtype, ulps=4)
    close(y, yi, dtype, ulps=4)


@lang.kernel
def math_mix(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    out[:, :] = lang.exp(-lang.abs(x)) + lang.maximum(x, 0.25) * lang.sigmoid(x) + lang.relu(x) / 3 + lang.silu(x)
    return out


def test_math_functions_on_tensors():
    x = rand((33, 17), np.float32, 4)
    y, yi = both(math_mix, x)
    sig = 1 / (1 + np.exp(-f64(x)))
    ref = np.exp(-np.abs(f64(x))) + np.maximum(f64(x), 0.25) * sig + np.maximum(f64(x), 0) / 3 + f64(x) * sig
    close(y, ref, np.float32, ulps=8)
    close(y, yi, np.float32, ulps=8)


@lang.kernel
def compare_cast(x: lang.float32[N]) -> lang.int32[N]:
    return lang.cast(x > 0.0, lang.int32) + lang.cast(x * 10.0, lang.int32)


def test_comparisons_and_casts_of_tensors():
    x = rand(100, np.float32, 5)
    y, yi = both(compare_cast, x)
    ref = (x > 0).astype(np.int32) + (x * 10).astype(np.int32)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(yi, ref)


# ------------------------------------------------------------------ views and tile loops

@lang.kernel
def tiled_scale(x: lang.float32[R, C], out: lang.float32[R, C]):
    B = 16
    for i in range(0, R, B):
        out[i:i + B, :] = x[i:i + B, 0:C] * 2.0 + 1.0


@pytest.mark.parametrize("rows", [16, 48, 50, 7, 0])
def test_tile_loop_views_clip_at_the_edge(rows):
    x = rand((rows, 24), np.float32, 6)
    out = np.full((rows, 24), -7.0, np.float32)
    tiled_scale(x, out)
    np.testing.assert_array_equal(out, x * 2 + 1)
    out2 = np.full((rows, 24), -7.0, np.float32)
    interpreted(tiled_scale)(x, out2)
    np.testing.assert_array_equal(out2, out)


@lang.kernel
def rows_and_columns(x: lang.float32[8, 6]) -> lang.float32[8, 6]:
    out = lang.zeros_like(x)
    for i in range(8):
        out[i] = x[i] * x[i, 0]          # a partial index is a row view
    out[:, 5] = x[:, 1] + x[0]           # ... and a column (with a broadcast row: the shapes are (8,) and (6,))
    return out


def test_rows_columns_and_broadcast_errors():
    with pytest.raises(KernelTypeError) as ei:
        rows_and_columns(np.zeros((8, 6), np.float32))
    assert "(8,) and (6,) cannot be broadcast" in str(ei.value)


@lang.kernel
def rows_only(x: lang.float32[8, 6]) -> lang.float32[8, 6]:
    out = lang.zeros_like(x)
    for i in range(8):
        out[i] = x[i] * x[i, 0]
    out[:, 5] = x[:, 1] + x[0, 2]
    out[...] += 1.0
    return out


def test_partial_index_is_a_row_view():
    x = rand((8, 6), np.float32, 7)
    y, yi = both(rows_only, x)
    ref = x * x[:, :1]
    ref[:, 5] = x[:, 1] + x[0, 2]
    ref += 1
    np.testing.assert_allclose(y, ref, rtol=1e-6)
    np.testing.assert_array_equal(y, yi)


@lang.kernel
def transposes(a: lang.float32[R, C]):
    t = lang.transpose(a)
    return t * 2.0, a.T + 1.0


def test_transpose_is_a_view():
    a = rand((5, 9), np.float32, 8)
    (t, u), (ti, ui) = both(transposes, a)
    np.testing.assert_array_equal(t, a.T * 2)
    np.testing.assert_array_equal(u, a.T + 1)
    np.testing.assert_array_equal(t, ti)
    np.testing.assert_array_equal(u, ui)


@lang.kernel
def shifted(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    out[1:N] = x[0:N - 1]                  # overlapping source and destination: NumPy copies first
    x[1:N] = x[0:N - 1] + 0.0              # in place, overlapping
    return out


def test_overlapping_views_copy_as_numpy():
    x = np.arange(10, dtype=np.float32)
    xc = x.copy()
    y = shifted(xc)
    ref = np.concatenate([[0], x[:-1]]).astype(np.float32)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(xc, np.concatenate([[0], x[:-1]]).astype(np.float32))
    xi = x.copy()
    np.testing.assert_array_equal(interpreted(shifted)(xi), ref)
    np.testing.assert_array_equal(xi, xc)


@lang.kernel
def bound_then_written(x: lang.float32[N], out: lang.float32[4]):
    y = x * 2.0                 # computed here: the write to x below does not change y
    x[0] = 100.0
    for i in range(4):
        t = y * i               # a temporary per iteration
        out[i] = lang.sum(t) + x[0]


def test_a_bound_expression_is_computed_where_it_is_bound():
    x = np.arange(6, dtype=np.float32)
    out = np.zeros(4, np.float32)
    bound_then_written(x.copy(), out)
    ref = np.array([30.0 * i + 100 for i in range(4)], np.float32)
    np.testing.assert_array_equal(out, ref)
    out2 = np.zeros(4, np.float32)
    interpreted(bound_then_written)(x.copy(), out2)
    np.testing.assert_array_equal(out2, ref)


@lang.kernel
def rebound_in_branch(x: lang.float32[4], y: lang.float32[4], c: int):
    t = x * 1.0
    if c > 0:
        t = y * 1.0  # <rebound>
    return t


@lang.kernel
def rebound_in_block(x: lang.float32[4]):
    t = x * 2.0
    t = t + 1.0                 # the same block: a new value for the name, as in Python
    return t


def test_tensor_names_rebound_only_in_their_block():
    with pytest.raises(KernelTypeError) as ei:
        rebound_in_branch(np.ones(4, np.float32), np.ones(4, np.float32), 1)
    assert ei.value.loc.line == line_of("rebound")
    assert "tensor variable 't' is bound again inside a branch or loop" in ei.value.msg
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(rebound_in_block(x), x * 2 + 1)


# ------------------------------------------------------------------ reductions and softmax

@lang.kernel
def reductions(x: lang.Tensor):
    return (lang.sum(x, axis=1), lang.max(x, axis=0), lang.min(x, axis=-1, keepdims=True), lang.sum(x),
            lang.max(x))


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (300, 257)])
def test_reductions(dtype, shape):
    x = rand(shape, dtype, 9)
    (s1, m0, mn, s, m), (s1i, m0i, mni, si, mi) = both(reductions, x)
    if np.dtype(dtype).kind == "i":
        assert s1.dtype == np.int64
        np.testing.assert_array_equal(s1, x.sum(1, dtype=np.int64))
        np.testing.assert_array_equal(m0, x.max(0))
        np.testing.assert_array_equal(mn, x.min(-1, keepdims=True))
        assert s == x.sum(dtype=np.int64) and m == x.max()
        np.testing.assert_array_equal(s1i, s1)
        return
    assert s1.dtype == np.dtype(dtype) and mn.shape == (shape[0], 1)
    xd = f64(x)
    ulps = max(4, shape[1] // 16)
    close(s1, xd.sum(1), dtype, scale=np.sqrt(shape[1]), ulps=ulps)
    np.testing.assert_array_equal(m0, x.max(0))
    np.testing.assert_array_equal(mn, x.min(-1, keepdims=True))
    close(np.float32(s), xd.sum(), np.float32 if dtype == np.float32 else dtype, scale=np.sqrt(x.size), ulps=ulps)
    assert float(m) == float(x.max())
    close(s1, s1i, dtype, scale=np.sqrt(shape[1]), ulps=ulps)
    np.testing.assert_array_equal(m0, m0i)
    close(np.float32(s), np.float32(si), np.float32 if dtype == np.float32 else dtype, scale=np.sqrt(x.size),
          ulps=ulps)


@lang.kernel
def softmax_rows(x: lang.Tensor):
    return lang.softmax(x), lang.softmax(x, axis=0)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (5, 7), (64, 1000)])
def test_softmax(dtype, shape):
    x = rand(shape, dtype, 10)
    (y, y0), (yi, y0i) = both(softmax_rows, x)

    def ref(a, axis):
        e = np.exp(a - a.max(axis, keepdims=True))
        return e / e.sum(axis, keepdims=True)
    close(y, ref(f64(x), -1), dtype, ulps=8)
    close(y0, ref(f64(x), 0), dtype, ulps=8)
    close(y, yi, dtype, ulps=8)
    close(y0, y0i, dtype, ulps=8)


@lang.kernel
def row_norm(x: lang.float32[R, C]) -> lang.float32[R, C]:
    mean = lang.sum(x, axis=1, keepdims=True) / C
    d = x - mean
    var = lang.sum(d * d, axis=1, keepdims=True) / C
    return d * lang.rsqrt(var + 1e-5)


def test_layernorm_in_tensor_style():
    x = rand((37, 129), np.float32, 11)
    y, yi = both(row_norm, x)
    xd = f64(x)
    d = xd - xd.mean(1, keepdims=True)
    ref = d / np.sqrt((d * d).mean(1, keepdims=True) + 1e-5)
    close(y, ref, np.float32, ulps=16)
    close(y, yi, np.float32, ulps=16)


# ------------------------------------------------------------------ matrix products in plain kernels

@lang.kernel
def mm_bias(a: lang.Tensor, b: lang.Tensor, bias: lang.Tensor):
    return lang.relu(a @ b + bias)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (17, 33, 65), (128, 64, 96)])
def test_matmul_with_bias_and_relu(dtype, m, k, n):
    a, b, bias = rand((m, k), dtype, 12, 1.0), rand((k, n), dtype, 13, 1.0), rand(n, dtype, 14)
    y, yi = both(mm_bias, a, b, bias)
    assert y.dtype == np.dtype(dtype)
    ref = np.maximum(f64(a) @ f64(b) + f64(bias), 0)
    close(y, ref, dtype, scale=np.sqrt(k), ulps=4)
    close(y, yi, dtype, scale=np.sqrt(k), ulps=4)


@lang.kernel
def mm_transposed(a: lang.float32[R, C], b: lang.float32[R, C]):
    return a.T @ b, a @ lang.transpose(b), a[1:5, 0:4] @ b[2:6, 0:4].T


def test_matmul_of_transposed_and_sliced_views():
    a, b = rand((23, 11), np.float32, 15, 1.0), rand((23, 11), np.float32, 16, 1.0)
    (p, q, r), (pi, qi, ri) = both(mm_transposed, a, b)
    close(p, f64(a).T @ f64(b), np.float32, scale=5, ulps=4)
    close(q, f64(a) @ f64(b).T, np.float32, scale=5, ulps=4)
    close(r, f64(a)[1:5, 0:4] @ f64(b)[2:6, 0:4].T, np.float32, scale=5, ulps=4)
    for u, v in ((p, pi), (q, qi), (r, ri)):
        close(u, v, np.float32, scale=5, ulps=4)


@lang.kernel
def batched(a: lang.Tensor, b: lang.Tensor):
    return lang.matmul(a, b)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((3, 5, 7), (3, 7, 4)), ((2, 16, 8), (8, 9)), ((9, 8), (4, 8, 3))])
def test_batched_matmul(dtype, shapes):
    a, b = rand(shapes[0], dtype, 17, 1.0), rand(shapes[1], dtype, 18, 1.0)
    y, yi = both(batched, a, b)
    ref = np.matmul(f64(a), f64(b))
    assert y.shape == ref.shape and y.dtype == np.dtype(dtype)
    close(y, ref, dtype, scale=3, ulps=4)
    close(y, yi, dtype, scale=3, ulps=4)


@lang.kernel
def accumulate_tiles(a: lang.float32[R, C], b: lang.float32[C, R], out: lang.float32[R, R]):
    T = 8
    for k in range(0, C, T):
        out[:, :] += a[:, k:k + T] @ b[k:k + T, :]


@pytest.mark.parametrize("k", [16, 20, 3])
def test_accumulating_tile_products_over_k(k):
    a, b = rand((12, k), np.float32, 19, 1.0), rand((k, 12), np.float32, 20, 1.0)
    out = np.ones((12, 12), np.float32)
    accumulate_tiles(a, b, out)
    close(out, 1 + f64(a) @ f64(b), np.float32, scale=3, ulps=4)
    out2 = np.ones((12, 12), np.float32)
    interpreted(accumulate_tiles)(a, b, out2)
    close(out, out2, np.float32, scale=3, ulps=4)


def test_matmul_source_shows_the_product():
    a, b, bias = rand((4, 3), np.float32, 1), rand((3, 5), np.float32, 2), rand(5, np.float32, 3)
    text = mm_bias.source("ir", a, b, bias)
    assert "matmul " in text and " @ " in text
    cpp = mm_bias.source("cpu", a, b, bias)
    assert '#include "asc_tensor.h"' in cpp and "asc_matmul(" in cpp


# ------------------------------------------------------------------ dynamic shapes

@lang.kernel(dynamic_shape=True)
def dyn(x: lang.float32[R, C], w: lang.float32[C, N]) -> lang.float32[R, N]:
    return lang.gelu(x @ w) + lang.sum(x, axis=1, keepdims=True)


@pytest.mark.parametrize("r,c,n", [(3, 4, 5), (40, 9, 70)])
def test_dynamic_shapes(r, c, n):
    x, w = rand((r, c), np.float32, 21, 1.0), rand((c, n), np.float32, 22, 1.0)
    y = dyn(x, w)
    ref = np.asarray(lang.gelu((f64(x) @ f64(w)).astype(np.float32)), np.float64) + f64(x).sum(1, keepdims=True)
    close(y, ref, np.float32, scale=4, ulps=8)
    assert dyn.cache_info()["specializations"] <= 2


# ------------------------------------------------------------------ compile-time shape errors

@lang.kernel
def bad_broadcast(x: lang.float32[4, 8], y: lang.float32[4, 9]):
    return x + y  # <bad-broadcast>


@lang.kernel
def bad_matmul(a: lang.float32[4, 8], b: lang.float32[9, 4]):
    return a @ b  # <bad-matmul>


@lang.kernel
def bad_store(a: lang.float32[4, 8], out: lang.float32[4, 8]):
    out[0:2, :] = a  # <bad-store>


@lang.kernel
def bad_reduce_axis(a: lang.float32[4, 8]):
    return lang.sum(a, axis=2)  # <bad-axis>


@lang.kernel
def int_matmul(a: lang.int32[4, 4]):
    return lang.matmul(a, a)  # <int-matmul>


@pytest.mark.parametrize("kernel,args,marker,msg,at", [
    (bad_broadcast, ((4, 8), (4, 9)), "bad-broadcast", "shapes (4, 8) and (4, 9) cannot be broadcast", "x + y"),
    (bad_matmul, ((4, 8), (9, 4)), "bad-matmul", "matmul: shapes (4, 8) and (9, 4) do not match", "a @ b"),
    (bad_store, ((4, 8), (4, 8)), "bad-store", "(2, 8) and (4, 8) cannot be broadcast", "out[0:2, :] = a"),
    (bad_reduce_axis, ((4, 8),), "bad-axis", "axis 2 is out of range", "2"),
])
def test_shape_errors_point_at_the_line(kernel, args, marker, msg, at):
    arrays = [np.zeros(s, np.float32) for s in args]
    with pytest.raises(KernelTypeError) as ei:
        kernel(*arrays)
    e = ei.value
    assert e.loc.line == line_of(marker), str(e)
    assert os.path.realpath(e.loc.file) == THIS_FILE
    assert msg in e.msg, e.msg
    text = str(e).splitlines()
    src = LINES[e.loc.line - 1].strip()
    assert text[1].strip() == src
    caret = text[2][4:]
    assert caret.index("^") == src.index(at), str(e)
    assert e.__traceback__ is None or "builder.py" not in str(e)


def test_int_matmul_is_refused():
    with pytest.raises(KernelTypeError) as ei:
        int_matmul(np.zeros((4, 4), np.int32))
    assert ei.value.loc.line == line_of("int-matmul")
    assert "matmul needs float operands" in ei.value.msg

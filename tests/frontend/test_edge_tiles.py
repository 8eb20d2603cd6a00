"""Edge tiles: slices clipped at the end of their tensor in tile arithmetic (issue 38, item 4), one rule on every
target (docs/tensors.md, "Edge tiles"). A slice has its compile-time shape as written and is clipped at run time,
as NumPy clips it; where a statement's operands (or its destination) have different run-time extents, it works on
their common part and leaves the rest of the destination as it was; an axis broadcasts only where its
compile-time size is 1. So the Triton K-loop `acc += a[i:i+T, k:k+T] @ b[k:k+T, j:j+T]` with a full T x T `acc`
computes as if the tiles were padded with zeros, and `c[i:i+T, j:j+T] = acc` writes the part inside c.

Before: the interpreter raised NumPy's raw "could not be broadcast" ValueError, or broadcast an edge tile with one
row left over the whole accumulator (a wrong result); a tensor named from a clipped value (`y = x[i:i+T] * 2`)
had garbage past its run-time extent on cpu and ascend-sim (`lang.sum(y)` read it); a returned edge tile came back
with garbage (cpu, ascend-sim) or with the clipped shape (the interpreter), not the annotated one.

Every kernel runs on cpu (with and without memory checks), the interpreter and ascend-sim, each checked against a
NumPy reference written out here (zero padding, or the common part), not only against each other."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError

TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]
IDS = ["cpu", "cpu-checked", "interpret", "ascend-sim"]
N = lang.dim("N")
R, C = lang.dim("R"), lang.dim("C")
M, K, P = lang.dim("M"), lang.dim("K"), lang.dim("P")
T = 8


def _k(fn, target, checked, dynamic=False, deco=lang.kernel):
    return deco(target=target, memory_check=checked, dynamic_shape=dynamic)(fn)


def _run(kernel, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # ascend-sim: "runs as scalar code on one AI core"
        return kernel(*args)


def _padded(x, n, axis=0):
    """x zero-padded to n along axis (the reference of an edge tile)."""
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - x.shape[axis])
    return np.pad(x, pad)


# ---------------------------------------------------------------- products: the Triton K loop


def k_loop(a: lang.float32[M, K], b: lang.float32[K, P]) -> lang.float32[M, P]:
    c = lang.empty((M, P), dtype=lang.float32)
    for i in range(0, M, T):
        for j in range(0, P, T):
            acc = lang.zeros((T, T), dtype=lang.float32)
            for k in range(0, K, T):
                acc += a[i:i + T, k:k + T] @ b[k:k + T, j:j + T]
            c[i:i + T, j:j + T] = acc
    return c


def k_loop16(a: lang.float16[M, K], b: lang.float16[K, P]) -> lang.float16[M, P]:
    c = lang.empty((M, P), dtype=lang.float16)
    for i in range(0, M, T):
        for j in range(0, P, T):
            acc = lang.zeros((T, T), dtype=lang.float32)
            for k in range(0, K, T):
                acc += a[i:i + T, k:k + T] @ b[k:k + T, j:j + T]       # float32 accumulation of the clipped tiles
            c[i:i + T, j:j + T] = acc
    return c


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
@pytest.mark.parametrize("dynamic", [False, True], ids=["specialized", "dynamic"])
def test_k_loop_matmul_with_clipped_tiles_is_the_zero_padded_product(target, checked, dynamic):
    rng = np.random.default_rng(3)
    # 17 = 2 tiles + 1 row, 9 = 1 tile + 1 column (the one-element edges NumPy would broadcast), 13 = 8 + 5
    a = rng.standard_normal((17, 13)).astype(np.float32)
    b = rng.standard_normal((13, 9)).astype(np.float32)
    kern = _k(k_loop, target, checked, dynamic)
    if target == "ascend-sim":
        # the ascend targets have no tile-loop product: refused by name at the line, whatever the sizes
        with pytest.raises(CompileError, match=r"test_edge_tiles.py:\d+:\d+: ascend target: a matrix product"):
            _run(kern, a, b)
        return
    got = _run(kern, a, b)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    got16 = _run(_k(k_loop16, target, checked, dynamic), a16, b16)
    exact = a16.astype(np.float64) @ b16.astype(np.float64)
    np.testing.assert_allclose(got16.astype(np.float64), exact, rtol=2e-3, atol=2e-3)


def k_loop_cube(A: lang.float32[M, K], B: lang.float32[K, P]) -> lang.float32[M, P]:
    C_ = lang.empty((M, P), dtype=lang.float32)
    for i in range(0, M, T):
        for j in range(0, P, T):
            C_[i:i + T, j:j + T] = A[i:i + T, :] @ B[:, j:j + T]
    return C_


@pytest.mark.parametrize("target, checked", TARGETS[:3], ids=IDS[:3])
def test_cube_kernel_tile_loop_at_the_edges(target, checked):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((17, 11)).astype(np.float32)
    b = rng.standard_normal((11, 9)).astype(np.float32)
    got = _run(_k(k_loop_cube, target, checked, deco=lang.cube_kernel), a, b)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- elementwise tile arithmetic


def acc_rows(x: lang.float32[R, C]) -> lang.float32[T, C]:
    acc = lang.zeros((T, C), dtype=lang.float32)
    for i in range(0, R, T):
        acc += x[i:i + T, :]                 # the last tile may have one row: it does not broadcast
    return acc


def scale_acc(x: lang.float32[N]) -> lang.float32[T]:
    acc = lang.full((T,), 1.0, dtype=lang.float32)
    for i in range(0, N, T):
        acc[...] = acc * x[i:i + T] + 0.5    # the common part; acc past the edge tile keeps its value
    return acc


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
@pytest.mark.parametrize("rows", [17, 21, 16], ids=["one_row_left", "five_rows_left", "whole_tiles"])
def test_accumulating_clipped_tiles_is_the_zero_padded_sum(target, checked, rows):
    x = (np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) - 20) / 4
    got = _run(_k(acc_rows, target, checked), x)
    want = sum(_padded(x[i:i + T], T) for i in range(0, rows, T))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
@pytest.mark.parametrize("n", [17, 21], ids=["one_left", "five_left"])
def test_elementwise_with_a_full_tile_works_on_the_common_part(target, checked, n):
    x = (np.arange(n, dtype=np.float32) % 7 - 3) / 2
    got = _run(_k(scale_acc, target, checked), x)
    want = np.ones(T, np.float32)
    for i in range(0, n, T):
        e = x[i:i + T]
        want[:len(e)] = want[:len(e)] * e + np.float32(0.5)
    np.testing.assert_array_equal(got, want)


def store_tiles(c: lang.float32[R, C], v: float):
    for i in range(0, R, T):
        for j in range(0, C, T):
            acc = lang.full((T, T), v, dtype=lang.float32)
            acc += i * 100.0 + j
            c[i:i + T, j:j + T] = acc         # only the part of acc that lies inside c is written


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
def test_storing_a_full_tile_into_a_clipped_view_writes_the_part_inside(target, checked):
    buf = np.full((17 + 3, 10), -1.0, np.float32)
    c = buf[:17]                              # rows past c in the same memory: never written
    _run(_k(store_tiles, target, checked), c, 0.25)
    rows, cols = np.meshgrid(np.arange(17), np.arange(10), indexing="ij")
    np.testing.assert_array_equal(c, 0.25 + (rows // T * T) * 100.0 + cols // T * T)
    np.testing.assert_array_equal(buf[17:], -1.0)


# ---------------------------------------------------------------- named values, reductions, returns


def named_tile(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros((N,), dtype=lang.float32)
    for i in range(0, N, T):
        y = x[i:i + T] * 2.0 - 100.0           # a tensor of the clipped shape, as in NumPy
        out[i] = lang.sum(y) + lang.max(y) * 1000.0
        out[i + 1] = y.shape[0] + len(y) * 10
    return out


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
def test_a_name_bound_to_a_clipped_value_has_the_clipped_shape(target, checked):
    n = 21
    x = np.arange(1, n + 1, dtype=np.float32)
    got = _run(_k(named_tile, target, checked), x)
    want = np.zeros(n, np.float32)
    for i in range(0, n, T):
        y = x[i:i + T] * np.float32(2) - np.float32(100)
        want[i] = np.float32(y.sum()) + y.max() * np.float32(1000)
        want[i + 1] = len(y) * 11
    np.testing.assert_array_equal(got, want)


def tile_reductions(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.zeros((R, C), dtype=lang.float32)
    for i in range(0, R, T):
        for j in range(0, C, T):
            out[i:i + T, j:j + T] = lang.softmax(x[i:i + T, j:j + T], axis=1)
            out[i, j] = lang.min(x[i:i + T, j:j + T]) + lang.max(x[i:i + T, j:j + T] * -1.0)
    return out


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
def test_reductions_of_clipped_tiles_are_numpys(target, checked):
    x = (np.arange(11 * 10, dtype=np.float32).reshape(11, 10) % 13) / 3 + 1.0      # positive: padding would show
    got = _run(_k(tile_reductions, target, checked), x)
    want = np.zeros_like(x, dtype=np.float64)
    for i in range(0, 11, T):
        for j in range(0, 10, T):
            t = x[i:i + T, j:j + T].astype(np.float64)
            e = np.exp(t - t.max(axis=1, keepdims=True))
            want[i:i + T, j:j + T] = e / e.sum(axis=1, keepdims=True)
            want[i, j] = t.min() + (-t).max()
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def transposed_tiles(x: lang.float32[R, C]) -> lang.float32[T, T]:
    acc = lang.zeros((T, T), dtype=lang.float32)
    for i in range(0, R, T):
        acc += x[i:i + T, 0:T].T + lang.exp(x[i:i + T, 0:T] * 0.0).T
    return acc


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
def test_transposed_and_math_of_clipped_tiles(target, checked):
    x = np.arange(17 * 9, dtype=np.float32).reshape(17, 9) / 8
    got = _run(_k(transposed_tiles, target, checked), x)
    want = sum(_padded(x[i:i + T, :T] + 1.0, T).T for i in range(0, 17, T))
    np.testing.assert_array_equal(got, want)


def ret_tile(x: lang.float32[N], i: int) -> lang.float32[T]:
    return x[i:i + T] * 2.0


def ret_named(x: lang.float32[N], i: int) -> lang.float32[T]:
    y = x[i:i + T] + 1.0
    return y


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
@pytest.mark.parametrize("fn, op", [(ret_tile, lambda v: v * 2), (ret_named, lambda v: v + 1)],
                         ids=["expression", "named"])
def test_a_returned_edge_tile_has_its_compile_time_shape_and_zeros_past_the_edge(target, checked, fn, op):
    x = np.arange(21, dtype=np.float32) - 30.0
    kern = _k(fn, target, checked)
    for i in (0, 13, 16, 20):
        got = _run(kern, x, i)
        assert got.shape == (T,)
        np.testing.assert_array_equal(got, _padded(op(x[i:i + T]), T))

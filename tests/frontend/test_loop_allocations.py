"""Tensors allocated inside a loop body (issue 15, item 9): Triton's accumulator idiom (`acc = lang.zeros(...)` in
the tile loop, then `acc += a_tile @ b_tile`) and per-row scratch buffers (llama.cpp) are one allocation per
iteration, of the same shape and dtype; reading such a tensor after its loop is refused with the fix. Compiled
(cpu) against the interpreter and NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError, KernelTypeError
from helpers import close, interpreted, rand

BM = BN = BK = 4


@lang.kernel
def tiled_matmul(a: lang.float32[M, K], b: lang.float32[K, N]) -> lang.float32[M, N]:
    """Triton's matmul tutorial: one accumulator tile per output tile, zeroed for each."""
    c = lang.empty((M, N), dtype=lang.float32)
    for i in range(0, M, BM):
        for j in range(0, N, BN):
            acc = lang.zeros((BM, BN), dtype=lang.float32)
            for k in range(0, K, BK):
                acc += a[i:i + BM, k:k + BK] @ b[k:k + BK, j:j + BN]
            c[i:i + BM, j:j + BN] = acc
    return c


@lang.kernel
def scaled_rows(x: lang.float32[R, C], w: lang.float32[C]) -> lang.float32[R, C]:
    """llama.cpp's per-row scratch: the row scaled into a buffer, normalized by its own max, written reversed."""
    out = lang.empty((R, C), dtype=lang.float32)
    for i in range(R):
        buf = lang.empty((C,), dtype=lang.float32)
        m = 0.0
        for j in range(C):
            buf[j] = x[i, j] * w[j]
            m = max(m, abs(buf[j]))
        for j in range(C):
            out[i, C - 1 - j] = buf[j] / (m + 1.0)
    return out


@lang.kernel
def column_acc(x: lang.float32[R, C]) -> lang.float32[R]:
    """A zeros buffer per row, accumulated with += (a tensor update in place, not a second binding)."""
    out = lang.empty((R,), dtype=lang.float32)
    for i in range(R):
        acc = lang.zeros((C,), dtype=lang.float32)
        acc += x[i, 0:C] * x[i, 0:C]
        acc += x[i, 0:C]
        s = 0.0
        for j in range(C):
            s += acc[j]
        out[i] = s
    return out


def test_triton_accumulator_tile_loop():
    a, b = rand((8, 12), np.float32, 1), rand((12, 8), np.float32, 2)
    got, ref = tiled_matmul(a, b), interpreted(tiled_matmul)(a, b)
    want = a.astype(np.float64) @ b.astype(np.float64)
    close(got, want, np.float32, ulps=16)
    close(ref, want, np.float32, ulps=16)
    close(got, ref, np.float32, ulps=8)


def test_scratch_buffer_per_row():
    x, w = rand((5, 7), np.float32, 3), rand((7,), np.float32, 4)
    y = x.astype(np.float64) * w
    want = (y / (np.maximum(np.abs(y).max(axis=1, keepdims=True), 0.0) + 1.0))[:, ::-1]
    got, ref = scaled_rows(x, w), interpreted(scaled_rows)(x, w)
    np.testing.assert_array_equal(got, ref)
    close(got, want, np.float32, ulps=4)


def test_zeros_each_iteration_then_augmented():
    x = rand((6, 9), np.float32, 5)
    got, ref = column_acc(x), interpreted(column_acc)(x)
    close(got, ref, np.float32, ulps=4)             # a vectorized sum: not the serial rounding (README)
    close(got, (x.astype(np.float64) ** 2 + x).sum(axis=1), np.float32, ulps=8)


def _after_loop(x: lang.float32[R, C]) -> lang.float32[C]:
    out = lang.empty((C,), dtype=lang.float32)
    for i in range(R):
        last = lang.zeros((C,), dtype=lang.float32)
        for j in range(C):
            last[j] = x[i, j]
    for j in range(C):
        out[j] = last[j]
    return out


def _twice(x: lang.float32[R, C]) -> lang.float32[C]:
    out = lang.zeros((C,), dtype=lang.float32)
    for i in range(R):
        t = lang.zeros((C,), dtype=lang.float32)
        t = lang.zeros((C,), dtype=lang.float32)
        out += t
    return out


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_loop_allocation_read_after_its_loop_is_refused(target):
    x = rand((3, 4), np.float32, 6)
    with pytest.raises(CompileError, match="tensor 'last' is allocated inside a loop or branch .* used after it; "
                                           "allocate it before the loop"):
        lang.kernel(target=target)(_after_loop)(x)
    with pytest.raises(KernelTypeError, match="'t' is assigned more than once"):
        lang.kernel(target=target)(_twice)(x)


ACCUMULATE = True


@lang.kernel
def folded_branch_alloc(x: lang.float32[R, C]) -> lang.float32[C]:
    """An allocation in the taken branch of a folded `if` belongs to the enclosing block: visible after it."""
    if ACCUMULATE:
        buf = lang.zeros((C,), dtype=lang.float32)
    for i in range(R):
        for j in range(C):
            buf[j] += x[i, j]
    return buf


def test_allocation_in_a_folded_branch_is_visible_after_it():
    x = rand((4, 6), np.float32, 7)
    got, ref = folded_branch_alloc(x), interpreted(folded_branch_alloc)(x)
    np.testing.assert_array_equal(got, ref)
    close(got, x.astype(np.float64).sum(axis=0), np.float32, ulps=4)

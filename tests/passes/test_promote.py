"""Scalar promotion of loop accumulators into tensor elements: when it applies (allocated tensors, one
loop-invariant index), when it must not (parameters, 16-bit floats, a changing index, other uses), and that results
match the interpreter."""
from __future__ import annotations

import numpy as np

import asc.language as lang
from asc.examples.seed import matmul, matmul_naive


def interp(k):
    return lang.kernel(target="interpret")(k.pyfunc)


@lang.kernel
def rowsum_into_param(x: lang.float32[R, C], out: lang.float32[R]):
    for i in range(R):
        for j in range(C):
            out[i] += x[i, j]


@lang.kernel(dynamic_shape=True)
def last_of_empty(x: lang.float32[N], like: lang.float32[M]):
    t = lang.zeros_like(like)
    for i in range(N):
        t[N - 1] += x[i]       # t[-1] when N == 0: must not be touched
    return t


@lang.kernel
def shifted(x: lang.int32[N]) -> lang.int32[4]:
    t = lang.zeros(4, dtype=lang.int32)
    for i in range(N):
        t[i % 4] += x[i]
    return t


@lang.kernel
def int_total(x: lang.int32[N]) -> lang.int32[1]:
    t = lang.zeros(1, dtype=lang.int32)
    for i in range(N):
        t[0] += x[i] * 3
    return t


def test_matmul_accumulates_in_a_vectorized_scalar():
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((33, 17)).astype(np.float32), rng.standard_normal((17, 9)).astype(np.float32)
    src = matmul_naive.source("cpu", A, B)
    assert "C__acc = (C__acc + (A[" in src and "_ln[" not in src    # K = 17: fewer than 32, in order
    A2, B2 = rng.standard_normal((5, 40)).astype(np.float32), rng.standard_normal((40, 3)).astype(np.float32)
    src = matmul_naive.source("cpu", A2, B2)
    assert "float C__acc = asc_C__acc_ln[asc_k_lk];" in src     # K = 40: a vectorized reduction into lanes
    np.testing.assert_allclose(matmul_naive(A2, B2), A2 @ B2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(matmul_naive(A, B), A @ B, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(matmul_naive(A, B), interp(matmul_naive)(A, B), rtol=1e-5, atol=1e-5)


def test_float16_is_not_promoted_and_matches_the_interpreter_bit_for_bit():
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((8, 40)).astype(np.float16), rng.standard_normal((40, 6)).astype(np.float16)
    assert "__acc" not in matmul.source("cpu", A, B)
    np.testing.assert_array_equal(matmul(A, B), interp(matmul)(A, B))


def test_parameters_and_changing_indices_are_not_promoted():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert "__acc" not in rowsum_into_param.source("cpu", x, np.zeros(3, np.float32))
    out = np.ones(3, np.float32)
    rowsum_into_param(x, out)
    np.testing.assert_array_equal(out, 1 + x.sum(1))
    v = np.arange(10, dtype=np.int32)
    assert "__acc" not in shifted.source("cpu", v)
    np.testing.assert_array_equal(shifted(v), interp(shifted)(v))


def test_integers_exact_and_empty_loops_touch_nothing():
    v = np.arange(1000, dtype=np.int32)
    assert "t__acc" in int_total.source("cpu", v)
    assert int_total(v)[0] == 3 * v.sum()
    empty = np.zeros(0, np.float32)
    assert "t__acc" in last_of_empty.source("cpu", empty, np.ones(1, np.float32))
    np.testing.assert_array_equal(last_of_empty(empty, np.ones(1, np.float32)), [0.0])
    np.testing.assert_array_equal(last_of_empty(np.ones(5, np.float32), np.ones(6, np.float32)), [0, 0, 0, 0, 5, 0])

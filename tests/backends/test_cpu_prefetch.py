"""Row kernels prefetch their next row during their last element pass (cpu_prefetch.py): which loops do, and that
the prefetch changes no result."""
import dataclasses
import tempfile

import numpy as np
import pytest

import asc.environment
import asc.language as lang
import asc.passes.cpu_prefetch as cpu_prefetch
from asc.examples import seed
from helpers import BF16

R, C = lang.dim("R"), lang.dim("C")


def _src(kernel, *args):
    return kernel.source("cpu", *args)


def test_layernorm_and_softmax_prefetch_the_next_row_in_their_last_pass():
    x = np.zeros((64, 1000), np.float32)
    w = np.zeros(1000, np.float32)
    for src in (_src(seed.layernorm, x, w, w), _src(seed.softmax, x)):
        assert src.count("asc_prefetch_l2(") >= 1
        assert "asc_prefetch_l2(x + (((i + 1)) * 1000LL + asc_j_c)" in src
        assert "if (i + 1 < 64LL)" in src
        # reductions are not chunked (the order of their sums stays); only the last pass is
        last = src.rindex("for (int64_t j")
        assert src.index("asc_prefetch_l2(") > src.index("partials per accumulator")
        assert "partials per accumulator" not in src[last:]


@lang.kernel
def rowsum(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        acc = 0.0
        for j in range(C):
            acc += x[i, j]
        out[i] = acc
    return out


@lang.kernel
def scale_rows_in_place(x: lang.float32[R, C], s: lang.float32[R, C]):
    for i in range(R):
        m = 0.0
        for j in range(C):
            m = max(m, s[i, j])
        for j in range(C):
            x[i, j] = x[i, j] * m


def test_loops_that_do_not_prefetch():
    x = np.zeros((64, 1000), np.float32)
    assert "asc_prefetch_l2(" not in _src(rowsum, x)                    # one pass: the hardware streams it
    src = _src(scale_rows_in_place, x, x.copy())
    assert "asc_prefetch_l2(s + " in src and "asc_prefetch_l2(x + " not in src   # a tensor it writes: not fetched
    checked = lang.kernel(memory_check=True)(seed.layernorm.pyfunc)
    w = np.zeros(1000, np.float32)
    assert "asc_prefetch_l2(" not in checked.source("cpu", x, w, w)    # checked builds stay plain


def softmax_any(x):
    R, C = x.shape
    out = lang.empty_like(x)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            e = lang.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(C):
            out[i, j] = out[i, j] / s
    return out


def layernorm_any(x, w, b):
    R, C = x.shape
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        mean = s / C
        v = 0.0
        for j in range(C):
            d = x[i, j] - mean
            v += d * d
        rstd = lang.rsqrt(v / C + 1e-5)
        for j in range(C):
            out[i, j] = (x[i, j] - mean) * rstd * w[j] + b[j]
    return out


@pytest.mark.parametrize("shape", [(1, 1), (2, 511), (3, 512), (7, 513), (5, 1500), (33, 4096)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_prefetch_changes_no_result(shape, dtype, monkeypatch):
    rng = np.random.default_rng(shape[0] * 7919 + shape[1])
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    w = rng.standard_normal(shape[1]).astype(dtype)
    b = rng.standard_normal(shape[1]).astype(dtype)
    sm, ln = lang.kernel(softmax_any), lang.kernel(layernorm_any)
    with_pf = [sm(x), ln(x, w, b)]
    if x.size >= 1 << 17:                      # a parallel row loop (small ones run on one thread, as written)
        assert "asc_prefetch_l2(" in _src(ln, x, w, b) and "asc_prefetch_l2(" in _src(sm, x)
    monkeypatch.setattr(cpu_prefetch, "row_prefetch", lambda *a: None)
    monkeypatch.setattr(asc.environment, "config", dataclasses.replace(asc.environment.config, cache_dir=tempfile.mkdtemp()))
    sm, ln = lang.kernel(softmax_any), lang.kernel(layernorm_any)
    assert "asc_prefetch_l2(" not in _src(ln, x, w, b)
    without = [sm(x), ln(x, w, b)]
    for a, e in zip(with_pf, without):
        assert a.dtype == e.dtype and np.array_equal(a.view(np.uint8), e.view(np.uint8))


@lang.kernel(dynamic_shape=True)
def center_rows(x):
    R, C = x.shape
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        mean = s / C
        for j in range(C):
            out[i, j] = x[i, j] - mean
    return out


def test_dynamic_shapes_prefetch_within_the_rows():
    x = np.arange(300 * 1030, dtype=np.float32).reshape(300, 1030) % 17
    src = _src(center_rows, x)
    assert "asc_prefetch_l2(" in src and "asc_dim_x_1" in src            # the sizes are run-time values
    np.testing.assert_allclose(center_rows(x), x - x.mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-4)
    y = x[:7, :700].copy()                                              # another size, the same build
    np.testing.assert_allclose(center_rows(y), y - y.mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-4)


# ---- found in review: tensors allocated inside the row loop are not fetched (they are not in scope at the
# prefetching pass), and a row bound with calls or loads is not evaluated again (range() evaluates it once)


@lang.func
def _rows_counting(x, c) -> int:
    c[0] = c[0] + 1
    return x.shape[0]


def _local_after_last_pass(x):
    R, C = x.shape
    out = lang.empty_like(x)
    out2 = lang.empty((R,), dtype=lang.float32)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        for j in range(C):                  # the last element pass: prefetches the inputs' next row
            out[i, j] = x[i, j] - s
        t = lang.full((R, C), 1.0, dtype=lang.float32)   # declared after that pass
        acc = 0.0
        for j in range(C):
            acc += t[i, j]
        out2[i] = acc
    return out, out2


def _local_in_branch(x, flag: int):
    R, C = x.shape
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        if flag > 0:
            t = lang.full((R, C), 2.0, dtype=lang.float32)  # scoped to the if
            for j in range(C):
                s += t[i, j]
        for j in range(C):
            s += x[i, j]
        for j in range(C):
            out[i, j] = x[i, j] - s
    return out


def _impure_row_bound(x, c):
    R, C = x.shape
    out = lang.empty_like(x)
    for i in range(_rows_counting(x, c)):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        for j in range(C):
            out[i, j] = x[i, j] - s
    return out


def _x(shape=(128, 600)):   # large enough for a parallel row loop
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def _close(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)   # row sums of 600 values: order differs


def test_row_local_tensor_declared_after_the_prefetching_pass_compiles():
    # the prefetch names `t` before its declaration: "'t' was not declared in this scope"
    x = _x()
    _close(lang.kernel(_local_after_last_pass)(x), lang.kernel(target="interpret")(_local_after_last_pass)(x))


def test_row_local_tensor_scoped_to_a_branch_compiles():
    x = _x()
    _close(lang.kernel(_local_in_branch)(x, 1), lang.kernel(target="interpret")(_local_in_branch)(x, 1))


def test_row_loop_bound_is_evaluated_once():
    # range() is evaluated once; the prefetch guard re-evaluates the row loop's stop (a device-function call) in
    # every chunk of every row
    x = _x()
    c = np.zeros(1, np.int64)
    got = lang.kernel(_impure_row_bound)(x, c)
    ci = np.zeros(1, np.int64)
    want = lang.kernel(target="interpret")(_impure_row_bound)(x, ci)
    assert ci[0] == 1
    assert c[0] == 1
    _close(got, want)

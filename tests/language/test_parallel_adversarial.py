"""Adversarial tests of @lang.parallel: every worker runs the whole body (a scalar set up before the work starts from
its initial value in each worker), worker queries in allocations, empty/negative/awkward ranges, 16-bit and integer
partials, NaN and signed zeros in max, shared outputs, name reuse; compiled results against the interpreter and a
NumPy model of the SPMD semantics."""
from __future__ import annotations

import inspect

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError, UnsupportedError


def interp(k):
    return lang.kernel(target="interpret")(k.pyfunc)


def chunks(n, w):
    return [(k * n // w, (k + 1) * n // w) for k in range(w)]


@lang.parallel(num_workers=3)
def scalar_partial(x: lang.float64[N]) -> lang.float64:
    local = lang.zeros(1, dtype=lang.float64)
    s = 0.0                          # each worker starts from 0, not from the previous worker's s
    for i in lang.distributed_range(N):
        s += x[i]
    local[0] = s
    return lang.allreduce(local)


@lang.parallel(num_workers=4)
def scalar_count(x: lang.int32[N]):
    local = lang.zeros(2, dtype=lang.int64)
    c = 0
    m = -1000
    for i in lang.distributed_range(N):
        c += 1
        m = max(m, x[i])
    local[0] = c
    local[1] = m
    return lang.allreduce(local), lang.allreduce(local, op="min")


@pytest.mark.parametrize("n", [0, 1, 2, 10, 13])
def test_setup_scalars_restart_in_every_worker(n):
    x = np.arange(1, n + 1, dtype=np.float64)
    for k in (scalar_partial, interp(scalar_partial)):
        assert k(x) == x.sum()
    xi = (np.arange(n, dtype=np.int32) * 7) % 11
    tot, lo = scalar_count(xi)
    per = [(b - a, max([-1000] + list(xi[a:b]))) for a, b in chunks(n, 4)]
    np.testing.assert_array_equal(tot, [n, sum(m for _, m in per)])
    np.testing.assert_array_equal(lo, [min(c for c, _ in per), min(m for _, m in per)])
    for a, b in zip(interp(scalar_count)(xi), (tot, lo)):
        np.testing.assert_array_equal(a, b)


@lang.parallel(num_workers=3)
def per_worker_slots(x: lang.float64[N]):
    out = lang.zeros(lang.num_workers(), dtype=lang.float64)
    for i in lang.distributed_range(N):
        out[lang.worker_id()] += x[i]
    return out


def test_num_workers_in_an_allocation():
    x = np.arange(10, dtype=np.float64)
    want = [x[a:b].sum() for a, b in chunks(10, 3)]
    np.testing.assert_array_equal(per_worker_slots(x), want)
    np.testing.assert_array_equal(interp(per_worker_slots)(x), want)


def test_worker_id_in_an_allocation_is_refused_at_its_line():
    def make():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(lang.worker_id() + 1, dtype=lang.float32)  # BAD
            return lang.allreduce(s)
    with pytest.raises(CompileError, match="worker_id") as ei:
        make()
    lines, first = inspect.getsourcelines(make)
    assert ei.value.loc.line == first + next(i for i, t in enumerate(lines) if "# BAD" in t)


@lang.parallel(num_workers=3, dynamic_shape=True)
def ranges(x: lang.int64[N]):
    acc = lang.zeros(3, dtype=lang.int64)
    for i in lang.distributed_range(5, 2):          # empty: start > stop
        acc[0] += x[i]
    for i in lang.distributed_range(1, N - 1):
        acc[1] += x[i] * (i + 1)
    for i in lang.distributed_range(N):
        for j in lang.distributed_range(i):          # nested, per-row chunks of a triangle
            acc[2] += 1
    return lang.allreduce(acc)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 31])
def test_awkward_ranges(n):
    x = np.arange(n, dtype=np.int64) * 3 - 5
    # acc[2]: worker w takes chunk w of range(i) for each i in its chunk of range(n)
    tri = sum(cb - ca for w, (a, b) in enumerate(chunks(n, 3)) for i in range(a, b)
                  for (ca, cb) in [chunks(i, 3)[w]])
    want = [0, int(sum(x[i] * (i + 1) for i in range(1, n - 1))), tri]
    np.testing.assert_array_equal(ranges(x), want)
    np.testing.assert_array_equal(interp(ranges)(x), want)


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16])
def test_16bit_partials_match_the_interpreter_bit_for_bit(dt):
    @lang.parallel(num_workers=4)
    def h(x: lang.Tensor):
        local = lang.zeros(1, dtype=x.dtype)
        for i in lang.distributed_range(x.shape[0]):
            local[0] += x[i]
        return lang.allreduce(local)
    x = (np.random.default_rng(0).standard_normal(1001) * 10).astype(dt)
    np.testing.assert_array_equal(h(x).view(np.uint16), interp(h)(x).view(np.uint16))


@lang.parallel(num_workers=3)
def pmax(x: lang.float64[N]):
    m = lang.full(1, -1.0, dtype=lang.float64)
    for i in lang.distributed_range(N):
        m[0] = max(m[0], x[i])
    return lang.allreduce(m, op="max")


@pytest.mark.parametrize("vals", [[0.0, -0.0, 0.0, -0.0, -0.0, 0.0], [-0.0, 0.0, 0.0, 0.0, -0.0, -0.0],
                                  [np.nan, 1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 1.0, np.nan, 3.0, 4.0, 5.0],
                                  [np.inf, -np.inf, 2.0, np.nan, -np.inf, 1.0]])
def test_max_ties_signed_zeros_and_nan_as_the_interpreter(vals):
    x = np.array(vals)
    a, b = pmax(x), interp(pmax)(x)
    np.testing.assert_array_equal(a, b)
    assert np.signbit(a).tolist() == np.signbit(b).tolist()


@lang.parallel(num_workers=8, num_threads=2)
def shared_total(x: lang.float32[N]):
    total = lang.zeros(1, dtype=lang.float32)     # returned: shared by the workers
    for i in lang.distributed_range(N):
        total[0] += x[i]
    return total


def test_a_shared_accumulator_is_deterministic():
    x = np.random.default_rng(1).standard_normal(100003).astype(np.float32)
    runs = {shared_total(x).tobytes() for _ in range(4)}
    assert len(runs) == 1
    np.testing.assert_allclose(shared_total(x), interp(shared_total)(x), rtol=1e-5)


@lang.parallel(num_workers=2)
def name_reuse(x: lang.int64[N]):
    acc = lang.zeros(1, dtype=lang.int64)
    i = 0
    for i in lang.distributed_range(N):
        acc[0] += x[i]
    for i in range(3):
        acc[0] += i
    return lang.allreduce(acc)


@lang.parallel(num_workers=3)
def centered_rows(x: lang.float32[R, C]):
    out = lang.empty_like(x)
    for i in lang.distributed_range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        for j in range(C):
            out[i, j] = x[i, j] - s / C
    return out


def test_name_reuse_and_row_kernels():
    x = np.arange(9, dtype=np.int64)
    np.testing.assert_array_equal(name_reuse(x), [x.sum() + 2 * 3])
    np.testing.assert_array_equal(interp(name_reuse)(x), [x.sum() + 2 * 3])
    for shape in [(7, 5), (1, 1), (2, 13)]:
        a = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(centered_rows(a), a - a.mean(1, keepdims=True), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(centered_rows(a), interp(centered_rows)(a), rtol=1e-6, atol=1e-7)


@lang.parallel(num_workers=3)
def sum_and_max(x: lang.float32[N]) -> (lang.float32, lang.float32):
    a = lang.zeros(1, dtype=lang.float32)
    b = lang.full(1, -1e30, dtype=lang.float32)
    for i in lang.distributed_range(N):
        a[0] += x[i]
        b[0] = max(b[0], x[i])
    return lang.allreduce(a), lang.allreduce(b, op="max")


@lang.parallel(num_workers=3)
def residues(x: lang.float32[N]) -> lang.float32[3]:
    a = lang.zeros(3, dtype=lang.float32)
    for i in lang.distributed_range(N):
        a[i % 3] += x[i]
    return lang.allreduce(a)


def test_scalar_elements_of_a_tuple_annotation_and_vector_allreduce():
    x = np.arange(10, dtype=np.float32)
    for k in (sum_and_max, interp(sum_and_max)):
        s, m = k(x)
        assert isinstance(s, np.float32) and s == 45 and m == 9
    for k in (residues, interp(residues)):
        np.testing.assert_array_equal(k(x), [0 + 3 + 6 + 9, 1 + 4 + 7, 2 + 5 + 8])


@lang.parallel(num_workers=3)
def sized_by_workers(x: lang.float64[N]):
    w = lang.num_workers()
    out = lang.zeros(w + 1, dtype=lang.float64)        # shared (returned), sized by a setup variable
    for i in lang.distributed_range(N):
        out[lang.worker_id()] += x[i]
    out[w] = w * 1.0
    return out


def test_a_setup_variable_from_num_workers_sizes_an_allocation():
    x = np.arange(10.0)
    want = [x[a:b].sum() for a, b in chunks(10, 3)] + [3.0]
    np.testing.assert_array_equal(sized_by_workers(x), want)
    np.testing.assert_array_equal(interp(sized_by_workers)(x), want)


def _bad_line(fn):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, t in enumerate(lines) if "# BAD" in t)


def test_more_misuse_is_refused_at_its_line():
    def allreduce_of_an_input():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            return lang.allreduce(x)  # BAD
    with pytest.raises(CompileError, match="per-worker tensor allocated in the kernel") as ei:
        allreduce_of_an_input()
    assert ei.value.loc.line == _bad_line(allreduce_of_an_input)

    def alloc_in_a_loop():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            for i in lang.distributed_range(N):
                t = lang.zeros(1, dtype=lang.float32)  # BAD
                s[0] += x[i]
            return lang.allreduce(s)
    with pytest.raises(CompileError, match="allocates its tensors at the top") as ei:
        alloc_in_a_loop()
    assert ei.value.loc.line == _bad_line(alloc_in_a_loop)

    def early_return():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            for i in lang.distributed_range(N):
                if x[i] < 0.0:
                    return s[0]  # BAD
            return lang.allreduce(s)
    with pytest.raises(UnsupportedError, match="returns only at its end") as ei:
        early_return()
    assert ei.value.loc.line == _bad_line(early_return)

    def stepped_range():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            for i in lang.distributed_range(0, N, 2):  # BAD
                s[0] += x[i]
            return lang.allreduce(s)
    with pytest.raises(CompileError, match="takes \\(n\\) or \\(start, stop\\)") as ei:
        stepped_range()
    assert ei.value.loc.line == _bad_line(stepped_range)

    def two_axes():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]):
            s = lang.zeros((2, 2), dtype=lang.float32)
            return lang.allreduce(s)  # BAD
    with pytest.raises(UnsupportedError, match="more than one axis") as ei:
        two_axes()
    assert ei.value.loc.line == _bad_line(two_axes)

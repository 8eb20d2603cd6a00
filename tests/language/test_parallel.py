"""@lang.parallel SPMD kernels: the seed's parallel_sum as written, chunking over awkward sizes and worker counts,
allreduce sum/max/min in worker order (same bits for any thread count), worker_id/num_workers, shared outputs,
the interpreter, and errors at the user's line."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.language as lang
from asc.errors import CompileError


@lang.parallel(num_workers=4)
def parallel_sum(arr: lang.float32[1024]) -> lang.float32:
    local_sum = lang.zeros(1, dtype=lang.float32)
    for i in lang.distributed_range(1024):
        local_sum[0] += arr[i]
    return lang.allreduce(local_sum)


def psum_kernel(workers, **opts):
    @lang.parallel(num_workers=workers, **opts)
    def psum(arr: lang.float32[N]) -> lang.float32:
        local = lang.zeros(1, dtype=lang.float32)
        for i in lang.distributed_range(N):
            local[0] += arr[i]
        return lang.allreduce(local)
    return psum


@lang.parallel(num_workers=3)
def stats(x: lang.float64[N]):
    out = lang.empty_like(x)
    hi = lang.full(1, -1e300, dtype=lang.float64)
    lo = lang.full(1, 1e300, dtype=lang.float64)
    cnt = lang.zeros(2, dtype=lang.int64)
    for i in lang.distributed_range(N):
        out[i] = x[i] * 2.0 + lang.worker_id() * 1000.0
        hi[0] = max(hi[0], x[i])
        lo[0] = min(lo[0], x[i])
        cnt[0] += 1
        cnt[1] += lang.num_workers()
    return out, lang.allreduce(hi, op="max"), lang.allreduce(lo, op="min"), lang.allreduce(cnt)


@lang.parallel(num_workers=2)
def half_sum(x: lang.float16[N]) -> lang.float32:
    acc = lang.zeros(1, dtype=lang.float32)
    for i in lang.distributed_range(N):
        acc[0] += lang.cast(x[i], lang.float32)
    return lang.allreduce(acc)


def test_seed_parallel_sum_as_written():
    a = np.random.default_rng(0).standard_normal(1024).astype(np.float32)
    r = parallel_sum(a)
    assert isinstance(r, np.float32)
    np.testing.assert_allclose(r, a.astype(np.float64).sum(), rtol=1e-5)
    ip = lang.kernel(target="interpret")(parallel_sum.pyfunc)(a)
    np.testing.assert_allclose(ip, r, rtol=1e-6)
    assert "__asc_w" in parallel_sum.source("ir", a)


@pytest.mark.parametrize("n", [0, 1, 3, 7, 97, 4096 + 5])
@pytest.mark.parametrize("workers", [1, 3, 8])
def test_chunks_cover_every_element_once(n, workers):
    a = np.arange(1, n + 1, dtype=np.float32)
    assert psum_kernel(workers)(a) == np.float32(n * (n + 1) // 2 if n < 4096 else a.astype(np.float64).sum())


def test_same_bits_for_any_thread_count_and_every_run():
    a = np.random.default_rng(1).standard_normal((1 << 20) + 3).astype(np.float32)
    one = psum_kernel(4, num_threads=1)(a)
    two = psum_kernel(4, num_threads=2)
    runs = {two(a).tobytes() for _ in range(5)}
    assert runs == {one.tobytes()}
    np.testing.assert_allclose(one, a.astype(np.float64).sum(), rtol=1e-4)


def test_max_min_int_sum_worker_id_and_a_shared_output():
    x = np.random.default_rng(2).standard_normal(11)
    out, hi, lo, cnt = stats(x)
    bounds = [0, 11 // 3, 22 // 3, 11]
    wid = np.concatenate([np.full(bounds[w + 1] - bounds[w], w) for w in range(3)])
    np.testing.assert_array_equal(out, x * 2 + wid * 1000.0)
    assert hi[0] == x.max() and lo[0] == x.min()
    np.testing.assert_array_equal(cnt, [11, 33])
    io = lang.kernel(target="interpret")(stats.pyfunc)(x)
    for a, b in zip(io, (out, hi, lo, cnt)):
        np.testing.assert_array_equal(a, b)


def test_float16_input_float32_partials():
    x = np.random.default_rng(3).standard_normal(1001).astype(np.float16)
    np.testing.assert_allclose(half_sum(x), x.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)
    b = x.astype(ml_dtypes.bfloat16)
    with pytest.raises(asc.ArgumentError, match="argument 'x' must be float16, got bfloat16"):
        half_sum(b)                      # the annotation says float16


def _line(fn, marker):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, t in enumerate(lines) if marker in t)


def test_errors_point_at_the_line():
    def allreduce_in_loop():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            for i in lang.distributed_range(N):
                s[0] += lang.allreduce(s)  # BAD
            return s[0]
    with pytest.raises(CompileError, match="only appear in the kernel's return statement") as ei:
        allreduce_in_loop()
    assert ei.value.loc.line == _line(allreduce_in_loop, "# BAD")

    def bare_private():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            t = s  # BAD
            return lang.allreduce(s)
    with pytest.raises(CompileError, match="can only be indexed") as ei:
        bare_private()
    assert ei.value.loc.line == _line(bare_private, "# BAD")

    def bad_op():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            return lang.allreduce(s, op="prod")  # BAD
    with pytest.raises(CompileError, match="op must be one of") as ei:
        bad_op()
    assert ei.value.loc.line == _line(bad_op, "# BAD")

    def range_not_iterated():
        @lang.parallel(num_workers=2)
        def k(x: lang.float32[N]) -> lang.float32:
            s = lang.zeros(1, dtype=lang.float32)
            r = lang.distributed_range(N)  # BAD
            return lang.allreduce(s)
    with pytest.raises(CompileError, match="iterated by a for loop") as ei:
        range_not_iterated()
    assert ei.value.loc.line == _line(range_not_iterated, "# BAD")


@lang.kernel
def not_parallel(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in lang.distributed_range(N):
        out[i] = x[i]
    return out


def test_distributed_range_outside_a_parallel_kernel():
    for k in (not_parallel, lang.kernel(target="interpret")(not_parallel.pyfunc)):
        with pytest.raises(CompileError, match="only available inside a @lang.parallel kernel"):
            k(np.ones(3, np.float32))

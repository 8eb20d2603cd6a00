"""Adversarial cases for element loops in blocks (asc/passes/cpu_blocks.py, asc/backends/cpu_loops.py,
asc_blocks.h): float16 conversion around a float32 body, and streaming stores through a buffer. The claim under
test: a blocked loop gives the bits of the plain loop (the memory-checked build, which never blocks, or a build with
streaming out of reach) for every kernel, and the interpreter's values. Streaming is forced on small arrays here by
building with ASC_STREAM_MIN_BYTES=0 and ASC_STREAM_MIN_RUN=1, so every partial-line / alignment / tail case runs in
milliseconds; one test uses the real 16 MiB threshold."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import asc
import asc.environment as cfg
import asc.language as lang
from asc.passes.cpu_blocks import BLOCK

from helpers import interpreted

N = lang.dim("N")
R = lang.dim("R")
C = lang.dim("C")

ODD_SIZES = [0, 1, 15, 17, BLOCK - 1, BLOCK + 1, 2 * BLOCK + 37]


def specials(n, seed=0):
    """float16 data with the special bit patterns mixed in (±0, ±inf, NaN payloads, subnormals, extremes)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float16)
    pats = np.array([0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7d55, 0xffff, 0x0001, 0x8001,
                     0x03ff, 0x0400, 0x7bff, 0xfbff], np.uint16).view(np.float16)
    if n:
        k = min(n, pats.size)
        x[rng.choice(n, k, replace=False)] = pats[:k]
    return x


def bits(a):
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_array_equal(bits(a), bits(b))


def same_values(a, b):
    """Equal as the interpreter's values: NaN where NaN (its payload is not specified), else the same bits."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if a.dtype.kind == "f" or a.dtype.itemsize == 2 and a.dtype.kind == "V":
        fa, fb = a.astype(np.float32), b.astype(np.float32)
        nan = np.isnan(fa)
        np.testing.assert_array_equal(nan, np.isnan(fb))
        np.testing.assert_array_equal(bits(a)[~nan], bits(b)[~nan])
    else:
        np.testing.assert_array_equal(a, b)


_built: dict = {}


def unblocked(kernel):
    """The plain loops: memory-checked builds never block (nor stream)."""
    key = (kernel, "checked")
    if key not in _built:
        _built[key] = lang.kernel(memory_check=True, dynamic_shape=kernel.options.dynamic_shape)(kernel.pyfunc)
    return _built[key]


def _with_cflags(kernel, flags, **opts):
    key = (kernel, flags)
    if key not in _built:
        _built[key] = _make_with_cflags(kernel, flags, **opts)
    return _built[key]


def _make_with_cflags(kernel, flags, **opts):
    opts.setdefault("dynamic_shape", kernel.options.dynamic_shape)
    opts.setdefault("num_threads", kernel.options.num_threads)
    inner = lang.kernel(**opts)(kernel.pyfunc)

    def call(*args):
        saved = cfg.config
        cfg.config = dataclasses.replace(saved, cflags=saved.cflags + flags)
        try:
            return inner(*args)
        finally:
            cfg.config = saved
    call.kernel = inner
    return call


def always_streamed(kernel, **opts):
    """The kernel built so that every streamable output streams, whatever its size and run length."""
    return _with_cflags(kernel, ("-DASC_STREAM_MIN_BYTES=0", "-DASC_STREAM_MIN_RUN=1"), **opts)


def never_streamed(kernel, **opts):
    return _with_cflags(kernel, ("-DASC_STREAM_MIN_BYTES=(1LL<<62)",), **opts)


def converted_in_blocks(kernel, *args) -> bool:
    return "asc_h2f_block" in kernel.source("cpu", *args) or "asc_f2h_store" in kernel.source("cpu", *args)


# ---------------------------------------------------------------------------------------------------------------
# aliasing: what check_writes refuses, on the Python path and on the launcher's fast path

@lang.kernel
def scale_into(x: lang.float16[N], out: lang.float16[N]):
    for i in range(N):
        out[i] = x[i] * 2.0


@lang.kernel
def shift_into(x: lang.float16[N], out: lang.float16[N]):
    for i in range(N - 1):
        out[i + 1] = x[i] * 2.0


def test_float16_input_and_output_sharing_memory_are_refused_on_both_paths():
    a = specials(3 * BLOCK + 5, 1)
    out = np.zeros_like(a)
    scale_into(a, out)                   # compiled, and a launcher row exists from now on
    scale_into(a, out)
    ref = np.zeros_like(a)
    unblocked(scale_into)(a, ref)
    same_bits(out, ref)
    for x, o in [(a, a), (a[1:], a[:-1]), (a[:-1], a[1:]), (a[:-7], a[7:])]:
        before = a.copy()
        with pytest.raises(asc.errors.ArgumentError, match="share memory"):
            scale_into(x, o)
        same_bits(a, before)             # refused before anything ran
    b = specials(2 * BLOCK, 2)           # two halves of one buffer: no overlap, accepted
    lo, hi = b[:BLOCK], b[BLOCK:]
    expect = np.zeros_like(hi)
    unblocked(scale_into)(lo.copy(), expect)
    scale_into(lo, hi)
    same_bits(hi, expect)


def test_torch_views_of_one_storage_are_refused():
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(specials(2 * BLOCK + 1, 3))
    with pytest.raises(asc.errors.ArgumentError, match="share memory"):
        shift_into(t[1:], t[:-1])
    with pytest.raises(asc.errors.ArgumentError, match="share memory"):
        shift_into(t, t)
    a = specials(100, 4)
    with pytest.raises(asc.errors.ArgumentError, match="share memory"):
        shift_into(a, torch.from_numpy(a))       # a NumPy array and a tensor over the same memory
    x, out = t.clone(), torch.zeros_like(t)
    shift_into(x, out)
    ref = np.zeros(len(t), np.float16)
    unblocked(shift_into)(x.numpy(), ref)
    same_bits(out.numpy(), ref)


@lang.func
def shift_f(x, out, n: int):
    for i in range(n - 1):
        out[i + 1] = x[i] * 2.0


@lang.kernel
def shift_same_tensor(a: lang.float16[N]):
    shift_f(a, a, N)


def test_device_function_given_one_tensor_twice():
    """A device function that writes one of two parameters handed the same tensor: refused at the call's line
    (compiled code takes tensor parameters as distinct memory; the interpreter would carry a[0] along)."""
    a = (np.arange(3 * BLOCK) % 100).astype(np.float16)
    with pytest.raises(asc.errors.CompileError, match=r"shift_f\(\) is given 'a' for both 'x' and 'out' and "
                                                      r"writes 'out'") as e:
        shift_same_tensor(a.copy())
    assert e.value.loc.line == shift_same_tensor.pyfunc.__code__.co_firstlineno + 2


# ---------------------------------------------------------------------------------------------------------------
# loops that read what they write, locals, conditional reads

@lang.kernel
def conditional_reread(x: lang.float32[N], c: lang.bool_):
    y = lang.empty((N,), dtype=lang.float16)
    out = lang.empty((N, 1), dtype=lang.float32)
    for i in range(N):
        y[i] = x[i] * 3.0
        out[i, 0] = y[i] if c else 0.0
    return y, out


def test_conditional_read_of_a_float16_tensor_written_in_the_loop():
    x = np.linspace(-1, 1, 3 * BLOCK + 7).astype(np.float32)
    y, out = conditional_reread(x, True)
    same_bits(out[:, 0], y.astype(np.float32))           # out holds the rounded float16 values, as y does
    ry, rout = unblocked(conditional_reread)(x, True)
    same_bits(out, rout)
    same_bits(y, ry)


@lang.kernel
def reads_output_behind(x: lang.float16[N]):
    o = lang.zeros((N,), dtype=lang.float32)
    z = lang.zeros((N,), dtype=lang.float16)
    for i in range(1, N):
        o[i] = x[i] * 2.0
        z[i] = o[i - 1] + x[i]
    return o, z


@lang.kernel
def reads_output_ahead(x: lang.float16[N]):
    o = lang.full((N + 1,), 5.0, dtype=lang.float32)
    z = lang.empty((N,), dtype=lang.float16)
    for i in range(N):
        z[i] = o[i + 1] + x[i]
        o[i] = x[i] * 2.0
    return o, z


@lang.kernel(dynamic_shape=True)
def local_in_index(x: lang.float16[N]):
    out = lang.zeros((N,), dtype=lang.float16)
    for i in range(N - 1):
        j = i + 1
        out[i] = x[j] - x[i]
    return out


@lang.kernel(dynamic_shape=True)
def loads_in_many_places(x: lang.float16[N], y: lang.float16[N], s: lang.float32):
    """The same float16 load in an index, a value and a math call; a float32 local reused; a bool local."""
    out = lang.empty((N,), dtype=lang.float16)
    cnt = lang.empty((N,), dtype=lang.int32)
    for i in range(N):
        t = x[i] * s
        pos = t > y[i]
        out[i] = lang.maximum(t, y[i]) + lang.abs(x[i]) * t
        cnt[i] = lang.cast(pos, lang.int32) + lang.cast(lang.floor(y[i]), lang.int32) % 7
    return out, cnt


@pytest.mark.parametrize("n", [2, BLOCK, BLOCK + 1, 4 * BLOCK + 3])
def test_loops_reading_their_outputs_match_the_interpreter(n):
    x = specials(n, n)
    for k in (reads_output_behind, reads_output_ahead):
        got = k(x)
        for g, r in zip(got, unblocked(k)(x)):
            same_bits(g, r)
        for g, r in zip(got, interpreted(k)(x)):
            same_values(g, r)


@pytest.mark.parametrize("n", [2, 3, BLOCK + 2, 3 * BLOCK])
def test_locals_in_indices_and_loads_everywhere(n):
    x, y = specials(n, 1), specials(n, 2)
    got = local_in_index(x)
    same_bits(got, unblocked(local_in_index)(x))
    same_values(got, interpreted(local_in_index)(x))
    big = np.isfinite(x.astype(np.float32)) & (np.abs(x.astype(np.float32)) < 1000)
    y = np.where(np.abs(y.astype(np.float32)) < 1e4, y, np.float16(1.5)).astype(np.float16)
    x = np.where(big, x, np.float16(0.25)).astype(np.float16)
    o, c = loads_in_many_places(x, y, np.float32(0.75))
    assert converted_in_blocks(loads_in_many_places, x, y, np.float32(0.75))
    ro, rc = unblocked(loads_in_many_places)(x, y, np.float32(0.75))
    same_bits(o, ro)
    np.testing.assert_array_equal(c, rc)
    io, ic = interpreted(loads_in_many_places)(x, y, np.float32(0.75))
    same_values(o, io)
    np.testing.assert_array_equal(c, ic)


# ---------------------------------------------------------------------------------------------------------------
# outputs: tuples, written in two loops, returned parameters, int / bool / bfloat16 beside float16, streamed

@lang.kernel(dynamic_shape=True)
def two_loops(x: lang.float16[N], y: lang.float32[N]):
    out = lang.empty((N,), dtype=lang.float32)
    h = lang.empty((N,), dtype=lang.float16)
    half = N // 2
    for i in range(half):
        out[i] = y[i] * 2.0 + x[i]
        h[i] = y[i]
    for i in range(half, N):
        out[i] = y[i] - x[i]
        h[i] = x[i] * 0.5
    return out, h


@lang.kernel
def into_param(x: lang.float16[N], out: lang.float16[N]) -> lang.float16[N]:
    for i in range(N):
        out[i] = x[i] * 3.0 - 1.0
    return out


@lang.kernel(dynamic_shape=True)
def all_kinds(x: lang.float16[N]):
    """float16 in; bfloat16, int8, uint8, int64, bool, float64 and float16 out, all from one loop."""
    bf = lang.empty((N,), dtype=lang.bfloat16)
    i8 = lang.empty((N,), dtype=lang.int8)
    u8 = lang.empty((N,), dtype=lang.uint8)
    i64 = lang.empty((N,), dtype=lang.int64)
    b = lang.empty((N,), dtype=lang.bool_)
    f64 = lang.empty((N,), dtype=lang.float64)
    h = lang.empty((N,), dtype=lang.float16)
    for i in range(N):
        bf[i] = x[i] * 3.0
        i8[i] = lang.cast(x[i], lang.int8)
        u8[i] = lang.cast(x[i] * 10.0, lang.uint8)
        i64[i] = lang.cast(x[i], lang.int64) * 3
        b[i] = x[i] > 0
        f64[i] = lang.cast(x[i], lang.float64) / 3.0
        h[i] = lang.cast(x[i], lang.float64) / 3.0
    return bf, i8, u8, i64, b, f64, h


@pytest.mark.parametrize("n", ODD_SIZES)
def test_tuple_outputs_written_in_two_loops(n):
    x = specials(n, 5)
    y = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    got = two_loops(x, y)
    ref = unblocked(two_loops)(x, y)
    st = always_streamed(two_loops)(x, y)
    for g, r, s in zip(got, ref, st):
        same_bits(g, r)
        same_bits(s, r)
    for g, r in zip(got, interpreted(two_loops)(x, y)):
        same_values(g, r)
    if n:
        assert "asc_store_block(out + " in always_streamed(two_loops).kernel.source("cpu", x, y)


@lang.kernel(dynamic_shape=True)
def overwrite(x: lang.float32[N], lo: int, hi: int):
    out = lang.empty((N,), dtype=lang.float32)
    h = lang.empty((N,), dtype=lang.float16)
    for i in range(N):
        out[i] = x[i] + 1.0
        h[i] = x[i]
    for i in range(lo, hi):             # the same elements again, later: the second store wins
        out[i] = x[i] * 4.0
        h[i] = x[i] * 0.5
    return out, h


@pytest.mark.parametrize("n,lo,hi", [(1, 0, 1), (100, 3, 97), (3 * BLOCK + 9, 0, 3 * BLOCK + 9),
                                     (3 * BLOCK + 9, BLOCK - 5, 2 * BLOCK + 70)])
def test_a_streamed_output_written_again_by_a_later_loop(n, lo, hi):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    want = x + 1
    want[lo:hi] = x[lo:hi] * 4
    want_h = x.astype(np.float16)
    want_h[lo:hi] = (x[lo:hi] * np.float32(0.5)).astype(np.float16)
    for k in (overwrite, always_streamed(overwrite)):
        out, h = k(x, lo, hi)
        np.testing.assert_array_equal(out, want)
        same_bits(h, want_h)
    assert "asc_store_block(out + " in always_streamed(overwrite).kernel.source("cpu", x, lo, hi)


@pytest.mark.parametrize("offset", [0, 1, 3, 31, 32, 33])
def test_output_parameter_returned_at_any_alignment(offset):
    n = 5 * BLOCK + 13
    x = specials(n, offset)
    buf = np.full(n + offset + 40, np.float16(-7.0))
    out = buf[offset:offset + n]
    r = always_streamed(into_param)(x, out)
    assert r is out
    ref = np.zeros(n, np.float16)
    unblocked(into_param)(x, ref)
    same_bits(out, ref)
    assert (buf[:offset] == -7).all() and (buf[offset + n:] == -7).all()
    out2 = np.zeros(n, np.float16)
    assert into_param(x, out2) is out2
    same_bits(out2, ref)


@lang.kernel
def gelu_swiglu_into(x: lang.float32[N], y: lang.float32[N], g: lang.float32[N], s: lang.float32[N]):
    for i in range(N):
        g[i] = 0.5 * x[i] * (1.0 + lang.erf(x[i] / lang.sqrt(2.0)))
        s[i] = x[i] * lang.sigmoid(x[i]) * y[i]


@pytest.mark.parametrize("n", [1, 17, BLOCK - 1, 3 * BLOCK + 5, 1500])
@pytest.mark.parametrize("offset", [0, 1, 3, 15, 16, 17])
def test_compute_heavy_float32_outputs_streamed_at_any_alignment(n, offset):
    """GELU and SwiGLU stream their float32 outputs in blocks that start on the first output's cache lines
    (asc_stream_lead), each block first prefetching a later block's inputs: the bits of the plain loop, at every
    offset of the outputs within a line (the second output's lines fall elsewhere), nothing outside them written."""
    rng = np.random.default_rng(n + offset)
    x, y = (rng.standard_normal(n) * 3).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    bufs = [np.full(n + offset + 40, np.float32(-7.0)) for _ in range(2)]
    g, s = bufs[0][offset:offset + n], bufs[1][(offset * 5) % 16:(offset * 5) % 16 + n]
    k = always_streamed(gelu_swiglu_into)
    k(x, y, g, s)
    src = k.kernel.source("cpu", x, y, g, s)
    assert "asc_stream_lead(g + (" in src and "asc_prefetch_l1(x + " in src and "asc_prefetch_l1(y + " in src
    rg, rs = np.zeros(n, np.float32), np.zeros(n, np.float32)
    never_streamed(gelu_swiglu_into)(x, y, rg, rs)
    np.testing.assert_array_equal(g.view(np.uint32), rg.view(np.uint32))
    np.testing.assert_array_equal(s.view(np.uint32), rs.view(np.uint32))
    assert (bufs[0][:offset] == -7).all() and (bufs[0][offset + n:] == -7).all()
    lo = (offset * 5) % 16
    assert (bufs[1][:lo] == -7).all() and (bufs[1][lo + n:] == -7).all()


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, BLOCK + 3, 3 * BLOCK - 1])
def test_every_output_dtype_beside_float16(n):
    x = specials(n, 11)
    x = np.where(np.isfinite(x.astype(np.float32)) & (np.abs(x.astype(np.float32)) < 12), x,
                 np.float16(-2.5)).astype(np.float16)           # int casts of inf / nan / out of range: unspecified
    got = all_kinds(x)
    for g, r in zip(got, unblocked(all_kinds)(x)):
        same_bits(g, r)
    for g, r in zip(always_streamed(all_kinds)(x), got):
        same_bits(g, r)
    for g, r in zip(got, interpreted(all_kinds)(x)):
        same_values(g, r)


def test_float64_value_into_float16_rounds_once_in_blocks():
    """A float64 value stored to float16: rounded to odd in float32 then to float16 (one rounding); the block
    narrowing must give the bits of the value-by-value asc_d2h, including at the halfway points of float16."""
    ulp = np.float64(2.0 ** -11)              # float16 near 1: spacing 2^-10, halfway at 2^-11
    base = 1.0 + np.arange(2 * BLOCK + 3) * 2.0 ** -10
    x = np.concatenate([base + ulp + 2.0 ** -40, base + ulp - 2.0 ** -40, base + ulp]).astype(np.float64)

    @lang.kernel
    def d2h(x: lang.float64[N]) -> lang.float16[N]:
        out = lang.empty((N,), dtype=lang.float16)
        for i in range(N):
            out[i] = x[i] * 1.0
        return out
    got = d2h(x)
    same_bits(got, unblocked(d2h)(x))
    same_bits(got, x.astype(np.float16))           # NumPy rounds float64 -> float16 once


# ---------------------------------------------------------------------------------------------------------------
# shapes: dynamic, 2-D rows with offsets, transposed access, zero size

@lang.kernel(dynamic_shape=True)
def rows_dyn(x, y: lang.float16[R, C]):
    out = lang.zeros((R, C), dtype=lang.float16)
    for r in range(R):
        for j in range(C - 1):
            out[r, j] = x[r, j + 1] * y[r, j] + x[r, j]
    return out


@lang.kernel
def transposed(x: lang.float16[R, C]) -> lang.float16[C, R]:
    out = lang.empty((C, R), dtype=lang.float16)
    for j in range(C):
        for r in range(R):
            out[j, r] = x[r, j] + 1.0
    return out


@pytest.mark.parametrize("shape", [(0, 3), (3, 1), (1, 2), (2, BLOCK + 2), (7, 33), (3, 2 * BLOCK + 1)])
def test_dynamic_rows_with_free_axes(shape):
    n = int(np.prod(shape))
    x, y = specials(n, 3).reshape(shape), specials(n, 4).reshape(shape)
    got = rows_dyn(x, y)
    same_bits(got, unblocked(rows_dyn)(x, y))
    same_values(got, interpreted(rows_dyn)(x, y))
    assert rows_dyn.cache_info()["specializations"] == 1
    # x's axes are free: a wider x is indexed with its own row length (x_d1), not y's
    wide = specials(shape[0] * (shape[1] + 3), 5).reshape(shape[0], shape[1] + 3)
    got = rows_dyn(wide, y)
    same_bits(got, unblocked(rows_dyn)(wide, y))
    same_values(got, interpreted(rows_dyn)(wide, y))
    assert rows_dyn.cache_info()["specializations"] == 1


def test_transposed_access_is_not_blocked_and_correct():
    x = specials(5 * 700, 6).reshape(5, 700)
    got = transposed(x)
    src = transposed.source("cpu", x)
    assert "asc_h2f_block(x" not in src          # x[r, j] with r the loop variable: not contiguous
    same_bits(got, unblocked(transposed)(x))
    same_values(got, interpreted(transposed)(x))


# ---------------------------------------------------------------------------------------------------------------
# parallel loops, threads, SPMD kernels, torch

@lang.kernel(num_threads=1)
def saxpy16_1(a: lang.float32, x: lang.float16[N], y: lang.float16[N]) -> lang.float16[N]:
    out = lang.empty((N,), dtype=lang.float16)
    for i in range(N):
        out[i] = a * x[i] + y[i]
    return out


@lang.kernel(num_threads=2)
def saxpy16_2(a: lang.float32, x: lang.float16[N], y: lang.float16[N]) -> lang.float16[N]:
    out = lang.empty((N,), dtype=lang.float16)
    for i in range(N):
        out[i] = a * x[i] + y[i]
    return out


@pytest.mark.parametrize("n", [(1 << 15) - 1, 3 * (1 << 15) + 511])
def test_parallel_blocked_loops_every_thread_count(n):
    x, y = specials(n, 7), specials(n, 8)
    ref = unblocked(saxpy16_1)(np.float32(1.25), x, y)
    for k in (saxpy16_1, saxpy16_2):
        same_bits(k(np.float32(1.25), x, y), ref)
        same_bits(always_streamed(k)(np.float32(1.25), x, y), ref)
    if n > 1 << 15:
        assert "#pragma omp parallel num_threads(asc_team(1))" in saxpy16_1.source("cpu", np.float32(1.25), x, y)
        assert "#pragma omp parallel num_threads(asc_team(2))" in saxpy16_2.source("cpu", np.float32(1.25), x, y)


@lang.parallel(num_workers=3)
def spmd_scale(x: lang.float16[N]) -> lang.float16[N]:
    out = lang.empty((N,), dtype=lang.float16)
    for i in lang.distributed_range(N):
        out[i] = x[i] * 0.5 + 1.0
    return out


@pytest.mark.parametrize("n", [0, 2, 5, BLOCK * 3 + 1])
def test_spmd_kernel_float16_chunks(n):
    x = specials(n, 9)
    got = spmd_scale(x)
    same_bits(got, unblocked(spmd_scale)(x))
    same_values(got, interpreted(spmd_scale)(x))


def test_torch_float16_tensors():
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(specials(3 * BLOCK + 1, 10))
    y = torch.from_numpy(specials(3 * BLOCK + 1, 11))
    for _ in range(2):                           # Python path, then the launcher
        out = saxpy16_2(np.float32(0.5), x, y)
        assert isinstance(out, torch.Tensor) and out.dtype == torch.float16
        same_bits(out.numpy(), unblocked(saxpy16_2)(np.float32(0.5), x.numpy(), y.numpy()))


# ---------------------------------------------------------------------------------------------------------------
# tensor-level code

@lang.kernel
def tensor_expr(x: lang.float16[R, C], y: lang.float16[C]) -> lang.float16[R, C]:
    return lang.exp(x * 0.5) + y


@lang.kernel
def sliced_mixed(a: lang.float16[R, C], b: lang.bfloat16[R, C]):
    return a[:, 1:C] * b[:, 0:C - 1] + 1.0


@lang.kernel
def slice_shift(x: lang.float16[N]):
    x[0:N - 1] = x[1:N] * 2.0


@lang.kernel
def slice_shift_up(x: lang.float16[N]):
    x[1:N] = x[0:N - 1] * 2.0


@lang.kernel
def softmax16(x: lang.float16[R, C]) -> lang.float16[R, C]:
    return lang.softmax(x, axis=1)


@lang.kernel
def mm_then_map(a: lang.float16[R, C], b: lang.float16[C, R]) -> lang.float16[R, R]:
    return (a @ b) * 0.5 - 1.0


def test_tensor_level_float16():
    rng = np.random.default_rng(0)
    x = specials(7 * (BLOCK + 3), 12).reshape(7, BLOCK + 3)
    y = specials(BLOCK + 3, 13)
    got = tensor_expr(x, y)
    same_bits(got, unblocked(tensor_expr)(x, y))
    s = (rng.standard_normal((5, 2 * BLOCK + 9)) * 3).astype(np.float16)
    # its float16 sums are lanes reductions, not the interpreter's serial order: measured against the exact
    # softmax, the compiled result is within 2 float16 ulp, and never further than the interpreter's serial sum
    # (7.8 ulp here) + 1
    sm = softmax16(s).astype(np.float64)
    e = np.exp(s.astype(np.float64) - s.astype(np.float64).max(axis=1, keepdims=True))
    exact = e / e.sum(axis=1, keepdims=True)
    ulp = np.spacing(exact.astype(np.float16)).astype(np.float64)
    err_c = np.max(np.abs(sm - exact) / ulp)
    err_i = np.max(np.abs(interpreted(softmax16)(s).astype(np.float64) - exact) / ulp)
    assert err_c <= 2 and err_c <= err_i + 1, (err_c, err_i)
    np.testing.assert_allclose(sm.astype(np.float32).sum(axis=1), 1.0, rtol=5e-3)
    import ml_dtypes
    p = (rng.standard_normal((3, BLOCK + 77)) * 2).astype(np.float16)
    q = (rng.standard_normal((3, BLOCK + 77)) * 2).astype(ml_dtypes.bfloat16)
    got = sliced_mixed(p, q)                  # float16 x bfloat16 -> float32; a[:, 1:] read at j + 1 in blocks
    assert got.dtype == np.float32 and "asc_h2f_block(a + " in sliced_mixed.source("cpu", p, q)
    same_bits(got, unblocked(sliced_mixed)(p, q))
    same_bits(got, interpreted(sliced_mixed)(p, q))
    a = (rng.standard_normal((9, 40)) * 0.5).astype(np.float16)
    b = (rng.standard_normal((40, 9)) * 0.5).astype(np.float16)
    same_bits(mm_then_map(a, b), unblocked(mm_then_map)(a, b))
    np.testing.assert_allclose(mm_then_map(a, b).astype(np.float32),
                               interpreted(mm_then_map)(a, b).astype(np.float32), rtol=4e-3, atol=4e-3)


@pytest.mark.parametrize("kernel,ref", [(slice_shift, lambda v: np.concatenate([v[1:] * np.float16(2), v[-1:]])),
                                        (slice_shift_up, lambda v: np.concatenate([v[:1], v[:-1] * np.float16(2)]))])
def test_overlapping_slice_assignment_in_place(kernel, ref):
    """x[a:b] = f(x[c:d]) on one tensor: NumPy's semantics (the right side is evaluated first), as the interpreter
    gives, whichever way the slices overlap."""
    v = (np.arange(3 * BLOCK + 5) % 50).astype(np.float16)
    got, plain, interp = v.copy(), v.copy(), v.copy()
    kernel(got)
    unblocked(kernel)(plain)
    interpreted(kernel)(interp)
    same_bits(interp, ref(v))
    same_bits(got, plain)
    same_bits(got, interp)


# ---------------------------------------------------------------------------------------------------------------
# special values: every float16 bit pattern through a blocked body, into float16 / bfloat16 / float32

@lang.kernel
def through_float32(x: lang.float16[N]):
    h = lang.empty((N,), dtype=lang.float16)
    f = lang.empty((N,), dtype=lang.float32)
    bf = lang.empty((N,), dtype=lang.bfloat16)
    for i in range(N):
        t = x[i]
        h[i] = t
        f[i] = t
        bf[i] = -t
    return h, f, bf


def test_every_float16_bit_pattern():
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = through_float32(x)
    for g, r in zip(got, unblocked(through_float32)(x)):
        same_bits(g, r)
    for g, r in zip(always_streamed(through_float32)(x), got):
        same_bits(g, r)
    finite = np.isfinite(x)
    same_bits(got[0][finite], x[finite])
    same_bits(got[1][finite], x[finite].astype(np.float32))
    assert np.isnan(got[1][~finite & np.isnan(x)]).all()


# ---------------------------------------------------------------------------------------------------------------
# the real threshold: a 16 MiB float16 output streams, with tuple outputs and an int output beside it

def test_real_threshold_streams_float16_and_int_outputs():
    n = (16 << 20) // 2 + 77
    x = specials(n, 14)

    @lang.kernel
    def split(x: lang.float16[N]):
        h = lang.empty((N,), dtype=lang.float16)
        k = lang.empty((N,), dtype=lang.int16)
        for i in range(N):
            h[i] = x[i] - 1.0
            k[i] = lang.cast(x[i] > 0, lang.int16)
        return h, k
    src = split.source("cpu", x)
    assert "asc_stream_ok" in src
    h, k = split(x)
    rh, rk = never_streamed(split)(x)
    same_bits(h, rh)
    np.testing.assert_array_equal(k, rk)
    np.testing.assert_array_equal(k, (x > 0).astype(np.int16))


# ---------------------------------------------------------------------------------------------------------------
# run-time ranges: scalar bounds, empty and reversed ranges, offsets by a parameter

@lang.kernel
def window(x: lang.float16[N], lo: int, hi: int, off: int) -> lang.float16[N]:
    out = lang.full((N,), -1.0, dtype=lang.float16)
    for i in range(lo, hi):
        out[i] = x[i - off] * 2.0 + x[i]
    return out


@pytest.mark.parametrize("lo,hi,off", [(0, 0, 0), (5, 3, 0), (1, 2, 1), (3, 3 * BLOCK + 1, 3), (600, 1500, 512),
                                       (7, 2000, 0)])
def test_run_time_bounds_and_offsets(lo, hi, off):
    x = specials(2000, lo + hi)
    got = window(x, lo, hi, off)
    assert converted_in_blocks(window, x, lo, hi, off)
    same_bits(got, unblocked(window)(x, lo, hi, off))
    same_values(got, interpreted(window)(x, lo, hi, off))
    same_bits(always_streamed(window)(x, lo, hi, off), got)


# ---------------------------------------------------------------------------------------------------------------
# the floating-point environment: flush-to-zero / denormals-are-zero (torch.set_flush_denormal(True))

@lang.kernel
def times_one(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 1.0
    return out


def test_float16_subnormals_under_flush_to_zero():
    torch = pytest.importorskip("torch")
    x = np.arange(1, 1024 + 2 + 1, dtype=np.uint16).view(np.float16)     # every positive subnormal, and more
    plain = unblocked(times_one)
    times_one(x), plain(x)                                                # compiled before the switch
    torch.set_flush_denormal(True)
    try:
        got, ref = times_one(x), plain(x)
    finally:
        torch.set_flush_denormal(False)
    same_bits(got, ref)
    same_bits(got, x)


@lang.func
def dot_f(u, v, n):
    acc = 0.0
    for i in range(n):
        acc += u[i] * v[i]
    return acc


@lang.kernel
def self_dot(a: lang.float32[N]) -> lang.float32:
    return dot_f(a, a, N)


def test_device_function_reading_one_tensor_twice_is_fine():
    a = np.arange(100, dtype=np.float32) / 10
    np.testing.assert_allclose(self_dot(a), float(np.dot(a.astype(np.float64), a)), rtol=1e-5)

"""Element loops in blocks (asc/passes/cpu_blocks.py decides, asc/backends/cpu_loops.py renders, asc_blocks.h): float16 conversion around the body and
streaming stores for large outputs. Which loops are blocked, and that a blocked loop gives the bits of the plain loop
(the kernel built with the memory check, which never blocks) over awkward sizes, special values, misaligned outputs
and offsets, and matches the interpreter."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import asc.environment as cfg
import asc.language as lang
from asc.passes.cpu_blocks import BLOCK as HALF_BLOCK
from asc.examples import seed

from helpers import close, interpreted

SIZES = [0, 1, 7, 15, 16, 17, HALF_BLOCK - 1, HALF_BLOCK, HALF_BLOCK + 1, 1009, 3 * HALF_BLOCK + 5, 70001]


def specials(n, seed=0):
    """n float16 values: normal data with every special bit pattern mixed in (±0, ±inf, NaNs with payloads,
    subnormals, the largest finite values)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float16)
    pats = np.array([0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7d55, 0xffff, 0x0001, 0x8001,
                     0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x3555], np.uint16).view(np.float16)
    if n:
        k = min(n, pats.size)
        x[rng.choice(n, k, replace=False)] = pats[:k]
    return x


def unblocked(kernel):
    """The same kernel converted value by value: memory-checked builds never run float16 loops in blocks."""
    return lang.kernel(memory_check=True)(kernel.pyfunc)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a.view(np.uint16), b.view(np.uint16))


gelu16 = seed.gelu_any       # the seed's GELU for any dtype


@lang.kernel
def copy16(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i]
    return out


@lang.kernel
def swiglu16(a, b):
    out = lang.empty_like(a)
    R, C = a.shape
    for i in range(R):
        for j in range(C):
            out[i, j] = a[i, j] * lang.sigmoid(a[i, j]) * b[i, j]
    return out


@lang.kernel
def mixed(x, y, scale: lang.float32):
    """float16 in, float32 in, both out; a local, a float16 tensor read at two offsets."""
    n = len(x) - 1
    out16 = lang.empty((n,), dtype=lang.float16)
    out32 = lang.empty((n,), dtype=lang.float32)
    for i in range(n):
        t = x[i + 1] - x[i]
        out16[i] = t * scale + y[i]
        out32[i] = t * y[i]
    return out16, out32


@pytest.mark.parametrize("n", SIZES)
def test_gelu_blocked_is_bitwise_the_unblocked_loop(n):
    x = specials(n)
    got = gelu16(x)
    same_bits(got, unblocked(gelu16)(x))
    ref = interpreted(gelu16)(x)
    finite = np.isfinite(x) & np.isfinite(ref.astype(np.float32))
    close(got[finite], ref[finite], ulps=2)


def test_copy_keeps_every_float16_bit_pattern_the_unblocked_loop_keeps():
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    same_bits(copy16(x), unblocked(copy16)(x))
    finite = np.isfinite(x)
    same_bits(copy16(x)[finite], x[finite])


@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (1, 1), (5, 7), (3, HALF_BLOCK + 3), (17, 1000), (64, 4096)])
def test_swiglu_rows_blocked(shape):
    a, b = specials(int(np.prod(shape)), 1).reshape(shape), specials(int(np.prod(shape)), 2).reshape(shape)
    got = swiglu16(a, b)
    same_bits(got, unblocked(swiglu16)(a, b))
    ref = interpreted(swiglu16)(a, b)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(ref.astype(np.float32))
    close(got[ok], ref[ok], ulps=2)


@pytest.mark.parametrize("n", [1, 2, 9, HALF_BLOCK + 1, 5000])
def test_offsets_mixed_dtypes_and_scalars(n):
    x, y = specials(n, 3), np.random.default_rng(4).standard_normal(max(n - 1, 0)).astype(np.float32)
    o16, o32 = mixed(x, y, 0.75)
    r16, r32 = unblocked(mixed)(x, y, 0.75)
    same_bits(o16, r16)
    np.testing.assert_array_equal(o32.view(np.uint32), r32.view(np.uint32))


def test_blocked_loops_in_the_source():
    x = np.ones(100_000, np.float16)
    src = gelu16.source("cpu", x)
    assert '#include "asc_blocks.h"' in src and "asc_h2f_block(x + " in src and "asc_f2h_store(" in src
    assert "asc_h2f(" not in src.split("asc_entry")[1]          # no value-by-value conversion left in the loop
    assert "float16 converted around the body" in src
    # a large output streams past the cache, its blocks starting on its cache lines, and each block first asks for
    # the input of a later one (compute-bound loops included: asc/passes/prefetch_ahead.py)
    assert "asc_stream_ok(100000LL * (int64_t)sizeof(asc_half)" in src and "asc_stream_lead(out + (" in src
    assert "asc_prefetch_l1(x + ((asc_i_s + 1024LL)), asc_i_n * (int64_t)sizeof(asc_half));" in src
    # float32 GELU: nothing to convert, its output streamed when large; checked builds are untouched
    src32 = gelu16.source("cpu", x.astype(np.float32))
    assert "asc_stream_ok" in src32 and "asc_h2f_block" not in src32 and "asc_prefetch_l1(x + " in src32
    assert "asc_h2f_block" not in unblocked(gelu16).source("cpu", x)


# ---- loops that must not run in blocks: the reason is in cpu_blocks.py's docstring

@lang.kernel
def conditional_store(x):
    out = lang.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            out[i] = x[i] * 2.0
    return out


@lang.kernel
def in_place(x):
    for i in range(len(x)):
        x[i] = x[i] * 0.5 + 1.0


@lang.kernel
def guarded_neighbour(x):
    out = lang.empty_like(x)
    n = len(x)
    for i in range(n):
        out[i] = x[i + 1] if i + 1 < n else x[i]
    return out


@lang.kernel
def read_after_write(x, y):
    for i in range(len(x)):
        y[i] = x[i] * 3.0
        x[i] = y[i] + 1.0


@lang.kernel
def strided(x):
    out = lang.empty((len(x) // 2,), dtype=lang.float16)
    for i in range(len(x) // 2):
        out[i] = x[2 * i]
    return out


@pytest.mark.parametrize("kernel,args", [
    (conditional_store, lambda: (specials(1500, 5),)),
    (guarded_neighbour, lambda: (specials(1500, 6),)),
    (strided, lambda: (specials(1501, 7),)),
])
def test_refused_loops_still_correct(kernel, args):
    a = args()
    assert "asc_h2f_block" not in kernel.source("cpu", *a)
    same_bits(kernel(*a), unblocked(kernel)(*a))
    ok = np.isfinite(kernel(*a).astype(np.float32))
    same_bits(kernel(*a)[ok], interpreted(kernel)(*a)[ok])


def test_in_place_and_read_after_write_are_not_blocked():
    x = specials(1500, 8)
    assert "asc_h2f_block" not in in_place.source("cpu", x)
    a, b = x.copy(), x.copy()
    in_place(a)
    unblocked(in_place)(b)
    same_bits(a, b)
    y1, y2 = np.zeros_like(x), np.zeros_like(x)
    x1, x2 = x.copy(), x.copy()
    assert "asc_h2f_block" not in read_after_write.source("cpu", x1, y1)
    read_after_write(x1, y1)
    interpreted(read_after_write)(x2, y2)           # x[i] reads y[i] after y[i] was rounded to float16
    ok = np.isfinite(x2.astype(np.float32))
    same_bits(x1[ok], x2[ok])
    same_bits(y1[ok], y2[ok])


# ---- streaming stores: outputs of at least 16 MiB that the kernel never reads

STREAM_MIN = 16 << 20


def not_streamed(kernel, *args):
    """The kernel's results with streaming off (built with ASC_STREAM_MIN_BYTES out of reach): the plain loops,
    the same reductions."""
    saved = cfg.config
    cfg.config = dataclasses.replace(saved, cflags=saved.cflags + ("-DASC_STREAM_MIN_BYTES=(1LL<<62)",))
    try:
        return lang.kernel(kernel.pyfunc)(*args)
    finally:
        cfg.config = saved


@lang.kernel
def saxpy_into(a: lang.float32, x, y, out):
    for i in range(len(x)):
        out[i] = a * x[i] + y[i]


@lang.kernel
def rownorm(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j] * x[i, j]
        r = lang.rsqrt(s / C + 1e-6)
        for j in range(C):
            out[i, j] = x[i, j] * r
    return out


@lang.kernel
def positive(x):
    out = lang.empty(x.shape, dtype=lang.bool_)
    for i in range(len(x)):
        out[i] = x[i] > 0
    return out


@lang.kernel
def scale_twice(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    for i in range(len(x)):
        out[i] = out[i] + 1.0
    return out


@pytest.mark.parametrize("offset", [0, 1, 3, 16])
def test_streamed_output_at_any_alignment(offset):
    """An out= array that starts off a cache line: the partial lines at either end of each block are ordinary
    stores, the whole lines streamed; every element written, nothing outside touched."""
    n = STREAM_MIN // 4 + 1001
    rng = np.random.default_rng(offset)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    buf = np.full(n + offset + 7, -7.0, np.float32)
    out = buf[offset:offset + n]
    assert "asc_stream_ok" in saxpy_into.source("cpu", np.float32(1.5), x, y, out)
    saxpy_into(np.float32(1.5), x, y, out)
    ref = np.full_like(out, -1.0)
    not_streamed(saxpy_into, np.float32(1.5), x, y, ref)
    np.testing.assert_array_equal(out.view(np.uint32), ref.view(np.uint32))
    assert (buf[:offset] == -7.0).all() and (buf[offset + n:] == -7.0).all()


def test_small_outputs_keep_ordinary_stores_and_the_same_bits():
    x = np.arange(1000, dtype=np.float32)
    out = np.empty_like(x)
    src = saxpy_into.source("cpu", np.float32(2.0), x, x, out)
    assert "} else {" in src                    # the plain loop, taken when the output is under 16 MiB
    saxpy_into(np.float32(2.0), x, x, out)
    np.testing.assert_array_equal(out, 2.0 * x + x)


@pytest.mark.parametrize("shape", [(1024, 4099), (1, STREAM_MIN // 4 + 3), (65536, 67), (5, 7)])
def test_row_kernel_streams_its_last_pass(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    src = rownorm.source("cpu", x)
    assert "asc_store_block(out + " in src
    np.testing.assert_array_equal(rownorm(x).view(np.uint32), not_streamed(rownorm, x).view(np.uint32))
    x64 = x.astype(np.float64)     # (not the interpreter: its serial float32 sum of 4M squares is off by 1e-3)
    # the float32 sum of a row's squares is vectorized in 8 lanes (AVX2) or 16 (AVX-512): each lane adds C / lanes
    # positive terms, whose rounding errors grow with that count (measured: 1.6e-4 relative for the 4M-element row
    # on AVX2, so 8e-5 in the output); 4 ulps hold for rows of up to 64K elements
    ulps = 4 if shape[1] <= 65536 else 12
    close(rownorm(x), x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6), ulps=ulps)


def test_float16_and_bool_outputs_stream():
    n = STREAM_MIN // 2 + 5                     # float16: 16 MiB and a little more
    x = specials(n, 9)
    assert "asc_f2h_store(out + (asc_i_s), asc_out_blk, asc_i_n, asc_out_nt)" in copy16.source("cpu", x)
    same_bits(copy16(x), unblocked(copy16)(x))
    xb = np.random.default_rng(2).standard_normal(STREAM_MIN + 3).astype(np.float32)
    assert "asc_store_block(out + " in positive.source("cpu", xb)
    np.testing.assert_array_equal(positive(xb), xb > 0)


def test_outputs_the_kernel_reads_again_are_not_streamed():
    x = np.ones(STREAM_MIN // 4 + 1, np.float32)
    assert "asc_stream_ok" not in scale_twice.source("cpu", x)
    np.testing.assert_array_equal(scale_twice(x[:100]), np.full(100, 3.0, np.float32))


@lang.kernel(dynamic_shape=True)
def copy_any(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i]
    return out


def test_dynamic_shapes_block_and_stream_by_the_size_of_the_call():
    """One compiled kernel for every size: the block count, the tail and the streaming decision are taken at run
    time."""
    for n in (0, 1, HALF_BLOCK + 1, 4099, STREAM_MIN // 2 + 9):
        x = specials(n, n)
        same_bits(copy_any(x), unblocked(copy_any)(x))
        y = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        np.testing.assert_array_equal(copy_any(y).view(np.uint32), y.view(np.uint32))
    assert copy_any.cache_info()["specializations"] == 2       # float16 and float32, not one per size


def test_the_header_block_size_is_the_renderer_s():
    """asc_f2h_store's stack buffer holds ASC_BLOCK values; the renderer's blocks must not be larger."""
    import os
    from asc.runtime.toolchain import INCLUDE_DIR
    with open(os.path.join(INCLUDE_DIR, "asc_blocks.h")) as f:
        assert f"#define ASC_BLOCK {HALF_BLOCK} " in f.read()


# ---- bfloat16: converted a block at a time too (asc_bf2f_block / asc_f2bf_store)

def bf16_specials(n, seed=0):
    """n bfloat16 values: normal data with every special bit pattern mixed in (±0, ±inf, NaNs with payloads,
    quiet and signalling, subnormals, the largest finite values, values whose rounding ties)."""
    import ml_dtypes
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(ml_dtypes.bfloat16)
    pats = np.array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x7fa5, 0xffff, 0x0001, 0x8001,
                     0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0x3f81], np.uint16).view(ml_dtypes.bfloat16)
    if n:
        k = min(n, pats.size)
        x[rng.choice(n, k, replace=False)] = pats[:k]
    return x


@lang.kernel
def bf16_mix(a, b):
    out = lang.empty_like(a)
    wide = lang.empty(a.shape, dtype=lang.float32)
    for i in range(len(a)):
        out[i] = a[i] * lang.sigmoid(a[i]) * b[i]
        wide[i] = a[i] + b[i]
    return out, wide


def test_bfloat16_loops_in_blocks_in_the_source():
    import ml_dtypes
    x = np.ones(100_000, ml_dtypes.bfloat16)
    src = gelu16.source("cpu", x)
    assert "asc_bf2f_block(x + " in src and "asc_f2bf_store(" in src
    assert "asc_bf2f(" not in src.split("asc_entry")[1] and "asc_f2bf(" not in src.split("asc_entry")[1]
    assert "bfloat16 converted around the body" in src
    assert "asc_bf2f_block" not in unblocked(gelu16).source("cpu", x)
    assert "blocked 128 (load x[i] bf16, store out[i] bf16 may stream)" in gelu16.source("cpu", x, stage="cpu_blocks")


@pytest.mark.parametrize("n", SIZES)
def test_bfloat16_blocks_give_the_plain_loop_bits(n):
    """Every size around the block and vector widths, special values mixed in: the bits of the loop converted value
    by value (the memory-checked build), and the interpreter's values."""
    a, b = bf16_specials(n, 5), bf16_specials(n, 6)
    got = bf16_mix(a, b)
    plain = unblocked(bf16_mix)(a, b)
    same_bits(got[0], plain[0])
    # float32 a + b of two NaNs: which payload wins is the compiler's operand order (NumPy: the hardware's choice)
    num = ~np.isnan(plain[1])
    np.testing.assert_array_equal(got[1][num].view(np.uint32), plain[1][num].view(np.uint32))
    assert np.isnan(got[1][~num]).all()
    ref = interpreted(bf16_mix)(a, b)
    ok = np.isfinite(a.astype(np.float32)) & np.isfinite(b.astype(np.float32))
    close(got[0][ok], ref[0][ok], ulps=2)
    np.testing.assert_array_equal(got[1], ref[1])


def test_every_bfloat16_bit_pattern_through_a_block():
    import ml_dtypes
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)
    got = copy16(x)
    same_bits(got, unblocked(copy16)(x))
    num = ~np.isnan(x.astype(np.float32))
    same_bits(got[num], x[num])  # asc_bf2f then asc_f2bf: every number back (a NaN comes back quieted, as unblocked)
    g = gelu16(x)
    same_bits(g, unblocked(gelu16)(x))

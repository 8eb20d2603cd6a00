"""float16 element loops in blocks (asc/backends/cpu_half.py, asc_half.h): which loops are blocked, and that a
blocked loop gives the bits of the same loop converted value by value (the kernel built with the memory check, which
never blocks) over awkward sizes, special values and offsets, and matches the interpreter."""
import numpy as np
import pytest

import asc.language as lang
from asc.backends.cpu_half import HALF_BLOCK
from asc.math import erf, sqrt

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


@lang.kernel
def gelu16(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))
    return out


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
    assert '#include "asc_half.h"' in src and "asc_h2f_block(x + " in src and "asc_f2h_block(" in src
    assert "asc_h2f(" not in src.split("asc_entry")[1]          # no value-by-value conversion left in the loop
    assert "float16 in blocks" in src
    # float32 kernels and checked builds are untouched
    assert "asc_half.h" not in gelu16.source("cpu", x.astype(np.float32))
    assert "asc_h2f_block" not in unblocked(gelu16).source("cpu", x)


# ---- loops that must not run in blocks: the reason is in cpu_half.py's docstring

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

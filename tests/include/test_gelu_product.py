"""asc_math.h's asc_gelu_erf_scaled_f32(x, s), which the pass `gelu_product` emits for GELU's product (0.5 * x) * (1 +
erf_scaled(x, s)), gives that product's bits for every float32 x, NaNs included: compiled as kernels are (the loops
vectorized), for the host and for each x86-64 level the host can run (SSE4.2: the header's no-FMA path; AVX2;
AVX-512), for both of GELU's scales (1/float32(sqrt 2) and float32(sqrt 0.5)), over every 31st float32 bit pattern
(all 2^32 with ASC_MATH_EXHAUSTIVE=1; they were compared once, at AVX2, AVX-512 and without FMA), and over a dense
grid of [-8, 8] and the specials."""
from __future__ import annotations

import ctypes
import dataclasses
import os
import platform

import numpy as np
import pytest

import asc.environment
from asc.runtime import toolchain

SHIM = r"""
#include "asc_cpu.h"
#include <string.h>
#define PAIR(NAME, S) \
extern "C" ASC_EXPORT void NAME##_product(const float* __restrict x, float* __restrict o, long n) { \
  _Pragma("omp simd") for (long i = 0; i < n; ++i) o[i] = (0.5f * x[i]) * (1.0f + asc_erf_scaled_f32(x[i], S)); } \
extern "C" ASC_EXPORT void NAME##_fused(const float* __restrict x, float* __restrict o, long n) { \
  _Pragma("omp simd") for (long i = 0; i < n; ++i) o[i] = asc_gelu_erf_scaled_f32(x[i], S); } \
/* the bit patterns start, start + stride, ... below 2^32 where the two differ: their count, the first in *first */ \
extern "C" ASC_EXPORT long NAME##_sweep(long long start, long long stride, unsigned* first) { \
  enum { B = 4096 }; float x[B], a[B], b[B]; long bad = 0; \
  for (long long p = start; p < (1ll << 32);) { \
    long n = 0; \
    for (; n < B && p < (1ll << 32); ++n, p += stride) { unsigned u = (unsigned)p; memcpy(&x[n], &u, 4); } \
    NAME##_product(x, a, n); NAME##_fused(x, b, n); \
    for (long i = 0; i < n; ++i) if (memcmp(&a[i], &b[i], 4) != 0) { if (!bad) memcpy(first, &x[i], 4); ++bad; } \
  } \
  return bad; }
PAIR(sqrt2, 0.7071067932881648)
PAIR(sqrt_half, 0.7071067690849304)
"""

_HOST = toolchain.target_isa()["features"]         # what -march=native gives: the levels this machine can run
LEVELS = [""] + ([level for level, needs in (("-march=x86-64-v2", "sse4.2"), ("-march=x86-64-v3", "avx2"),
                                             ("-march=x86-64-v4", "avx512f")) if needs in _HOST]
                 if platform.machine() in ("x86_64", "AMD64") else [])
SCALES = ["sqrt2", "sqrt_half"]


@pytest.fixture(scope="module", params=LEVELS, ids=lambda f: f or "native")
def lib(request, tmp_path_factory):
    saved = asc.environment.config
    try:
        asc.environment.config = dataclasses.replace(saved, cflags=tuple(request.param.split()))
        so = str(tmp_path_factory.mktemp("gelu_product") / "gelu_product.so")
        toolchain.build(SHIM, so, {}, "gelu_product")
    finally:
        asc.environment.config = saved
    return ctypes.CDLL(so)


def _run(lib, name, x):
    x = np.ascontiguousarray(x, np.float32)
    out = np.empty_like(x)
    f = getattr(lib, name)
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    f(x.ctypes.data, out.ctypes.data, x.size)
    return out


@pytest.mark.parametrize("scale", SCALES)
def test_fused_gives_the_products_bits_over_the_bit_patterns(lib, scale):
    stride = 1 if os.environ.get("ASC_MATH_EXHAUSTIVE") else 31
    f = getattr(lib, f"{scale}_sweep")
    f.restype = ctypes.c_long
    f.argtypes = [ctypes.c_longlong, ctypes.c_longlong, ctypes.POINTER(ctypes.c_uint)]
    first = ctypes.c_uint(0)
    bad = f(0, stride, ctypes.byref(first))
    assert bad == 0, f"asc_gelu_erf_scaled_f32 ({scale}): {bad} inputs differ from the product, first 0x{first.value:08x}"


@pytest.mark.parametrize("scale", SCALES)
def test_fused_gives_the_products_bits_on_a_dense_grid_and_the_specials(lib, scale):
    grid = np.linspace(-8, 8, 1 << 20, dtype=np.float32)
    tiny = np.array([1, 2, 3, 0x7fffff, 0x800000, 0x800001], np.uint32).view(np.float32)
    nans = np.array([0x7fc00000, 0xffc00000, 0x7fc00001, 0xffc00002, 0x7f800001, 0xff800001, 0x7fbfffff],
                    np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, 3.4028235e38, -3.4028235e38, 4.5, -4.5, 6.36, -6.36],
                       np.float32)
    x = np.concatenate([grid, tiny, -tiny, nans, special])
    a, b = _run(lib, f"{scale}_product", x), _run(lib, f"{scale}_fused", x)
    differ = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
    assert differ.size == 0, (f"{differ.size} differ, e.g. x = {x[differ[:4]]!r}: "
                              f"{a[differ[:4]]!r} vs {b[differ[:4]]!r}")
    # GELU's own values, for a check on what was compared: -0 at -0, NaN at NaN, x at +inf, NaN at -inf
    assert np.signbit(b[np.flatnonzero((x == 0) & np.signbit(x))]).all()
    assert np.isnan(b[-(special.size + nans.size):-special.size]).all()
    assert b[-special.size + 2] == np.inf and np.isnan(b[-special.size + 3])

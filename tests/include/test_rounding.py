"""asc_cpu.h's floor, ceil, maximum and minimum (float32 and float64), written with mask selects so that their loops
are vector code on every ISA (tests/include/test_loop_vectorization.py), give NumPy's bits: compiled as kernels are (the loop
vectorized), for the host and for each x86-64 level (SSE4.2, AVX2, AVX-512), over every sign and exponent, the
values around each integer and the 2^23 / 2^52 boundaries, infinities, zeros and NaNs. (floor and ceil were also
checked against floorf / ceilf for all 2^32 float32 inputs, at AVX-512 and at AVX2.)"""
from __future__ import annotations

import ctypes
import dataclasses
import platform

import numpy as np
import pytest

import asc.environment
from asc.runtime import toolchain

SHIM = r"""
#include "asc_cpu.h"
#define UNARY(NAME, T, F) extern "C" ASC_EXPORT void NAME(const T* __restrict x, T* __restrict o, long n) { \
  _Pragma("omp simd") for (long i = 0; i < n; ++i) o[i] = F(x[i]); }
#define BINARY(NAME, T, F) extern "C" ASC_EXPORT void NAME(const T* __restrict x, const T* __restrict y, \
  T* __restrict o, long n) { _Pragma("omp simd") for (long i = 0; i < n; ++i) o[i] = F(x[i], y[i]); }
UNARY(floor32, float, asc_floor_f32)
UNARY(ceil32, float, asc_ceil_f32)
UNARY(floor64, double, asc_floor_f64)
UNARY(ceil64, double, asc_ceil_f64)
BINARY(max32, float, asc_maximum_f32)
BINARY(min32, float, asc_minimum_f32)
BINARY(max64, double, asc_maximum_f64)
BINARY(min64, double, asc_minimum_f64)
"""

_HOST = toolchain.target_isa()["features"]         # what -march=native gives: the levels this machine can run
LEVELS = [""] + ([level for level, needs in (("-march=x86-64-v2", "sse4.2"), ("-march=x86-64-v3", "avx2"),
                                             ("-march=x86-64-v4", "avx512f")) if needs in _HOST]
                 if platform.machine() in ("x86_64", "AMD64") else [])


@pytest.fixture(scope="module", params=LEVELS, ids=lambda f: f or "native")
def lib(request, tmp_path_factory):
    saved = asc.environment.config
    try:
        asc.environment.config = dataclasses.replace(saved, cflags=tuple(request.param.split()))
        so = str(tmp_path_factory.mktemp("rounding") / "rounding.so")
        toolchain.build(SHIM, so, {}, "rounding")
    finally:
        asc.environment.config = saved
    return ctypes.CDLL(so)


def values(dt):
    """Every sign and exponent with several mantissas, each value's neighbours, the integers' neighbourhoods, the
    boundaries where every value is an integer, zeros, infinities, NaNs with payloads."""
    it = np.uint32 if dt == np.float32 else np.uint64
    bits, mant = (32, 23) if dt == np.float32 else (64, 52)
    exps = np.arange(1 << (bits - mant - 1), dtype=it) << it(mant)
    mants = np.array([0, 1, 2, 3, (1 << (mant - 1)) - 1, 1 << (mant - 1), (1 << (mant - 1)) + 1, (1 << mant) - 1],
                     dtype=it)
    grid = (exps[:, None] | mants[None, :]).ravel()
    grid = np.concatenate([grid, grid | (it(1) << it(bits - 1))]).view(dt)
    ints = np.arange(-70, 71, dtype=np.float64)
    near = np.concatenate([ints + d for d in (-0.75, -0.5, -0.25, -1e-7, 0.0, 1e-7, 0.25, 0.5, 0.75)]).astype(dt)
    big = np.array([2.0 ** mant, 2.0 ** (mant - 1), 2.0 ** (mant + 1)], np.float64)
    big = np.concatenate([big, big - 0.5, big + 0.5, big - 1, big + 1, -big, 0.5 - big, -0.5 - big]).astype(dt)
    rng = np.random.default_rng(1)
    rand = (rng.standard_normal(1 << 16) * 10.0 ** rng.integers(-8, 9, 1 << 16)).astype(dt)
    nans = np.array([0x7fc00001, 0xffc00002, 0x7f800001, 0x7fbfffff] if dt == np.float32 else
                    [0x7ff8000000000001, 0xfff8000000000002, 0x7ff0000000000001], dtype=it).view(dt)
    special = np.array([0.0, -0.0, np.inf, -np.inf], dt)
    x = np.concatenate([grid, near, big, rand, nans, special])
    with np.errstate(over="ignore", invalid="ignore"):
        return np.concatenate([x, np.nextafter(x, dt(np.inf)), np.nextafter(x, dt(-np.inf))]).astype(dt)


def same(a, b):
    """The same bits, or both NaN (a NaN's payload and sign are the hardware's choice, as in NumPy)."""
    u = np.uint32 if a.dtype == np.float32 else np.uint64
    return (a.view(u) == b.view(u)) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name, ref", [("floor", np.floor), ("ceil", np.ceil)])
def test_floor_and_ceil_give_numpys_bits(lib, dt, name, ref):
    x = values(dt)
    out = np.empty_like(x)
    fn = getattr(lib, f"{name}{32 if dt == np.float32 else 64}")
    fn.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long)
    fn(x.ctypes.data, out.ctypes.data, x.size)
    with np.errstate(invalid="ignore"):
        want = ref(x)
    bad = ~same(out, want)
    assert not bad.any(), list(zip(x[bad][:5], out[bad][:5], want[bad][:5]))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name, ref", [("max", np.maximum), ("min", np.minimum)])
def test_maximum_and_minimum_give_numpys_bits(lib, dt, name, ref):
    rng = np.random.default_rng(2)
    v = values(dt)
    a = np.concatenate([np.repeat(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dt), 7), v])
    b = np.concatenate([np.tile(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dt), 7), rng.permutation(v)])
    out = np.empty_like(a)
    fn = getattr(lib, f"{name}{32 if dt == np.float32 else 64}")
    fn.argtypes = (ctypes.c_void_p,) * 3 + (ctypes.c_long,)
    fn(a.ctypes.data, b.ctypes.data, out.ctypes.data, a.size)
    want = ref(a, b)
    u = np.uint32 if dt == np.float32 else np.uint64
    bad = out.view(u) != want.view(u)          # NaNs too: the NaN operand as it is (a signalling one not quieted)
    assert not bad.any(), list(zip(a[bad][:5], b[bad][:5], out[bad][:5], want[bad][:5]))

"""The 16-bit float conversions of asc_cpu.h, exhaustively against NumPy and ml_dtypes (round to nearest even,
subnormals, inf, nan), and compiled the way kernels are."""
import ctypes
import dataclasses
import platform

import ml_dtypes
import numpy as np
import pytest

import asc.environment
from asc.runtime import toolchain

SHIM = r"""
#include "asc_cpu.h"
extern "C" ASC_EXPORT void h2f(const asc_half* x, float* o, long n) { for (long i = 0; i < n; ++i) o[i] = asc_h2f(x[i]); }
extern "C" ASC_EXPORT void f2h(const float* x, asc_half* o, long n) { for (long i = 0; i < n; ++i) o[i] = asc_f2h(x[i]); }
extern "C" ASC_EXPORT void bf2f(const asc_bf16* x, float* o, long n) { for (long i = 0; i < n; ++i) o[i] = asc_bf2f(x[i]); }
extern "C" ASC_EXPORT void f2bf(const float* x, asc_bf16* o, long n) { for (long i = 0; i < n; ++i) o[i] = asc_f2bf(x[i]); }
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("conv")
    so = str(d / "conv.so")
    toolchain.build(SHIM, so, {}, "conversions")
    lib = ctypes.CDLL(so)
    for f in (lib.h2f, lib.f2h, lib.bf2f, lib.f2bf):
        f.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long)
    return lib


def call(fn, x, out_dtype):
    out = np.empty(x.shape, out_dtype)
    fn(x.ctypes.data, out.ctypes.data, x.size)
    return out


def same_bits_or_both_nan(a, b):
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    return (a.view(np.uint16 if a.itemsize == 2 else np.uint32) == b.view(np.uint16 if b.itemsize == 2
                                                                          else np.uint32)) | (np.isnan(a32) &
                                                                                             np.isnan(b32))


ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def floats():
    rng = np.random.default_rng(0)
    mags = rng.standard_normal(1 << 20) * 10.0 ** rng.integers(-45, 39, 1 << 20)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.99, 65520, 65536, 6.1e-5, 5.96e-8, 2.98e-8, 2.99e-8,
             1e-10, 1.4e-45, 3.4e38, -3.4e38, 1.17549435e-38]
    with np.errstate(over="ignore"):
        return np.concatenate([mags, edges, ALL16.view(np.float16).astype(np.float64),
                               ALL16.view(ml_dtypes.bfloat16).astype(np.float64)]).astype(np.float32)


def test_half_to_float_exhaustive(lib):
    out = call(lib.h2f, ALL16, np.float32)
    assert same_bits_or_both_nan(out, ALL16.view(np.float16).astype(np.float32)).all()


def test_float_to_half_rounds_like_numpy(lib):
    f = floats()
    with np.errstate(over="ignore"):
        ref = f.astype(np.float16)
    assert same_bits_or_both_nan(call(lib.f2h, f, np.uint16).view(np.float16), ref).all()


def test_bfloat16_both_ways(lib):
    out = call(lib.bf2f, ALL16, np.float32)
    assert same_bits_or_both_nan(out, ALL16.view(ml_dtypes.bfloat16).astype(np.float32)).all()
    f = floats()
    assert same_bits_or_both_nan(call(lib.f2bf, f, np.uint16).view(ml_dtypes.bfloat16),
                                 f.astype(ml_dtypes.bfloat16)).all()


# NaN bits (docs/tensors.md, "NaN"): widening keeps a NaN's sign and payload exactly (not quieted); narrowing keeps
# the sign and the payload's top bits (not quieted; NumPy's float32 -> float16, for bfloat16 too: ml_dtypes would
# give 0x7fc0), and a payload with none of them set becomes 1. So every 16-bit pattern survives the round trip.
NAN_FORMAT = {"float16": (13, 0x7c00, 0x3ff), "bfloat16": (16, 0x7f80, 0x7f)}


def nan_payloads():
    """float32 NaNs: both signs, payloads in the kept bits, below them only, all ones, and random ones."""
    rng = np.random.default_rng(1)
    pay = np.concatenate([np.arange(1, 1 << 12, dtype=np.uint32), np.arange(1, 1 << 10, dtype=np.uint32) << 13,
                          np.array([0x7fffff, 0x400000, 0x3fffff, 0x001fff, 0x00ffff, 0x010000], np.uint32),
                          rng.integers(1, 1 << 23, 1 << 18, dtype=np.uint32)])
    return np.concatenate([0x7f800000 | pay, 0xff800000 | pay]).view(np.float32)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_nan_bits_both_ways(lib, name):
    widen, narrow = (lib.h2f, lib.f2h) if name == "float16" else (lib.bf2f, lib.f2bf)
    shift, exp, mask = NAN_FORMAT[name]
    wide = call(widen, ALL16, np.float32)
    assert (call(narrow, wide, np.uint16) == ALL16).all()              # every pattern back, NaNs included
    b = ALL16.astype(np.uint32)
    nan = ((b & exp) == exp) & ((b & mask) != 0)
    assert nan.sum() == 2 * mask
    want = ((b & 0x8000) << 16) | 0x7f800000 | ((b & mask) << shift)
    assert (wide.view(np.uint32)[nan] == want[nan]).all()
    f = nan_payloads()
    u = f.view(np.uint32)
    p = (u >> shift) & mask
    assert (call(narrow, f, np.uint16) == (((u >> 16) & 0x8000) | exp | p | (p == 0))).all()
    if name == "float16":                                              # NumPy's own rule
        with np.errstate(invalid="ignore"):
            assert (call(narrow, f, np.uint16) == f.astype(np.float16).view(np.uint16)).all()


# ---------------------------------------------------------------- asc_blocks.h: the block conversions of float16 loops
# A block converts with the bare F16C / AVX-512 instruction and, where it held a NaN, is converted again with the NaN
# bits mended (asc_h2f_block_exact, asc_f2h_block_exact): both paths are checked, at every x86-64 level the kernels
# may be built for (AVX-512, AVX2 with F16C, SSE4.2 without: the scalar loop), over every input.
BLOCK_SHIM = r"""
#include "asc_blocks.h"
extern "C" ASC_EXPORT void h2f_block(const asc_half* x, float* o, long n) { asc_h2f_block(x, o, n); }
extern "C" ASC_EXPORT void f2h_block(const float* x, asc_half* o, long n) { asc_f2h_block(x, o, n); }
// every float32 bit pattern through asc_f2h_block, in blocks of `len` values, and through asc_f2h: the number that
// differ. With nan_lane >= 0 that lane of every block holds a NaN (every block then takes the mended path).
extern "C" ASC_EXPORT long f2h_block_mismatches(int len, int nan_lane) {
  long bad = 0;
  #pragma omp parallel for reduction(+:bad) schedule(static)
  for (long c = 0; c < (1L << 20); ++c) {
    uint32_t bits[4096]; float f[4096]; asc_half a[4096], b[4096];
    for (int k = 0; k < 4096; ++k) bits[k] = (uint32_t)((c << 12) | k);
    if (nan_lane >= 0) for (int k = nan_lane; k < 4096; k += len) bits[k] = 0x7fc00000u | (uint32_t)c;
    memcpy(f, bits, sizeof f);
    for (int k = 0; k < 4096; k += len) asc_f2h_block(f + k, a + k, len);
    for (int k = 0; k < 4096; ++k) b[k] = asc_f2h(f[k]);
    for (int k = 0; k < 4096; ++k) bad += a[k] != b[k];
  }
  return bad;
}
"""

_HOST = toolchain.target_isa()["features"]         # what -march=native gives: the levels this machine can run
LEVELS = [""] + ([level for level, needs in (("-march=x86-64-v3", "avx2"), ("-march=x86-64-v4", "avx512f"))
                  if needs in _HOST] if platform.machine() in ("x86_64", "AMD64") else [])


@pytest.fixture(scope="module", params=LEVELS, ids=lambda f: f or "native")
def block_lib(request, tmp_path_factory):
    saved = asc.environment.config
    try:
        asc.environment.config = dataclasses.replace(saved, cflags=tuple(request.param.split()))
        so = str(tmp_path_factory.mktemp("conv_block") / "conv_block.so")
        toolchain.build(BLOCK_SHIM, so, {}, "block conversions")
    finally:
        asc.environment.config = saved
    lib = ctypes.CDLL(so)
    for f in (lib.h2f_block, lib.f2h_block):
        f.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long)
    lib.f2h_block_mismatches.argtypes = (ctypes.c_int, ctypes.c_int)
    lib.f2h_block_mismatches.restype = ctypes.c_long
    return lib


def blocks_h2f(block_lib, x, length):
    out = np.empty(x.shape, np.float32)
    for k in range(0, x.size, length):
        n = min(length, x.size - k)
        block_lib.h2f_block(x[k:].ctypes.data, out[k:].ctypes.data, n)
    return out


@pytest.mark.parametrize("length", [512, 1 << 16])
@pytest.mark.parametrize("nan_lane", [-1, 0, 333])
def test_block_half_to_float_is_asc_h2f_bit_for_bit(lib, block_lib, length, nan_lane):
    # NaN payloads included: the hardware conversion would quiet a signalling NaN. In blocks of 512 most blocks
    # hold no NaN (the bare instruction); one NaN lane per block sends every block down the mended path.
    x = ALL16.copy()
    if nan_lane >= 0:
        x[nan_lane::length] = 0x7d55          # a signalling NaN
    assert (blocks_h2f(block_lib, x, length).view(np.uint32) == call(lib.h2f, x, np.float32).view(np.uint32)).all()


@pytest.mark.parametrize("length,nan_lane", [(512, -1), (512, 100)])
def test_block_float_to_half_is_asc_f2h_for_every_float32(block_lib, length, nan_lane):
    assert block_lib.f2h_block_mismatches(length, nan_lane) == 0


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 100])
def test_block_conversions_tails(lib, block_lib, n):
    """Lengths that are not multiples of the 8- and 16-wide steps: the scalar tail, and nothing past n written; a
    NaN in the vector part or in the tail."""
    for start in (12345, 0x7c00 - 9):           # the second: infinities and NaNs in every position
        x = ALL16[start:start + n].copy()
        out = np.full(n + 8, 7.0, np.float32)
        block_lib.h2f_block(x.ctypes.data, out.ctypes.data, n)
        assert (out[:n].view(np.uint32) == call(lib.h2f, x, np.float32).view(np.uint32)).all()
        assert (out[n:] == 7.0).all()
    f = floats()[:n]
    for nan_at in (None, 0, n - 1):
        if nan_at is not None and n:
            f = f.copy()
            f[nan_at] = np.array(0x7f812345, np.uint32).view(np.float32)
        back = np.full(n + 8, 0x1234, np.uint16)
        block_lib.f2h_block(f.ctypes.data, back.ctypes.data, n)
        assert (back[:n] == call(lib.f2h, f, np.uint16)).all()
        assert (back[n:] == 0x1234).all()

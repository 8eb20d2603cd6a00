"""Kernel outputs come from a bounded cache of mapped blocks: they outlive the kernel, are reused only after NumPy
frees them (never handed out twice), can be resized, and give memory back beyond the limit."""
from __future__ import annotations

import gc

import shutil

import numpy as np
import pytest

import asc.language as lang
from asc.runtime import launcher

mod = launcher.module()
pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler: the launcher cannot be built")
BIG = 1 << 20       # float32 elements: 4 MiB outputs use the cache


@lang.kernel
def fill(x: lang.float32[N], v: float) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + v
    return out


def test_live_outputs_are_distinct_and_outlive_the_call():
    x = np.zeros(BIG, np.float32)
    outs = [fill(x, float(k)) for k in range(6)]
    assert len({o.ctypes.data for o in outs}) == 6
    for k, o in enumerate(outs):
        assert o[0] == k and o[-1] == k and o.flags.owndata and o.flags.writeable


def test_freed_outputs_are_reused():
    x = np.zeros(BIG, np.float32)
    fill(x, 1.0)
    gc.collect()
    before = mod.cache_stats()
    for k in range(5):
        y = fill(x, float(k))
        assert y[123] == k
        del y
    after = mod.cache_stats()
    assert after["reuses"] >= before["reuses"] + 5 and after["maps"] == before["maps"]


@lang.kernel
def first_only(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    out[0] = x[0]
    return out


def test_zeros_in_a_reused_block_are_zero():
    x = np.full(BIG, 7.0, np.float32)
    dirty = fill(x, 0.0)                       # a block full of 7s ...
    del dirty
    before = mod.cache_stats()["reuses"]
    w = first_only(x)                          # ... handed out again: lang.zeros must clear it
    assert mod.cache_stats()["reuses"] == before + 1
    assert w[0] == 7 and (w[1:] == 0).all()


def test_resize_keeps_data():
    y = fill(np.arange(BIG, dtype=np.float32), 0.0)
    y.resize(2 * BIG, refcheck=False)
    assert y[BIG - 1] == BIG - 1 and y.shape == (2 * BIG,)
    y.resize(10, refcheck=False)
    np.testing.assert_array_equal(y, np.arange(10, dtype=np.float32))


def test_limit_bounds_the_memory_kept():
    x = np.zeros(BIG, np.float32)
    try:
        mod.set_cache_limit(0)
        assert mod.cache_stats()["cached_bytes"] == 0
        y = fill(x, 2.0)
        del y
        assert mod.cache_stats()["cached_bytes"] == 0
    finally:
        mod.set_cache_limit(1 << 30)


def test_torch_outputs_share_the_cache_and_stay_valid():
    torch = pytest.importorskip("torch")
    x = torch.zeros(BIG, dtype=torch.float32)
    outs = [fill(x, float(k)) for k in range(3)]
    assert all(isinstance(o, torch.Tensor) for o in outs)
    assert [float(o[7]) for o in outs] == [0.0, 1.0, 2.0]
    assert len({o.data_ptr() for o in outs}) == 3

"""This machine's limits, measured once and cached: memory bandwidth (a STREAM-style triad compiled by asc, all
threads) and peak float32 FLOP/s (a float32 matrix product through NumPy's BLAS)."""
from __future__ import annotations

import json
import os
import time

import numpy as np

from .. import dtypes as lang
from ..dispatch import kernel
from ..runtime import cache, seal, toolchain

_limits = None


def _triad_gbs() -> float:
    @kernel
    def _asc_triad(a: lang.float32[N], b: lang.float32[N], c: lang.float32[N], s: float):  # noqa: F821
        for i in range(N):  # noqa: F821 - N: a size symbol of the annotations
            a[i] = b[i] + s * c[i]

    n = 1 << 24
    a, b, c = (np.ones(n, np.float32) for _ in range(3))
    _asc_triad(a, b, c, 2.0)
    best = min(_timed(lambda: _asc_triad(a, b, c, 2.0)) for _ in range(7))
    return 12 * n / best / 1e9


def _peak_gflops() -> float:
    n = 2048
    a = np.ones((n, n), np.float32)
    a @ a
    best = min(_timed(lambda: a @ a) for _ in range(4))
    return 2 * n ** 3 / best / 1e9


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def limits() -> dict:
    """{"bandwidth_gbs": ..., "peak_gflops": ...}, measured on first use and cached per machine."""
    global _limits
    if _limits is not None:
        return _limits
    path = os.path.join(cache.cache_dir(), f"machine-{toolchain.host_fingerprint().replace(':', '-')}.json")
    try:
        with open(path) as f:
            _limits = json.load(f)
            return _limits
    except (OSError, ValueError):
        pass
    _limits = {"bandwidth_gbs": round(_triad_gbs(), 2), "peak_gflops": round(_peak_gflops(), 1),
               "how": "bandwidth: best of 7 float32 triads a = b + s*c over 16M elements (12 bytes/element, "
                      "compiled by asc, all threads); peak: best of 4 float32 2048^3 matrix products (NumPy BLAS)"}
    seal.write_atomic(path, json.dumps(_limits).encode())     # a temporary name per thread and attempt
    return _limits

"""ascend scalar code with dynamic_shape=True: a run-time size used as a value (a loop bound, `range(D)`) is read
from the tiling (it did not compile: the size was not declared)."""
from __future__ import annotations

import numpy as np

import asc.language as lang
from helpers import close, rand


@lang.kernel(target="ascend-sim", dynamic_shape=True)
def scores(q: lang.float32[H, D], k: lang.float32[T, D]) -> lang.float32[H, T]:
    att = lang.empty((H, T))
    for h in range(H):
        for t in range(T):
            s = 0.0
            for d in range(D):
                s += q[h, d] * k[t, d]
            att[h, t] = s
    return att


def test_sizes_as_loop_bounds_in_scalar_code():
    for h, t, d in ((3, 5, 4), (2, 7, 9)):
        q, k = rand((h, d), np.float32, h), rand((t, d), np.float32, t)
        close(scores(q, k), q.astype(np.float64) @ k.astype(np.float64).T, np.float32, ulps=8)
    assert len(scores._cache) == 1

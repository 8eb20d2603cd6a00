"""The cost model of the cube path (asc/backends/ascend/cost_model.py, docs/ascend.md "Estimated NPU time") models the L2
cache: each tile of C loads its A and B panels again, and where A and B fit the 192 MB L2 of an Ascend910B1 those
re-loads hit it (110 B per cycle per core, the platform ini's l2_rate) while HBM moves each byte once; before, every
panel load was priced at the HBM copy rate (32 B per cycle per core), which made a 1024^3 float16 product five
times its cube bound. Operands larger than the L2 still load from HBM."""
from __future__ import annotations

import math

import numpy as np

import asc.language as lang
from asc.backends.ascend import cost_model as cost
from asc.backends.ascend.soc import BASE_K, BASE_M, BASE_N, soc_info


@lang.kernel
def product(a, b):
    return a @ b


def _expected(M, N, K, soc="Ascend910B1"):
    """The documented model, written out: per tile of C, the K steps' panel copies overlapped with the Mmads."""
    info = soc_info(soc)
    clock = info["clock_ghz"] * 1e9
    tiles = math.ceil(M / BASE_M) * math.ceil(N / BASE_N)
    blocks = min(info["aic"], tiles)
    per_block = math.ceil(tiles / blocks)
    hbm = min(info["hbm_gbs"] * 1e9 / blocks, 32 * clock)
    operands = (M * K + K * N) * 2
    panel = 110 * clock if operands <= info["l2_mb"] * 2 ** 20 else hbm
    m, n = min(M, BASE_M), min(N, BASE_N)
    steady = 0.0
    for k0 in range(0, K, BASE_K):
        k = min(BASE_K, K - k0)
        steady += max((m * k + k * n) * 2 / panel, (m // 16) * (n // 16) * (k // 16) / clock + 8 / clock)
    per_tile = steady + m * n * 2 / hbm
    unique = operands + M * N * 2
    return max(per_tile * per_block, unique / (info["hbm_gbs"] * 1e9)) + 3e-6


def _estimate(M, N, K):
    a, b = np.zeros((M, K), np.float16), np.zeros((K, N), np.float16)
    est = product.estimate("ascend", a, b, soc="Ascend910B1")
    assert est.kind == "cube"
    return est


def test_panel_reloads_hit_the_l2_where_the_operands_fit():
    for M, N, K in ((1024, 1024, 1024), (256, 4096, 512), (2048, 128, 2048)):
        est = _estimate(M, N, K)
        assert math.isclose(est.seconds, _expected(M, N, K), rel_tol=1e-9), (M, N, K, est)
    # 1024^3: the L2 rate, not the HBM copy rate, prices the panel loads (5.3x the cube bound before)
    peak = 24 * 4096 * 2 * 1.85e9
    assert _estimate(1024, 1024, 1024).seconds < 2.2 * (2 * 1024 ** 3 / peak)


def test_operands_larger_than_the_l2_load_from_hbm():
    M = N = 1536
    K = 65472                                             # A and B: 402 MB, more than the 192 MB L2
    est = _estimate(M, N, K)
    assert math.isclose(est.seconds, _expected(M, N, K), rel_tol=1e-9)
    assert cost.L2_BYTES_PER_CYCLE > cost.GM_BYTES_PER_CYCLE
    # one tile of C: every panel byte at the HBM copy rate of one core
    assert est.seconds > (BASE_M * K + K * BASE_N) * 2 / (32 * 1.85e9)

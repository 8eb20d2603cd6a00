"""The cost model of window plans (asc/backends/ascend/cost_model.py, docs/ascend.md "Estimated NPU time"): each window of
a stencil is a copy of its own, and a copy of a tensor that overlaps an earlier copy of the same unit (u[i - 1],
u[i], u[i + 1]; u[i, j +- 1] next to the rows of u[i - 1..i + 1, j]) reads bytes that copy just brought in: an L2
hit (110 B per cycle per core) while HBM moves each byte once. Before, every window was priced as HBM traffic, which
put heat_1d at 2.08x its GM bound. Windows far apart (more than a unit) still come from HBM."""
from __future__ import annotations

import numpy as np

import asc.language as lang
from asc import compiler
from asc.backends import ascend
from asc.backends.ascend import kind_window
from asc.backends.ascend.soc import soc_info

N = lang.dim("N")
M = lang.dim("M")


@lang.kernel
def heat(u: lang.float32[N], alpha: float = 0.25) -> lang.float32[N]:
    out = lang.zeros_like(u)
    for i in range(1, N - 1):
        out[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return out


@lang.kernel
def far_apart(u: lang.float32[N], v: lang.float32[M]) -> lang.float32[M]:
    out = lang.empty_like(v)
    for i in range(M):
        out[i] = u[i] + u[i + M] + v[i]
    return out


@lang.kernel
def lap(u: lang.float32[N, M]) -> lang.float32[N, M]:
    out = lang.zeros_like(u)
    for i in range(1, N - 1):
        for j in range(1, M - 1):
            out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
    return out


def _src(kernel, *args):
    return ascend.render(compiler.lower(kernel.specialization(args, {})[0].ir, "ascend"), warn=False)


def _bytes(kernel, *args, symbols):
    src = _src(kernel, *args)
    _, t = ascend.tiling(src, symbols)
    w = -(-t["cols"] // t["chunks"])
    return kind_window.window_bytes(src.plan, t, w)


def test_a_stencils_shifted_windows_are_l2_hits():
    n = 1 << 20
    u = np.zeros(n, np.float32)
    assert _bytes(heat, u, symbols={"N": n}) == (8, 8)      # u once and out from HBM; u[i -+ 1] from L2


def test_windows_more_than_a_unit_apart_come_from_hbm():
    n = 1 << 20
    u, v = np.zeros(2 * n, np.float32), np.zeros(n, np.float32)
    assert _bytes(far_apart, u, v, symbols={"N": 2 * n, "M": n}) == (16, 0)    # u twice, v, out


def test_the_column_shifted_windows_of_a_2d_stencil_are_l2_hits():
    u = np.zeros((512, 512), np.float32)
    src = _src(lap, u)
    _, t = ascend.tiling(src, {"N": 512, "M": 512})
    assert src.plan.row_blocks and t["hrows"] > 1
    hbm, l2 = kind_window.window_bytes(src.plan, t, -(-t["cols"] // t["chunks"]))
    h = t["hrows"]
    assert hbm == 4 * (h + 2) / h + 4 and l2 == 2 * 4          # u's rows (a halo of 2) and out; u[i, j -+ 1] in L2


def test_heat_1d_is_within_twice_its_gm_bound():
    n = 1 << 24
    u = np.zeros(n, np.float32)
    info = soc_info("Ascend910B1")
    est = heat.estimate("ascend", u, soc="Ascend910B1")
    bound = 2 * n * 4 / (info["hbm_gbs"] * 1e9)                 # u read once, out written once
    clock = info["clock_ghz"] * 1e9
    per_core = min(info["hbm_gbs"] * 1e9 / est.block_dim, 32 * clock)
    # the documented model: 8 bytes per element from HBM, 8 from L2, the launch and one unit's copy to fill
    steady = n / est.block_dim * (8 / per_core + 8 / (110 * clock))
    assert steady < est.seconds < steady * 1.05 + 3e-6 and est.seconds < 1.3 * bound

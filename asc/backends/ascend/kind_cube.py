"""The cube kind: A @ B on the cube units (AIC), tiles of C over the cores, K in steps through L1 / L0
(docs/ascend.md). Parts: CubePlan (plans.py), cube_lowering.py, cube_tiling (budget.py), render_cube
(cube_render.py), and its cost here."""
from __future__ import annotations

import math

from .budget import cube_tiling
from .cost_model import ISSUE, L2_BYTES_PER_CYCLE, LAUNCH_US, Estimate, Launch
from .cube_render import render_cube
from .plan_kind import Kind
from .plans import CubePlan


def cube_cost(src, symbols: dict, launch: Launch):
    """One 16x16x16 fractal product per cycle (float32 at half the rate, tails padded), overlapped with the copies
    of the next K step; A and B panels from the L2 when both fit it; HBM moves at least the unique bytes."""
    p, t, info, clock = src.plan, launch.t, launch.info, launch.clock
    waves, bw = launch.cores("aic")
    block_dim = launch.block_dim
    M, N, K = p.dims
    isz = p.mm.a.tensor.type.dtype.itemsize
    osz = p.mm.dst.tensor.type.dtype.itemsize
    per_block = math.ceil(t["tiles"] / block_dim)
    m, n = min(M, t["baseM"]), min(N, t["baseN"])
    operands = (M * K + K * N) * isz
    unique = operands + M * N * osz                   # what HBM must move at least
    panel_bw = L2_BYTES_PER_CYCLE * clock if operands <= info["l2_mb"] * 2 ** 20 else bw
    copy = cube = 0.0
    steady = 0.0
    for k0 in range(0, K, t["baseK"]):
        k = min(t["baseK"], K - k0)
        c = (m * k + k * n) * isz / panel_bw
        # whole 16 x 16 x 16 fractal products (tails padded); float32 at half the rate (16 x 8 fractals)
        q = -(-m // 16) * -(-n // 16) * -(-k // 16) * (2 if isz == 4 else 1) / clock + ISSUE / clock
        copy, cube, steady = copy + c, cube + q, steady + max(c, q)
    out = m * n * osz / bw
    parts = {"GM": (copy + out) * per_block, "cube": cube * per_block}
    total = max((steady + out) * per_block * waves, unique / (info["hbm_gbs"] * 1e9)) + LAUNCH_US * 1e-6
    return Estimate(total, "GM" if parts["GM"] >= parts["cube"] else "cube", launch.soc, block_dim, parts, p.kind)


KIND = Kind("cube", CubePlan, cube_tiling, render_cube, cube_cost,
            "matrix product on the cube units (Mmad)", unit="aic")

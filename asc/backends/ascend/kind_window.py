"""The window kind: shifted tiles over sub-ranges (stencils, column sums, boundary statements), units of columns
split over the vector cores, a sum over the loop combined by block 0 after a SyncAll (docs/ascend.md). Parts:
WindowPlan (window_lowering.py), window_tiling (window_budget.py), render_window (window_render.py), and its cost
here."""
from __future__ import annotations

import math

from .cost_model import GM_BYTES_PER_CYCLE, ISSUE, L2_BYTES_PER_CYCLE, SYNC, Launch, pipelined, vec_cycles
from .plan_kind import Kind
from .window_budget import SUM_COMBINE, SUM_LANES, SUM_PARTS, loads_of, window_tiling
from .window_lowering import WindowPlan
from .window_render import render_window


def window_cost(src, symbols: dict, launch: Launch):
    """The busiest core's units: each window one copy (L2 hits where copies overlap: window_bytes), the program
    per unit (per row of a column reduction); a sum's ReduceSum per block, then block 0's combine."""
    p, t, clock = src.plan, launch.t, launch.clock
    waves, bw = launch.cores()
    busiest = t["perCore"] + (1 if t["rem"] else 0)
    w = -(-t["cols"] // max(t["chunks"], 1)) if t["units"] else 0
    # a column reduction walks every row per unit and writes its sums once per unit
    hbm, l2 = window_bytes(p, t, w)
    if getattr(p, "row_blocks", False):
        w = w * t["hrows"]
    once = sum(p.tensor(a.tensor).itemsize for a in p.accesses if a.key in p.acc_keys) * w / bw
    steps = busiest * (t["rows"] if p.acc_keys else 1)
    copy = [w * (hbm / bw + l2 / (L2_BYTES_PER_CYCLE * clock))] * steps
    if once:
        copy = [c + once * busiest / max(steps, 1) for c in copy]
    vec = [sum(vec_cycles(i, w) for i in p.instrs) / clock] * steps
    if p.sum_of is None:
        return pipelined(p.kind, launch, waves, copy, vec)
    red = 2 * (SUM_LANES * 4 // 256) + 4 * ISSUE + SYNC          # each block's ReduceSum, the partials' copies out
    vec = [v + (red + 2 * SYNC / SUM_PARTS) / clock for v in vec]
    # SyncAll, then block 0 alone reads the partials and adds them: one Add per SUM_LANES of them, a ReduceSum, the
    # store of the total and the epilogue (a few syncs)
    units = t["units"]
    tiles = max(1, math.ceil(units / SUM_COMBINE))
    combine = (units * 4 / (GM_BYTES_PER_CYCLE * clock) + tiles * 2 * SYNC / clock +
               math.ceil(units / SUM_LANES) * (SUM_LANES * 4 // 256 + ISSUE) / clock +
               (2 * (SUM_LANES * 4 // 256) + 4 * ISSUE + 4 * SYNC) / clock)
    return pipelined(p.kind, launch, waves, copy, vec, {"combine": combine})


def window_bytes(p, t: dict, w: int) -> tuple:
    """(bytes from HBM, bytes from L2) per element of a window plan's unit. Each window is its own copy; a copy of a
    tensor whose rows and columns overlap an earlier copy's in the same unit (a stencil's u[i - 1], u[i], u[i + 1],
    or u[i, j - 1] next to the rows of u[i - 1..i + 1, j]) reads the bytes that copy just brought in, an element or a
    few apart: an L2 hit; HBM moves the bytes once. Stores and the windows of a column reduction's accumulator are
    HBM traffic."""
    h = t["hrows"] if getattr(p, "row_blocks", False) else 1
    hbm = l2 = 0.0
    by_tensor: dict = {}
    for k, a in enumerate(p.accesses):
        if a.key in p.acc_keys:
            continue
        if a.role == "out":
            hbm += p.tensor(a.tensor).itemsize
        else:
            by_tensor.setdefault(a.tensor, []).append((k, a))
    for name, ws in by_tensor.items():
        size = p.tensor(name).itemsize
        loads = loads_of(p, ws)        # (first window k, rows spanned, views): one copy each
        seen = []                      # (first row, rows, first column) of the copies so far
        for k0, span, _ in loads:
            nbytes = size * (h + span - 1) / h
            pitch, base = t[f"p{k0}"], t[f"b{k0}"]
            row, col = divmod(base, pitch) if pitch else (0, base)
            box = (row, h + span - 1, col)
            if any(abs(col - c) < w and row < r + n and r < row + h + span - 1 for r, n, c in seen):
                l2 += nbytes
            else:
                hbm += nbytes
            seen.append(box)
    return hbm, l2


KIND = Kind("window", WindowPlan, window_tiling, render_window, window_cost,
            "element-wise map over shifted windows (vector cores, one DataCopyPad per window)")

"""The row kind: a loop over the rows of [R, C] tensors, a row (or a tile of packed short rows) at a time on each
vector core (docs/ascend.md). Parts: RowPlan (plans.py), row_lowering.py (per_row.py, packed_rows.py),
row_tiling (budget.py), render_row (row_render.py), and its cost here."""
from __future__ import annotations

import math

from .budget import row_tiling
from .cost_model import ISSUE, Launch, pipelined, vec_cycles
from .plan_kind import Kind
from .plans import RowPlan
from .row_render import render_row


def packed_cycles(p, m: int, cols: int) -> float:
    """Vector cycles of one tile of m packed rows (packed_rows.py): a Brcb per per-row scalar (one repeat per 8
    rows), a RowMul / RowAdd of one (partial) repeat per row, every other instruction over the m * cols elements."""
    cyc = len(p.bcast) * (math.ceil(m / 8) + ISSUE)
    for ins in p.instrs:
        cyc += m + ISSUE if ins.api in ("RowMul", "RowAdd") else vec_cycles(ins, m * cols)
    return cyc


def row_cost(src, symbols: dict, launch: Launch):
    """Each core's rows: their bytes in and out (per-row tensors one slice per core), the program per row or per
    tile of packed rows."""
    p, t = src.plan, launch.t
    waves, bw = launch.cores()
    rows, cols = t["perCore"], t["cols"]
    bytes_row = sum(x.itemsize * cols * (int(x.reads) + int(x.writes)) for x in p.tensors
                    if len(x.shape) == 2)
    bytes_row += sum(x.itemsize * (int(x.reads) + int(x.writes)) for x in p.tensors
                     if x.name in p.per_row)        # per-row tensors: one slice in and out per core
    if p.packed:           # tiles of `pack` rows: the instructions over the tile, one Brcb per per-row scalar
        k = t["pack"]
        tiles = [k] * (rows // k) + ([rows % k] if rows % k else [])
        copy = [bytes_row * m / bw for m in tiles]
        vec = [packed_cycles(p, m, cols) / launch.clock for m in tiles]
    else:
        copy = [bytes_row / bw] * rows
        vec = [sum(vec_cycles(i, cols) for i in p.instrs) / launch.clock] * rows
    return pipelined(p.kind, launch, waves, copy, vec)


KIND = Kind("row", RowPlan, row_tiling, render_row, row_cost,
            "row kernel (vector cores, one UB tile per row, ReduceSum/ReduceMax)")

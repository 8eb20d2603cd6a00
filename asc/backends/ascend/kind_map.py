"""The map kind: one element loop nest, tiles of the flattened elements split over the vector cores
(docs/ascend.md). Parts: MapPlan (plans.py), lowering (lowering.py, regalloc.py), map_tiling (budget.py),
render_map (map_render.py), and its cost here."""
from __future__ import annotations

from .budget import map_tiling
from .cost_model import Launch, pipelined, vec_cycles
from .plan_kind import Kind
from .map_render import render_map
from .plans import MapPlan


def map_cost(src, symbols: dict, launch: Launch):
    """Each core's elements in tiles: the tensors' bytes in and out, the program's instructions per tile."""
    p, t = src.plan, launch.t
    waves, bw = launch.cores()
    per, tile = t["perCore"], t["tile"]
    chunks = [tile] * (per // tile) + ([per % tile] if per % tile else [])
    bytes_per_elem = sum(x.itemsize * (int(x.reads) + int(x.writes)) for x in p.tensors)
    copy = [n * bytes_per_elem / bw for n in chunks]
    vec = [sum(vec_cycles(i, n) for i in p.instrs) / launch.clock for n in chunks]
    return pipelined(p.kind, launch, waves, copy, vec)


KIND = Kind("map", MapPlan, map_tiling, render_map, map_cost,
            "element-wise map (vector cores, double-buffered tiles)")

"""The phased kind: a matrix product and element code in one MIX 1:2 launch, the cube phases on the AICs and the
vector phases on the AIVs, SyncAll between phases (docs/ascend.md). Parts: PhasedPlan (phases.py, which splits the
kernel), the phases' own kinds, render_phased (phase_render.py); its tiling and cost here, from the phases'.
kinds.py builds it over its table (`phased_kind`), since its phases are kinds of that table."""
from __future__ import annotations

from .cost_model import LAUNCH_US, Estimate, Launch
from .plan_kind import Kind
from .phase_render import render_phased
from .phases import PhasedPlan
from .soc import soc_info


def phased_kind(kinds: dict, estimate) -> Kind:
    """The phased kind over the table `kinds` of the other kinds (its phases' kinds) and their `estimate`."""

    def phased_tiling(p, symbols: dict, soc: str, cores=None, tile_cap=None):
        """(blockDim, {field: value}): blockDim logical cores (the most any cube phase uses, or half of a vector
        phase's), each phase tiled for its cores (a vector phase for the 2 * blockDim AIVs)."""
        info = soc_info(soc)
        aic = min(cores or info["aic"], info["aic"])
        on_aic = [kinds[q.kind].unit == "aic" for q in p.phases]
        cube = [kinds[q.kind].tiling(q, symbols, soc, aic, tile_cap) for q, c in zip(p.phases, on_aic) if c]
        n = max([b for b, _ in cube] + [1])
        vec_cores = 2 * n if cores is None else min(cores, 2 * n)
        values = {}
        for i, (q, c) in enumerate(zip(p.phases, on_aic)):
            b, v = kinds[q.kind].tiling(q, symbols, soc, aic if c else vec_cores, tile_cap)
            values.update({f"p{i}_{f}": x for f, x in v.items()})
            values[f"p{i}_blocks"] = b
        return n, values

    def phased_cost(src, symbols: dict, launch: Launch):
        """The phases one after the other (SyncAll between them), in one launch."""
        subs = [estimate(s, symbols, launch.soc) for s in src.phase_sources]
        total = sum(e.seconds for e in subs) - (len(subs) - 1) * LAUNCH_US * 1e-6
        parts = {f"phase {i} ({e.kind}, {e.bound})": e.seconds for i, e in enumerate(subs)}
        return Estimate(total, max(subs, key=lambda e: e.seconds).bound, launch.soc, launch.block_dim, parts,
                        src.plan.kind)

    return Kind("phased", PhasedPlan, phased_tiling, lambda p: render_phased(p, kinds), phased_cost,
                "phased kernel: matrix products on the cube units, element code on the vector units (MIX 1:2)")

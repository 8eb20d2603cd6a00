"""Every plan kind of the ascend target in one table, `KINDS`: kind name -> `Kind`, the parts every kind has.

A kind is one module, `kind_<name>.py`, declaring `KIND = Kind(...)` (plan_kind.py): its plan class (plans.py;
the planner, planner.py, decides which kind a kernel is, in the order docs/ascend.md gives), how a launch is tiled
for the sizes and the SoC (`tiling`: (plan, symbols, soc, cores, tile_cap) -> (blockDim, {field: value})), its
Ascend C (`render`: plan -> AscendSource), its estimated time (`cost`: (src, symbols, launch) -> Estimate, with the
figures of cost_model.py) and the cores it runs on (`unit`). Adding a kind is one such module and one name in `_table`;
nothing else dispatches on a kind's name. `tiling`, `render_plan` and `estimate` are the uses. The phased kind
(a cube phase and vector phases in one launch) is built over the table itself: its phases are the other kinds."""
from __future__ import annotations

from .cost_model import Launch
from .host_scalars import host_values
from .soc import DEFAULT_SOC, soc_info


def tiling(src, symbols: dict, soc: str = DEFAULT_SOC, cores=None, tile_cap=None, scalars=None):
    """(blockDim, {field: value}) for the rendered kernel `src` (an AscendSource), these sizes and the values of its
    scalar parameters `scalars` (the scalars before the loop that the host computes, host_scalars.py; None for an
    estimate: those fields NaN)."""
    block_dim, values = KINDS[src.plan.kind].tiling(src.plan, symbols, soc, cores, tile_cap)
    return block_dim, {**values, **host_values(src.plan, scalars, symbols)}


def render_plan(p):
    """The AscendSource of plan `p`, by its kind's renderer."""
    return KINDS[p.kind].render(p)


def estimate(src, symbols: dict, soc: str = DEFAULT_SOC):
    """The estimated time of one launch of `src` for these sizes on `soc` (cost_model.py's model, by the kind's cost)."""
    info = soc_info(soc)
    block_dim, t = tiling(src, symbols, soc)
    return KINDS[src.plan.kind].cost(src, symbols, Launch(soc, info, info["clock_ghz"] * 1e9, block_dim, t))


def _table() -> dict:
    from . import kind_cube, kind_map, kind_phased, kind_row, kind_scalar, kind_window
    table = {m.KIND.name: m.KIND for m in (kind_map, kind_row, kind_window, kind_cube, kind_scalar)}
    table["phased"] = kind_phased.phased_kind(table, estimate)     # (its phases are kinds of this table)
    return table


KINDS: dict = _table()

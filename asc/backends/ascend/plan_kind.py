"""`Kind`: the parts every plan kind of the ascend target has (kinds.py holds the table of them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Kind:
    """A plan kind: its name (the plan's `kind`), plan class and the parts every target use of it needs."""
    name: str
    plan: type                 # its Plan dataclass (plans.py, phases.py)
    tiling: Callable           # (plan, symbols, soc, cores, tile_cap) -> (blockDim, {field: value})
    render: Callable           # plan -> AscendSource
    cost: Callable             # (src, symbols, launch: cost.Launch) -> cost.Estimate
    text: str                  # what the project's README calls it
    unit: str = "aiv"          # the cores its blocks run on: "aiv" (vector) or "aic" (cube)
    fallback: bool = False     # the scalar fallback: a warning says so, with the plan's reason

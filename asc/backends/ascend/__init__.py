"""The ascend target: Ascend C for Ascend 910B (kernel_operator.h), plus its host launcher and build project.

    p = plan(kernel_ir)                 # pure: the kernel's shape and program (print it: str(p), format_plan(p))
    src = render(kernel_ir)             # AscendSource: the kernel .cpp, its line map, the plan, the entry params
    block_dim, values = tiling(src, symbols, soc, scalars=...)   # scalars: the host scalars' values (host_scalars.py)
    estimate(src, symbols, soc)         # the cost model's Estimate
    write_project(src, symbols, scalars, out_dir, soc)

`kernel_ir` is a kernel after the ascend pipeline's passes (`asc.compiler.lower(k, "ascend")`). The same kernel .cpp compiles unchanged
with g++ against asc's ascend-sim header (target "ascend-sim"). docs/ascend.md describes what a kernel becomes.

Modules, bottom to top: soc (SoC table, UB sizes), ops (builtin -> Ascend C API), api (the API the renderers may
emit), ctext (C++ names and constants), plans (the plan dataclasses), lowering / regalloc (instruction selection,
register slots), budget (UB budget, tilings), row_lowering, cube_lowering, window_lowering, phases, planner
(`plan`), emitter / instructions (shared C++ pieces, instruction templates), map_render, row_render, cube_render,
window_render, phase_render, scalar_render, cost (the cost model's figures), kind_map ... kind_scalar (one module a
plan kind: its tiling, renderer and cost), kinds (`KINDS`, `tiling`, `estimate`), rendering (`render`), project
(`write_project`)."""
from __future__ import annotations

from .cost_model import Estimate
from .emitter import AscendSource
from .kinds import KINDS, estimate, tiling
from .planner import plan
from .plans import CubePlan, MapPlan, Plan, RowPlan, ScalarPlan, format_plan
from .project import write_project
from .rendering import AscendFallbackWarning, render
from .soc import DEFAULT_SOC, SOCS, soc_info

__all__ = ["AscendFallbackWarning", "AscendSource", "CubePlan", "DEFAULT_SOC", "Estimate", "KINDS", "MapPlan", "Plan",
           "RowPlan", "SOCS", "ScalarPlan", "estimate", "format_plan", "plan", "render", "soc_info", "tiling",
           "write_project"]

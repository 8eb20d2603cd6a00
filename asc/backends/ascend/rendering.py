"""`render(kernel)`: the kernel's plan written as Ascend C by the renderer of its kind, with a warning when the
kernel takes the scalar fallback."""
from __future__ import annotations

import warnings

from ... import ir
from .ctext import where
from .cube_render import render_cube
from .emitter import AscendSource
from .map_render import render_map
from .phase_render import render_phased
from .planner import plan
from .row_render import render_row
from .scalar_render import render_scalar
from .window_render import render_window

RENDERERS = {"map": render_map, "row": render_row, "cube": render_cube, "scalar": render_scalar,
             "window": render_window,
             "phased": lambda p: render_phased(p, RENDERERS)}


class AscendFallbackWarning(UserWarning):
    """A kernel (or loop) runs as scalar code on one AI core: correct, but slow."""


def render(kernel: ir.Kernel, warn: bool = True) -> AscendSource:
    """The Ascend C of `kernel` (after the ascend pipeline's passes: asc.compiler), from its plan."""
    p = plan(kernel)
    src = RENDERERS[p.kind](p)
    if p.kind == "scalar" and warn:
        warnings.warn(AscendFallbackWarning(
            f"{where(p.reason_loc)}kernel {kernel.entry.pyname!r}: {p.reason}; on the ascend target it runs as scalar "
            f"code on one AI core (GlobalTensor GetValue/SetValue): correct but slow"), stacklevel=3)
    return src

"""`render(kernel)`: the kernel's plan written as Ascend C by the renderer of its kind, with a warning when the
kernel takes the scalar fallback."""
from __future__ import annotations

import warnings

from ... import ir
from ...errors import CompileError
from ...ir.sizes import user_text
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
    try:
        p = plan(kernel)
        src = RENDERERS[p.kind](p)
    except CompileError as e:          # a shape in the message, such as (asc_dim_x_0,), as the user wrote it
        raise e.reworded(lambda m: user_text(m, kernel.sizes))
    if p.kind == "scalar" and warn:
        reason = user_text(p.reason, kernel.sizes)
        warnings.warn(AscendFallbackWarning(
            f"{where(p.reason_loc)}kernel {kernel.entry.pyname!r}: {reason}; on the ascend target it runs as scalar "
            f"code on one AI core (GlobalTensor GetValue/SetValue): correct but slow"), stacklevel=3)
    return src

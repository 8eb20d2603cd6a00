"""`render(kernel)`: the kernel's plan written as Ascend C by the renderer of its kind, with a warning when the
kernel takes the scalar fallback."""
from __future__ import annotations

import warnings

from ... import ir
from ...errors import CompileError
from ...ir.sizes import user_text
from .ctext import where
from .emitter import AscendSource
from .kinds import KINDS, render_plan
from .planner import plan


class AscendFallbackWarning(UserWarning):
    """A kernel (or loop) runs as scalar code on one AI core: correct, but slow."""


def render(kernel: ir.Kernel, warn: bool = True) -> AscendSource:
    """The Ascend C of `kernel` (after the ascend pipeline's passes: asc.compiler), from its plan."""
    try:
        p = plan(kernel)
        src = render_plan(p)
    except CompileError as e:          # a shape in the message, such as (asc_dim_x_0,), as the user wrote it
        raise e.reworded(lambda m: user_text(m, kernel.sizes))
    if KINDS[p.kind].fallback and warn:
        reason = user_text(p.reason, kernel.sizes)
        warnings.warn(AscendFallbackWarning(
            f"{where(p.reason_loc)}kernel {kernel.entry.pyname!r}: {reason}; on the ascend target it runs as scalar "
            f"code on one AI core (GlobalTensor GetValue/SetValue): correct but slow"), stacklevel=3)
    return src

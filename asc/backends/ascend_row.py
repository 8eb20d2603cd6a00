"""Row kernels for the ascend target (reductions along the last axis)."""
from __future__ import annotations

from .ascend_lower import Unsupported


def row_plan(p, loop, scalar_names):
    raise Unsupported("this loop nest is not an element-wise map", loop.loc)

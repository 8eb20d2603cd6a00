"""The error raised when a kernel cannot be differentiated automatically."""
from __future__ import annotations

from ..errors import CompileError


class AutodiffError(CompileError):
    """The kernel cannot be differentiated automatically (the message says why, at its line)."""


def refuse(msg, loc):
    raise AutodiffError(f"cannot differentiate automatically: {msg}", loc)

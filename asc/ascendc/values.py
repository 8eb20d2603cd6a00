"""What a Python expression of a pyasc kernel is at translation time: a compile-time Python value (Const), or a
runtime value of the emitted Ascend C (Val: its C text, C type and kind)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Const:
    value: object


@dataclass(frozen=True)
class Val:
    kind: str                 # scalar, gaddr, gtensor, ltensor, que, pipe, pipeptr, buf, struct, obj
    text: str                 # the C expression
    ctype: str                # the C type of a variable holding it
    dtype: object = None      # the element type (tensors, addresses) or the scalar's type
    root: object = None       # ltensor: the buffer it views (sync insertion); que/buf: (position, depth)
    info: tuple = field(default=())   # kind-specific facts: ("pos", TPosition), ("struct", cls), ...

    def with_text(self, text: str) -> "Val":
        return replace(self, text=text)

    def get(self, key, default=None):
        for k, v in self.info:
            if k == key:
                return v
        return default


class Deferred:
    """A line of the emitted source that is completed later (a GlobalTensor declared before its element type is
    known: set_global_buffer gives it)."""

    def __init__(self, fmt: str):
        self.fmt = fmt
        self.ctype = None

    def render(self) -> str:
        return self.fmt.format(ctype=self.ctype or "AscendC::GlobalTensor<uint8_t>")

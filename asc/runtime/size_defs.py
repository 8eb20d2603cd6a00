"""The sizes of a dynamic_shape call that are expressions of other sizes (ir.SizeDef: `lang.empty((bins + 1,))`),
computed from the call's sizes before it runs, on every target. A negative size, or a division by zero, is a
ShapeError naming the line, the expression and the argument values it came from."""
from __future__ import annotations

from .. import ir
from ..errors import ShapeError
from ..ir.sizes import SizeValueError, checked, leaves, user_name


def derive(kernel_name: str, k: ir.Kernel, symbols: dict) -> None:
    """Adds the value of each of `k`'s SizeDefs to `symbols` (name -> int), in order (one may read another)."""
    texts = {d.name: d.text for d in k.sizes}
    for d in k.sizes:
        shown = {texts.get(n) or user_name(n): symbols[n] for n in leaves(d.expr)}
        try:
            symbols[d.name] = checked(d.expr, symbols, d.text, shown)
        except SizeValueError as e:
            where = f"{d.loc!r}: " if d.loc is not None else ""
            raise ShapeError(f"{where}{kernel_name}(): {e}") from None

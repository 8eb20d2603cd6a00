"""Arithmetic of sizes (`lang.empty((bins + 1,))`, `lang.zeros((B, C // G))`): an expression of int constants and
size symbols combined by + - * // %, computed as Python computes ints (// and % round toward minus infinity).
The frontend computes it when shapes are specialized; the runtime computes a dynamic_shape kernel's SizeDefs at
each call. A negative size, or a division by zero, is an error that names the values it came from."""
from __future__ import annotations

import re

from .nodes import Binary, Cast, Const, Var

SIZE_OPS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}

# asc's own size symbols (reserved: lang.dim refuses names starting with "asc_"): asc_dim_x_1 for axis 1 of an
# argument x the annotation leaves free, asc_dim_G_s for an int argument G that sizes an allocation, and a SizeDef's
# name for an expression of sizes (asc_dim_expr1)
SIZE_PREFIX = "asc_dim_"
SIZE_PARAM_SUFFIX = "_s"
_OWN_SIZE = re.compile(rf"\b{SIZE_PREFIX}\w+")


def user_name(sym: str, sizes=()) -> str:
    """How size symbol `sym` is named to the user: `G` for an int argument's size, `x.shape[1]` for a free axis,
    the source text of a SizeDef among `sizes` (`n + 1`); any other name as it is."""
    if not sym.startswith(SIZE_PREFIX):
        return sym
    for d in sizes:
        if d.name == sym:
            return d.text
    rest = sym[len(SIZE_PREFIX):]
    if rest.endswith(SIZE_PARAM_SUFFIX):
        return rest[:-len(SIZE_PARAM_SUFFIX)]
    param, _, axis = rest.rpartition("_")
    return f"{param}.shape[{axis}]" if param and axis.isdigit() else sym


def user_text(text: str, sizes=()) -> str:
    """`text` (a message) with each of asc's own size symbols in it named as the user wrote it (user_name)."""
    return _OWN_SIZE.sub(lambda m: user_name(m.group(0), sizes), text)


class SizeValueError(Exception):
    """A size expression gave a negative size or divided by zero; the message says which and why."""


def leaves(e) -> list:
    """The names of the size symbols `e` reads, in order, each once."""
    out: list = []

    def walk(x):
        if isinstance(x, Var):
            if x.name not in out:
                out.append(x.name)
        elif isinstance(x, Binary):
            walk(x.a)
            walk(x.b)
        elif isinstance(x, Cast):
            walk(x.x)
    walk(e)
    return out


def evaluate(e, values: dict) -> int:
    """The value of size expression `e`, its symbols read from `values` (name -> int). Raises SizeValueError on a
    division by zero; the caller checks the sign."""
    if isinstance(e, Const):
        return int(e.value)
    if isinstance(e, Var):
        return int(values[e.name])
    if isinstance(e, Cast):
        return evaluate(e.x, values)
    if isinstance(e, Binary) and e.op in SIZE_OPS:
        a, b = evaluate(e.a, values), evaluate(e.b, values)
        if e.op in ("floordiv", "mod") and b == 0:
            raise SizeValueError(f"divides by zero ({a} {SIZE_OPS[e.op]} 0)")
        return {"add": a + b, "sub": a - b, "mul": a * b}[e.op] if e.op in ("add", "sub", "mul") else (
            a // b if e.op == "floordiv" else a % b)
    raise TypeError(f"not a size expression: {e!r}")


def checked(e, values: dict, text: str, shown: dict) -> int:
    """The value of size `e` (the source `text`), or SizeValueError when it is negative or divides by zero; the
    message gives the values of the sizes it reads (`shown`: how each symbol is named to the user, and its value)."""
    of = ", ".join(f"{n}={v}" for n, v in shown.items())
    of = f" ({of})" if of else ""
    try:
        v = evaluate(e, values)
    except SizeValueError as err:
        raise SizeValueError(f"the size {text} of an allocation {err}{of}") from None
    if v < 0:
        raise SizeValueError(f"the size {text} of an allocation is {v}{of}: a size must not be negative")
    return v

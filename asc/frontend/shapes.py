"""Shapes and index arithmetic of tensor-level code: compile-time dims (int or ir.Sym), their text in messages,
and small simplifying constructors of index expressions (what views, extents and loop nests are made of)."""
from __future__ import annotations

from .. import ir
from ..ir.printer import format_expr
from .scalars import binary

MATMUL_DTYPES = ("float32", "float64", "float16", "bfloat16")


def iconst(v: int) -> ir.Const:
    return ir.Const(v, ir.INDEX)


def fmt_dim(d) -> str:
    return d.name if isinstance(d, ir.Sym) else str(d)


def fmt_shape(shape) -> str:
    return "(" + ", ".join(fmt_dim(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def same_expr(a, b) -> bool:
    return a is b or format_expr(a) == format_expr(b)


def dims_equal(a, b) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return isinstance(a, ir.Sym) and isinstance(b, ir.Sym) and a.name == b.name


def dim_expr(d):
    """A compile-time dim as an index expression."""
    return iconst(d) if isinstance(d, int) else ir.Var(d.name, ir.INDEX)


def iadd(a, b):
    if isinstance(b, ir.Const) and b.value == 0:
        return a
    if isinstance(a, ir.Const) and a.value == 0:
        return b
    return binary("add", a, b, None)


def isub(a, b):
    if isinstance(b, ir.Const) and b.value == 0:
        return a
    return binary("sub", a, b, None)


def imul(a, b):
    if isinstance(a, ir.Const) and a.value == 1:
        return b
    if isinstance(b, ir.Const) and b.value == 1:
        return a
    return binary("mul", a, b, None)


def imin(a, b):
    if same_expr(a, b):
        return a
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return iconst(min(a.value, b.value))
    return ir.Select(ir.Compare("lt", a, b, ir.ScalarType(ir.bool_)), a, b, ir.INDEX)


def imax(a, b):
    if same_expr(a, b):
        return a
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return iconst(max(a.value, b.value))
    return ir.Select(ir.Compare("gt", a, b, ir.ScalarType(ir.bool_)), a, b, ir.INDEX)


def linear(e):
    """e as {name: coefficient, "": constant} when it is a sum of integer multiples of variables, else None."""
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return {"": e.value}
    if isinstance(e, ir.Var):
        return {e.name: 1}
    if isinstance(e, ir.Cast):
        return linear(e.x)
    if isinstance(e, ir.Binary) and e.op in ("add", "sub", "mul"):
        a, b = linear(e.a), linear(e.b)
        if a is None or b is None:
            return None
        if e.op == "mul":
            if set(a) == {""}:
                a, b = b, a
            if set(b) != {""}:
                return None
            return {k: v * b[""] for k, v in a.items()}
        sign = 1 if e.op == "add" else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    return None


def broadcast_extents(args, shape):
    """The run-time extents of a broadcast of tensor values `args` to `shape`: the smallest of the operands' along
    each axis (an operand clipped at run time clips the result)."""
    nd = len(shape)
    out = []
    for k in range(nd):
        ext = None
        for a in args:
            j = k - (nd - a.ndim)
            if j < 0 or a.shape[j] == 1 and shape[k] != 1:
                continue
            ext = a.extents[j] if ext is None else imin(ext, a.extents[j])
        out.append(ext if ext is not None else dim_expr(shape[k]))
    return tuple(out)

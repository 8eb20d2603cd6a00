"""The pass `mixed_precision` (a tensor pass: every target takes its result): a kernel of precision="mixed"
computes 16-bit floats in 16 bits. Each operation whose value is a float16 or bfloat16 is rounded to that type at
once, as NumPy computes `float16 * float16` (docs/tensors.md, "Precision"):

    out[i] = x[i] * y[i] + 0.1        (float16)
    ->  out[i] = float16!(float16!(x[i] * y[i]) + 0.0999755859375)

written as explicit casts (`ir.Cast(explicit=True)`, printed `float16(...)`), which every target already rounds:
cpu with asc_round_h / asc_round_bf, Ascend with Cast to the 16-bit type and back. A float32 operation followed by
the rounding is the correctly rounded 16-bit operation for + - * / and sqrt (float32 has more than twice the bits
of float16 and bfloat16 plus two: the double rounding is innocuous); math functions are float32 functions rounded
once, within their float32 error of the 16-bit result.

What is rounded: arithmetic (Binary), math calls not declared `exact` (abs, maximum, floor... give a value of
their operands' type already), a value converted to the 16-bit type (an int, a float32 or Python float operand:
NumPy converts a Python float to float16 first) and 16-bit constants (their value as the 16-bit type holds it).
Loads, variables, negation and selects of 16-bit values are 16-bit values already. Products and reductions keep
their float32 accumulation (lowered after this pass; the value they give is rounded once), as in float32 mode.
A kernel of precision "float32" is returned unchanged."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import ir
from ..builtins import BUILTINS
from ..dtypes import HANDLES
from .rewrite import each_function, map_exprs

ROUNDED_OPS = frozenset({"add", "sub", "mul", "truediv", "floordiv", "mod", "pow"})


def mixed_precision(k: ir.Kernel, options: dict) -> ir.Kernel:
    """The pass: `k` with every 16-bit operation rounded to its type, when its precision is "mixed"."""
    if k.precision != "mixed":
        return k
    return each_function(k, lambda fn: replace(fn, body=map_exprs(fn.body, _Rounding())))


def _is16(t) -> bool:
    return isinstance(t, ir.ScalarType) and not t.weak and t.dtype.is_16bit_float


def _const16(c: ir.Const) -> ir.Const:
    """A 16-bit constant with the value the 16-bit type holds (NumPy converts a Python float operand so)."""
    with np.errstate(over="ignore"):
        v = float(np.asarray(float(c.value)).astype(HANDLES[c.type.dtype].np))
    return c if v == c.value or v != v else replace(c, value=v)


def _round(e: ir.Expr) -> ir.Expr:
    return ir.Cast(e, e.type, e.loc, explicit=True)


class _Rounding:
    """ir.map_expr's visitor: a node rebuilt bottom-up with its 16-bit operations rounded. Runs on the tensor-level
    IR, so the bodies of elementwise tensor maps are rounded and the accumulations of reductions, softmax and
    products (lowered later) are not; a tensor value used twice stays one value (rebuilt once, by identity)."""

    def __init__(self):
        self.memo: dict = {}

    def __call__(self, e):
        if isinstance(e, ir.TensorValue):
            hit = self.memo.get(id(e))
            if hit is None:
                hit = self.memo[id(e)] = (e, self.children(e))      # (e kept alive: its id stays its own)
            return hit[1]
        if isinstance(e, ir.Const):
            return _const16(e) if _is16(e.type) and isinstance(e.value, (int, float)) else e
        if isinstance(e, (ir.Load, ir.Var, ir.MapArg)):
            return e
        if not isinstance(e, (ir.Binary, ir.Call, ir.Cast)):
            return None
        e = self.children(e)
        if not _is16(e.type):
            return e
        if isinstance(e, ir.Cast):
            if e.explicit or _is16(e.x.type) and e.x.type.dtype == e.type.dtype:
                return e          # rounded already, or a value of the type (rounded where it was computed)
            return replace(e, explicit=True)
        if isinstance(e, ir.Binary):
            return _round(e) if e.op in ROUNDED_OPS else e
        b = BUILTINS.get(e.fn)
        return e if b is not None and b.exact else _round(e)

    def children(self, e):
        """`e` with its children mapped (itself when none changed)."""
        fields = {}
        for name in ir.EXPR_CHILDREN[type(e)]:
            if name == "tensor":
                continue
            v = getattr(e, name)
            new = tuple(ir.map_expr(x, self) for x in v) if isinstance(v, tuple) else ir.map_expr(v, self)
            if new is not v and (not isinstance(v, tuple) or any(a is not b for a, b in zip(new, v))):
                fields[name] = new
        return replace(e, **fields) if fields else e

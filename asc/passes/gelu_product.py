"""The pass `gelu_product`: GELU's product (0.5 * x) * (1 + erf_scaled(x, s)), as the pass `scaled_math` leaves
`0.5 * x * (1 + erf(x / sqrt(2)))`, becomes one call gelu_erf_scaled(x, s) (asc_math.h's asc_gelu_erf_scaled_f32):

    (0.5 * x[i]) * (1.0 + erf_scaled(x[i], 0.7071067932881648)) -> gelu_erf_scaled(x[i], 0.7071067932881648)

The call gives the product's bits for every float32 x, NaNs included (all 2^32 inputs compared:
tests/include/test_gelu_product.py): it computes x * (0.5 + 0.5 erf) with the 0.5 in erf's exponent, and needs no
NaN mask (x * anything returns a NaN x as (0.5 x) does), so it saves three vector instructions of the 32 in GELU's
loop (docs/math.md, "Throughput"). Each factor's operands may come in either order (x * 0.5, erf + 1.0); x is the
same expression on both sides and calls no device function (it is evaluated once). float32 arithmetic only: the
16-bit floats' too, which the cpu target computes in float32.
"""
from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..builtins import cpu_fused_templates, scaled_name
from .rewrite import each_function, map_exprs, with_body
from .scaled_math import precision

FUSED = next(iter(cpu_fused_templates()))          # "gelu_erf_scaled"
ERF_SCALED = scaled_name("erf")


def gelu_product(k: ir.Kernel, options: dict) -> ir.Kernel:
    """`k` with each GELU product (0.5 * x) * (1 + erf_scaled(x, s)) as gelu_erf_scaled(x, s)."""
    def function(f: ir.Function) -> ir.Function:
        if not any(fused(e) is not None for s in ir.walk_stmts(f.body) for e0 in ir.stmt_exprs(s)
                   for e in ir.walk_expr(e0)):
            return f
        return with_body(f, map_exprs(f.body, fused))
    return each_function(k, function)


def _const(e, value: float) -> bool:
    return isinstance(e, ir.Const) and e.type.dtype.kind == "f" and e.value == value


def _other(e, value: float):
    """The other operand of binary `e` when one of its operands is the float constant `value`, else None."""
    if _const(e.a, value):
        return e.b
    if _const(e.b, value):
        return e.a
    return None


def fused(e):
    """gelu_erf_scaled(x, s) for `e` = (0.5 * x) * (1 + erf_scaled(x, s)) (factors and operands in either order),
    else None."""
    if not (isinstance(e, ir.Binary) and e.op == "mul" and precision(e.type) == "f32"):
        return None
    for half, one in ((e.a, e.b), (e.b, e.a)):
        if not (isinstance(half, ir.Binary) and half.op == "mul" and isinstance(one, ir.Binary) and one.op == "add"):
            continue
        x, erf = _other(half, 0.5), _other(one, 1.0)
        if (x is None or not isinstance(erf, ir.Call) or erf.fn != ERF_SCALED or erf.args[0] != x
                or any(precision(t.type) != "f32" for t in (half, one, erf, x))
                or any(isinstance(y, ir.FuncCall) for y in ir.walk_expr(x))):
            continue
        # x is mapped too: it may hold another GELU product
        x = ir.map_expr(x, fused)
        return replace(erf, fn=FUSED, args=(x, erf.args[1]), type=e.type, loc=e.loc)
    return None

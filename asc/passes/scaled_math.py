"""The pass `scaled_math`: f(x / c) and f(x * c), for a constant c whose error bound was measured, become one scaled
builtin f_scaled(x, s), s = 1/c or c: a function of x whose argument x * s is never rounded (the scale folded into
f's coefficients), instead of a rounded division or product and then f.

In the IR the scaled builtin is an ordinary ir.Call named SCALED[f], of two arguments: x (the type of the call) and
the scale s, a float64 constant (exactly the double the measurement used: 1 / float32(c), or float32(c) itself):

    erf(x[i] / 1.4142135381698608) -> erf_scaled(x[i], 0.7071067932881648)

Which functions and constants have such a form depends on the target's math library: MEASURED_CPU lists the cpu
target's (asc_math.h, docs/math.md): GELU's erf(x / float32(sqrt 2)) and erf(x * float32(sqrt 0.5)), for float32
(and 16-bit floats, computed in float32). The Ascend target has none: `scaled_math_ascend` rewrites nothing.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import ir
from ..builtins import cpu_scaled_templates, scaled_name
from .rewrite import each_function, map_exprs, with_body

# (f, "f32" | "f64") -> (divisors c, factors c): the constants, as float32 values, whose scaled form was measured
# (declared with the builtin: asc/builtins/math_functions.py, Cpu(scaled=...))
MEASURED_CPU = {key: (divisors, factors) for key, (_, divisors, factors) in cpu_scaled_templates().items()}
SCALED = {f: scaled_name(f) for f, _ in MEASURED_CPU}   # f -> its scaled builtin f_scaled(x, s) = f(x * s), unrounded
_F64 = ir.ScalarType(ir.float64)


def scaled_math_cpu(k: ir.Kernel, options: dict) -> ir.Kernel:
    """`k` with the cpu target's measured f(x / c), f(x * c) as scaled builtins."""
    return rewrite(k, MEASURED_CPU)


def scaled_math_ascend(k: ir.Kernel, options: dict) -> ir.Kernel:
    """The Ascend target has no scaled math functions (its Erf takes a rounded tile), and writing x / c as
    x * float32(1/c) (a Muls for a Duplicate and a Div) would round differently from the interpreter's quotient, in
    41% of float32 inputs by up to 1.07 ulp: `k` unchanged."""
    return k


def rewrite(k: ir.Kernel, measured: dict) -> ir.Kernel:
    """`k` with each call f(x / c), f(x * c), f(c * x) whose (f, precision, c) is in `measured` a scaled builtin."""
    def call(e):
        if isinstance(e, ir.Call):
            scaled = scaled_call(e, measured)
            if scaled is not None:
                return scaled
        return None

    def function(f: ir.Function) -> ir.Function:
        if not any(isinstance(e, ir.Call) and scaled_call(e, measured) is not None
                   for s in ir.walk_stmts(f.body) for e in ir.stmt_exprs(s)):
            return f
        return with_body(f, map_exprs(f.body, call))
    return each_function(k, function)


def precision(t: ir.ScalarType) -> str:
    """How the C-family targets compute a float of type `t`: "f64" (float64 and Python floats) or "f32" (float32
    and the 16-bit floats); "i" for the others."""
    if t.dtype.kind != "f":
        return "i"
    return "f64" if (t.dtype.bits == 64 or t.weak) else "f32"


def scaled_call(e: ir.Call, measured: dict):
    """The scaled builtin for call `e`, or None when `e` is not f(x / c) or f(x * c) of a measured constant c."""
    p = precision(e.type)
    entry = measured.get((e.fn, p))
    a = e.args[0] if entry and len(e.args) == 1 else None
    if not isinstance(a, ir.Binary) or precision(a.type) != p:
        return None
    divisors, factors = entry

    def value(c):  # the constant as the float32 the C code would use
        return float(np.float32(c.value)) if isinstance(c, ir.Const) and c.type.dtype.kind == "f" else None

    def scaled(x, s: float):
        # x is mapped too: a scaled call may hold another one (erf(erf(x / c) / c))
        x = ir.map_expr(x, lambda y: scaled_call(y, measured) if isinstance(y, ir.Call) else None)
        return replace(e, fn=SCALED[e.fn], args=(x, ir.Const(s, _F64, a.loc)))
    if a.op == "truediv" and value(a.b) in divisors:
        return scaled(a.a, 1.0 / value(a.b))
    if a.op == "mul":
        for x, c in ((a.a, a.b), (a.b, a.a)):
            if value(c) in factors:
                return scaled(x, value(c))
    return None

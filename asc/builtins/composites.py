"""Composite builtins (gelu, silu, relu, softmax), each written once: as an expression of other builtins over an
`ops` object. The interpreter runs the expression on NumPy values (InterpreterOps); the IR lowering builds it
(IROps, given the frontend's builders); SourceOps prints it as kernel-language Python.

The ops an expansion may use:
    ops.const(v)               a Python int or float literal (weak)
    ops.binary(op, a, b)       op: "add", "sub", "mul", "truediv"
    ops.call(name, *args)      another builtin of kind "math"
    ops.reduce(name, x, axis)  the reduction "sum", "max" or "min" over `axis`, keeping it (keepdims)
    ops.like(v, x)             v converted to x's element type
    ops.compare(op, a, b)      op: "lt", "le", "eq", "ne", "gt", "ge" (a bool; asc/builtins/predicates.py)
"""
from __future__ import annotations

import operator

import numpy as np

from .. import ir
from . import math_functions as _declared_math, reductions as _declared_reductions  # noqa: F401 (registered before use)
from .array import SIXTEEN_BIT, kernel_array, to16
from .numeric import tensor_result, wide_any
from .table import BUILTINS, Builtin, register

_PY_OP = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv}
_PY_SYM = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}
_PY_CMP = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne, "gt": operator.gt,
           "ge": operator.ge}
_CMP_SYM = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}


class InterpreterOps:
    """An expansion evaluated on NumPy values, with the builtins' interpreter implementations."""

    def const(self, v):
        return v

    def binary(self, op, a, b):
        return _PY_OP[op](a, b)

    def call(self, name, *args):
        return BUILTINS[name](*args)

    def reduce(self, name, x, axis):
        return BUILTINS[name](x, axis=axis, keepdims=True)

    def like(self, v, x):
        v = np.asarray(v)
        return (to16(v, x.dtype) if x.dtype in SIXTEEN_BIT else v).astype(x.dtype)

    def compare(self, op, a, b):
        return _PY_CMP[op](a, b)


INTERPRETER = InterpreterOps()


class IROps:
    """An expansion built as IR by the frontend's builders: binary(op, a, b) -> expr, call(builtin, [args]) ->
    expr (such as its math_call), and for reductions reduce(name, x, axis) and like(v, x)."""

    def __init__(self, binary, call, reduce=None, like=None, compare=None):
        self._binary, self._call, self._reduce, self._like, self._compare = binary, call, reduce, like, compare

    def const(self, v):
        return ir.Const(v, ir.WEAK_FLOAT if isinstance(v, float) else ir.WEAK_INT)

    def binary(self, op, a, b):
        return self._binary(op, a, b)

    def call(self, name, *args):
        return self._call(BUILTINS[name], list(args))

    def reduce(self, name, x, axis):
        return self._reduce(name, x, axis)

    def like(self, v, x):
        return self._like(v, x)

    def compare(self, op, a, b):
        return self._compare(op, a, b)


class SourceOps:
    """An expansion printed as kernel-language Python over the given operand texts (docs, tests)."""

    def const(self, v):
        if isinstance(v, float) and v in (float("inf"), float("-inf")):
            return "math.inf" if v > 0 else "(-math.inf)"
        return repr(v)

    def binary(self, op, a, b):
        return f"({a} {_PY_SYM[op]} {b})"

    def call(self, name, *args):
        return f"lang.{name}({', '.join(args)})"

    def reduce(self, name, x, axis):
        return f"lang.{name}({x}, axis={axis}, keepdims=True)"

    def like(self, v, x):
        return f"lang.cast({v}, {x}.dtype)"

    def compare(self, op, a, b):
        return f"({a} {_CMP_SYM[op]} {b})"


class _Uses(SourceOps):
    """Records the builtins an expansion calls."""

    def __init__(self):
        self.names: list = []

    def call(self, name, *args):
        self.names.append(name)
        return super().call(name, *args)

    def reduce(self, name, x, axis):
        self.names.append(name)
        return super().reduce(name, x, axis)


def _uses(expand) -> tuple:
    rec = _Uses()
    expand(rec, "x")
    return tuple(dict.fromkeys(rec.names))


def elementwise(expand) -> Builtin:
    """Declares an elementwise composite (kind "activation"). The interpreter computes a 16-bit tensor in
    float32 and rounds the result once to its dtype."""
    def impl(x):
        w, dt = wide_any(x)
        return tensor_result(expand(INTERPRETER, w), dt)
    impl.__doc__ = expand.__doc__
    return register(Builtin(expand.__name__, "activation", impl, expand=expand, uses=_uses(expand)))


# ------------------------------------------------------------------ the composites

@elementwise
def gelu(ops, x):
    """GELU, elementwise: 0.5 * x * (1 + erf(x / sqrt(2))) (the exact form, not the tanh approximation)."""
    half = ops.binary("mul", ops.const(0.5), x)
    e = ops.call("erf", ops.binary("mul", x, ops.const(0.7071067811865476)))
    return ops.binary("mul", half, ops.binary("add", ops.const(1.0), e))


@elementwise
def silu(ops, x):
    """SiLU (swish), elementwise: x * sigmoid(x)."""
    return ops.binary("mul", x, ops.call("sigmoid", x))


@elementwise
def relu(ops, x):
    """ReLU, elementwise: maximum(x, 0) (nan stays nan)."""
    return ops.call("maximum", x, ops.const(0))


def _softmax(ops, x, axis=-1):
    """Softmax along `axis` (default the last): exp(x - max) / sum(exp(x - max)). Float tensors."""
    m = ops.reduce("max", x, axis)
    e = ops.like(ops.call("exp", ops.binary("sub", x, ops.like(m, x))), x)
    s = ops.like(ops.reduce("sum", e, axis), x)
    return ops.like(ops.binary("truediv", e, s), x)


def _softmax_impl(x, axis=-1):
    return kernel_array(_softmax(INTERPRETER, np.asarray(x).view(np.ndarray), axis))


_softmax_impl.__doc__ = _softmax.__doc__
softmax = register(Builtin("softmax", "softmax", _softmax_impl, expand=_softmax, uses=_uses(_softmax)))

"""Tests of float values and the elementwise choice, one declaration each: `math.isnan / isinf / isfinite` (also
`lang.isnan / isinf / isfinite`) and `lang.where(cond, a, b)`.

A predicate is written once as an expression of comparisons (`expand`, over the ops of asc/builtins/composites.py):
the frontend builds that expression, so every target computes it with the comparisons it already has and nothing
target-specific is needed: `x != x` is true only for nan (comparisons with nan are false), `x - x == 0` only for a
finite x (inf - inf is nan), and x is infinite when `x == x` differs from that. The interpreter runs NumPy's
functions (the same answers). An integer is never nan or infinite.

`lang.where(cond, a, b)` is NumPy's `where`: elementwise `a if cond else b` (both computed), broadcasting tensors
and numbers, the result of the promoted type of a and b (NEP 50: a Python number takes the other operand's type)."""
from __future__ import annotations

import math

import numpy as np

from . import composites as _declared_composites  # noqa: F401 (the ops protocol, registered before use)
from .array import kernel_array
from .table import Builtin, register

def _predicate(npfn, py):
    def deco(expand):
        def impl(x):
            r = npfn(np.asarray(x).view(np.ndarray))
            return bool(r) if r.ndim == 0 else kernel_array(r)
        impl.__doc__ = expand.__doc__
        return register(Builtin(expand.__name__, "predicate", impl, arity=1, python=(py,), expand=expand))
    return deco


@_predicate(np.isnan, math.isnan)
def isnan(ops, x):
    """True where x is nan (also Python's math.isnan); never for integers."""
    return ops.compare("ne", x, x)


@_predicate(np.isinf, math.isinf)
def isinf(ops, x):
    """True where x is +inf or -inf (also Python's math.isinf); never for integers."""
    return ops.compare("ne", ops.compare("eq", x, x), _finite(ops, x))


@_predicate(np.isfinite, math.isfinite)
def isfinite(ops, x):
    """True where x is neither nan nor infinite (also Python's math.isfinite); always for integers."""
    return _finite(ops, x)


def _finite(ops, x):
    """x - x is 0 for every finite x, nan for nan and the infinities."""
    return ops.compare("eq", ops.binary("sub", x, x), ops.const(0))


def _where(cond, a, b):
    """Elementwise `a if cond else b`, as numpy.where: tensors and numbers broadcast, the result has the promoted
    type of a and b (NEP 50: a Python number takes the other operand's type). Both a and b are computed."""
    r = np.where(np.asarray(cond).view(np.ndarray) if isinstance(cond, np.ndarray) else cond,
                 a.view(np.ndarray) if isinstance(a, np.ndarray) else a,
                 b.view(np.ndarray) if isinstance(b, np.ndarray) else b)
    if r.ndim:
        return kernel_array(r)
    if all(isinstance(v, (bool, int, float)) and not isinstance(v, np.generic) for v in (a, b)):
        return type(a + b)(r[()]) if not (isinstance(a, bool) and isinstance(b, bool)) else bool(r[()])
    return r[()]


where = register(Builtin("where", "select", _where, arity=3))

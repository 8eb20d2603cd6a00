"""Expressions for the generated backward: IR expressions printed as kernel-language Python, and their symbolic
derivatives with respect to one leaf (a tensor element read, or a row scalar)."""
from __future__ import annotations

import math
from types import SimpleNamespace

from .. import builtins, ir
from .errors import AutodiffError

# ------------------------------------------------------------------ expressions as Python source

_PY_BIN = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**"}
_PY_CMP = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}


def lang_dtype(t: ir.ScalarType) -> str:
    return f"lang.{t.dtype.name if t.dtype.name != 'bool' else 'bool_'}"


def literal(v) -> str:
    """A number as Python source the generated module can evaluate: repr() for finite values, and `math.inf`,
    `-math.inf`, `math.nan` for the others (repr() gives `inf` and `nan`, which are not Python names)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "math.nan" if math.isnan(v) else ("math.inf" if v > 0 else "(-math.inf)")
    return repr(v)


def py(e) -> str:
    """An IR expression as kernel-language Python."""
    if isinstance(e, ir.Const):     # a float constant was already converted to its operand's type: a literal
        if e.type.weak or e.type.dtype.kind in "bf":
            return literal(e.value)
        return f"{lang_dtype(e.type)}({literal(e.value)})"
    if isinstance(e, ir.Var):
        return e.name
    if isinstance(e, ir.Load):
        return f"{e.tensor.name}[{', '.join(py(i) for i in e.indices)}]"
    if isinstance(e, ir.Unary):
        return {"neg": f"(-{py(e.x)})", "not": f"(not {py(e.x)})", "invert": f"(~{py(e.x)})"}[e.op]
    if isinstance(e, ir.Binary) and e.op in _PY_BIN:
        return f"({py(e.a)} {_PY_BIN[e.op]} {py(e.b)})"
    if isinstance(e, ir.Compare):
        return f"({py(e.a)} {_PY_CMP[e.op]} {py(e.b)})"
    if isinstance(e, ir.Logical):
        return f"({py(e.a)} {e.op} {py(e.b)})"
    if isinstance(e, ir.Select):
        return f"({py(e.a)} if {py(e.cond)} else {py(e.b)})"
    if isinstance(e, ir.Cast):
        return f"lang.cast({py(e.x)}, {lang_dtype(e.type)})"
    if isinstance(e, ir.Call):
        return f"lang.{e.fn}({', '.join(py(a) for a in e.args)})"
    if isinstance(e, ir.Binary):
        raise AutodiffError(f"the operator {e.op!r} is not differentiated (an index such as x[i // 2] reads one "
                            f"element from several iterations)", getattr(e, "loc", None))
    raise AutodiffError(f"cannot differentiate through {type(e).__name__}", getattr(e, "loc", None))


# ------------------------------------------------------------------ symbolic derivatives

def const(v, like):
    t = like.type if isinstance(like.type, ir.ScalarType) else ir.WEAK_FLOAT
    return ir.Const(float(v), ir.ScalarType(t.dtype, weak=True) if t.dtype.kind == "f" else ir.WEAK_FLOAT)


def is_zero(e):
    return isinstance(e, ir.Const) and e.value == 0


def is_one(e):
    return isinstance(e, ir.Const) and e.value == 1


def _both_const(a, b):
    return isinstance(a, ir.Const) and isinstance(b, ir.Const) and a.type.weak and b.type.weak


def mul(a, b):
    if _both_const(a, b):
        return const(a.value * b.value, a)
    if is_zero(a) or is_zero(b):
        return const(0, a)
    if is_one(a):
        return b
    if is_one(b):
        return a
    return ir.Binary("mul", a, b, _rt(a, b))


def add(a, b):
    if _both_const(a, b):
        return const(a.value + b.value, a)
    if is_zero(a):
        return b
    if is_zero(b):
        return a
    return ir.Binary("add", a, b, _rt(a, b))


def sub(a, b):
    if _both_const(a, b):
        return const(a.value - b.value, a)
    if is_zero(a):
        return neg(b)
    if is_zero(b):
        return a
    return ir.Binary("sub", a, b, _rt(a, b))


def div(a, b):
    if is_zero(a):
        return a
    return ir.Binary("truediv", a, b, _rt(a, b))


def neg(a):
    if isinstance(a, ir.Const) and a.type.weak:
        return const(-a.value, a)
    return a if is_zero(a) else ir.Unary("neg", a, a.type)


def call(fn, *args):
    return ir.Call(fn, args, args[0].type)


def _rt(a, b):
    return ir.promote(a.type, b.type)


def _raise(message: str, loc=None):
    raise AutodiffError(message, loc)


# what a builtin's derivative rule builds with (asc/builtins/table.py, Builtin.derivative)
ALGEBRA = SimpleNamespace(const=const, add=add, sub=sub, mul=mul, div=div, neg=neg, call=call, is_zero=is_zero,
                          refuse=_raise)


def leaf_key(e):
    """The identity of a leaf: ("load", tensor, index source) for an element read, ("var", name) for a scalar."""
    if isinstance(e, ir.Load):
        return ("load", e.tensor.name, tuple(py(i) for i in e.indices))
    if isinstance(e, ir.Var):
        return ("var", e.name)
    return None


def leaves(e, is_leaf) -> dict:
    """The distinct leaves of `e` (key -> a node) accepted by `is_leaf`, in first-seen order; the indices of a read
    are not leaves of the value."""
    found: dict = {}

    def visit(x):
        if isinstance(x, (ir.Load, ir.Var)):
            if is_leaf(x):
                found.setdefault(leaf_key(x), x)
            return
        for name in ir.EXPR_CHILDREN[type(x)]:
            v = getattr(x, name)
            for c in (v if isinstance(v, tuple) else (v,)):
                visit(c)
    visit(e)
    return found


def derivative(e, wrt: tuple, memo: dict):
    """d e / d (the leaf whose leaf_key is `wrt`)."""
    key = (id(e), wrt)
    if key in memo:
        return memo[key][1]
    d = _derivative(e, wrt, memo)
    memo[key] = (e, d)         # keep e alive: ids stay unique
    return d


def _derivative(e, wrt, memo):
    D = lambda x: derivative(x, wrt, memo)  # noqa: E731
    if isinstance(e, (ir.Load, ir.Var)):
        return const(1, e) if leaf_key(e) == wrt else const(0, e)
    if isinstance(e, ir.Const):
        return const(0, e)
    if isinstance(e, ir.Cast):
        return D(e.x) if e.type.dtype.kind == "f" else const(0, e)
    if isinstance(e, ir.Unary):
        return neg(D(e.x)) if e.op == "neg" else const(0, e)
    if isinstance(e, (ir.Compare, ir.Logical)):
        return const(0, e)
    if isinstance(e, ir.Select):
        return ir.Select(e.cond, D(e.a), D(e.b), e.type)
    if isinstance(e, ir.Binary):
        a, b = e.a, e.b
        if e.op == "add":
            return add(D(a), D(b))
        if e.op == "sub":
            return sub(D(a), D(b))
        if e.op == "mul":
            return add(mul(D(a), b), mul(a, D(b)))
        if e.op == "truediv":       # (a' b - a b') / b^2
            return sub(div(D(a), b), div(mul(a, D(b)), mul(b, b)))
        if e.op == "pow":
            db = D(b)
            if not is_zero(db):
                raise AutodiffError("a power with a varying exponent is not differentiated yet", e.loc)
            return mul(mul(b, ir.Binary("pow", a, sub(b, const(1, b)), e.type)), D(a))
        raise AutodiffError(f"the operator {e.op!r} has no derivative", e.loc)
    if isinstance(e, ir.Call):          # the rule is the builtin's declaration (asc/builtins/math.py)
        dx = D(e.args[0])
        if is_zero(dx) and len(e.args) == 1:
            return dx
        rule = builtins.derivative(e.fn)
        if rule is None:
            raise AutodiffError(f"lang.{e.fn} has no derivative", e.loc)
        return rule(ALGEBRA, e, D)
    raise AutodiffError(f"cannot differentiate {type(e).__name__}", getattr(e, "loc", None))



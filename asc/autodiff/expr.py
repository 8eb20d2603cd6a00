"""Expressions for the generated backward: IR expressions printed as kernel-language Python, and their symbolic
derivatives with respect to one leaf (a tensor element read, or a row scalar)."""
from __future__ import annotations

from .. import ir
from .errors import AutodiffError

# ------------------------------------------------------------------ expressions as Python source

_PY_BIN = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**"}
_PY_CMP = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}


def _dtype(t: ir.ScalarType) -> str:
    return f"lang.{t.dtype.name if t.dtype.name != 'bool' else 'bool_'}"


def py(e) -> str:
    """An IR expression as kernel-language Python."""
    if isinstance(e, ir.Const):     # a float constant was already converted to its operand's type: a literal
        if e.type.weak or e.type.dtype.kind in "bf":
            return repr(e.value)
        return f"{_dtype(e.type)}({e.value!r})"
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
        return f"lang.cast({py(e.x)}, {_dtype(e.type)})"
    if isinstance(e, ir.Call):
        return f"lang.{e.fn}({', '.join(py(a) for a in e.args)})"
    if isinstance(e, ir.Binary):
        raise AutodiffError(f"the operator {e.op!r} is not differentiated (an index such as x[i // 2] reads one "
                            f"element from several iterations)", getattr(e, "loc", None))
    raise AutodiffError(f"cannot differentiate through {type(e).__name__}", getattr(e, "loc", None))


# ------------------------------------------------------------------ symbolic derivatives

def _c(v, like):
    t = like.type if isinstance(like.type, ir.ScalarType) else ir.WEAK_FLOAT
    return ir.Const(float(v), ir.ScalarType(t.dtype, weak=True) if t.dtype.kind == "f" else ir.WEAK_FLOAT)


def _is_zero(e):
    return isinstance(e, ir.Const) and e.value == 0


def _is_one(e):
    return isinstance(e, ir.Const) and e.value == 1


def _both_const(a, b):
    return isinstance(a, ir.Const) and isinstance(b, ir.Const) and a.type.weak and b.type.weak


def _mul(a, b):
    if _both_const(a, b):
        return _c(a.value * b.value, a)
    if _is_zero(a) or _is_zero(b):
        return _c(0, a)
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    return ir.Binary("mul", a, b, _rt(a, b))


def _add(a, b):
    if _both_const(a, b):
        return _c(a.value + b.value, a)
    if _is_zero(a):
        return b
    if _is_zero(b):
        return a
    return ir.Binary("add", a, b, _rt(a, b))


def _sub(a, b):
    if _both_const(a, b):
        return _c(a.value - b.value, a)
    if _is_zero(a):
        return _neg(b)
    if _is_zero(b):
        return a
    return ir.Binary("sub", a, b, _rt(a, b))


def _div(a, b):
    if _is_zero(a):
        return a
    return ir.Binary("truediv", a, b, _rt(a, b))


def _neg(a):
    if isinstance(a, ir.Const) and a.type.weak:
        return _c(-a.value, a)
    return a if _is_zero(a) else ir.Unary("neg", a, a.type)


def _call(fn, *args):
    return ir.Call(fn, args, args[0].type)


def _rt(a, b):
    return ir.promote(a.type, b.type)


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
        return _c(1, e) if leaf_key(e) == wrt else _c(0, e)
    if isinstance(e, ir.Const):
        return _c(0, e)
    if isinstance(e, ir.Cast):
        return D(e.x) if e.type.dtype.kind == "f" else _c(0, e)
    if isinstance(e, ir.Unary):
        return _neg(D(e.x)) if e.op == "neg" else _c(0, e)
    if isinstance(e, (ir.Compare, ir.Logical)):
        return _c(0, e)
    if isinstance(e, ir.Select):
        return ir.Select(e.cond, D(e.a), D(e.b), e.type)
    if isinstance(e, ir.Binary):
        a, b = e.a, e.b
        if e.op == "add":
            return _add(D(a), D(b))
        if e.op == "sub":
            return _sub(D(a), D(b))
        if e.op == "mul":
            return _add(_mul(D(a), b), _mul(a, D(b)))
        if e.op == "truediv":       # (a' b - a b') / b^2
            return _sub(_div(D(a), b), _div(_mul(a, D(b)), _mul(b, b)))
        if e.op == "pow":
            db = D(b)
            if not _is_zero(db):
                raise AutodiffError("a power with a varying exponent is not differentiated yet", e.loc)
            return _mul(_mul(b, ir.Binary("pow", a, _sub(b, _c(1, b)), e.type)), D(a))
        raise AutodiffError(f"the operator {e.op!r} has no derivative", e.loc)
    if isinstance(e, ir.Call):
        x = e.args[0]
        dx = D(x)
        if _is_zero(dx) and e.fn not in ("maximum", "minimum", "pow"):
            return dx
        if e.fn == "exp":
            return _mul(e, dx)
        if e.fn == "log":
            return _div(dx, x)
        if e.fn == "sqrt":
            return _div(dx, _mul(_c(2, x), e))
        if e.fn == "rsqrt":
            return _mul(_mul(_c(-0.5, x), _mul(e, _mul(e, e))), dx)
        if e.fn == "tanh":
            return _mul(_sub(_c(1, x), _mul(e, e)), dx)
        if e.fn == "sigmoid":
            return _mul(_mul(e, _sub(_c(1, x), e)), dx)
        if e.fn == "erf":           # 2/sqrt(pi) exp(-x^2)
            return _mul(_mul(_c(1.1283791670955126, x), _call("exp", _neg(_mul(x, x)))), dx)
        if e.fn == "sin":
            return _mul(_call("cos", x), dx)
        if e.fn == "cos":
            return _neg(_mul(_call("sin", x), dx))
        if e.fn == "abs":           # sign(x): 0 at x == 0, as torch and jax
            b = ir.ScalarType(ir.bool_)
            return ir.Select(ir.Compare("lt", x, _c(0, x), b), _neg(dx),
                             ir.Select(ir.Compare("gt", x, _c(0, x), b), dx, _c(0, dx), e.type), e.type)
        if e.fn in ("maximum", "minimum"):
            a, b = e.args
            cond = ir.Compare("ge" if e.fn == "maximum" else "le", a, b, ir.ScalarType(ir.bool_))
            return ir.Select(cond, D(a), D(b), e.type)
        if e.fn == "pow":
            a, b = e.args
            if not _is_zero(D(b)):
                raise AutodiffError("a power with a varying exponent is not differentiated yet", e.loc)
            return _mul(_mul(b, _call("pow", a, _sub(b, _c(1, b)))), D(a))
        raise AutodiffError(f"lang.{e.fn} has no derivative", e.loc)
    raise AutodiffError(f"cannot differentiate {type(e).__name__}", getattr(e, "loc", None))



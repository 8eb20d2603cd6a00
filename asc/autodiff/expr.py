"""Expressions for the generated backward: IR expressions printed as kernel-language Python, and their symbolic
derivatives with respect to one leaf (a tensor element read, or a row scalar)."""
from __future__ import annotations

import math
from types import SimpleNamespace

from .. import builtins, ir
from .refusals import AutodiffError

# ------------------------------------------------------------------ expressions as Python source

_PY_BIN = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "floordiv": "//", "mod": "%"}
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
        raise AutodiffError(f"the operator {e.op!r} is not differentiated", getattr(e, "loc", None))
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
    for s, o in ((a, b), (b, a)):
        # a factor that is zero on one branch (the derivative of `x if c else y`) takes the product inside: the
        # other branch is 0, not o * 0 (NaN for an infinite o), as torch.where's gradient
        if isinstance(s, ir.Select) and (is_zero(s.a) or is_zero(s.b)):
            return ir.Select(s.cond, mul(o, s.a), mul(o, s.b), _rt(a, b))
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


_BOOL = ir.ScalarType(ir.bool_)


def guarded_leaves(e, is_leaf) -> dict:
    """The distinct leaves of `e` accepted by `is_leaf` (key -> (a node, its guard)), in first-seen order. The guard
    is the condition under which the forward reads the leaf at all: a read in a branch of a conditional expression
    (`x[l - 3 + k] if l - 3 + k >= 0 else 0.0`) or in the right operand of `and`/`or` happens only when the
    condition holds. It is None when some read of the leaf is unconditional, else the disjunction of the paths'
    conditions (each a conjunction). The backward must write the leaf's gradient under the same guard: outside it
    the index may be out of bounds."""
    paths: dict = {}
    nodes: dict = {}

    def visit(x, path):
        if isinstance(x, (ir.Load, ir.Var)):
            if is_leaf(x):
                k = leaf_key(x)
                nodes.setdefault(k, x)
                paths.setdefault(k, []).append(path)
            return                          # (the indices of a read are not leaves of the value)
        if isinstance(x, ir.Select):
            visit(x.cond, path)
            visit(x.a, path + ((x.cond, True),))
            visit(x.b, path + ((x.cond, False),))
            return
        if isinstance(x, ir.Logical):
            visit(x.a, path)
            visit(x.b, path + ((x.a, x.op == "and"),))
            return
        for name in ir.EXPR_CHILDREN[type(x)]:
            v = getattr(x, name)
            for c in (v if isinstance(v, tuple) else (v,)):
                visit(c, path)
    visit(e, ())
    return {k: (nodes[k], _disjunction(ps)) for k, ps in paths.items()}


def _literal(cond, holds):
    return cond if holds else ir.Unary("not", cond, _BOOL)


def _disjunction(paths):
    if any(not p for p in paths):
        return None
    unique = []
    for p in paths:
        p = tuple(dict.fromkeys(p))             # a condition repeated along one path (nested selects on it)
        if p not in unique:
            unique.append(p)
    out = None
    for p in unique:
        conj = None
        for cond, holds in p:
            lit = _literal(cond, holds)
            conj = lit if conj is None else ir.Logical("and", conj, lit, _BOOL)
        out = conj if out is None else ir.Logical("or", out, conj, _BOOL)
    return out


def assume(e, guard):
    """`e` where `guard` holds: a conditional expression on one of the guard's conditions (when the guard is one
    conjunction) is replaced by the branch it takes, then products by one and sums with zero are simplified."""
    lits = {}
    stack = [guard]
    while stack:
        g = stack.pop()
        if isinstance(g, ir.Logical) and g.op == "and":
            stack += [g.a, g.b]
        elif isinstance(g, ir.Logical):
            return e                            # a disjunction: no branch is known
        elif isinstance(g, ir.Unary) and g.op == "not":
            lits[g.x] = False
        else:
            lits[g] = True

    def fn(x):
        if isinstance(x, ir.Select) and x.cond in lits:
            return simplify(ir.map_expr(x.a if lits[x.cond] else x.b, fn))
        return None
    return simplify(ir.map_expr(e, fn))


def simplify(e):
    """`e` with float products by one, sums with zero and products by zero folded (bottom-up; indices kept)."""
    def fn(x):
        if isinstance(x, ir.Load):
            return x                            # indices are kept as written
        if isinstance(x, ir.Binary) and x.op in ("add", "sub", "mul") and x.type.dtype.kind == "f":
            a, b = simplify(x.a), simplify(x.b)
            return {"add": add, "sub": sub, "mul": mul}[x.op](a, b)
        return None
    return ir.map_expr(e, fn)


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
        da, db = D(e.a), D(e.b)
        if is_zero(da) and is_zero(db):
            return const(0, e)
        return ir.Select(e.cond, da, db, e.type)
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
    if isinstance(e, ir.Call):          # the rule is the builtin's declaration (asc/builtins/math_functions.py)
        dx = D(e.args[0])
        if is_zero(dx) and len(e.args) == 1:
            return dx
        rule = builtins.derivative(e.fn)
        if rule is None:
            raise AutodiffError(f"lang.{e.fn} has no derivative", e.loc)
        return rule(ALGEBRA, e, D)
    raise AutodiffError(f"cannot differentiate {type(e).__name__}", getattr(e, "loc", None))



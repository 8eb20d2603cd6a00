"""Scalars before the loop computed on the host (issue 16).

A float scalar assigned before a vector plan's element loop from scalar parameters, sizes, constants and earlier
such scalars only (Adam's `bc2 = 1.0 - beta2 ** step`, `lang.sqrt(bc2)`) does not depend on tensor data or on the
block: asc evaluates it on the host, with the interpreter's meaning (a Python float is float64, NumPy's operators
and the builtins' own implementations), when it computes the tiling, and passes it in the tiling struct as a float
field `hs_<name>`, rounded once to float32. The IR reads such a value in the loop through `float32(c)` (where it
meets a float32 element), so the kernel's value is bit-equal to the interpreter's. The AI core computes in float32
only what is not known on the host (a scalar of a block-varying value stays on the core).

`host_expr(e, known)` says whether an expression can be evaluated here; `evaluate(e, env)` evaluates it;
`host_values(plan, scalars, symbols)` gives the tiling fields of a plan (and of each phase of a phased plan)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ... import ir

FIELD_PREFIX = "hs_"
_FLOAT_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide, "pow": np.power}
_INT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}
_CMP = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
        "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
_NP_FLOAT = {"float64": np.float64, "float32": np.float32}


class NotHost(Exception):
    """The expression has no host evaluation here (it stays on the AI core)."""


def field_name(var: str) -> str:
    return FIELD_PREFIX + var


def _ftype(t):
    """The NumPy type a float value of IR type t is computed in: float64 for a Python float, else its dtype."""
    if t.weak:
        return np.float64
    npt = _NP_FLOAT.get(t.dtype.name)
    if npt is None:
        raise NotHost(t.dtype.name)            # 16-bit floats: computed in float32 by the interpreter; left to the core
    return npt


def _num(v, t):
    k = t.dtype.kind
    if k == "f":
        return _ftype(t)(v)
    if k == "b":
        return bool(v)
    if k in "iu" and t.weak:
        return int(v)
    raise NotHost(t.dtype.name)


def evaluate(e, env: dict):
    """The value of the scalar expression e for the values `env` (name -> Python / NumPy number), as the
    interpreter computes it. Raises NotHost for what is not evaluated on the host."""
    from ...builtins.table import BUILTINS
    with np.errstate(all="ignore"):
        if isinstance(e, ir.Const):
            return _num(e.value, e.type)
        if isinstance(e, ir.Var):
            if e.name not in env or not isinstance(e.type, ir.ScalarType):
                raise NotHost(e.name)
            return _num(env[e.name], e.type)
        if isinstance(e, ir.Unary) and e.op == "neg":
            x = evaluate(e.x, env)
            return _num(-x, e.type)
        if isinstance(e, ir.Unary) and e.op == "not":
            return not evaluate(e.x, env)
        if isinstance(e, ir.Binary):
            a, b = evaluate(e.a, env), evaluate(e.b, env)
            k = e.type.dtype.kind
            if k == "f" and e.op in _FLOAT_OPS:
                t = _ftype(e.type)
                return t(_FLOAT_OPS[e.op](t(a), t(b)))
            if k in "iu" and e.type.weak and e.op in _INT_OPS:
                return int(_INT_OPS[e.op](int(a), int(b)))
            raise NotHost(e.op)
        if isinstance(e, ir.Compare):
            return bool(_CMP[e.op](evaluate(e.a, env), evaluate(e.b, env)))
        # both sides of `and`, `or` and `a if c else b` are evaluated (they have no effects), so that whether an
        # expression is known on the host (a trial with sample values, host_expr) does not depend on the values
        if isinstance(e, ir.Logical):
            a, b = bool(evaluate(e.a, env)), bool(evaluate(e.b, env))
            return (a and b) if e.op == "and" else (a or b)
        if isinstance(e, ir.Select):
            c, a, b = evaluate(e.cond, env), evaluate(e.a, env), evaluate(e.b, env)
            return _num(a if c else b, e.type)
        if isinstance(e, ir.Cast):
            x = evaluate(e.x, env)
            if e.type.dtype.kind == "f" and not (e.explicit and e.type.dtype.bits == 16):
                return _num(x, e.type)
            raise NotHost("cast")
        if isinstance(e, ir.Call) and e.type.dtype.kind == "f" and e.fn in BUILTINS and e.type.weak:
            args = [evaluate(a, env) for a in e.args]
            if any(not isinstance(a, (float, np.float64)) for a in args):
                raise NotHost(e.fn)
            r = BUILTINS[e.fn](*[float(a) for a in args])   # the interpreter's implementation on Python floats
            if not isinstance(r, float):
                raise NotHost(e.fn)
            return np.float64(r)
    raise NotHost(type(e).__name__)


def host_expr(e, known: dict) -> bool:
    """Whether e can be evaluated on the host from the names in `known` (name -> a sample value of its type):
    a trial evaluation, so that exactly what `evaluate` accepts is placed on the host."""
    try:
        evaluate(e, known)
    except (NotHost, KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return False
    return True


def sample(t) -> object:
    """A value of scalar type t for a trial evaluation."""
    k = t.dtype.kind
    return True if k == "b" else (1 if k in "iu" else 0.5)


def _env(kernel, scalars: dict, symbols: dict) -> dict:
    env = {}
    for prm in kernel.entry.params:
        t = prm.var.type
        if isinstance(t, ir.ScalarType):
            v = scalars.get(prm.var.name, 0)
            env[prm.var.name] = v
    env.update({s: int(v) for s, v in symbols.items()})
    return env


def host_values(plan, scalars, symbols: dict) -> dict:
    """{field: value} of the host scalars of `plan` (each phase's with its `p<i>_` prefix): float32 values, rounded
    once from the interpreter's value. `scalars` None (an estimate that needs no values): NaN."""
    out = {}
    for prefix, q in ([(f"p{i}_", q) for i, q in enumerate(plan.phases)] if plan.kind == "phased" else [("", plan)]):
        host = getattr(q, "host", None)
        if not host:
            continue
        env = _env(q.kernel, scalars, symbols) if scalars is not None else None
        for name, expr in host:
            if env is None:
                out[prefix + field_name(name)] = np.float32(math.nan)
                continue
            v = evaluate(expr, env)
            env[name] = v
            with np.errstate(all="ignore"):          # a float64 value beyond float32 rounds to inf, as in NumPy
                out[prefix + field_name(name)] = np.float32(v)
    return out


def host_fields(plan) -> list:
    """The tiling fields of the host scalars of a map or row plan."""
    return [(field_name(name), "float") for name, _ in getattr(plan, "host", ())]


def host_doc(plan) -> dict:
    """The comment of each host scalar's tiling field."""
    return {field_name(name): f"{name}, computed on the host in float64 (as the interpreter), rounded to float32"
            for name, _ in getattr(plan, "host", ())}


def host_params(plan) -> set:
    """The scalar parameters the host scalars of `plan` (and its phases) are computed from."""
    names = set()
    for q in (plan.phases if plan.kind == "phased" else [plan]):
        for _, expr in getattr(q, "host", ()):
            names |= _vars(expr)
    params = {p.var.name for p in plan.kernel.entry.params if isinstance(p.var.type, ir.ScalarType)}
    return names & params


def _vars(e) -> set:
    if isinstance(e, ir.Var):
        return {e.name}
    out = set()
    for f in ("x", "a", "b", "cond"):
        if hasattr(e, f):
            out |= _vars(getattr(e, f))
    for a in getattr(e, "args", ()):
        out |= _vars(a)
    return out


def words(values: list, fields: list) -> np.ndarray:
    """The tiling struct's uint32 words: a float field as its float32 bits."""
    return np.array([np.float32(v).view(np.uint32) if ct == "float" else v for v, (_, ct) in zip(values, fields)],
                    dtype=np.uint32)


def c_float(v) -> str:
    """A C++ float literal of exactly the float32 value v."""
    v = float(np.float32(v))
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return f"{v.hex()}f"


def _names(stmts) -> set:
    out = set()
    for s in ir.walk_stmts(stmts):
        for e in ir.stmt_exprs(s):
            if isinstance(e, ir.Var):
                out.add(e.name)
    return out


def hoisted(body: list, known: dict) -> list:
    """`body` with each subexpression of its loops that the host can compute and that meets float32 data (the
    operand of a conversion to float32: `float32(1.0 - beta2)` in Adam's `(1.0 - beta2) * g[i]`) replaced by a new
    scalar assigned before the first loop, so that the host computes it in float64 and rounds it once, as the
    interpreter does (on the core it would be float32 arithmetic on float32 parameters). Names assigned in a loop
    are not known there."""
    loops = [s for s in body if isinstance(s, ir.For)]
    if not loops:
        return list(body)
    assigned = {s.var.name for s in ir.walk_stmts(loops) if isinstance(s, ir.Assign)}
    assigned |= {s.var.name for s in ir.walk_stmts(loops) if isinstance(s, ir.For)}
    known = {n: v for n, v in known.items() if n not in assigned}
    taken = _names(body)
    new, seen = [], {}

    def fresh() -> str:
        k = len(new)
        while f"hs{k}" in taken:
            k += 1
        taken.add(f"hs{k}")
        return f"hs{k}"

    def fn(e):
        if (isinstance(e, ir.Cast) and e.type.dtype.name == "float32" and not e.type.weak
                and not isinstance(e.x, (ir.Var, ir.Const)) and host_expr(e.x, known)):
            if e.x not in seen:
                v = ir.Var(fresh(), e.x.type, e.x.loc)
                seen[e.x] = v
                new.append(ir.Assign(v, e.x, getattr(e.x, "loc", None) or e.loc))
            return ir.Cast(seen[e.x], e.type, e.loc, e.explicit)
        return None

    def stmt(s):
        if isinstance(s, (ir.For, ir.While)):
            s = _map_fields(s, fn)
            return dataclasses.replace(s, body=tuple(stmt(x) for x in s.body))
        if isinstance(s, ir.If):
            s = _map_fields(s, fn)
            return dataclasses.replace(s, then=tuple(stmt(x) for x in s.then), orelse=tuple(stmt(x) for x in s.orelse))
        return _map_fields(s, fn)

    first = body.index(loops[0])
    rest = [stmt(s) if i >= first else s for i, s in enumerate(body)]
    if not new:
        return list(body)
    return rest[:first] + new + rest[first:]


def _map_fields(s, fn):
    fields = {}
    for name in ir.STMT_EXPRS.get(type(s), ()):
        if name in ("var", "tensor", "dst"):
            continue
        v = getattr(s, name)
        fields[name] = tuple(ir.map_expr(x, fn) for x in v) if isinstance(v, tuple) else ir.map_expr(v, fn)
    return dataclasses.replace(s, **fields) if fields else s

"""The pass `inline_calls`: a call of a device function whose body is straight-line scalar code (scalar
assignments, then `return <scalar>`) becomes that expression, with the call's arguments in place of the parameters.

Autodiff reads kernels as expressions of tensor elements and row scalars; a device function call is opaque to it,
so it runs this pass first (an `@lang.vectorize` kernel is one such call per element). The result computes what the
call computed: each argument is converted to its parameter's type and the returned value to the function's return
type, as the call does. Functions with loops, branches, tensor parameters or stores, calls that remain calls
(recursion), and calls whose arguments call functions that stay calls (their effects must not be repeated) are
kept as they are.
"""
from __future__ import annotations

from dataclasses import replace

from .. import ir
from .rewrite import each_function, map_exprs


def _convert(e, t):
    return e if e.type == t else ir.Cast(e, t, getattr(e, "loc", None))


class _Inliner:
    def __init__(self, k: ir.Kernel):
        self.fns = {f.name: f for f in k.funcs}
        self.bodies: dict = {}          # function name -> (params, returned expression) or None
        self.active: set = set()

    def body_of(self, name):
        if name in self.bodies:
            return self.bodies[name]
        fn = self.fns.get(name)
        if fn is None or name in self.active:
            return None
        self.active.add(name)
        try:
            got = self._read(fn)
        finally:
            self.active.discard(name)
        self.bodies[name] = got
        return got

    def _read(self, fn: ir.Function):
        if not isinstance(fn.ret, ir.ScalarType) or not all(isinstance(p.var.type, ir.ScalarType) for p in fn.params):
            return None
        stmts = list(fn.body)
        if not stmts or not isinstance(stmts[-1], ir.Return) or stmts[-1].value is None:
            return None
        env: dict = {}
        for s in stmts[:-1]:
            if not (isinstance(s, ir.Assign) and isinstance(s.var.type, ir.ScalarType)):
                return None
            env[s.var.name] = _convert(self.expr(s.value, env), s.var.type)
        ret = stmts[-1].value
        if not isinstance(ret.type, ir.ScalarType):
            return None
        e = _convert(self.expr(ret, env), fn.ret)
        if any(isinstance(x, ir.FuncCall) for x in ir.walk_expr(e)):
            return None
        return tuple(p.var for p in fn.params), e

    def expr(self, e, env):
        """`e` with the names of `env` replaced by their expressions and inlinable calls inlined."""
        def fn(x):
            if isinstance(x, ir.Var) and x.name in env:
                return env[x.name]
            if isinstance(x, ir.Load):
                return replace(x, indices=tuple(self.expr(i, env) for i in x.indices))
            if isinstance(x, ir.FuncCall):
                args = tuple(self.expr(a, env) for a in x.args)
                got = self.body_of(x.func)
                if got is None or any(isinstance(y, ir.FuncCall) for a in args for y in ir.walk_expr(a)):
                    return replace(x, args=args)
                params, body = got
                inner = {p.name: _convert(a, p.type) for p, a in zip(params, args)}
                return _convert(ir.map_expr(body, lambda y: inner.get(y.name) if isinstance(y, ir.Var) else None),
                                x.type)
            return None
        return ir.map_expr(e, fn)


def inline_calls(k: ir.Kernel, options: dict | None = None) -> ir.Kernel:
    """`k` with every call of a straight-line scalar device function replaced by its expression; the device
    functions still called are kept."""
    if not k.funcs:
        return k
    inl = _Inliner(k)

    def one(f: ir.Function) -> ir.Function:
        body = map_exprs(f.body, lambda x: inl.expr(x, {}) if isinstance(x, ir.FuncCall) else None)
        return f if body == f.body else replace(f, body=body)
    k = each_function(k, one)
    fns = {f.name: f for f in k.funcs}
    called, todo = set(), [k.entry]
    while todo:
        for s in ir.walk_stmts(todo.pop().body):
            for e in ir.stmt_exprs(s):
                if isinstance(e, ir.FuncCall) and e.func not in called and e.func in fns:
                    called.add(e.func)
                    todo.append(fns[e.func])
    return replace(k, funcs=tuple(f for f in k.funcs if f.name in called))

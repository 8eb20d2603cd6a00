"""What a call of a kernel must do, derived from its IR: the bytes it moves (each tensor argument or output it reads
or writes, once) and the arithmetic it does (each operation in a loop body times the loop's trip count)."""
from __future__ import annotations

import math

from .. import ir

FLOP_OPS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow"}


def static_value(e, env):  # (also the ascend cost model's: asc/backends/ascend/cost_model.py)
    """The value of an index expression from constants and sizes, or None when it depends on data."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Var):
        return env.get(e.name)
    if isinstance(e, ir.Binary):
        a, b = static_value(e.a, env), static_value(e.b, env)
        if a is None or b is None:
            return None
        try:
            return {"add": a + b, "sub": a - b, "mul": a * b, "floordiv": a // b if b else None,
                    "mod": a % b if b else None}.get(e.op)
        except TypeError:
            return None
    return None




def _expr_flops(e) -> int:
    n = 0
    for x in ir.walk_expr(e):
        if isinstance(x, ir.Binary) and x.op in FLOP_OPS and x.type.dtype.kind == "f":
            n += 1
        elif isinstance(x, ir.Call) and x.type.dtype.kind == "f":
            n += 1          # a math function counts as one operation
        elif isinstance(x, ir.Unary) and x.op == "neg" and x.type.dtype.kind == "f":
            n += 1
    return n


def _stmts_flops(stmts, env, exact):
    total = 0
    for s in stmts:
        if isinstance(s, ir.For):
            start, stop, step = (static_value(x, env) for x in (s.start, s.stop, s.step))
            if None in (start, stop, step) or step == 0:
                trips, exact[0] = 1, False
            else:
                trips = len(range(int(start), int(stop), int(step)))
            total += trips * _stmts_flops(s.body, env, exact)
        elif isinstance(s, ir.While):
            exact[0] = False       # data-dependent: counted once
            total += _stmts_flops(s.body, env, exact)
        elif isinstance(s, ir.If):
            total += max(_stmts_flops(s.then, env, exact), _stmts_flops(s.orelse, env, exact))
        elif isinstance(s, ir.MatMul):
            dims = [static_value(x, env) for x in s.dst.shape + (s.a.shape[-1],)]
            if None in dims:
                exact[0] = False
            else:
                total += 2 * math.prod(dims)
        else:
            total += sum(_expr_flops(e) for name in ir.STMT_EXPRS[type(s)]
                         for e in _as_tuple(getattr(s, name)))
    return total


def _as_tuple(v):
    return v if isinstance(v, tuple) else (v,)


def _numel(t: ir.TensorType, env) -> int:
    return math.prod(d if isinstance(d, int) else env[d.name] for d in t.shape)


def call_cost(k: ir.Kernel, symbols: dict) -> tuple:
    """(bytes moved, floating-point operations, exact): exact is False when a loop's trip count depends on data
    (then such a loop counts once)."""
    env = dict(symbols)
    body = k.entry.body
    loaded, stored = set(), set()
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.Store):
            stored.add(s.tensor.name)
        for e in ir.stmt_exprs(s):
            if isinstance(e, ir.Load):
                loaded.add(e.tensor.name)
            if isinstance(e, ir.View):
                loaded.add(e.tensor.name)
            if isinstance(e, ir.FuncCall):          # tensors passed to device functions: assume read
                loaded.update(a.name for a in e.args if isinstance(a, ir.Var) and isinstance(a.type, ir.TensorType))
    written = ir.written_params(k)[k.entry.name] | stored
    nbytes = 0
    for p in k.entry.params:
        t = p.var.type
        if isinstance(t, ir.TensorType):
            n = _numel(t, env) * t.dtype.itemsize
            nbytes += n * ((p.var.name in loaded) + (p.var.name in written))
    for s in body:
        if isinstance(s, ir.Alloc) and s.output is not None:
            nbytes += _numel(s.var.type, env) * s.var.type.dtype.itemsize
    exact = [True]
    flops = _stmts_flops(body, env, exact)
    return nbytes, flops, exact[0]

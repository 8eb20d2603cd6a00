"""Device functions (`@lang.func`): one specialization per argument types, recursion included."""
from __future__ import annotations

import inspect

from .. import ir
from ..errors import CompileError, KernelTypeError
from .builder import UNKNOWN, FunctionBuilder

MAX_ROUNDS = 8


def _key(pyfunc, arg_types):
    return (pyfunc.__code__, tuple(arg_types))


def specialize(ctx, pyfunc, arg_types, call_loc):
    """The unique name and return type of `pyfunc` specialized for `arg_types`; builds it if needed."""
    key = _key(pyfunc, arg_types)
    if key in ctx.funcs:
        f = ctx.funcs[key]
        return f.name, f.ret
    if key in ctx.in_progress:           # a recursive call: the current guess of the return type
        name, guess = ctx.in_progress[key]
        return name, guess if guess is not None else UNKNOWN
    sig = inspect.signature(pyfunc)
    names = list(sig.parameters)
    if len(names) != len(arg_types):
        raise CompileError(f"{pyfunc.__name__}() takes {len(names)} argument(s) but {len(arg_types)} were given",
                           call_loc)
    name = ctx.unique(f"{pyfunc.__name__}")
    ctx.in_progress[key] = (name, None)
    params = [ir.Var(n, t) for n, t in zip(names, arg_types)]
    var_types: dict = {}
    consts: dict = {}
    guess = None
    try:
        for _ in range(MAX_ROUNDS):
            fb = FunctionBuilder(ctx, pyfunc, params, False, name, var_types, guess, consts)
            body = fb.build()
            ret = _return_type(fb)
            if not fb.changed and ret == guess:
                break
            guess = ret
            ctx.in_progress[key] = (name, guess)
        else:
            raise CompileError(f"the types in {pyfunc.__name__!r} do not settle", fb.loc(fb.src.tree))
        if ret == UNKNOWN:
            raise CompileError(f"cannot infer the return type of the recursive function {pyfunc.__name__!r}; "
                               f"give it a non-recursive return path", fb.loc(fb.src.tree))
        for t in var_types.values():
            if t == UNKNOWN:
                raise CompileError(f"cannot infer a variable type in {pyfunc.__name__!r}", fb.loc(fb.src.tree))
    finally:
        ctx.in_progress.pop(key, None)
    locals_ = tuple(ir.Var(n, t) for n, t in var_types.items() if n in fb.assigned_vars or n in names)
    fn = ir.Function(name, pyfunc.__name__, tuple(ir.Param(v, i) for i, v in enumerate(params)), body, ret,
                     locals_, fb.loc(fb.src.tree))
    ctx.funcs[key] = fn
    ctx.order.append(key)
    return name, ret


def _return_type(fb: FunctionBuilder):
    ret = None
    for value, node in fb.returns:
        if value is None:
            t = ir.NONE
        elif isinstance(value.type, ir.TensorType) or isinstance(value.type, ir.TupleType):
            raise fb.error("device functions return scalars (write results into a tensor argument instead)", node)
        else:
            t = value.type
        if ret is None or ret == UNKNOWN:
            ret = t
        elif t != UNKNOWN and t != ret:
            u = ir.unify(ret, t) if isinstance(ret, ir.ScalarType) and isinstance(t, ir.ScalarType) else None
            if u is None:
                raise fb.error(f"{fb.pyfunc.__name__!r} returns {ret!r} and {t!r}", node, KernelTypeError)
            ret = u
    return ir.NONE if ret is None else ret

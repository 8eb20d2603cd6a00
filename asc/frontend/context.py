"""What the builders of one kernel share: options, sizes, and the specializations of the device functions it calls
(`@lang.func`: one per argument types, recursion included), plus the small values the builders pass around."""
from __future__ import annotations

import inspect
from collections import Counter

from .. import ir
from ..errors import CompileError, KernelTypeError
from ..ir.sizes import SIZE_PARAM_SUFFIX, SIZE_PREFIX

MAX_ROUNDS = 8                  # builds of one function until its variable types settle
UNKNOWN = ir.ScalarType(ir.DType("unknown", "?", 0, "void"))   # the type of a recursive call not yet typed


def size_param_symbol(param: str) -> str:
    """The size symbol of an int parameter used as a size of an allocation (`lang.empty((n_heads, T))`): its value
    when shapes are specialized, a run-time size with dynamic_shape=True. Reserved (lang.dim refuses names starting
    with "asc_"), and unlike a free axis's symbol (asc_dim_PARAM_AXIS) it does not end in a digit."""
    return f"{SIZE_PREFIX}{param}{SIZE_PARAM_SUFFIX}"


class SizeParamNeeded(CompileError):
    """Raised by the frontend when an allocation's shape uses int parameter `param` whose size the build was not
    given: the caller (asc/dispatch) binds it (size_param_symbol) and builds again."""

    def __init__(self, msg: str, loc=None, notes: tuple = (), param: str | None = None):
        super().__init__(msg, loc, notes)
        self.param = param


class DeviceFunc:
    """A Python function callable from kernels (a @lang.func, or a @staticmethod of a namespace class)."""

    def __init__(self, pyfunc):
        self.pyfunc = pyfunc


class PendingAlloc:
    """A pending allocation (lang.zeros, lang.empty_like, ...), named when it is assigned."""

    def __init__(self, type_, init, fill, loc, space="global"):
        self.type, self.init, self.fill, self.loc, self.space = type_, init, fill, loc, space


class BuildContext:
    """State shared by the kernel and the device functions it calls: options, sizes, specializations."""

    def __init__(self, symbols: dict, dynamic: bool, fused: bool = False, ret_spec=None, cube: bool = False):
        self.symbols = symbols          # size name -> int (specialized) or ir.Sym (dynamic)
        self.sizes: dict = {}           # dynamic sizes that are expressions of sizes: its text -> ir.SizeDef
        self.dynamic = dynamic
        self.fused = fused              # @lang.fused_kernel: tensor expressions inline and fuse around matmuls
        self.epilogues = bool(fused or cube)    # an expression of a matmul becomes its epilogue (fused, cube)
        self.ret_spec = ret_spec        # the kernel's return annotation (the dtype of a returned expression)
        self.funcs: dict = {}           # key -> ir.Function (finished)
        self.order: list = []           # finished function keys, callees first
        self.in_progress: dict = {}     # key -> (unique name, current return type guess)
        self.names: Counter = Counter()

    def unique(self, base: str) -> str:
        self.names[base] += 1
        return base if self.names[base] == 1 else f"{base}_{self.names[base]}"


def function_locals(fb, var_types: dict, names) -> tuple:
    """The scalar locals of a built function, in the order their names were first seen."""
    return tuple(ir.Var(n, t) for n, t in var_types.items() if n in fb.assigned_vars or n in names)


# ------------------------------------------------------------------ device functions

def specialize(ctx: BuildContext, builder_cls, pyfunc, arg_types, call_loc):
    """The unique name and return type of `pyfunc` specialized for `arg_types`; builds it (with `builder_cls`, the
    FunctionBuilder) if needed."""
    key = (pyfunc.__code__, tuple(arg_types))
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
            fb = builder_cls(ctx, pyfunc, params, False, name, var_types, guess, consts)
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
    fn = ir.Function(name, pyfunc.__name__, tuple(ir.Param(v, i) for i, v in enumerate(params)), body, ret,
                     function_locals(fb, var_types, names), fb.loc(fb.src.tree))
    ctx.funcs[key] = fn
    ctx.order.append(key)
    return name, ret


def _return_type(fb):
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

"""A kernel's parameters, read from its annotations: tensor (dtype, dims), scalar (dtype or Python int/float), or
typed from the call's argument."""
from __future__ import annotations

import builtins
import inspect
from dataclasses import dataclass

from .. import ir
from ..errors import CompileError
from ..dtypes import Dim, DTypeHandle, TensorAnnotation
from .source import closure_values, get_source

NO_DEFAULT = inspect.Parameter.empty


@dataclass(frozen=True)
class ParamSpec:
    name: str
    index: int
    kind: str                 # "tensor" | "scalar" | "any" (typed from the argument)
    dtype: object = None      # ir.DType or None (any)
    dims: tuple | None = None # of int | str (a size symbol) | None (any size); None: any rank
    weak: bool = False        # `int` / `float` / `bool` annotation: a Python number
    default: object = NO_DEFAULT
    loc: object = None
    kwonly: bool = False


@dataclass(frozen=True)
class ReturnSpec:
    kind: str                 # "tensor" | "scalar" | "tuple" | "none"
    dtype: object = None
    dims: tuple | None = None
    weak: bool = False
    elems: tuple = ()


class _AnnotationNamespace(dict):
    """Evaluates string annotations: unknown bare names become size symbols."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.closure = closure_values(fn)

    def __missing__(self, name):
        if name in self.closure:
            return self.closure[name]
        if name in self.fn.__globals__:
            return self.fn.__globals__[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        return Dim(name)


def _eval_annotation(fn, ann, loc):
    if not isinstance(ann, str):
        return ann
    try:
        return eval(ann, {"__builtins__": {}}, _AnnotationNamespace(fn))  # noqa: S307 - the user's own annotation
    except Exception as e:
        raise CompileError(f"cannot evaluate the annotation {ann!r}: {e}", loc) from None


def _dims(dims, loc):
    out = []
    for d in dims:
        if isinstance(d, Dim):
            out.append(d.name)
        elif isinstance(d, bool):
            raise CompileError(f"a tensor dimension must be an int or a size symbol, got {d!r}", loc)
        elif isinstance(d, int):
            if d < 0:
                raise CompileError(f"a tensor dimension cannot be negative ({d})", loc)
            out.append(d)
        elif d is None or d is Ellipsis:
            out.append(None)
        else:
            raise CompileError(f"a tensor dimension must be an int or a size symbol (lang.dim), got {d!r}", loc)
    return tuple(out)


def _classify(value, loc, what):
    """(kind, dtype, dims, weak) for an evaluated annotation."""
    if isinstance(value, TensorAnnotation):
        return ("tensor", value.dtype.ir if value.dtype is not None else None,
                None if value.dims is None else _dims(value.dims, loc), False)
    if isinstance(value, DTypeHandle):
        return ("scalar", value.ir, None, False)
    if value is int:
        return ("scalar", ir.int64, None, True)
    if value is float:
        return ("scalar", ir.float64, None, True)
    if value is bool:
        return ("scalar", ir.bool_, None, True)
    raise CompileError(f"unsupported annotation for {what}: {value!r} (use lang.float32[N], lang.float32, int, "
                       f"float or lang.Tensor)", loc)


_sig_cache: dict = {}


def read_signature(fn):
    hit = _sig_cache.get(fn)
    if hit is not None:
        return hit
    src = get_source(fn)
    sig = inspect.signature(fn)
    args = src.tree.args
    nodes = {a.arg: a for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg or args.kwarg:
        node = args.vararg or args.kwarg
        raise CompileError("unsupported Python feature: *args / **kwargs in a kernel signature", src.loc(node))
    specs = []
    for i, (name, p) in enumerate(sig.parameters.items()):
        node = nodes.get(name)
        loc = src.loc(node.annotation if node is not None and node.annotation is not None else node)
        if p.annotation is inspect.Parameter.empty:
            specs.append(ParamSpec(name, i, "any", default=p.default, loc=loc, kwonly=p.kind == p.KEYWORD_ONLY))
            continue
        kind, dtype, dims, weak = _classify(_eval_annotation(fn, p.annotation, loc), loc, f"parameter {name!r}")
        specs.append(ParamSpec(name, i, kind, dtype, dims, weak, p.default, loc, p.kind == p.KEYWORD_ONLY))
    ret = None
    if sig.return_annotation is not inspect.Signature.empty:
        loc = src.loc(src.tree.returns)
        value = _eval_annotation(fn, sig.return_annotation, loc)
        if value is None:
            ret = ReturnSpec("none")
        elif isinstance(value, tuple):
            elems = tuple(ReturnSpec(*_classify(v, loc, "the return value")[:3]) for v in value)
            ret = ReturnSpec("tuple", elems=elems)
        else:
            kind, dtype, dims, weak = _classify(value, loc, "the return value")
            ret = ReturnSpec(kind, dtype, dims, weak)
    out = (tuple(specs), ret)
    _sig_cache[fn] = out
    return out


def retyped(fn, new: dict):
    """`asc compile --dtype x=float16` on a kernel annotated `x: lang.float32[N]`: a copy of the kernel function `fn`
    whose annotations give the parameters of `new` ({name: DTypeHandle}) those dtypes instead, and what changed (a
    list of "x: float32 -> float16"). The return annotation's dtype (each element's, for a tuple) follows when it is
    the dtype the retyped parameters had, they all get the same new one, and no other tensor parameter is annotated
    with it (gelu's `-> lang.float32[N]`: the kernel in another precision); other parameters keep theirs. A
    parameter annotated without a dtype (lang.Tensor, none) is typed by the call anyway and stays as it is; a Python
    number (int, float, bool) has no dtype to retype: CompileError at its annotation."""
    import types

    from ..dtypes import HANDLES
    specs, _ = read_signature(fn)
    by_name = {s.name: s for s in specs}
    sig = inspect.signature(fn)
    anns = dict(getattr(fn, "__annotations__", {}))
    changed, pairs = [], set()
    for name, h in new.items():
        s = by_name[name]
        if s.weak:
            raise CompileError(f"parameter {name!r} is annotated as a Python number: it has no dtype to retype "
                               f"(annotate it lang.float32, lang.int32, ... to choose one)", s.loc)
        if s.dtype is None or s.dtype == h.ir:
            continue
        value = _eval_annotation(fn, sig.parameters[name].annotation, s.loc)
        anns[name] = TensorAnnotation(h, value.dims) if isinstance(value, TensorAnnotation) else h
        changed.append(f"{name}: {s.dtype.name} -> {h.ir.name}")
        pairs.add((s.dtype, h.ir))
    kept = {s.dtype for s in specs if s.name not in new and s.kind == "tensor" and s.dtype is not None}
    if "return" in anns and len(pairs) == 1 and next(iter(pairs))[0] not in kept:
        (old, to), = pairs
        src = get_source(fn)
        value = _eval_annotation(fn, sig.return_annotation, src.loc(src.tree.returns))
        elems = value if isinstance(value, tuple) else (value,)
        out = []
        for v in elems:
            if isinstance(v, TensorAnnotation) and v.dtype is not None and v.dtype.ir == old:
                v = TensorAnnotation(HANDLES[to], v.dims)
            elif isinstance(v, DTypeHandle) and v.ir == old:
                v = HANDLES[to]
            out.append(v)
        if any(a is not b for a, b in zip(out, elems)):
            anns["return"] = tuple(out) if isinstance(value, tuple) else out[0]
            changed.append(f"the return value: {old.name} -> {to.name}")
    if not changed:
        return fn, changed
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    g.__qualname__, g.__module__, g.__doc__, g.__kwdefaults__ = fn.__qualname__, fn.__module__, fn.__doc__, \
        fn.__kwdefaults__
    g.__annotations__ = anns
    return g, changed

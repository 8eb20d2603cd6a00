"""Reverse-mode differentiation of element-level map kernels, from their IR.

`asc.grad(kernel)` gives a callable `grads = g(*inputs, grad_output)` returning the gradient of each float tensor
input. The backward is itself an asc kernel: its Python source is generated from the forward's IR (each output
element's expression, differentiated symbolically), written to the cache directory, and compiled like any kernel,
so it runs on every target, the interpreter included, and can be read (`g.source(*args)`).

Supported: kernels whose loops (for over ranges) store each output element once, at the loop indices, from
expressions of input elements at those same indices, scalars and constants (a map, possibly 2-D). Refused, with
the line and the reason: writes at data-dependent or shifted indices, reads of other elements (stencils,
reductions), while loops and branches, in-place updates of an input, tensor outputs that are not allocated.
"""
from __future__ import annotations

from . import ir
from .errors import CompileError


class AutodiffError(CompileError):
    """The kernel cannot be differentiated automatically (the message says why, at its line)."""


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
    raise AutodiffError(f"cannot differentiate through {type(e).__name__}", getattr(e, "loc", None))


# ------------------------------------------------------------------ symbolic derivatives

def _c(v, like):
    t = like.type if isinstance(like.type, ir.ScalarType) else ir.WEAK_FLOAT
    return ir.Const(float(v), ir.ScalarType(t.dtype, weak=True) if t.dtype.kind == "f" else ir.WEAK_FLOAT)


def _is_zero(e):
    return isinstance(e, ir.Const) and e.value == 0


def _is_one(e):
    return isinstance(e, ir.Const) and e.value == 1


def _mul(a, b):
    if _is_zero(a) or _is_zero(b):
        return _c(0, a)
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    return ir.Binary("mul", a, b, _rt(a, b))


def _add(a, b):
    if _is_zero(a):
        return b
    if _is_zero(b):
        return a
    return ir.Binary("add", a, b, _rt(a, b))


def _sub(a, b):
    if _is_zero(b):
        return a
    return ir.Binary("sub", a, b, _rt(a, b))


def _div(a, b):
    if _is_zero(a):
        return a
    return ir.Binary("truediv", a, b, _rt(a, b))


def _neg(a):
    return a if _is_zero(a) else ir.Unary("neg", a, a.type)


def _call(fn, *args):
    return ir.Call(fn, args, args[0].type)


def _rt(a, b):
    return ir.promote(a.type, b.type)


def derivative(e, wrt: str, memo: dict):
    """d e / d (the element of tensor `wrt` at the map's index)."""
    key = (id(e), wrt)
    if key in memo:
        return memo[key][1]
    d = _derivative(e, wrt, memo)
    memo[key] = (e, d)         # keep e alive: ids stay unique
    return d


def _derivative(e, wrt, memo):
    D = lambda x: derivative(x, wrt, memo)  # noqa: E731
    if isinstance(e, ir.Load):
        return _c(1, e) if e.tensor.name == wrt else _c(0, e)
    if isinstance(e, (ir.Const, ir.Var)):
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
        if e.fn == "abs":
            return ir.Select(ir.Compare("lt", x, _c(0, x), ir.ScalarType(ir.bool_)), _neg(dx), dx, e.type)
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


# ------------------------------------------------------------------ the map's structure

def _refuse(msg, loc):
    raise AutodiffError(f"cannot differentiate automatically: {msg}", loc)


def _map_structure(k: ir.Kernel):
    """(loops, stores): the loop nest and, per output tensor, its stored expression with local scalars inlined."""
    body = k.entry.body
    loops, env = [], {}
    stores = {}
    outputs = {o.index for o in k.outputs if o.kind == "alloc"}
    allocs = {s.var.name: s for s in body if isinstance(s, ir.Alloc)}
    params = {p.var.name for p in k.entry.params}
    if any(o.kind != "alloc" for o in k.outputs):
        _refuse("the kernel must return new tensors (not arguments or scalars)", k.entry.loc)

    def subst(e):
        if isinstance(e, ir.Var) and e.name in env:
            return env[e.name]
        if isinstance(e, (ir.Const, ir.Var)):
            return e
        fields = {}
        for name in ir.EXPR_CHILDREN[type(e)]:
            v = getattr(e, name)
            fields[name] = tuple(subst(x) for x in v) if isinstance(v, tuple) else (
                v if name == "tensor" else subst(v))
        return type(e)(**{**{f: getattr(e, f) for f in e.__dataclass_fields__}, **fields})

    def walk(stmts, depth):
        for s in stmts:
            if isinstance(s, ir.Alloc):
                if depth:
                    _refuse("a tensor allocated inside a loop", s.loc)
            elif isinstance(s, ir.For):
                if not (isinstance(s.step, ir.Const) and s.step.value == 1 and isinstance(s.start, ir.Const)
                        and s.start.value == 0):
                    _refuse("only loops range(n) over whole axes are differentiated", s.loc)
                loops.append(s)
                walk(s.body, depth + 1)
            elif isinstance(s, ir.Assign):
                if s.var.name in env and depth:
                    _refuse(f"the scalar {s.var.name!r} is reassigned inside the loop", s.loc)
                env[s.var.name] = subst(s.value)
            elif isinstance(s, ir.Store):
                if s.tensor.name in params:
                    _refuse(f"the kernel overwrites its input {s.tensor.name!r}", s.loc)
                if s.tensor.name not in allocs or allocs[s.tensor.name].output is None:
                    _refuse(f"{s.tensor.name!r} is not a returned tensor", s.loc)
                idx = tuple(py(i) for i in s.indices)
                if idx != tuple(l.var.name for l in loops[:len(idx)]) or len(idx) != len(loops):
                    _refuse(f"{s.tensor.name!r} is written at [{', '.join(idx)}], not at the loop indices",
                            s.loc)
                if s.tensor.name in stores:
                    _refuse(f"{s.tensor.name!r} is written more than once", s.loc)
                value = subst(s.value)
                for e in ir.walk_expr(value):
                    if isinstance(e, ir.Load) and tuple(py(i) for i in e.indices) != idx:
                        _refuse(f"{e.tensor.name!r} is read at [{', '.join(py(i) for i in e.indices)}], not at the "
                                f"element being computed (stencils and reductions are not differentiated yet)",
                                s.loc)
                stores[s.tensor.name] = (value, s)
            elif isinstance(s, ir.Return):
                pass
            else:
                _refuse(f"{type(s).__name__.lower()} statements are not differentiated yet", s.loc)

    walk(body, 0)
    order = sorted(outputs)
    out_names = [next(n for n, a in allocs.items() if a.output == i) for i in order]
    missing = [n for n in out_names if n not in stores]
    if missing:
        _refuse(f"output {missing[0]!r} is not computed elementwise", k.entry.loc)
    return loops, [(n, stores[n]) for n in out_names]


# ------------------------------------------------------------------ the backward kernel's source

def backward_source(k: ir.Kernel, pyname: str) -> tuple:
    """(source, kernel name, differentiated input names) of the backward of map kernel `k`."""
    loops, stores = _map_structure(k)
    params = [p.var for p in k.entry.params]
    wrt = [v.name for v in params if isinstance(v.type, ir.TensorType) and v.type.dtype.kind == "f"]
    if not wrt:
        _refuse("no float tensor input to differentiate", k.entry.loc)
    grads = [f"grad_{n}" for n, _ in stores]
    ann = {}
    for v in params:
        t = v.type
        if isinstance(t, ir.TensorType):
            ann[v.name] = f"lang.{t.dtype.name}[{', '.join(str(d) if isinstance(d, int) else d.name for d in t.shape)}]"
        else:
            ann[v.name] = "float" if t.weak and t.dtype.kind == "f" else ("int" if t.weak else _dtype(t))
    for g, (n, (value, store)) in zip(grads, stores):
        t = store.tensor.type
        ann[g] = f"lang.{t.dtype.name}[{', '.join(str(d) if isinstance(d, int) else d.name for d in t.shape)}]"
    name = f"{pyname}__backward"
    sig = ", ".join(f"{n}: {ann[n]}" for n in [v.name for v in params] + grads)
    lines = ["from __future__ import annotations", "import asc.language as lang", "", "", "@lang.kernel",
             f"def {name}({sig}):", f'    """The backward of {pyname}, generated by asc.grad from its IR."""']
    for w in wrt:
        lines.append(f"    d_{w} = lang.empty_like({w})")
    pad = "    "
    for l in loops:
        lines.append(f"{pad}for {l.var.name} in range({py(l.stop)}):")
        pad += "    "
    memo: dict = {}
    idx = ", ".join(l.var.name for l in loops)
    for w in wrt:
        total = None
        for g, (n, (value, store)) in zip(grads, stores):
            d = derivative(value, w, memo)
            if _is_zero(d):
                continue
            term = f"{g}[{idx}] * {py(d)}"
            total = term if total is None else f"{total} + {term}"
        lines.append(f"{pad}d_{w}[{idx}] = {total if total is not None else '0.0'}")
    rets = ", ".join(f"d_{w}" for w in wrt)
    lines.append(f"    return {rets}")
    return "\n".join(lines) + "\n", name, wrt


class Grad:
    """`asc.grad(kernel)`: call it with the forward's arguments and the output gradient(s)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self._backwards: dict = {}

    def _backward_for(self, args):
        from .runtime import binding
        kern = self.kernel
        n = len(kern.specs)
        bound, symbols = binding.bind(kern.__name__, kern.specs, args[:n], {})
        key = binding.spec_key(bound, kern.options.dynamic_shape)
        hit = self._backwards.get(key)
        if hit is not None:
            return hit
        types, syms = binding.arg_types(kern.specs, bound, symbols, kern.options.dynamic_shape)
        from .frontend import build_kernel
        k = build_kernel(kern.pyfunc, types, syms, kern.options.dynamic_shape, kern._ret)
        src, name, wrt = backward_source(k, kern.__name__)
        from .runtime import cache
        backward = getattr(cache.generated_module("autodiff", name, src), name)
        if kern.options.target == "interpret":
            from .language import kernel as _k
            backward = _k(target="interpret")(backward.pyfunc)
        self._backwards[key] = (backward, wrt, src)
        return self._backwards[key]

    def __call__(self, *args):
        """The gradient of each tensor input (None for integer tensors), a tuple when there are several."""
        backward, wrt, _ = self._backward_for(args)
        res = backward(*args)
        res = res if isinstance(res, tuple) else (res,)
        by_name = dict(zip(wrt, res))
        out = tuple(by_name.get(s.name) for s in self.kernel.specs
                    if s.kind == "tensor" or (s.kind == "any" and hasattr(args[s.index], "shape")))
        return out if len(out) > 1 else out[0]

    def source(self, *args) -> str:
        """The generated backward kernel's Python source, for these forward arguments."""
        return self._backward_for(args)[2]


def grad(kernel) -> Grad:
    """The backward of an element-level map kernel, generated from its IR (see the module docstring)."""
    return Grad(kernel)

"""Tensor-level code in kernels: whole tensors and views (slices) in arithmetic, math functions, reductions,
matrix products, softmax, transposes, local buffers and tile copies.

The frontend gives a tensor-valued expression a compile-time shape (checked here, with errors at the user's line)
and lowers it to the element-level IR that every pass, backend and check already handles: loop nests of Loads and
Stores, written straight into the destination of `out[...] = expr` / `return expr`, or into a temporary when an
operand must exist in memory. A matrix product becomes one `ir.MatMul` statement over strided views, which the cpu
target runs on the GEMM library. In a `@lang.fused_kernel`, tensor expressions are inlined where they are used,
and an elementwise expression of a matrix product (bias, activation, residual, scaling) becomes the product's
epilogue: the GEMM applies it to each tile of the result right after the tile is final, while it is in cache, so
`gelu(x @ w1) @ w2` makes no separate pass over the intermediate.

Edge tiles: a slice that runs past the end of its tensor is clipped at run time, as NumPy slicing is. Shapes are
checked at compile time on the slice's nominal size (`A[i:i+B]` has B rows); the element loops and products run
over the clipped size; `lang.load_2d` fills the part of its buffer that a clipped view does not cover with zeros,
and `lang.store_2d` writes only the part of the view inside the tensor.
"""
from __future__ import annotations

import ast

import numpy as np

from .. import ir
from ..errors import CompileError, KernelTypeError, UnsupportedError
from ..ir.printer import format_expr

LOCAL_BUDGET = {"cpu": 256 * 1024}              # bytes of lang.local_buffer per kernel, by target
MATMUL_DTYPES = ("float32", "float64", "float16", "bfloat16")


def _c(v):
    return ir.Const(v, ir.INDEX)


def fmt_shape(shape) -> str:
    return "(" + ", ".join(d.name if isinstance(d, ir.Sym) else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def _same_expr(a, b) -> bool:
    return a is b or format_expr(a) == format_expr(b)


# ------------------------------------------------------------------ tensor values of the frontend

class TValue:
    """A tensor-valued expression (not IR): its dtype, compile-time shape and run-time extents."""
    dtype: ir.DType
    shape: tuple        # of ir.Dim: nominal, checked at compile time
    extents: tuple      # of IR index expressions: the run-time sizes (a clipped slice may be smaller)

    @property
    def type(self) -> ir.TensorType:
        return ir.TensorType(self.dtype, self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return repr(self.type)


class TView(TValue):
    """A window of a tensor variable: `starts` per axis of the tensor, `axes` the tensor axis of each view axis
    (a transpose permutes them; an integer index drops one)."""

    def __init__(self, base: ir.Var, starts: tuple, axes: tuple, shape: tuple, extents: tuple):
        self.base, self.starts, self.axes = base, starts, axes
        self.dtype, self.shape, self.extents = base.type.dtype, shape, extents

    def is_whole(self) -> bool:
        return self.axes == tuple(range(self.base.type.ndim)) and \
            all(isinstance(s, ir.Const) and s.value == 0 for s in self.starts) and \
            self.shape == self.base.type.shape and all(_is_dim(e, d) for e, d in zip(self.extents, self.shape))

    def same(self, other) -> bool:
        return isinstance(other, TView) and other.base.name == self.base.name and other.axes == self.axes and \
            all(_same_expr(a, b) for a, b in zip(self.starts, other.starts))


class TMap(TValue):
    """An elementwise function of tensors (broadcast) and scalars: `fn(builder, element values)`."""

    def __init__(self, name, fn, args, dtype, shape, extents):
        self.name, self.fn, self.args = name, fn, args
        self.dtype, self.shape, self.extents = dtype, shape, extents


class TMatMul(TValue):
    def __init__(self, a, b, dtype, shape, extents, loc):
        self.a, self.b, self.loc = a, b, loc
        self.dtype, self.shape, self.extents = dtype, shape, extents


class TReduce(TValue):
    def __init__(self, op, x, axes, keepdims, dtype, shape, extents):
        self.op, self.x, self.axes, self.keepdims = op, x, axes, keepdims
        self.dtype, self.shape, self.extents = dtype, shape, extents


class TSoftmax(TValue):
    def __init__(self, x, axis):
        self.x, self.axis = x, axis
        self.dtype, self.shape, self.extents = x.dtype, x.shape, x.extents


def _is_dim(e, d) -> bool:
    if isinstance(d, int):
        return isinstance(e, ir.Const) and e.value == d
    return isinstance(e, ir.Var) and e.name == d.name


def _inputs(v) -> set:
    """Names of the tensors an expression reads."""
    if isinstance(v, TView):
        return {v.base.name}
    if isinstance(v, TMap):
        out = set()
        for a in v.args:
            if isinstance(a, TValue):
                out |= _inputs(a)
        return out
    if isinstance(v, TMatMul):
        return _inputs(v.a) | _inputs(v.b)
    if isinstance(v, (TReduce, TSoftmax)):
        return _inputs(v.x)
    return set()


def _views_of(v, name) -> list:
    if isinstance(v, TView):
        return [v] if v.base.name == name else []
    if isinstance(v, TMap):
        return [w for a in v.args if isinstance(a, TValue) for w in _views_of(a, name)]
    return []


def _linear(e):
    """e as {name: coefficient, "": constant} when it is a sum of integer multiples of variables, else None."""
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return {"": e.value}
    if isinstance(e, ir.Var):
        return {e.name: 1}
    if isinstance(e, ir.Cast):
        return _linear(e.x)
    if isinstance(e, ir.Binary) and e.op in ("add", "sub", "mul"):
        a, b = _linear(e.a), _linear(e.b)
        if a is None or b is None:
            return None
        if e.op == "mul":
            if set(a) == {""}:
                a, b = b, a
            if set(b) != {""}:
                return None
            return {k: v * b[""] for k, v in a.items()}
        sign = 1 if e.op == "add" else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    return None


class TensorMixin:
    """The tensor-level part of FunctionBuilder."""

    # ------------------------------------------------------------------ small IR helpers

    def iadd(self, a, b):
        if isinstance(b, ir.Const) and b.value == 0:
            return a
        if isinstance(a, ir.Const) and a.value == 0:
            return b
        return self.binary("add", a, b, None)

    def isub(self, a, b):
        if isinstance(b, ir.Const) and b.value == 0:
            return a
        return self.binary("sub", a, b, None)

    def imul(self, a, b):
        if isinstance(a, ir.Const) and a.value == 1:
            return b
        if isinstance(b, ir.Const) and b.value == 1:
            return a
        return self.binary("mul", a, b, None)

    def imin(self, a, b):
        if _same_expr(a, b):
            return a
        if isinstance(a, ir.Const) and isinstance(b, ir.Const):
            return _c(min(a.value, b.value))
        return ir.Select(ir.Compare("lt", a, b, ir.ScalarType(ir.bool_)), a, b, ir.INDEX)

    def dim_expr(self, d):
        return _c(d) if isinstance(d, int) else ir.Var(d.name, ir.INDEX)

    def new_scalar(self, base, t):
        """A fresh scalar local of type t."""
        name = self.fresh(base)
        self.var_types[name] = t
        self.assigned_vars.add(name)
        return ir.Var(name, t)

    def loops(self, extents, body, loc, starts=None):
        """A loop nest over `extents` (from `starts`, default 0) around body(index variables) -> statements."""
        vs = tuple(ir.Var(self.fresh("_t_i"), ir.INDEX, loc) for _ in extents)
        inner = list(body(vs))
        starts = starts or [_c(0)] * len(extents)
        for v, s, e in reversed(list(zip(vs, starts, extents))):
            inner = [ir.For(v, s, e, _c(1), tuple(inner), "serial", loc)]
        return inner

    def bounds(self, e):
        """(lowest, highest) value of an index expression over the enclosing loops, when known."""
        if isinstance(e, ir.Const) and isinstance(e.value, int):
            return e.value, e.value
        if isinstance(e, ir.Var) and e.name in self.loop_ranges:
            start, stop, step = self.loop_ranges[e.name]
            if all(isinstance(x, ir.Const) for x in (start, stop, step)) and step.value > 0:
                if stop.value <= start.value:
                    return start.value, start.value
                return start.value, start.value + (stop.value - start.value - 1) // step.value * step.value
            return None
        if isinstance(e, ir.Binary) and e.op in ("add", "sub"):
            a, b = self.bounds(e.a), self.bounds(e.b)
            if a is None or b is None:
                return None
            return (a[0] + b[0], a[1] + b[1]) if e.op == "add" else (a[0] - b[1], a[1] - b[0])
        return None

    # ------------------------------------------------------------------ values

    def is_tensor(self, v) -> bool:
        return isinstance(v, TValue) or (isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType))

    def whole(self, var: ir.Var) -> TView:
        t = var.type
        return TView(var, tuple(_c(0) for _ in t.shape), tuple(range(t.ndim)), t.shape,
                     tuple(self.dim_expr(d) for d in t.shape))

    def as_tvalue(self, v):
        if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
            return self.whole(v)
        return v

    def elem(self, v, idx):
        """The scalar IR expression of element `idx` of an elementwise-capable value."""
        if isinstance(v, TView):
            base = list(v.starts)
            for j, k in enumerate(v.axes):
                base[k] = self.iadd(base[k], idx[j])
            return ir.Load(v.base, tuple(base), ir.ScalarType(v.dtype))
        if isinstance(v, TMap):
            vals = [self.elem(a, self.bidx(a, idx)) if isinstance(a, TValue) else a for a in v.args]
            return v.fn(self, vals)
        raise AssertionError(f"not elementwise: {v!r}")

    def bidx(self, a, idx):
        """The indices of operand `a` for element `idx` of a broadcast result (size-1 axes read index 0)."""
        sub = idx[len(idx) - a.ndim:] if a.ndim else ()
        return tuple(_c(0) if d == 1 else i for d, i in zip(a.shape, sub))

    def operand(self, v, node, dtype=None):
        """v as an elementwise-capable value (a view or a map): products, reductions and softmax are computed
        into a temporary first. With `dtype`, as a view of that dtype (a cast copy when needed)."""
        v = self.as_tvalue(v)
        if isinstance(v, (TMatMul, TReduce, TSoftmax)):
            v = self.materialize(v, node)
        elif isinstance(v, TMap):
            if self.ctx.epilogues and _epilogue_leaf(v) is not None:
                v = self.materialize(v, node)       # the product with the map as its fused epilogue
            else:
                v = self.resolve(v, node)
        if dtype is not None and (not isinstance(v, TView) or v.dtype != dtype):
            if v.dtype != dtype:
                t = ir.ScalarType(dtype)
                v = self.tmap("cast", lambda fb, a: fb.cast(a[0], t, node), [v], node)
            v = self.materialize(v, node)
        return v

    def resolve(self, v: TMap, node, done=None) -> TMap:
        """A map whose operands are all elementwise-capable (a fused kernel keeps products inside maps until
        they are stored). A value used twice is computed once."""
        done = {} if done is None else done
        args = []
        for a in v.args:
            if id(a) in done:
                a = done[id(a)]
            elif isinstance(a, TMap):
                a = done.setdefault(id(a), self.resolve(a, node, done))
            elif isinstance(a, (TMatMul, TReduce, TSoftmax)):
                a = done.setdefault(id(a), self.materialize(a, node))
            args.append(a)
        if all(x is y for x, y in zip(args, v.args)):
            return v
        return TMap(v.name, v.fn, args, v.dtype, v.shape, v.extents)

    def materialize(self, v, node, dtype=None) -> TView:
        """A temporary holding v; returns its view (with v's run-time extents)."""
        loc = self.loc(node)
        for d in v.shape:
            if not isinstance(d, (int, ir.Sym)):
                raise self.error("the size of a temporary tensor must be known at compile time", node)
        var = ir.Var(self.fresh("_t_tmp"), ir.TensorType(dtype or v.dtype, v.shape), loc)
        self.pre.append(ir.Alloc(var, "empty", None, None, loc))
        dst = self.whole(var)
        dst = TView(var, dst.starts, dst.axes, dst.shape, v.extents)
        self.store_into(dst, v, node)
        return dst

    # ------------------------------------------------------------------ shapes

    def dims_equal(self, a, b) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return isinstance(a, ir.Sym) and isinstance(b, ir.Sym) and a.name == b.name

    def broadcast_shapes(self, shapes, node, what="shapes"):
        nd = max((len(s) for s in shapes), default=0)
        out = []
        for k in range(nd):
            d = 1
            for s in shapes:
                j = k - (nd - len(s))
                if j < 0:
                    continue
                e = s[j]
                if d == 1:
                    d = e
                elif e != 1 and not self.dims_equal(d, e):
                    raise self.error(f"{what} {' and '.join(fmt_shape(s) for s in shapes)} cannot be broadcast "
                                     f"together (axis {k}: {fmt_shape((d,))[1:-1]} vs {fmt_shape((e,))[1:-1]})",
                                     node, KernelTypeError)
            out.append(d)
        return tuple(out)

    def broadcast_extents(self, args, shape):
        nd = len(shape)
        out = []
        for k in range(nd):
            ext = None
            for a in args:
                j = k - (nd - a.ndim)
                if j < 0 or a.shape[j] == 1 and shape[k] != 1:
                    continue
                ext = a.extents[j] if ext is None else self.imin(ext, a.extents[j])
            out.append(ext if ext is not None else self.dim_expr(shape[k]))
        return tuple(out)

    # ------------------------------------------------------------------ building tensor values

    def tmap(self, name, fn, args, node):
        # a fused kernel keeps products (and reductions) inside the expression until it is stored
        args = [(self.as_tvalue(a) if self.ctx.epilogues else self.operand(a, node)) if self.is_tensor(a) else a
                for a in args]
        tensors = [a for a in args if isinstance(a, TValue)]
        shape = self.broadcast_shapes([a.shape for a in tensors], node, f"{name}: shapes")
        probes = [ir.Var("_probe", ir.ScalarType(a.dtype)) if isinstance(a, TValue) else a for a in args]
        t = fn(self, probes).type
        if t == ir.ScalarType(ir.DType("unknown", "?", 0, "void")):
            raise self.error("the type of this tensor expression depends on a value whose type is not known yet",
                             node)
        out = TMap(name, fn, args, t.dtype, shape, self.broadcast_extents(tensors, shape))
        out.loc = self.loc(node)
        return out

    def tensor_binary(self, op, a, b, node):
        if op == "matmul":
            return self.tmatmul(a, b, node)
        for x, xn in ((a, node), (b, node)):
            if not self.is_tensor(x) and not (isinstance(x, ir.Expr) and isinstance(x.type, ir.ScalarType)):
                raise self.error(f"expected a tensor or a number, got {self._describe(x)}", xn)
        return self.tmap(op, lambda fb, v: fb.binary(op, v[0], v[1], node), [a, b], node)

    def tensor_compare(self, op, a, b, node):
        return self.tmap(op, lambda fb, v: fb.compare(op, v[0], v[1], node), [a, b], node)

    def tensor_unary(self, op, a, node):
        if op == "neg":
            return self.tmap("neg", lambda fb, v: ir.Unary("neg", v[0], v[0].type, fb.loc(node)), [a], node)
        if op == "invert":
            def inv(fb, v):
                if v[0].type.dtype.kind == "f":
                    raise fb.error("~ needs an integer operand", node, KernelTypeError)
                return ir.Unary("invert", v[0], v[0].type, fb.loc(node))
            return self.tmap("invert", inv, [a], node)
        raise self.error("`not` of a tensor is ambiguous; compare its elements instead", node, KernelTypeError)

    def tmatmul(self, a, b, node):
        loc = self.loc(node)
        a, b = self.as_tvalue(a), self.as_tvalue(b)
        for x in (a, b):
            if not isinstance(x, TValue):
                raise self.error(f"matmul needs tensors, got {self._describe(x)}", node, KernelTypeError)
        if a.ndim not in (2, 3) or b.ndim not in (2, 3):
            raise self.error(f"matmul: operands must be 2-D (or 3-D for a batch of products), got shapes "
                             f"{fmt_shape(a.shape)} and {fmt_shape(b.shape)}", node, KernelTypeError)
        if not self.dims_equal(a.shape[-1], b.shape[-2]):
            raise self.error(f"matmul: shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)} do not match (the "
                             f"inner sizes {fmt_shape(a.shape[-1:])[1:-2]} and {fmt_shape(b.shape[-2:-1])[1:-2]} "
                             f"differ)", node, KernelTypeError)
        batch, bext = (), ()
        if a.ndim == 3 or b.ndim == 3:
            if a.ndim == 3 and b.ndim == 3 and not self.dims_equal(a.shape[0], b.shape[0]):
                raise self.error(f"matmul: batch sizes of shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)} "
                                 f"differ", node, KernelTypeError)
            src = a if a.ndim == 3 else b
            batch, bext = (src.shape[0],), (src.extents[0],)
            if a.ndim == 3 and b.ndim == 3:
                bext = (self.imin(a.extents[0], b.extents[0]),)
        dt = ir.promote_dtypes(a.dtype, b.dtype)
        if dt.name not in MATMUL_DTYPES:
            raise self.error(f"matmul needs float operands (float32, float64, float16, bfloat16), got "
                             f"{a.dtype.name} and {b.dtype.name}", node, KernelTypeError)
        return TMatMul(a, b, dt, batch + (a.shape[-2], b.shape[-1]), bext + (a.extents[-2], b.extents[-1]), loc)

    def treduce(self, op, x, axis, keepdims, node):
        x = self.as_tvalue(x)
        if not isinstance(x, TValue):
            hint = f" (for numbers: Python's {op}(a, b) or lang.{'maximum' if op == 'max' else 'minimum'}(a, b))" \
                if op in ("max", "min") else ""
            raise self.error(f"lang.{op} reduces a tensor, got {self._describe(x)}{hint}", node, KernelTypeError)
        axes = self.axes_arg(axis, x.ndim, op, node)
        if op == "sum" and x.dtype.kind in "biu":
            dt = ir.int64
        else:
            dt = x.dtype
        shape, ext = [], []
        for k in range(x.ndim):
            if k in axes:
                if keepdims:
                    shape.append(1)
                    ext.append(_c(1))
            else:
                shape.append(x.shape[k])
                ext.append(x.extents[k])
        return TReduce(op, x, axes, keepdims, dt, tuple(shape), tuple(ext))

    def axes_arg(self, axis, ndim, what, node):
        if axis is None:
            return tuple(range(ndim))
        vals = axis if isinstance(axis, tuple) else (axis,)
        out = []
        for a in vals:
            if not (isinstance(a, ir.Const) and isinstance(a.value, int)):
                raise self.error(f"lang.{what}: axis must be a constant int (or a tuple of them, or None)", node)
            k = a.value + ndim if a.value < 0 else a.value
            if not 0 <= k < ndim:
                raise self.error(f"lang.{what}: axis {a.value} is out of range for a tensor of {ndim} "
                                 f"dimension(s)", node, KernelTypeError)
            out.append(k)
        return tuple(sorted(set(out)))

    def ttranspose(self, x, axes, node):
        x = self.operand(x, node)
        if not isinstance(x, TView):
            x = self.materialize(x, node)
        if axes is None:
            perm = tuple(reversed(range(x.ndim)))
        else:
            vals = axes if isinstance(axes, tuple) else (axes,)
            perm = tuple(self.axes_arg(a, x.ndim, "transpose", node)[0] for a in vals)
            if sorted(perm) != list(range(x.ndim)):
                raise self.error(f"lang.transpose: axes {perm} are not a permutation of {x.ndim} axes", node)
        return TView(x.base, x.starts, tuple(x.axes[p] for p in perm), tuple(x.shape[p] for p in perm),
                     tuple(x.extents[p] for p in perm))

    # ------------------------------------------------------------------ views (slices)

    def has_slices(self, node) -> bool:
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        return any(isinstance(e, ast.Slice) or (isinstance(e, ast.Constant) and e.value is Ellipsis)
                   for e in elts)

    def subscript_view(self, base, node):
        """base[...] with slices, integers and `...`: a TView, or a Load when every axis gets an integer."""
        view = base if isinstance(base, TView) else self.whole(base)
        sl = node.slice
        elts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        ell = [k for k, e in enumerate(elts) if isinstance(e, ast.Constant) and e.value is Ellipsis]
        if len(ell) > 1:
            raise self.error("an index can only have a single ellipsis ('...')", node)
        n_axes = len(elts) - len(ell)
        if n_axes > view.ndim:
            raise self.error(f"tensor has {view.ndim} dimension(s) but is indexed with {n_axes}", node)
        if ell:
            k = ell[0]
            elts = elts[:k] + [None] * (view.ndim - n_axes) + elts[k + 1:]
        elts = elts + [None] * (view.ndim - len(elts))
        starts = list(view.starts)
        axes, shape, ext = [], [], []
        for j, e in enumerate(elts):
            k = view.axes[j]
            if e is None:
                axes.append(k), shape.append(view.shape[j]), ext.append(view.extents[j])
                continue
            if not isinstance(e, ast.Slice):
                v = self.int_scalar(self.expr(e), e)
                if isinstance(v, ir.Const):
                    if v.value < 0:
                        raise self.error(f"negative index {v.value}: kernels do not wrap negative indices", e)
                    d = view.shape[j]
                    if isinstance(d, int) and v.value >= d:
                        raise self.error(f"index {v.value} is out of bounds for axis {j} with size {d}", e)
                starts[k] = self.iadd(starts[k], self.cast(v, ir.INDEX, e))
                continue
            if e.step is not None:
                st = self.expr(e.step)
                if not (isinstance(st, ir.Const) and st.value == 1):
                    raise self.error("slices with a step are not supported (only step 1)", e.step, UnsupportedError)
            lo = _c(0) if e.lower is None else self.cast(self.int_scalar(self.expr(e.lower), e.lower), ir.INDEX, e)
            if isinstance(lo, ir.Const) and lo.value < 0:
                raise self.error("negative slice bounds: kernels do not wrap negative indices", e.lower)
            parent_n, parent_rt = view.shape[j], view.extents[j]
            if e.upper is None:
                n = self.slice_size(parent_n, lo, e)
                rt = self.isub(parent_rt, lo)
            else:
                hi = self.cast(self.int_scalar(self.expr(e.upper), e.upper), ir.INDEX, e)
                if isinstance(hi, ir.Const) and hi.value < 0:
                    raise self.error("negative slice bounds: kernels do not wrap negative indices", e.upper)
                n = self.slice_size(hi, lo, e)
                hb = self.bounds(hi)
                if (hb is not None and isinstance(parent_n, int) and hb[1] <= parent_n and
                        _is_dim(parent_rt, parent_n)) or _same_expr(hi, parent_rt):
                    rt = self.isub(hi, lo) if not isinstance(n, int) else _c(n)
                else:
                    rt = self.isub(self.imin(hi, parent_rt), lo)     # clipped at run time
            starts[k] = self.iadd(starts[k], lo)
            axes.append(k), shape.append(n), ext.append(rt)
        if not axes:
            return ir.Load(view.base, tuple(starts), ir.ScalarType(view.dtype), self.loc(node))
        return TView(view.base, tuple(starts), tuple(axes), tuple(shape), tuple(ext))

    def slice_size(self, hi, lo, node):
        if isinstance(hi, (int, ir.Sym)):
            hi = self.dim_expr(hi)
        a, b = _linear(hi), _linear(lo)
        if a is not None and b is not None:
            d = dict(a)
            for k, v in b.items():
                d[k] = d.get(k, 0) - v
            d = {k: v for k, v in d.items() if v}
            if not d:
                return 0
            if set(d) == {""}:
                return max(0, d[""])
            if len(d) == 1 and list(d.values()) == [1]:
                name = next(iter(d))
                if isinstance(self.ctx.symbols.get(name), ir.Sym):
                    return ir.Sym(name)
        raise self.error("the size of a slice must be known at compile time (write x[i:i+B] with a constant B, "
                         "or a whole axis)", node)

    # ------------------------------------------------------------------ lowering: stores into a destination

    def store_into(self, dst: TView, value, node, op=None):
        """dst[...] = value (or, with op, dst[...] op= value) as IR statements appended to self.pre."""
        loc = self.loc(node)
        if isinstance(value, ir.Var) and isinstance(value.type, ir.TensorType):
            value = self.whole(value)
        if isinstance(value, TValue):
            self.broadcast_shapes([dst.shape, value.shape], node, "cannot assign: shapes")
            if value.ndim > dst.ndim or self.broadcast_shapes([dst.shape, value.shape], node) != dst.shape:
                raise self.error(f"cannot assign a tensor of shape {fmt_shape(value.shape)} to a view of shape "
                                 f"{fmt_shape(dst.shape)}", node, KernelTypeError)
        elif not (isinstance(value, ir.Expr) and isinstance(value.type, ir.ScalarType)):
            raise self.error(f"cannot assign {self._describe(value)} to a tensor", node)
        if op is not None:
            if op == "add" and isinstance(value, TMatMul) and value.shape == dst.shape:
                return self.emit_matmul(dst, value, node, accumulate=True)
            value = self.tensor_binary(op, dst, value, node)
        if isinstance(value, TValue) and dst.base.name in _inputs(value):
            safe = isinstance(value, (TView, TMap)) and all(w.same(dst) for w in _views_of(value, dst.base.name))
            if not safe:
                value = self.materialize(value, node)
        if isinstance(value, TValue) and value.shape == dst.shape:
            if isinstance(value, TMatMul):
                return self.emit_matmul(dst, value, node)
            if isinstance(value, TReduce):
                return self.emit_reduce(value, node, dst)
            if isinstance(value, TSoftmax):
                return self.emit_softmax(dst, value, node)
            if self.ctx.epilogues and isinstance(value, TMap) and dst.ndim == 2 and dst.dtype.name in MATMUL_DTYPES:
                leaf = _epilogue_leaf(value)
                if leaf is not None:
                    return self.emit_matmul(dst, leaf, node, epilogue=value)
        if isinstance(value, TValue):
            value = self.operand(value, node)
        et = ir.ScalarType(dst.dtype)

        def body(idx):
            v = self.elem(value, self.bidx(value, idx)) if isinstance(value, TValue) else value
            return [ir.Store(dst.base, self.elem(dst, idx).indices, self.cast(v, et, node), loc)]
        ext = dst.extents
        if isinstance(value, TValue):      # operands clipped at run time: the common part
            ext = tuple(self.imin(e, value.extents[k - (dst.ndim - value.ndim)])
                        if k >= dst.ndim - value.ndim and value.shape[k - (dst.ndim - value.ndim)] != 1 else e
                        for k, e in enumerate(ext))
        self.pre += self.loops(ext, body, loc)

    # ---- matrix products

    def ir_view(self, v: TView, loc, batch_ext=None) -> ir.View:
        t = v.base.type
        strides, acc = [], _c(1)
        for d in reversed(t.shape):
            strides.append(acc)
            acc = self.imul(acc, self.dim_expr(d))
        strides.reverse()
        off = _c(0)
        for s, st in zip(v.starts, strides):
            off = self.iadd(off, self.imul(s, st))
        shape, vstrides = list(v.extents), [strides[k] for k in v.axes]
        vtype = v.type
        if batch_ext is not None and v.ndim == 2:       # one operand shared by a batch: stride 0
            shape, vstrides = [batch_ext] + shape, [_c(0)] + vstrides
            vtype = ir.TensorType(v.dtype, (1,) + v.shape)
        return ir.View(v.base, off, tuple(shape), tuple(vstrides), vtype, loc)

    def emit_matmul(self, dst: TView, mm: TMatMul, node, accumulate=False, note="", b_view=None, epilogue=None):
        """dst = mm (or +=); with `epilogue`, an elementwise expression of mm: dst = epilogue, computed on each
        tile of the product by the GEMM, while the tile is in cache."""
        loc = mm.loc or self.loc(node)
        a = self.operand(mm.a, node, mm.dtype)
        b = b_view if b_view is not None else self.operand(mm.b, node, mm.dtype)
        if dst.base.name in (a.base.name, b.base.name) or dst.dtype.name not in MATMUL_DTYPES or (
                epilogue is not None and accumulate):
            tmp = self.materialize_matmul(mm, node, a, b)
            if epilogue is not None:
                return self.store_into(dst, _replace(epilogue, mm, tmp), node, "add" if accumulate else None)
            return self.store_into(dst, tmp, node, "add" if accumulate else None)
        epi, index = (), ()
        if epilogue is not None:
            value = self.resolve(_replace(epilogue, mm, dst), node)      # other operands: computed before
            index = (ir.Var(self.fresh("_t_ei"), ir.INDEX, loc), ir.Var(self.fresh("_t_ej"), ir.INDEX, loc))
            v = self.cast(self.elem(value, index), ir.ScalarType(dst.dtype), node)
            epi = (ir.Store(dst.base, self.elem(dst, index).indices, v, getattr(epilogue, "loc", None) or
                            self.loc(node)),)
            note = note or f"fused epilogue: {' -> '.join(_path_names(epilogue, mm))} on each tile of the product " \
                           f"while it is in cache"
        batch = dst.extents[0] if dst.ndim == 3 else None
        m = self.imin(dst.extents[-2], a.extents[-2])
        n = self.imin(dst.extents[-1], b.extents[-1])
        k = self.imin(a.extents[-1], b.extents[-2])
        dv = self.ir_view(dst, loc)
        dv = ir.View(dv.tensor, dv.offset, dv.shape[:-2] + (m, n), dv.strides, dv.type, loc)
        av = self.ir_view(a, loc, batch)
        av = ir.View(av.tensor, av.offset, av.shape[:-2] + (m, k), av.strides, av.type, loc)
        bv = self.ir_view(b, loc, batch)
        bv = ir.View(bv.tensor, bv.offset, bv.shape[:-2] + (k, n), bv.strides, bv.type, loc)
        self.pre.append(ir.MatMul(dv, av, bv, accumulate, note, loc, epi, index))

    def materialize_matmul(self, mm, node, a, b):
        var = ir.Var(self.fresh("_t_tmp"), ir.TensorType(mm.dtype, mm.shape), self.loc(node))
        self.pre.append(ir.Alloc(var, "empty", None, None, self.loc(node)))
        w = self.whole(var)
        dst = TView(var, w.starts, w.axes, w.shape, mm.extents)
        self.emit_matmul(dst, TMatMul(a, b, mm.dtype, mm.shape, mm.extents, mm.loc), node)
        return dst

    # ---- reductions and softmax

    def emit_reduce(self, r: TReduce, node, dst=None):
        """A reduction: into dst, or (no dst) the scalar Var holding the result."""
        loc = self.loc(node)
        x = self.operand(r.x, node)
        kept = [k for k in range(x.ndim) if k not in r.axes]
        at = ir.ScalarType(r.dtype)
        if r.op == "sum":
            init = ir.Const(0 if at.dtype.kind != "f" else 0.0, at)
        elif at.dtype.kind == "f":
            init = ir.Const(float("-inf") if r.op == "max" else float("inf"), at)
        elif at.dtype.kind == "b":
            init = ir.Const(r.op == "min", at)
        else:
            info = np.iinfo(at.dtype.np_name)
            init = ir.Const(int(info.min if r.op == "max" else info.max), at)

        def reduce_body(outer):
            acc = self.new_scalar("_t_acc", at)

            def inner(iv):
                full, it_o, it_i = [], iter(outer), iter(iv)
                for k in range(x.ndim):
                    full.append(next(it_i) if k in r.axes else next(it_o))
                e = self.cast(self.elem(x, tuple(full)), at, node)
                if r.op == "sum":
                    upd = ir.Binary("add", acc, e, at, loc)
                else:
                    cmp = ir.Compare("gt" if r.op == "max" else "lt", e, acc, ir.ScalarType(ir.bool_), loc)
                    upd = ir.Select(cmp, e, acc, at, loc)
                return [ir.Assign(acc, upd, loc)]
            stmts = [ir.Assign(acc, init, loc)] + self.loops([x.extents[k] for k in r.axes], inner, loc)
            return acc, stmts

        if dst is None and not kept and not r.keepdims:
            acc, stmts = reduce_body(())
            self.pre += stmts
            return acc
        if dst is None:
            return self.materialize(r, node)

        def body(outer):
            acc, stmts = reduce_body(outer)
            oi = list(outer)
            if r.keepdims:
                oi = [_c(0) if k in r.axes else outer[kept.index(k)] for k in range(x.ndim)]
            return stmts + [ir.Store(dst.base, self.elem(dst, tuple(oi)).indices,
                                     self.cast(acc, ir.ScalarType(dst.dtype), node), loc)]
        self.pre += self.loops([x.extents[k] for k in kept], body, loc)

    def emit_softmax(self, dst: TView, sm: TSoftmax, node):
        loc = self.loc(node)
        x = self.operand(sm.x, node)
        ax = sm.axis
        ct = ir.ScalarType(x.dtype)
        others = [k for k in range(x.ndim) if k != ax]

        def body(outer):
            def full(j):
                out, it = [], iter(outer)
                for k in range(x.ndim):
                    out.append(j if k == ax else next(it))
                return tuple(out)
            m = self.new_scalar("_t_max", ct)
            s = self.new_scalar("_t_sum", ct)
            st = [ir.Assign(m, ir.Const(float("-inf"), ct), loc)]

            def pmax(iv):
                e = self.elem(x, full(iv[0]))
                return [ir.Assign(m, ir.Select(ir.Compare("gt", e, m, ir.ScalarType(ir.bool_), loc), e, m, ct,
                                               loc), loc)]
            st += self.loops([x.extents[ax]], pmax, loc)
            st.append(ir.Assign(s, ir.Const(0.0, ct), loc))

            def pexp(iv):
                e = self.new_scalar("_t_e", ct)
                d = self.binary("sub", self.elem(x, full(iv[0])), m, node)
                from ..builtins import BUILTINS
                ex = self.math_call(BUILTINS["exp"], [d], node)
                return [ir.Assign(e, self.cast(ex, ct, node), loc),
                        ir.Store(dst.base, self.elem(dst, full(iv[0])).indices,
                                 self.cast(e, ir.ScalarType(dst.dtype), node), loc),
                        ir.Assign(s, ir.Binary("add", s, e, ct, loc), loc)]
            st += self.loops([x.extents[ax]], pexp, loc)

            def pdiv(iv):
                cur = self.elem(dst, full(iv[0]))
                return [ir.Store(dst.base, cur.indices,
                                 self.cast(self.binary("truediv", cur, s, node), ir.ScalarType(dst.dtype), node),
                                 loc)]
            st += self.loops([x.extents[ax]], pdiv, loc)
            return st
        self.pre += self.loops([x.extents[k] for k in others], body, loc)

    # ------------------------------------------------------------------ builtins of the tensor level

    def tensor_builtin(self, b, node):
        from ..builtins import BUILTINS
        from ..dtypes import as_dtype
        from .builder import _Alloc
        loc = self.loc(node)
        if b.kind == "reduce":
            vals = self.call_args(b, node, ("x", "axis", "keepdims"))
            if "x" not in vals:
                raise self.error(f"lang.{b.name}() needs a tensor", node)
            keep = vals.get("keepdims", (ir.Const(False, ir.WEAK_BOOL), node))[0]
            if not isinstance(keep, ir.Const):
                raise self.error(f"lang.{b.name}: keepdims must be a constant bool", vals["keepdims"][1])
            axis = vals.get("axis", (None, node))[0]
            r = self.treduce(b.name, vals["x"][0], axis, bool(keep.value), vals.get("axis", vals["x"])[1])
            return self.emit_reduce(r, node) if not r.shape else r
        if b.kind == "matmul":
            vals = self.call_args(b, node, ("a", "b"))
            if len(vals) != 2:
                raise self.error("lang.matmul(a, b) takes two tensors", node)
            return self.tmatmul(vals["a"][0], vals["b"][0], node)
        if b.kind == "activation":
            vals = self.call_args(b, node, ("x",))
            if "x" not in vals:
                raise self.error(f"lang.{b.name}(x) takes one argument", node)
            x, xn = vals["x"]

            def fn(fb, a, name=b.name):
                v = a[0]
                if name == "relu":
                    return fb.math_call(BUILTINS["maximum"], [v, ir.Const(0, ir.WEAK_INT)], node)
                if name == "silu":
                    return fb.binary("mul", v, fb.math_call(BUILTINS["sigmoid"], [v], node), node)
                half = fb.binary("mul", ir.Const(0.5, ir.WEAK_FLOAT), v, node)
                e = fb.math_call(BUILTINS["erf"], [fb.binary("mul", v, ir.Const(0.7071067811865476,
                                                                                ir.WEAK_FLOAT), node)], node)
                return fb.binary("mul", half, fb.binary("add", ir.Const(1.0, ir.WEAK_FLOAT), e, node), node)
            if self.is_tensor(x):
                return self.tmap(b.name, fn, [x], node)
            return fn(self, [self.scalar(x, xn)])
        if b.kind == "softmax":
            vals = self.call_args(b, node, ("x", "axis"))
            if "x" not in vals or not self.is_tensor(vals["x"][0]):
                raise self.error("lang.softmax needs a tensor", node, KernelTypeError)
            x = self.operand(vals["x"][0], node)
            if x.dtype.kind != "f":
                raise self.error(f"lang.softmax needs a float tensor, got {x.dtype.name}", node, KernelTypeError)
            axis = vals.get("axis", (ir.Const(-1, ir.INDEX), node))[0]
            return TSoftmax(x, self.axes_arg(axis, x.ndim, "softmax", node)[0])
        if b.kind == "transpose":
            vals = self.call_args(b, node, ("x", "axes"))
            if "x" not in vals or not self.is_tensor(vals["x"][0]):
                raise self.error("lang.transpose needs a tensor", node, KernelTypeError)
            return self.ttranspose(vals["x"][0], vals.get("axes", (None, node))[0], node)
        if b.kind == "buffer":
            vals = self.call_args(b, node, ("shape", "dtype"))
            if "shape" not in vals:
                raise self.error(f"lang.{b.name} needs a shape", node)
            shape = self.shape_arg(vals["shape"][0], vals["shape"][1])
            dt = ir.float32
            if "dtype" in vals:
                h = as_dtype(vals["dtype"][0])
                if h is None:
                    raise self.error(f"not a dtype: {self._describe(vals['dtype'][0])}", vals["dtype"][1])
                dt = h.ir
            space = "local" if b.name == "local_buffer" else "global"
            if space == "local":
                self.local_buffer_bytes(shape, dt, node)
            return _Alloc(ir.TensorType(dt, shape), "empty", None, loc, space)
        if b.kind == "tile":
            vals = self.call_args(b, node, ("src", "dst"))
            if len(vals) != 2:
                raise self.error(f"lang.{b.name}(src, dst) takes two arguments", node)
            self.tile_copy(b.name, vals["src"][0], vals["dst"][0], node)
            return None
        raise self.error(f"lang.{b.name} is not supported here", node, UnsupportedError)

    # ------------------------------------------------------------------ tiles and buffers

    def tile_copy(self, name, src, dst, node):
        """lang.load_2d(src_view, dst_buffer) / lang.store_2d(src_buffer, dst_view)."""
        loc = self.loc(node)
        src, dst = self.as_tvalue(src), self.as_tvalue(dst)
        for v, what in ((src, "source"), (dst, "destination")):
            if not isinstance(v, TValue):
                raise self.error(f"lang.{name}: the {what} must be a tensor or a view, got {self._describe(v)}",
                                 node, KernelTypeError)
            if v.ndim != 2:
                raise self.error(f"lang.{name}: the {what} must be 2-D, got shape {fmt_shape(v.shape)}", node,
                                 KernelTypeError)
        if not all(self.dims_equal(a, b) for a, b in zip(src.shape, dst.shape)):
            kind = ("source view", "destination buffer") if name == "load_2d" else ("source buffer",
                                                                                   "destination view")
            raise self.error(f"lang.{name}: the {kind[0]} has shape {fmt_shape(src.shape)} but the {kind[1]} has "
                             f"shape {fmt_shape(dst.shape)}; the shapes must be equal", node, KernelTypeError)
        src = self.operand(src, node)
        et = ir.ScalarType(dst.dtype)
        if name == "load_2d":
            ext = src.extents
        else:
            ext = tuple(self.imin(a, b) for a, b in zip(dst.extents, src.extents))

        def copy(idx):
            return [ir.Store(dst.base, self.elem(dst, idx).indices, self.cast(self.elem(src, idx), et, node), loc)]
        self.pre += self.loops(ext, copy, loc)
        if name == "load_2d" and not all(_is_dim(e, d) for e, d in zip(src.extents, src.shape)):
            # a clipped (edge) tile: the rest of the buffer is zero
            zero = ir.Const(0, et) if et.dtype.kind != "f" else ir.Const(0.0, et)

            def fill(idx):
                return [ir.Store(dst.base, self.elem(dst, idx).indices, zero, loc)]
            rows, cols = dst.extents
            self.pre += self.loops([ext[0], cols], fill, loc, starts=[_c(0), ext[1]])
            self.pre += self.loops([rows, cols], fill, loc, starts=[ext[0], _c(0)])

    def local_buffer_bytes(self, shape, dt, node):
        for d in shape:
            if not isinstance(d, int):
                raise self.error("lang.local_buffer needs a constant shape (local memory is sized at compile "
                                 "time)", node)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        budget = LOCAL_BUDGET["cpu"]
        if self.local_bytes + n > budget:
            raise self.error(f"lang.local_buffer{fmt_shape(shape)} of {dt.name} needs {n} bytes; with the "
                             f"kernel's other local buffers ({self.local_bytes} bytes) that exceeds the cpu "
                             f"target's local memory budget of {budget} bytes ({budget // 1024} KiB)", node)
        self.local_bytes += n


def _epilogue_leaf(v):
    """The one 2-D matrix product that an elementwise expression is an epilogue of (reached through maps only, not
    broadcast), or None."""
    leaves = []

    def walk(x):
        if isinstance(x, TMatMul):
            leaves.append(x)
        elif isinstance(x, TMap):
            for a in x.args:
                if isinstance(a, TValue):
                    walk(a)
    walk(v)
    leaves = list({id(x): x for x in leaves}.values())      # one product used twice is one product
    if len(leaves) == 1 and leaves[0].ndim == 2 and leaves[0].shape == v.shape:
        return leaves[0]
    return None


def _replace(v, old, new):
    """v with the value `old` (by identity) replaced by `new`."""
    if v is old:
        return new
    if isinstance(v, TMap):
        return TMap(v.name, v.fn, [_replace(a, old, new) for a in v.args], v.dtype, v.shape, v.extents)
    return v


def _path_names(v, leaf) -> list:
    """The maps applied to `leaf` on its way to v, innermost first."""
    if v is leaf:
        return []
    if isinstance(v, TMap):
        for a in v.args:
            sub = _path_names(a, leaf) if isinstance(a, TValue) else None
            if sub is not None:
                return sub + [v.name]
    return None

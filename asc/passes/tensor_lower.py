"""Tensor statements -> element-level IR: loop nests of Loads and Stores written straight into the destination of
`out[...] = expr` / `return expr`, or into a temporary when an operand must exist in memory (a product, reduction
or softmax read elementwise, a destination that its own value reads otherwise than element for element). A matrix
product becomes one `ir.MatMul` statement over strided views, which the cpu target runs on the GEMM library; a
TensorEpilogue (passes.fusion) becomes the product's epilogue. Element loops and products run over the clipped
extents of their operands (edge tiles).

The lowering also gives every generated name its number (see asc/ir/tensor.py): names count up in the order they
are made, the frontend's and the lowering's together, and the scalars the lowering declares take the place of
their statement's slot among the function's locals.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import fields, replace

from .. import ir
from ..frontend.scalars import binary, cast
from ..frontend.shapes import MATMUL_DTYPES, broadcast_extents, dim_expr, iadd, iconst, imin, same_expr
from .tensor_ops import TensorOpsMixin


def lower(k: ir.Kernel) -> ir.Kernel:
    """k with its tensor statements lowered and its generated names numbered."""
    return replace(k, entry=lower_function(k.entry), funcs=tuple(lower_function(f) for f in k.funcs))


def lower_function(fn: ir.Function) -> ir.Function:
    lw = Lowering()
    body = lw.block(fn.body)
    names = lw.final_names()
    locals_ = []
    for v in fn.locals:
        if v.name.startswith("#"):          # a slot: the scalars of the statements of that seq
            locals_ += lw.scalars.pop(int(v.name[1:]), [])
        else:
            locals_.append(v)
    for vs in lw.scalars.values():
        locals_ += vs
    return replace(fn, body=renamed(body, names), locals=renamed(tuple(locals_), names))


def renamed(x, names):
    """x (IR, a tuple of it) with every Var whose name `names(name)` changes renamed."""
    if isinstance(x, ir.Var):
        new = names(x.name)
        return x if new == x.name else replace(x, name=new)
    if isinstance(x, tuple):
        items = tuple(renamed(i, names) for i in x)
        return x if all(a is b for a, b in zip(items, x)) else items
    if isinstance(x, (ir.Expr, ir.Stmt)):
        changes = {}
        for f in fields(x):
            v = getattr(x, f.name)
            r = renamed(v, names)
            if r is not v:
                changes[f.name] = r
        return replace(x, **changes) if changes else x
    return x


def same_view(a: ir.TensorView, b) -> bool:
    return isinstance(b, ir.TensorView) and b.base.name == a.base.name and b.axes == a.axes and \
        all(same_expr(x, y) for x, y in zip(a.starts, b.starts))


class Lowering(TensorOpsMixin):
    """The lowering of the tensor statements of one function, in order."""

    def __init__(self):
        self.seq = 0                    # the seq of the statement being lowered
        self.loc = None                 # its location
        self.made = 0                   # names made by the lowering so far
        self.made_after: Counter = Counter()   # seq -> names the lowering made for the statements of that seq
        self.scalars: dict = {}         # seq -> scalar locals declared by those statements
        self.pre: list = []             # the statements of the current lowering

    # ------------------------------------------------------------------ names

    def fresh(self, base):
        """A new name: numbered after the frontend's names made before this statement and all the lowering's."""
        self.made += 1
        self.made_after[self.seq] += 1
        return f"{base}{self.seq + self.made}"

    def new_scalar(self, base, t):
        v = ir.Var(self.fresh(base), t)
        self.scalars.setdefault(self.seq, []).append(v)
        return v

    def final_names(self):
        """The renaming of the frontend's generated names: its k-th name comes after the lowering's names of
        the statements it emitted before it (those of seq < k)."""
        offsets: dict = {}

        def final(name):
            base, mark, k = name.rpartition("#")
            if not mark or not base:
                return name
            k = int(k)
            if k not in offsets:
                offsets[k] = sum(n for s, n in self.made_after.items() if s < k)
            return f"{base}{k + offsets[k]}"
        return final

    # ------------------------------------------------------------------ statements

    def block(self, stmts) -> tuple:
        out = []
        for s in stmts:
            if isinstance(s, ir.TENSOR_STMTS):
                self.seq, self.loc, self.pre = s.seq, s.loc, []
                self.statement(s)
                out += self.pre
            elif isinstance(s, (ir.For, ir.While)):
                out.append(replace(s, body=self.block(s.body)))
            elif isinstance(s, ir.If):
                out.append(replace(s, then=self.block(s.then), orelse=self.block(s.orelse)))
            else:
                out.append(s)
        return tuple(out)

    def statement(self, s):
        if isinstance(s, ir.TensorStore):
            if s.accumulate:
                self.emit_matmul(s.dst, s.value, accumulate=True)
            else:
                self.store(s.dst, s.value)
        elif isinstance(s, ir.ScalarReduce):
            self.pre += self.reduce_into_scalar(s.value, s.acc)
        else:
            self.tile_copy(s.name, s.src, s.dst)

    # ------------------------------------------------------------------ values

    def whole(self, var: ir.Var) -> ir.TensorView:
        t = var.type
        return ir.TensorView(var, tuple(iconst(0) for _ in t.shape), tuple(range(t.ndim)), t.shape,
                             tuple(dim_expr(d) for d in t.shape))

    def loops(self, extents, body, starts=None):
        """A loop nest over `extents` (from `starts`, default 0) around body(index variables) -> statements."""
        loc = self.loc
        vs = tuple(ir.Var(self.fresh("_t_i"), ir.INDEX, loc) for _ in extents)
        inner = list(body(vs))
        starts = starts or [iconst(0)] * len(extents)
        for v, s, e in reversed(list(zip(vs, starts, extents))):
            inner = [ir.For(v, s, e, iconst(1), tuple(inner), "serial", loc)]
        return inner

    def elem(self, v, idx):
        """The scalar IR expression of element `idx` of an elementwise-capable value (a view or a map)."""
        if isinstance(v, ir.TensorView):
            base = list(v.starts)
            for j, k in enumerate(v.axes):
                base[k] = iadd(base[k], idx[j])
            return ir.Load(v.base, tuple(base), ir.ScalarType(v.dtype))
        if isinstance(v, ir.TensorMap):
            vals = [self.elem(a, self.bidx(a, idx)) if isinstance(a, ir.TensorValue) else a for a in v.args]
            return ir.map_expr(v.body, lambda e: vals[e.index] if isinstance(e, ir.MapArg) else None)
        raise AssertionError(f"not elementwise: {v!r}")

    def bidx(self, a, idx):
        """The indices of operand `a` for element `idx` of a broadcast result (size-1 axes read index 0)."""
        sub = idx[len(idx) - a.ndim:] if a.ndim else ()
        return tuple(iconst(0) if d == 1 else i for d, i in zip(a.shape, sub))

    def elementwise(self, name, fn, args):
        """The map `name` of tensor values `args` (views), element by element fn(elements)."""
        tensors = [a for a in args if isinstance(a, ir.TensorValue)]
        shape = broadcast_shape([a.shape for a in tensors])
        probes = [ir.MapArg(k, ir.ScalarType(a.dtype), ir.element_loc(a)) if isinstance(a, ir.TensorValue) else a
                  for k, a in enumerate(args)]
        body = fn(probes)
        return ir.TensorMap(name, tuple(args), body, body.type.dtype, shape, broadcast_extents(tensors, shape),
                            self.loc)

    def operand(self, v, dtype=None):
        """v as an elementwise-capable value (a view or a map): products, reductions and softmax are computed
        into a temporary first. With `dtype`, as a view of that dtype (a cast copy when needed)."""
        if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
            v = self.whole(v)
        if isinstance(v, (ir.TensorMatMul, ir.TensorReduce, ir.TensorSoftmax, ir.TensorEpilogue)):
            v = self.materialize(v)
        elif isinstance(v, ir.TensorMap):
            v = self.resolve(v)
        if dtype is not None and (not isinstance(v, ir.TensorView) or v.dtype != dtype):
            if v.dtype != dtype:
                t, loc = ir.ScalarType(dtype), self.loc
                v = self.elementwise("cast", lambda a: cast(a[0], t, loc), [v])
            v = self.materialize(v)
        return v

    def resolve(self, v: ir.TensorMap) -> ir.TensorMap:
        """v with its non-elementwise operands computed into temporaries (ir.resolve_map)."""
        return ir.resolve_map(v, self.materialize)

    def materialize(self, v, dtype=None) -> ir.TensorView:
        """A temporary holding v; returns its view (with v's run-time extents)."""
        var = ir.Var(self.fresh("_t_tmp"), ir.TensorType(dtype or v.dtype, v.shape), self.loc)
        self.pre.append(ir.Alloc(var, "empty", None, None, self.loc))
        dst = replace(self.whole(var), extents=v.extents)
        self.store(dst, v)
        return dst

    # ------------------------------------------------------------------ stores

    def store(self, dst: ir.TensorView, value, op=None):
        """dst[...] = value (or, with op, dst[...] op= value)."""
        loc = self.loc
        if isinstance(value, ir.Var) and isinstance(value.type, ir.TensorType):
            value = self.whole(value)
        if op is not None:
            value = self.elementwise(op, lambda v: binary(op, v[0], v[1], loc), [dst, value])
        if isinstance(value, ir.TensorValue) and dst.base.name in ir.tensor_inputs(value):
            safe = isinstance(value, (ir.TensorView, ir.TensorMap, ir.TensorEpilogue)) and \
                all(same_view(w, dst) for w in ir.views_of(value, dst.base.name))
            if not safe:
                value = self.materialize(value)
        if isinstance(value, ir.TensorValue) and value.shape == dst.shape:
            if isinstance(value, ir.TensorMatMul):
                return self.emit_matmul(dst, value)
            if isinstance(value, ir.TensorReduce):
                return self.emit_reduce(value, dst)
            if ir.is_rounding(value) and isinstance(value.args[0], ir.TensorReduce) and \
                    value.args[0].shape == dst.shape:           # a named 16-bit reduction (fused kernels)
                return self.emit_reduce(value.args[0], dst, rounded=True)
            if isinstance(value, ir.TensorSoftmax):
                return self.emit_softmax(dst, value)
            if isinstance(value, ir.TensorEpilogue) and dst.ndim == 2 and dst.dtype.name in MATMUL_DTYPES:
                return self.emit_matmul(dst, value.product, epilogue=value.value)
        if isinstance(value, ir.TensorValue):
            value = self.operand(value)
        et = ir.ScalarType(dst.dtype)

        def body(idx):
            v = self.elem(value, self.bidx(value, idx)) if isinstance(value, ir.TensorValue) else value
            return [ir.Store(dst.base, self.elem(dst, idx).indices, cast(valued(v, value), et, loc), loc)]
        ext = dst.extents
        if isinstance(value, ir.TensorValue):      # operands clipped at run time: the common part
            ext = tuple(imin(e, value.extents[k - (dst.ndim - value.ndim)])
                        if k >= dst.ndim - value.ndim and value.shape[k - (dst.ndim - value.ndim)] != 1 else e
                        for k, e in enumerate(ext))
        self.pre += self.loops(ext, body)

    def tile_copy(self, name, src, dst):
        """lang.load_2d(src_view, dst_buffer) / lang.store_2d(src_buffer, dst_view)."""
        loc = self.loc
        src = self.operand(src)
        et = ir.ScalarType(dst.dtype)
        if name == "load_2d":
            ext = src.extents
        else:
            ext = tuple(imin(a, b) for a, b in zip(dst.extents, src.extents))

        def copy(idx):
            return [ir.Store(dst.base, self.elem(dst, idx).indices, cast(self.elem(src, idx), et, loc), loc)]
        self.pre += self.loops(ext, copy)
        if name == "load_2d" and not all(ir.is_dim(e, d) for e, d in zip(src.extents, src.shape)):
            # a clipped (edge) tile: the rest of the buffer is zero
            zero = ir.Const(0, et) if et.dtype.kind != "f" else ir.Const(0.0, et)

            def fill(idx):
                return [ir.Store(dst.base, self.elem(dst, idx).indices, zero, loc)]
            rows, cols = dst.extents
            self.pre += self.loops([ext[0], cols], fill, starts=[iconst(0), ext[1]])
            self.pre += self.loops([rows, cols], fill, starts=[ext[0], iconst(0)])


def valued(e, value):
    """Element e of tensor expression `value` as a value of value's dtype: a 16-bit expression (computed in float32)
    rounded once to its dtype where it is stored into a wider tensor, as NumPy's value would be (docs/tensors.md,
    "Precision"); a view's element already is."""
    if isinstance(value, ir.TensorMap) and value.dtype.is_16bit_float:
        return ir.Cast(e, ir.ScalarType(value.dtype), getattr(e, "loc", None), explicit=True)
    return e


def broadcast_shape(shapes) -> tuple:
    """The shape that shapes broadcast to (the frontend checked that they do)."""
    nd = max(len(s) for s in shapes)
    out = []
    for k in range(nd):
        d = 1
        for s in shapes:
            j = k - (nd - len(s))
            if j >= 0 and d == 1:
                d = s[j]
        out.append(d)
    return tuple(out)

"""The lowering of tensor values to element-level IR: loop nests of Loads and Stores written straight into the
destination of `out[...] = expr` / `return expr`, or into a temporary when an operand must exist in memory. A
matrix product becomes one `ir.MatMul` statement over strided views, which the cpu target runs on the GEMM library.
In a `@lang.fused_kernel` (and a `@lang.cube_kernel`), an elementwise expression of a matrix product (bias,
activation, residual, scaling) becomes the product's epilogue: the GEMM applies it to each tile of the result right
after the tile is final, while it is in cache, so `gelu(x @ w1) @ w2` makes no separate pass over the intermediate.

Edge tiles: the element loops and products run over the clipped extents of their operands."""
from __future__ import annotations

import numpy as np

from .. import ir
from ..builtins import BUILTINS
from ..errors import KernelTypeError
from .shapes import MATMUL_DTYPES, dim_expr, fmt_shape, iadd, iconst, imin, imul
from .tvalues import TMap, TMatMul, TReduce, TSoftmax, TValue, TView, epilogue_leaf, inputs, path_names, replace, \
    views_of


class LoweringMixin:
    """The lowering part of FunctionBuilder."""

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
        starts = starts or [iconst(0)] * len(extents)
        for v, s, e in reversed(list(zip(vs, starts, extents))):
            inner = [ir.For(v, s, e, iconst(1), tuple(inner), "serial", loc)]
        return inner

    def elem(self, v, idx):
        """The scalar IR expression of element `idx` of an elementwise-capable value."""
        if isinstance(v, TView):
            base = list(v.starts)
            for j, k in enumerate(v.axes):
                base[k] = iadd(base[k], idx[j])
            return ir.Load(v.base, tuple(base), ir.ScalarType(v.dtype))
        if isinstance(v, TMap):
            vals = [self.elem(a, self.bidx(a, idx)) if isinstance(a, TValue) else a for a in v.args]
            return v.fn(self, vals)
        raise AssertionError(f"not elementwise: {v!r}")

    def bidx(self, a, idx):
        """The indices of operand `a` for element `idx` of a broadcast result (size-1 axes read index 0)."""
        sub = idx[len(idx) - a.ndim:] if a.ndim else ()
        return tuple(iconst(0) if d == 1 else i for d, i in zip(a.shape, sub))

    def operand(self, v, node, dtype=None):
        """v as an elementwise-capable value (a view or a map): products, reductions and softmax are computed
        into a temporary first. With `dtype`, as a view of that dtype (a cast copy when needed)."""
        v = self.as_tvalue(v)
        if isinstance(v, (TMatMul, TReduce, TSoftmax)):
            v = self.materialize(v, node)
        elif isinstance(v, TMap):
            if self.ctx.epilogues and epilogue_leaf(v) is not None:
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
            raise self.error(f"cannot assign {self.describe(value)} to a tensor", node)
        if op is not None:
            if op == "add" and isinstance(value, TMatMul) and value.shape == dst.shape:
                return self.emit_matmul(dst, value, node, accumulate=True)
            value = self.tensor_binary(op, dst, value, node)
        if isinstance(value, TValue) and dst.base.name in inputs(value):
            safe = isinstance(value, (TView, TMap)) and all(w.same(dst) for w in views_of(value, dst.base.name))
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
                leaf = epilogue_leaf(value)
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
            ext = tuple(imin(e, value.extents[k - (dst.ndim - value.ndim)])
                        if k >= dst.ndim - value.ndim and value.shape[k - (dst.ndim - value.ndim)] != 1 else e
                        for k, e in enumerate(ext))
        self.pre += self.loops(ext, body, loc)

    # ---- matrix products

    def ir_view(self, v: TView, loc, batch_ext=None) -> ir.View:
        t = v.base.type
        strides, acc = [], iconst(1)
        for d in reversed(t.shape):
            strides.append(acc)
            acc = imul(acc, dim_expr(d))
        strides.reverse()
        off = iconst(0)
        for s, st in zip(v.starts, strides):
            off = iadd(off, imul(s, st))
        shape, vstrides = list(v.extents), [strides[k] for k in v.axes]
        vtype = v.type
        if batch_ext is not None and v.ndim == 2:       # one operand shared by a batch: stride 0
            shape, vstrides = [batch_ext] + shape, [iconst(0)] + vstrides
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
                return self.store_into(dst, replace(epilogue, mm, tmp), node, "add" if accumulate else None)
            return self.store_into(dst, tmp, node, "add" if accumulate else None)
        epi, index = (), ()
        if epilogue is not None:
            value = self.resolve(replace(epilogue, mm, dst), node)      # other operands: computed before
            index = (ir.Var(self.fresh("_t_ei"), ir.INDEX, loc), ir.Var(self.fresh("_t_ej"), ir.INDEX, loc))
            v = self.cast(self.elem(value, index), ir.ScalarType(dst.dtype), node)
            epi = (ir.Store(dst.base, self.elem(dst, index).indices, v, getattr(epilogue, "loc", None) or
                            self.loc(node)),)
            note = note or f"fused epilogue: {' -> '.join(path_names(epilogue, mm))} on each tile of the product " \
                           f"while it is in cache"
        batch = dst.extents[0] if dst.ndim == 3 else None
        m = imin(dst.extents[-2], a.extents[-2])
        n = imin(dst.extents[-1], b.extents[-1])
        k = imin(a.extents[-1], b.extents[-2])
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
                oi = [iconst(0) if k in r.axes else outer[kept.index(k)] for k in range(x.ndim)]
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

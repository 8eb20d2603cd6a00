"""The lowering of the tensor operations that are not elementwise: matrix products (one `ir.MatMul` over strided
views, with its fused epilogue), reductions (an accumulator per result element) and softmax (max, exp and sum,
divide: three passes over each row). A mixin of tensor_lower.Lowering."""
from __future__ import annotations

import numpy as np

from .. import ir
from ..builtins import BUILTINS
from ..frontend.scalars import binary, cast, math_call
from ..frontend.shapes import MATMUL_DTYPES, dim_expr, iadd, iconst, imin, imul


class TensorOpsMixin:

    # ------------------------------------------------------------------ matrix products

    def ir_view(self, v: ir.TensorView, loc, batch_ext=None) -> ir.View:
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

    def emit_matmul(self, dst: ir.TensorView, mm: ir.TensorMatMul, accumulate=False, epilogue=None):
        """dst = mm (or +=); with `epilogue`, an elementwise expression of mm: dst = epilogue, computed on each
        tile of the product by the GEMM, while the tile is in cache."""
        loc = mm.loc or self.loc
        a = self.operand(mm.a, mm.dtype)
        b = self.operand(mm.b, mm.dtype)
        if dst.base.name in (a.base.name, b.base.name) or dst.dtype.name not in MATMUL_DTYPES or (
                epilogue is not None and accumulate):
            tmp = self.materialize_matmul(mm, a, b)
            if epilogue is not None:
                return self.store(dst, ir.substitute(epilogue, mm, tmp), "add" if accumulate else None)
            return self.store(dst, tmp, "add" if accumulate else None)
        epi, index, note = (), (), ""
        if epilogue is not None:
            prod = dst
            if mm.dtype.is_16bit_float:
                # the epilogue reads the product as a value of its dtype: the float32 accumulation rounded once
                # (docs/tensors.md, "Precision"), whatever the destination's dtype
                t = ir.ScalarType(mm.dtype)
                prod = self.elementwise("round", lambda a: ir.Cast(a[0], t, loc, explicit=True), [dst])
            value = self.resolve(ir.substitute(epilogue, mm, prod))     # other operands: computed before
            index = (ir.Var(self.fresh("_t_ei"), ir.INDEX, loc), ir.Var(self.fresh("_t_ej"), ir.INDEX, loc))
            v = self.elem(value, index)
            if value.dtype.is_16bit_float and dst.dtype != value.dtype:     # rounded to its dtype, then widened
                v = ir.Cast(v, ir.ScalarType(value.dtype), self.loc, explicit=True)
            v = cast(v, ir.ScalarType(dst.dtype), self.loc)
            epi = (ir.Store(dst.base, self.elem(dst, index).indices, v, epilogue.loc or self.loc),)
            note = f"fused epilogue: {' -> '.join(ir.map_path(epilogue, mm))} on each tile of the product while it " \
                   f"is in cache"
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

    def materialize_matmul(self, mm, a, b):
        var = ir.Var(self.fresh("_t_tmp"), ir.TensorType(mm.dtype, mm.shape), self.loc)
        self.pre.append(ir.Alloc(var, "empty", None, None, self.loc))
        dst = ir.TensorView(var, tuple(iconst(0) for _ in mm.shape), tuple(range(len(mm.shape))), mm.shape,
                            mm.extents)
        self.emit_matmul(dst, ir.TensorMatMul(a, b, mm.dtype, mm.shape, mm.extents, mm.loc))
        return dst

    # ------------------------------------------------------------------ reductions

    def reduction(self, r: ir.TensorReduce, x, outer, acc=None) -> tuple:
        """The accumulator of reduction r of x at the kept indices `outer` (a new local, unless given) and the
        statements computing it."""
        loc = self.loc
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
        acc = acc if acc is not None else self.new_scalar("_t_acc", at)

        def inner(iv):
            full, it_o, it_i = [], iter(outer), iter(iv)
            for k in range(x.ndim):
                full.append(next(it_i) if k in r.axes else next(it_o))
            e = cast(self.elem(x, tuple(full)), at, loc)
            if r.op == "sum":
                upd = ir.Binary("add", acc, e, at, loc)
            elif at.dtype.kind == "f":      # numpy.max / min: a nan element gives nan
                upd = ir.Call("maximum" if r.op == "max" else "minimum", (acc, e), at, loc)
            else:
                cmp = ir.Compare("gt" if r.op == "max" else "lt", e, acc, ir.ScalarType(ir.bool_), loc)
                upd = ir.Select(cmp, e, acc, at, loc)
            return [ir.Assign(acc, upd, loc)]
        return acc, [ir.Assign(acc, init, loc)] + self.loops([x.extents[k] for k in r.axes], inner)

    def reduce_into_scalar(self, r: ir.TensorReduce, acc: ir.Var) -> list:
        """The statements computing acc = r, a reduction over all axes. A 16-bit acc is rounded once to its type
        at the end (accumulated in float32; the value a 16-bit variable holds is rounded, as the interpreter's)."""
        stmts = self.reduction(r, self.operand(r.x), (), acc)[1]
        if acc.type.dtype.is_16bit_float and not acc.type.weak:
            stmts.append(ir.Assign(acc, ir.Cast(acc, acc.type, self.loc, explicit=True), self.loc))
        return stmts

    def emit_reduce(self, r: ir.TensorReduce, dst: ir.TensorView, rounded=False):
        """dst = r; `rounded`: the value stored is r's, rounded to its (16-bit) dtype, even into a wider dst."""
        loc = self.loc
        x = self.operand(r.x)
        kept = [k for k in range(x.ndim) if k not in r.axes]

        def body(outer):
            acc, stmts = self.reduction(r, x, outer)
            oi = list(outer)
            if r.keepdims:
                oi = [iconst(0) if k in r.axes else outer[kept.index(k)] for k in range(x.ndim)]
            v = ir.Cast(acc, ir.ScalarType(r.dtype), loc, explicit=True) if rounded else acc
            return stmts + [ir.Store(dst.base, self.elem(dst, tuple(oi)).indices,
                                     cast(v, ir.ScalarType(dst.dtype), loc), loc)]
        self.pre += self.loops([x.extents[k] for k in kept], body)

    # ------------------------------------------------------------------ softmax

    def emit_softmax(self, dst: ir.TensorView, sm: ir.TensorSoftmax):
        loc = self.loc
        x = self.operand(sm.x)
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
                # numpy.maximum (NaN-propagating, so a max reduction every target may reorder): softmax's result is
                # the same as with a NaN-skipping max, since a NaN element makes its exp, the sum and so every
                # element of the row NaN either way
                e = self.elem(x, full(iv[0]))
                return [ir.Assign(m, ir.Call("maximum", (m, e), ct, loc), loc)]
            st += self.loops([x.extents[ax]], pmax)
            st.append(ir.Assign(s, ir.Const(0.0, ct), loc))

            def pexp(iv):
                e = self.new_scalar("_t_e", ct)
                d = binary("sub", self.elem(x, full(iv[0])), m, loc)
                ex = math_call(BUILTINS["exp"], [d], loc)
                return [ir.Assign(e, cast(ex, ct, loc), loc),
                        ir.Store(dst.base, self.elem(dst, full(iv[0])).indices,
                                 cast(e, ir.ScalarType(dst.dtype), loc), loc),
                        ir.Assign(s, ir.Binary("add", s, e, ct, loc), loc)]
            st += self.loops([x.extents[ax]], pexp)

            def pdiv(iv):
                cur = self.elem(dst, full(iv[0]))
                return [ir.Store(dst.base, cur.indices,
                                 cast(binary("truediv", cur, s, loc), ir.ScalarType(dst.dtype), loc), loc)]
            st += self.loops([x.extents[ax]], pdiv)
            return st
        self.pre += self.loops([x.extents[k] for k in others], body)

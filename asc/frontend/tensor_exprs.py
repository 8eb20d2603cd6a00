"""Tensor-level expressions, typed and checked: whole tensors and views in arithmetic (broadcast as NumPy
broadcasts), math functions of tensors, comparisons, matrix products, reductions and transposes. Each builds a
tensor value (asc/ir/tensor.py) with a compile-time shape; a shape or dtype error points at the user's line."""
from __future__ import annotations

from .. import ir
from ..errors import KernelTypeError
from .context import UNKNOWN
from .shapes import MATMUL_DTYPES, broadcast_extents, dim_expr, dims_equal, fmt_dim, fmt_shape, iconst, imin


class TensorExprMixin:
    """The tensor-expression part of FunctionBuilder."""

    def is_tensor(self, v) -> bool:
        return isinstance(v, ir.TensorValue) or (isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType))

    def whole(self, var: ir.Var) -> ir.TensorView:
        t = var.type
        ext = self.clipped_temps.get(var.name)
        return ir.TensorView(var, tuple(iconst(0) for _ in t.shape), tuple(range(t.ndim)), t.shape,
                             ext if ext is not None else tuple(dim_expr(d) for d in t.shape))

    @property
    def clipped_temps(self) -> dict:
        """Tensor variables holding a value clipped at run time (`y = x[i:i+B] * 2` at an edge tile) -> their
        run-time extents, kept in scalars at the binding: as in NumPy, such a tensor has the clipped shape (its
        `.shape`, `len`, what reads it whole), though its memory has the compile-time shape (docs/tensors.md)."""
        d = self.__dict__.get("_clipped_temps")
        if d is None:
            d = self.__dict__["_clipped_temps"] = {}
        return d

    def keep_extents(self, var: ir.Var, value, node):
        """Records the run-time extents of `value`, just stored into the new tensor variable `var`, where they may
        be clipped: each such extent is computed once, here, into a scalar (the names in it may change later)."""
        if all(ir.is_dim(e, d) for e, d in zip(value.extents, value.shape)):
            return
        loc, ext = self.loc(node), []
        for e, d in zip(value.extents, value.shape):
            if ir.is_dim(e, d) or isinstance(e, ir.Const):
                ext.append(e)
                continue
            v = self.new_scalar("_t_ext", ir.INDEX)
            self.pre.append(ir.Assign(v, e, loc))
            ext.append(v)
        self.clipped_temps[var.name] = tuple(ext)

    def as_tvalue(self, v):
        if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
            return self.whole(v)
        return v

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
                elif e != 1 and not dims_equal(d, e):
                    raise self.error(f"{what} {' and '.join(fmt_shape(s) for s in shapes)} cannot be broadcast "
                                     f"together (axis {k}: {fmt_dim(d)} vs {fmt_dim(e)})",
                                     node, KernelTypeError)
            out.append(d)
        return tuple(out)

    def tmap(self, name, fn, args, node):
        """The elementwise map `name` of args (tensors, broadcast, and scalars): fn(builder, elements) types one
        element; its result, over placeholders of the tensor operands' elements (ir.MapArg), is the map's body."""
        # a fused kernel keeps products (and reductions) inside the expression until it is stored
        args = [(self.as_tvalue(a) if self.ctx.epilogues else self.operand(a, node)) if self.is_tensor(a) else a
                for a in args]
        tensors = [a for a in args if isinstance(a, ir.TensorValue)]
        shape = self.broadcast_shapes([a.shape for a in tensors], node, f"{name}: shapes")
        probes = [ir.MapArg(k, ir.ScalarType(a.dtype), ir.element_loc(a)) if isinstance(a, ir.TensorValue) else a
                  for k, a in enumerate(args)]
        body = fn(self, probes)
        if body.type == UNKNOWN:
            raise self.error("the type of this tensor expression depends on a value whose type is not known yet",
                             node)
        return ir.TensorMap(name, tuple(args), body, body.type.dtype, shape, broadcast_extents(tensors, shape),
                            self.loc(node))

    def tensor_binary(self, op, a, b, node):
        if op == "matmul":
            return self.tmatmul(a, b, node)
        for x, xn in ((a, node), (b, node)):
            if not self.is_tensor(x) and not (isinstance(x, ir.Expr) and isinstance(x.type, ir.ScalarType)):
                raise self.error(f"expected a tensor or a number, got {self.describe(x)}", xn)
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
            if not isinstance(x, ir.TensorValue):
                raise self.error(f"matmul needs tensors, got {self.describe(x)}", node, KernelTypeError)
        if a.ndim not in (2, 3) or b.ndim not in (2, 3):
            raise self.error(f"matmul: operands must be 2-D (or 3-D for a batch of products), got shapes "
                             f"{fmt_shape(a.shape)} and {fmt_shape(b.shape)}", node, KernelTypeError)
        if not dims_equal(a.shape[-1], b.shape[-2]):
            raise self.error(f"matmul: shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)} do not match (the "
                             f"inner sizes {fmt_shape(a.shape[-1:])[1:-2]} and {fmt_shape(b.shape[-2:-1])[1:-2]} "
                             f"differ)", node, KernelTypeError)
        batch, bext = (), ()
        if a.ndim == 3 or b.ndim == 3:
            if a.ndim == 3 and b.ndim == 3 and not dims_equal(a.shape[0], b.shape[0]):
                raise self.error(f"matmul: batch sizes of shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)} "
                                 f"differ", node, KernelTypeError)
            src = a if a.ndim == 3 else b
            batch, bext = (src.shape[0],), (src.extents[0],)
            if a.ndim == 3 and b.ndim == 3:
                bext = (imin(a.extents[0], b.extents[0]),)
        dt = ir.promote_dtypes(a.dtype, b.dtype)
        if dt.name not in MATMUL_DTYPES:
            raise self.error(f"matmul needs float operands (float32, float64, float16, bfloat16), got "
                             f"{a.dtype.name} and {b.dtype.name}", node, KernelTypeError)
        return ir.TensorMatMul(a, b, dt, batch + (a.shape[-2], b.shape[-1]), bext + (a.extents[-2], b.extents[-1]),
                               loc)

    def treduce(self, op, x, axis, keepdims, node):
        x = self.as_tvalue(x)
        if not isinstance(x, ir.TensorValue):
            hint = f" (for numbers: Python's {op}(a, b) or lang.{'maximum' if op == 'max' else 'minimum'}(a, b))" \
                if op in ("max", "min") else ""
            raise self.error(f"lang.{op} reduces a tensor, got {self.describe(x)}{hint}", node, KernelTypeError)
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
                    ext.append(iconst(1))
            else:
                shape.append(x.shape[k])
                ext.append(x.extents[k])
        return ir.TensorReduce(op, x, axes, keepdims, dt, tuple(shape), tuple(ext))

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
        if not isinstance(x, ir.TensorView):
            x = self.materialize(x, node)
        if axes is None:
            perm = tuple(reversed(range(x.ndim)))
        else:
            vals = axes if isinstance(axes, tuple) else (axes,)
            perm = tuple(self.axes_arg(a, x.ndim, "transpose", node)[0] for a in vals)
            if sorted(perm) != list(range(x.ndim)):
                raise self.error(f"lang.transpose: axes {perm} are not a permutation of {x.ndim} axes", node)
        return ir.TensorView(x.base, x.starts, tuple(x.axes[p] for p in perm), tuple(x.shape[p] for p in perm),
                             tuple(x.extents[p] for p in perm))

"""Views of tensors: `A[i:i+B, :]`, `A[..., k]`, partial indices. A view is a window of a tensor variable; its
shape is known at compile time (`A[i:i+B]` has B rows) and its extents are clipped at run time at the end of the
tensor, as NumPy clips a slice."""
from __future__ import annotations

import ast

from .. import ir
from ..errors import UnsupportedError
from .shapes import dim_expr, iadd, iconst, imax, imin, isub, linear, same_expr


class ViewsMixin:
    """The slicing part of FunctionBuilder."""

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

    def has_slices(self, node) -> bool:
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        return any(isinstance(e, ast.Slice) or (isinstance(e, ast.Constant) and e.value is Ellipsis)
                   for e in elts)

    def subscript_view(self, base, node):
        """base[...] with slices, integers and `...`: a view, or a Load when every axis gets an integer."""
        view = base if isinstance(base, ir.TensorView) else self.whole(base)
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
                starts[k] = iadd(starts[k], self.cast(v, ir.INDEX, e))
                continue
            if e.step is not None:
                st = self.expr(e.step)
                if not (isinstance(st, ir.Const) and st.value == 1):
                    raise self.error("slices with a step are not supported (only step 1)", e.step, UnsupportedError)
            parent_n, parent_rt = view.shape[j], view.extents[j]
            lo = iconst(0) if e.lower is None else self.cast(self.int_scalar(self.expr(e.lower), e.lower), ir.INDEX, e)
            lo = self.from_end(lo, parent_n, parent_rt, e.lower)
            wlo, wrapped = self.wrap_bound(lo, parent_rt)
            if e.upper is None:
                n = self.slice_size(parent_n, lo, e)
                rt = isub(parent_rt, wlo)
            else:
                hi = self.cast(self.int_scalar(self.expr(e.upper), e.upper), ir.INDEX, e)
                hi = self.from_end(hi, parent_n, parent_rt, e.upper)
                n = self.slice_size(hi, lo, e)
                whi, hi_wrapped = self.wrap_bound(hi, parent_rt)
                hb = self.bounds(hi)
                if wrapped or hi_wrapped:
                    # NumPy's normalization at run time: both bounds within [0, n], the extent at least 0
                    rt = imax(isub(whi if hi_wrapped else imin(hi, parent_rt), wlo), iconst(0))
                elif (hb is not None and isinstance(parent_n, int) and hb[1] <= parent_n and
                        ir.is_dim(parent_rt, parent_n)) or same_expr(hi, parent_rt):
                    rt = isub(hi, lo) if not isinstance(n, int) else iconst(n)
                else:
                    rt = isub(imin(hi, parent_rt), lo)     # clipped at run time
            starts[k] = iadd(starts[k], wlo)
            axes.append(k), shape.append(n), ext.append(rt)
        if not axes:
            return ir.Load(view.base, tuple(starts), ir.ScalarType(view.dtype), self.loc(node))
        return ir.TensorView(view.base, tuple(starts), tuple(axes), tuple(shape), tuple(ext))

    def snapshot_view(self, view, node):
        """`view` as NumPy binds it to a name: its start and stop are taken at the binding (j = 0; t = x[j:j+4];
        j = 4 leaves t at x[0:4]). Each scalar variable in them that is assigned again somewhere in the function is
        copied into a hidden scalar here (an enclosing loop's variable cannot change within its iteration)."""
        loc, snaps = self.loc(node), {}

        def fn(e):
            if not (isinstance(e, ir.Var) and isinstance(e.type, ir.ScalarType)) or e.name in self.loop_vars:
                return None
            if self.assign_count[e.name] <= (0 if e.name in self.params_by_name else 1):
                return None
            if e.name not in snaps:
                snaps[e.name] = self.new_scalar(f"_{e.name}_at", e.type)
                self.pre.append(ir.Assign(snaps[e.name], e, loc))
            return snaps[e.name]

        def over(xs):
            return tuple(ir.map_expr(x, fn) if isinstance(x, ir.Expr) else x for x in xs)
        return ir.TensorView(view.base, over(view.starts), view.axes, view.shape, over(view.extents))

    def wrap_bound(self, b, rt):
        """A slice bound known only at run time, normalized as NumPy does: below 0 it counts from the end of the
        axis (b + n, at least 0), and it is at most n. A bound that cannot be negative is only clipped later."""
        lo = self.lowest(b)
        if lo is not None and lo >= 0:
            return b, False
        neg = ir.Compare("lt", b, iconst(0), ir.ScalarType(ir.bool_))
        return ir.Select(neg, imax(iadd(b, rt), iconst(0)), imin(b, rt), ir.INDEX), True

    def lowest(self, e):
        """The lowest value of an index expression over the enclosing loops, when known (sizes are at least 0)."""
        if isinstance(e, ir.Const) and isinstance(e.value, int):
            return e.value
        if isinstance(e, ir.Cast):
            return self.lowest(e.x)
        if isinstance(e, ir.Var):
            if e.name in self.loop_ranges:
                start, _, step = self.loop_ranges[e.name]
                if isinstance(step, ir.Const) and step.value > 0:
                    return self.lowest(start)
                return None
            return 0 if isinstance(self.ctx.symbols.get(e.name), ir.Sym) and e.name not in self.var_types else None
        if isinstance(e, ir.Binary) and e.op == "add":
            a, b = self.lowest(e.a), self.lowest(e.b)
            return None if a is None or b is None else a + b
        if isinstance(e, ir.Binary) and e.op == "sub":
            a, b = self.lowest(e.a), self.bounds(e.b)
            return None if a is None or b is None else a - b[1]
        if isinstance(e, ir.Binary) and e.op == "mul":
            a, b = self.lowest(e.a), self.lowest(e.b)
            return None if a is None or b is None or min(a, b) < 0 else a * b
        return None

    def from_end(self, b, n, rt, node):
        """A slice bound as NumPy reads it: a constant b < 0 counts from the end of the axis (b + n, at least 0:
        x[:-1], x[-3:]). That needs the axis length at compile time; an axis whose length is known only at run time
        (dynamic_shape, a view clipped at the end of its tensor) refuses a negative bound by name."""
        if not (isinstance(b, ir.Const) and b.value < 0):
            return b
        if not (isinstance(n, int) and ir.is_dim(rt, n)):
            raise self.error(f"negative slice bound {b.value} on an axis whose length is known only at run time "
                             f"(dynamic_shape, or a view clipped at the end of its tensor): write it from the length, "
                             f"such as n - {-b.value}", node)
        return iconst(max(0, b.value + n))

    def slice_size(self, hi, lo, node):
        if isinstance(hi, (int, ir.Sym)):
            hi = dim_expr(hi)
        a, b = linear(hi), linear(lo)
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

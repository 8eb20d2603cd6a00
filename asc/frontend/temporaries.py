"""Tensor statements and the temporaries the frontend decides on. A tensor value is stored by a tensor statement
(asc/ir/tensor.py), which the tensor passes (passes.TENSOR_PASSES) lowers to loops; the frontend checks the store (shapes: errors at
the user's line) and computes into a temporary each value that must exist in memory where it is used: a view of a
computed value (`(a + b)[0]`, `(a @ b).T`), an operand of an elementwise expression in an ordinary kernel (a
product, a reduction, a softmax), the operand of a reduction to a scalar. A fused kernel (and a cube kernel) keeps
products inside expressions, for passes.fusion."""
from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..errors import KernelTypeError
from .shapes import fmt_shape


class TemporariesMixin:
    """The tensor-statement part of FunctionBuilder."""

    def emit(self, stmt):
        """Appends tensor statement `stmt` to the current statement's prelude, with its seq (the names made so far)
        and its slot among the locals (see asc/ir/tensor.py)."""
        slot = ir.locals_slot(self._tmp)
        self.var_types.setdefault(slot, ir.NONE)
        self.assigned_vars.add(slot)
        self.pre.append(replace(stmt, seq=self._tmp))

    def new_scalar(self, base, t):
        """A fresh scalar local of type t."""
        name = self.fresh(base)
        self.var_types[name] = t
        self.assigned_vars.add(name)
        return ir.Var(name, t)

    def operand(self, v, node):
        """v as an elementwise-capable value (a view or a map): products, reductions and softmax are computed
        into a temporary first."""
        v = self.as_tvalue(v)
        if isinstance(v, (ir.TensorMatMul, ir.TensorReduce, ir.TensorSoftmax)):
            v = self.materialize(v, node)
        elif isinstance(v, ir.TensorMap):
            if self.ctx.epilogues and ir.epilogue_product(v) is not None:
                v = self.materialize(v, node)       # the product with the map as its fused epilogue
            else:
                v = self.resolve(v, node)
        return v

    def resolve(self, v: ir.TensorMap, node) -> ir.TensorMap:
        """v with its non-elementwise operands computed into temporaries (ir.resolve_map)."""
        return ir.resolve_map(v, lambda a: self.materialize(a, node))

    def materialize(self, v, node, dtype=None) -> ir.TensorView:
        """A temporary holding v (of dtype `dtype`, v's by default); returns its view (with v's run-time extents)."""
        loc = self.loc(node)
        for d in v.shape:
            if not isinstance(d, (int, ir.Sym)):
                raise self.error("the size of a temporary tensor must be known at compile time", node)
        var = ir.Var(self.fresh("_t_tmp"), ir.TensorType(dtype or v.dtype, v.shape), loc)
        self.pre.append(ir.Alloc(var, "empty", None, None, loc))
        dst = replace(self.whole(var), extents=v.extents)
        self.emit(ir.TensorStore(dst, v, loc=loc))
        return dst

    def store_into(self, dst: ir.TensorView, value, node, op=None):
        """dst[...] = value (or, with op, dst[...] op= value), checked."""
        loc = self.loc(node)
        if isinstance(value, ir.Var) and isinstance(value.type, ir.TensorType):
            value = self.whole(value)
        if isinstance(value, ir.TensorValue):
            self.broadcast_shapes([dst.shape, value.shape], node, "cannot assign: shapes")
            if value.ndim > dst.ndim or self.broadcast_shapes([dst.shape, value.shape], node) != dst.shape:
                raise self.error(f"cannot assign a tensor of shape {fmt_shape(value.shape)} to a view of shape "
                                 f"{fmt_shape(dst.shape)}", node, KernelTypeError)
        elif not (isinstance(value, ir.Expr) and isinstance(value.type, ir.ScalarType)):
            raise self.error(f"cannot assign {self.describe(value)} to a tensor", node)
        if op is not None:
            if op == "add" and isinstance(value, ir.TensorMatMul) and value.shape == dst.shape:
                return self.emit(ir.TensorStore(dst, value, True, loc=loc))
            value = self.tensor_binary(op, dst, value, node)
        self.emit(ir.TensorStore(dst, value, loc=loc))

    def reduce_scalar(self, r: ir.TensorReduce, node):
        """A reduction over all the axes of its operand: the scalar Var holding the result."""
        x = self.operand(r.x, node)
        if r.keepdims:          # a 0-d operand
            return self.materialize(replace(r, x=x), node)
        acc = self.new_scalar("_t_acc", ir.ScalarType(r.dtype))
        self.emit(ir.ScalarReduce(acc, r if x is r.x else replace(r, x=x), loc=self.loc(node)))
        return acc

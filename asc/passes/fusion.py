"""Epilogue fusion of tensor-level IR: an elementwise expression of one 2-D matrix product (bias, activation,
residual, scaling) that a statement computes into memory becomes a TensorEpilogue, which tensor_lower.py lowers to
the product's epilogue: the GEMM applies it to each tile of the result right after the tile is final, while it is
in cache, so `gelu(x @ w1) @ w2` makes no separate pass over the intermediate.

Products inside maps exist only in @lang.fused_kernel and @lang.cube_kernel code (elsewhere the frontend computes a
product into a temporary before an elementwise expression reads it), so only those kernels change here.

Where a value must be in memory (the value a statement stores, the operands of products, reductions, softmax and
tile copies), a map of a product is fused. An operand of a map is not: it is computed with its map (a product
there is computed into a temporary by the lowering, as the map needs its elements)."""
from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..frontend.shapes import MATMUL_DTYPES


def fuse(k: ir.Kernel) -> ir.Kernel:
    return replace(k, entry=fuse_function(k.entry), funcs=tuple(fuse_function(f) for f in k.funcs))


def fuse_function(fn: ir.Function) -> ir.Function:
    return replace(fn, body=_Fusion().block(fn.body))


class _Fusion:
    def __init__(self):
        self.done: dict = {}        # (id of a value, its position) -> the value rewritten; identities are kept

    def block(self, stmts) -> tuple:
        out = []
        for s in stmts:
            if isinstance(s, ir.TensorStore):
                s = replace(s, value=self.stored(s.value))
            elif isinstance(s, ir.ScalarReduce):
                s = replace(s, value=self.stored(s.value))
            elif isinstance(s, ir.TileCopy):
                s = replace(s, src=self.stored(s.src))
            elif isinstance(s, (ir.For, ir.While)):
                s = replace(s, body=self.block(s.body))
            elif isinstance(s, ir.If):
                s = replace(s, then=self.block(s.then), orelse=self.block(s.orelse))
            out.append(s)
        return tuple(out)

    def stored(self, v):
        """v where it must be in memory."""
        return self.rewritten(v, "stored")

    def rewritten(self, v, where):
        if not isinstance(v, ir.TensorValue) or isinstance(v, ir.TensorView):
            return v
        key = (id(v), where if isinstance(v, ir.TensorMap) else "")
        if key not in self.done:
            self.done[key] = self._rewrite(v, where)
        return self.done[key]

    def _rewrite(self, v, where):
        if isinstance(v, ir.TensorMap):
            args = tuple(self.rewritten(a, "map") for a in v.args)
            m = v if all(a is b for a, b in zip(args, v.args)) else replace(v, args=args)
            product = ir.epilogue_product(v) if where == "stored" and v.dtype.name in MATMUL_DTYPES else None
            if product is None:
                return m
            return ir.TensorEpilogue(self.rewritten(product, "map"), m)
        if isinstance(v, ir.TensorMatMul):
            a, b = self.stored(v.a), self.stored(v.b)
            return v if (a, b) == (v.a, v.b) else replace(v, a=a, b=b)
        if isinstance(v, (ir.TensorReduce, ir.TensorSoftmax)):
            x = self.stored(v.x)
            return v if x is v.x else replace(v, x=x)
        raise TypeError(f"not a tensor value: {v!r}")

"""Builtins of the tensor level: reductions, lang.matmul, activations, softmax, transposes, buffers
(lang.local_buffer: a small tile in local memory, within the target's budget) and tile copies (lang.load_2d,
lang.store_2d: an edge tile that a clipped view does not fill is zero-filled)."""
from __future__ import annotations

import numpy as np

from .. import ir
from ..builtins import IROps
from ..errors import KernelTypeError, UnsupportedError
from .context import PendingAlloc
from .shapes import dims_equal, fmt_shape

LOCAL_BUDGET = {"cpu": 256 * 1024}              # bytes of lang.local_buffer per kernel, by target


class TensorBuiltinsMixin:
    """The tensor-builtin part of FunctionBuilder."""

    def tensor_builtin(self, b, node):
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
            return self.reduce_scalar(r, node) if not r.shape else r
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

            def fn(fb, a, decl=b):         # the composite's one definition (asc/builtins/composites.py)
                ops = IROps(lambda op, u, v: fb.binary(op, u, v, node), lambda c, args: fb.math_call(c, args, node))
                return decl.expand(ops, a[0])
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
            return ir.TensorSoftmax(x, self.axes_arg(axis, x.ndim, "softmax", node)[0])
        if b.kind == "transpose":
            vals = self.call_args(b, node, ("x", "axes"))
            if "x" not in vals or not self.is_tensor(vals["x"][0]):
                raise self.error("lang.transpose needs a tensor", node, KernelTypeError)
            return self.ttranspose(vals["x"][0], vals.get("axes", (None, node))[0], node)
        if b.kind == "buffer":
            _, shape, dt = self.shape_and_dtype(b, node, ("shape", "dtype"))
            space = "local" if b.name == "local_buffer" else "global"
            if space == "local":
                self.local_buffer_bytes(shape, dt, node)
            return PendingAlloc(ir.TensorType(dt, shape), "empty", None, loc, space)
        if b.kind == "tile":
            vals = self.call_args(b, node, ("src", "dst"))
            if len(vals) != 2:
                raise self.error(f"lang.{b.name}(src, dst) takes two arguments", node)
            self.tile_copy(b.name, vals["src"][0], vals["dst"][0], node)
            return None
        raise self.error(f"lang.{b.name} is not supported here", node, UnsupportedError)

    # ------------------------------------------------------------------ tiles and buffers

    def tile_copy(self, name, src, dst, node):
        """lang.load_2d(src_view, dst_buffer) / lang.store_2d(src_buffer, dst_view), checked."""
        src, dst = self.as_tvalue(src), self.as_tvalue(dst)
        for v, what in ((src, "source"), (dst, "destination")):
            if not isinstance(v, ir.TensorValue):
                raise self.error(f"lang.{name}: the {what} must be a tensor or a view, got {self.describe(v)}",
                                 node, KernelTypeError)
            if v.ndim != 2:
                raise self.error(f"lang.{name}: the {what} must be 2-D, got shape {fmt_shape(v.shape)}", node,
                                 KernelTypeError)
        if not all(dims_equal(a, b) for a, b in zip(src.shape, dst.shape)):
            kind = ("source view", "destination buffer") if name == "load_2d" else ("source buffer",
                                                                                   "destination view")
            raise self.error(f"lang.{name}: the {kind[0]} has shape {fmt_shape(src.shape)} but the {kind[1]} has "
                             f"shape {fmt_shape(dst.shape)}; the shapes must be equal", node, KernelTypeError)
        self.emit(ir.TileCopy(name, self.operand(src, node), dst, loc=self.loc(node)))

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


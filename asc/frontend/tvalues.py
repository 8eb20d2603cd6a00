"""The tensor values of the frontend: a tensor-valued expression (not IR) with its dtype, its compile-time shape
(checked, with errors at the user's line) and its run-time extents (a slice past the end of its tensor is clipped
at run time, as NumPy slicing is: the extents may be smaller than the shape). Views are windows of tensor
variables; maps, products, reductions and softmax are expressions of them, lowered by tensor_lowering.py."""
from __future__ import annotations

from .. import ir
from .shapes import is_dim, same_expr

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
            self.shape == self.base.type.shape and all(is_dim(e, d) for e, d in zip(self.extents, self.shape))

    def same(self, other) -> bool:
        return isinstance(other, TView) and other.base.name == self.base.name and other.axes == self.axes and \
            all(same_expr(a, b) for a, b in zip(self.starts, other.starts))


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


def inputs(v) -> set:
    """Names of the tensors an expression reads."""
    if isinstance(v, TView):
        return {v.base.name}
    if isinstance(v, TMap):
        out = set()
        for a in v.args:
            if isinstance(a, TValue):
                out |= inputs(a)
        return out
    if isinstance(v, TMatMul):
        return inputs(v.a) | inputs(v.b)
    if isinstance(v, (TReduce, TSoftmax)):
        return inputs(v.x)
    return set()


def views_of(v, name) -> list:
    if isinstance(v, TView):
        return [v] if v.base.name == name else []
    if isinstance(v, TMap):
        return [w for a in v.args if isinstance(a, TValue) for w in views_of(a, name)]
    return []


def epilogue_leaf(v):
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


def replace(v, old, new):
    """v with the value `old` (by identity) replaced by `new`."""
    if v is old:
        return new
    if isinstance(v, TMap):
        return TMap(v.name, v.fn, [replace(a, old, new) for a in v.args], v.dtype, v.shape, v.extents)
    return v


def path_names(v, leaf) -> list:
    """The maps applied to `leaf` on its way to v, innermost first."""
    if v is leaf:
        return []
    if isinstance(v, TMap):
        for a in v.args:
            sub = path_names(a, leaf) if isinstance(a, TValue) else None
            if sub is not None:
                return sub + [v.name]
    return None

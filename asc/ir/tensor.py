"""Tensor-level IR: what the frontend produces for whole-tensor code before `the tensor passes (passes.TENSOR_PASSES)` turns it into
loop nests (tensor_lower.py) and fused matrix products (fusion.py).

Tensor values are expressions of tensors with a compile-time shape (checked by the frontend: only legal statements
get here) and run-time extents (index expressions; a slice past the end of its tensor is clipped at run time, so
the extents may be smaller than the shape). They are not scalar `Expr`s: they appear only in the tensor statements
below. A tensor value is compared by identity (eq=False): the values form a DAG, and a node used twice is one value,
computed once.

Names: a generated name the frontend makes up is `base#k` (its k-th in the function); the lowering makes up names
too, and numbers all of them in the order they were made (`ret#2` may become `ret5`). A statement's `seq` is how
many names the frontend had made when it emitted the statement. A local named `#k` marks where the scalars that
the lowering of the statements of seq k declares go among the function's locals (locals keep the order in which
they were made).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import nodes
from .nodes import Expr, Loc, Stmt, Var
from .types import DType, ScalarType, TensorType

__all__ = ["TensorValue", "TensorView", "MapArg", "TensorMap", "TensorMatMul", "TensorReduce", "TensorSoftmax",
           "TensorEpilogue", "TensorStore", "ScalarReduce", "TileCopy", "TENSOR_STMTS", "is_dim", "element_loc",
           "tensor_inputs", "views_of", "is_rounding", "epilogue_product", "substitute", "resolve_map", "map_path", "generated_name", "locals_slot",
           "display_name"]

# ------------------------------------------------------------------ tensor values

@dataclass(frozen=True, eq=False)
class TensorValue:
    """A tensor-valued expression: its dtype, compile-time shape (of ints and ir.Sym) and run-time extents."""

    @property
    def type(self) -> TensorType:
        return TensorType(self.dtype, self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return repr(self.type)


@dataclass(frozen=True, eq=False, repr=False)
class TensorView(TensorValue):
    """A window of a tensor variable: `starts` per axis of the tensor, `axes` the tensor axis of each view axis
    (a transpose permutes them; an integer index drops one)."""
    base: Var
    starts: tuple
    axes: tuple
    shape: tuple
    extents: tuple

    @property
    def dtype(self) -> DType:
        return self.base.type.dtype

    def is_whole(self) -> bool:
        return self.axes == tuple(range(self.base.type.ndim)) and \
            all(isinstance(s, nodes.Const) and s.value == 0 for s in self.starts) and \
            self.shape == self.base.type.shape and all(is_dim(e, d) for e, d in zip(self.extents, self.shape))


@dataclass(frozen=True)
class MapArg(Expr):
    """In the body of a TensorMap: the element of its operand `index` (a tensor operand)."""
    index: int
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True, eq=False, repr=False)
class TensorMap(TensorValue):
    """An elementwise function of tensors (broadcast) and scalars: `body` is a scalar expression of the elements
    of the tensor operands (MapArg) and of the scalar operands themselves; `name` says what it is (add, exp, ...)."""
    name: str
    args: tuple
    body: Expr
    dtype: DType
    shape: tuple
    extents: tuple
    loc: Optional[Loc] = None


@dataclass(frozen=True, eq=False, repr=False)
class TensorMatMul(TensorValue):
    """a @ b: 2-D operands, or 3-D for a batch of products (one 2-D operand is shared by the batch)."""
    a: TensorValue
    b: TensorValue
    dtype: DType
    shape: tuple
    extents: tuple
    loc: Optional[Loc] = None


@dataclass(frozen=True, eq=False, repr=False)
class TensorReduce(TensorValue):
    """op (sum, max, min) of x over `axes`; `keepdims` keeps them as size 1."""
    op: str
    x: TensorValue
    axes: tuple
    keepdims: bool
    dtype: DType
    shape: tuple
    extents: tuple


@dataclass(frozen=True, eq=False, repr=False)
class TensorSoftmax(TensorValue):
    x: TensorValue
    axis: int

    dtype = property(lambda self: self.x.dtype)
    shape = property(lambda self: self.x.shape)
    extents = property(lambda self: self.x.extents)


@dataclass(frozen=True, eq=False, repr=False)
class TensorEpilogue(TensorValue):
    """`value`, an elementwise expression of the 2-D matrix product `product`, computed as the product's epilogue:
    on each tile of the product right after the tile is final, while it is in cache (made by passes.fusion)."""
    product: TensorMatMul
    value: TensorMap

    dtype = property(lambda self: self.value.dtype)
    shape = property(lambda self: self.value.shape)
    extents = property(lambda self: self.value.extents)


# ------------------------------------------------------------------ tensor statements

@dataclass(frozen=True)
class TensorStore(Stmt):
    """dst[...] = value (a tensor value, broadcast to dst's shape, or a scalar); with `accumulate`, value is a
    matrix product of dst's shape and dst += value."""
    dst: TensorView
    value: object
    accumulate: bool = False
    seq: int = 0
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class ScalarReduce(Stmt):
    """acc = the reduction `value` of all the elements of its operand (a scalar result)."""
    acc: Var
    value: TensorReduce
    seq: int = 0
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class TileCopy(Stmt):
    """lang.load_2d(src view, dst buffer) (the part of dst that a clipped src does not cover is zero-filled) or
    lang.store_2d(src buffer, dst view) (only the part of the view inside its tensor is written)."""
    name: str
    src: TensorValue
    dst: TensorView
    seq: int = 0
    loc: Optional[Loc] = field(default=None, compare=False)


TENSOR_STMTS = (TensorStore, ScalarReduce, TileCopy)

nodes.EXPR_CHILDREN.update({
    MapArg: (), TensorView: ("base", "starts", "extents"), TensorMap: ("args", "body", "extents"),
    TensorMatMul: ("a", "b", "extents"), TensorReduce: ("x", "extents"), TensorSoftmax: ("x",),
    TensorEpilogue: ("product", "value"),
})
nodes.STMT_EXPRS.update({TensorStore: ("dst", "value"), ScalarReduce: ("acc", "value"), TileCopy: ("src", "dst")})
nodes.STMT_WRITES.update({TensorStore: lambda s: s.dst.base.name, TileCopy: lambda s: s.dst.base.name})


# ------------------------------------------------------------------ helpers

def is_dim(e, d) -> bool:
    """Whether index expression e is the compile-time dim d."""
    if isinstance(d, int):
        return isinstance(e, nodes.Const) and e.value == d
    return isinstance(e, Var) and e.name == d.name


def element_loc(v):
    """The location that an element of tensor value v (its scalar expression once lowered) carries: a map's, that
    of its body; a view's element (a Load) has none. A MapArg of v carries it, so that the body of a map of v is
    typed as its lowered elements will be (a Cast takes the location of its operand)."""
    if isinstance(v, TensorMap):
        if isinstance(v.body, MapArg):
            return element_loc(v.args[v.body.index])
        return v.body.loc
    return None


def tensor_inputs(v) -> set:
    """Names of the tensors a tensor value reads."""
    if isinstance(v, TensorView):
        return {v.base.name}
    if isinstance(v, TensorMap):
        out = set()
        for a in v.args:
            if isinstance(a, TensorValue):
                out |= tensor_inputs(a)
        return out
    if isinstance(v, TensorMatMul):
        return tensor_inputs(v.a) | tensor_inputs(v.b)
    if isinstance(v, (TensorReduce, TensorSoftmax)):
        return tensor_inputs(v.x)
    if isinstance(v, TensorEpilogue):
        return tensor_inputs(v.value)
    return set()


def views_of(v, name) -> list:
    """The views of tensor `name` that the elementwise part of v reads."""
    if isinstance(v, TensorView):
        return [v] if v.base.name == name else []
    if isinstance(v, TensorMap):
        return [w for a in v.args if isinstance(a, TensorValue) for w in views_of(a, name)]
    if isinstance(v, TensorEpilogue):
        return views_of(v.value, name)
    return []


def is_rounding(v) -> bool:
    """Whether v is the map that rounds one 16-bit value to its dtype (a named value of a fused kernel)."""
    return isinstance(v, TensorMap) and v.name == "round" and len(v.args) == 1 and \
        isinstance(v.args[0], TensorValue) and v.dtype == v.args[0].dtype


def epilogue_product(v):
    """The one 2-D matrix product that an elementwise expression is an epilogue of (reached through maps only, not
    broadcast), or None."""
    leaves = []

    def walk(x):
        if isinstance(x, TensorMatMul):
            leaves.append(x)
        elif isinstance(x, TensorMap):
            for a in x.args:
                if isinstance(a, TensorValue):
                    walk(a)
    walk(v)
    leaves = list({id(x): x for x in leaves}.values())      # one product used twice is one product
    if len(leaves) == 1 and leaves[0].ndim == 2 and leaves[0].shape == v.shape:
        return leaves[0]
    return None


def substitute(v, old, new):
    """v with the value `old` (by identity) replaced by `new`, through maps."""
    if v is old:
        return new
    if isinstance(v, TensorMap):
        return TensorMap(v.name, tuple(substitute(a, old, new) for a in v.args), v.body, v.dtype, v.shape,
                         v.extents, v.loc)
    return v


def resolve_map(v: TensorMap, materialize, done=None) -> TensorMap:
    """A map whose operands are all elementwise-capable: each product, reduction or softmax among its operands
    (a fused kernel keeps products inside maps until they are stored), at any depth, replaced by
    `materialize(value)` (a view of a temporary holding it). A value used twice is computed once."""
    done = {} if done is None else done
    args = []
    for a in v.args:
        if id(a) in done:
            a = done[id(a)]
        elif isinstance(a, TensorMap):
            a = done.setdefault(id(a), resolve_map(a, materialize, done))
        elif isinstance(a, (TensorMatMul, TensorReduce, TensorSoftmax)):
            a = done.setdefault(id(a), materialize(a))
        args.append(a)
    if all(x is y for x, y in zip(args, v.args)):
        return v
    return TensorMap(v.name, tuple(args), v.body, v.dtype, v.shape, v.extents, v.loc)


def map_path(v, leaf) -> list:
    """The names of the maps applied to `leaf` on its way to v, innermost first (None: leaf is not in v)."""
    if v is leaf:
        return []
    if isinstance(v, TensorMap):
        for a in v.args:
            sub = map_path(a, leaf) if isinstance(a, TensorValue) else None
            if sub is not None:
                return sub + [v.name]
    return None


def generated_name(base: str, k: int) -> str:
    """The k-th name the frontend made up in a function (numbered for good by the lowering)."""
    return f"{base}#{k}"


def locals_slot(seq: int) -> str:
    """The placeholder local of the scalars that the lowering of the statements of `seq` declares."""
    return f"#{seq}"


def display_name(name: str) -> str:
    """A name for messages (a generated name without its mark)."""
    return name.replace("#", "")

"""The IR: immutable, typed, structured statements over typed expressions. Every node carries its source location."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from .types import ScalarType, TensorType, Type


@dataclass(frozen=True)
class Loc:
    file: str
    line: int
    col: int            # 0-based, as in the ast module
    end_col: Optional[int] = None

    def __repr__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"


_NOLOC = None


# ------------------------------------------------------------------ expressions

@dataclass(frozen=True)
class Expr:
    pass


@dataclass(frozen=True)
class Const(Expr):
    value: object
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Var(Expr):
    name: str
    type: Type
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Load(Expr):
    tensor: Var
    indices: tuple
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Unary(Expr):
    op: str             # neg, not, invert
    x: Expr
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Binary(Expr):
    op: str             # add sub mul truediv floordiv mod pow and or xor lshift rshift
    a: Expr
    b: Expr
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Compare(Expr):
    op: str             # lt le eq ne gt ge
    a: Expr
    b: Expr
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Logical(Expr):
    op: str             # and, or (short-circuit)
    a: Expr
    b: Expr
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Select(Expr):
    cond: Expr
    a: Expr
    b: Expr
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Cast(Expr):
    """x converted to `type`. An explicit cast to a 16-bit float rounds to it; an implicit one (promotion, a
    store) keeps the value in float32, the compute type of 16-bit floats."""
    x: Expr
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)
    explicit: bool = False


@dataclass(frozen=True)
class Call(Expr):
    """A builtin (math) function, by its name in the builtin table."""
    fn: str
    args: tuple
    type: ScalarType
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class FuncCall(Expr):
    """A call of a device function (`@lang.func`) specialization, by its unique name."""
    func: str
    args: tuple
    type: Type
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class View(Expr):
    """A strided window of a tensor (what a slice such as A[i:i+B, 0:K] denotes): element (j0, .., jn) of the view
    is tensor's flat element offset + j0 * strides[0] + ... + jn * strides[n]. `shape` holds the run-time extents
    (a slice past the end of its tensor is clipped); `type` the compile-time (nominal) shape. Only tensor
    statements (MatMul) take views; element code indexes tensors directly."""
    tensor: Var
    offset: Expr
    shape: tuple
    strides: tuple
    type: TensorType
    loc: Optional[Loc] = field(default=None, compare=False)


# ------------------------------------------------------------------ statements

@dataclass(frozen=True)
class Stmt:
    pass


@dataclass(frozen=True)
class Assign(Stmt):
    var: Var
    value: Expr
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Alloc(Stmt):
    """A new tensor: init is "empty", "zeros" or "full" (with `fill`). `output` is its index among the kernel's
    returned tensors (the runtime allocates those), or None for a temporary. `space` is "global" (main memory)
    or "local" (`lang.local_buffer`: a small on-chip / cache-resident tile of constant size)."""
    var: Var
    init: str
    fill: Optional[Expr] = None
    output: Optional[int] = None
    loc: Optional[Loc] = field(default=None, compare=False)
    space: str = "global"


@dataclass(frozen=True)
class Store(Stmt):
    tensor: Var
    indices: tuple
    value: Expr
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class For(Stmt):
    var: Var
    start: Expr
    stop: Expr
    step: Expr
    body: tuple
    kind: str = "serial"   # serial | parallel | simd  (set by passes.loops)
    loc: Optional[Loc] = field(default=None, compare=False)
    reduce: tuple = ()     # ((accumulator Var, op), ...): op "add" | "mul" | "max" | "min" (set by passes.loops)
    schedule: Optional[object] = None   # how a target runs it: an ir.Schedule (asc/ir/schedule.py), set by its passes


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: tuple
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: tuple
    orelse: tuple
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Break(Stmt):
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Continue(Stmt):
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Return(Stmt):
    value: Optional[Expr]     # a scalar expression, a tensor Var, a tuple of them (TupleExpr) or None
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class TupleExpr(Expr):
    elems: tuple
    type: Type
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class ExprStmt(Stmt):
    expr: Expr
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class MatMul(Stmt):
    """dst = a @ b (or dst += a @ b when `accumulate`), then `epilogue`: views of rank 2, or rank 3 for a batch of
    products (a batch stride of 0 broadcasts an operand). Float dtypes; the product accumulates in float32 at least.
    `note` says what the frontend fused, for people reading the IR."""
    dst: View
    a: View
    b: View
    accumulate: bool = False
    note: str = ""
    loc: Optional[Loc] = field(default=None, compare=False)
    # a fused epilogue: statements over element (index[0], index[1]) of dst (view coordinates), run on each tile of
    # the result right after the tile got its final value, while it is in cache; they may read and rewrite it
    epilogue: tuple = ()
    index: tuple = ()


@dataclass(frozen=True)
class Print(Stmt):
    """print(*args, sep=sep, end=end); args are expressions or str constants."""
    args: tuple
    sep: str = " "
    end: str = "\n"
    loc: Optional[Loc] = field(default=None, compare=False)


# ------------------------------------------------------------------ functions

@dataclass(frozen=True)
class Param:
    var: Var
    index: int                      # position among the Python parameters


@dataclass(frozen=True)
class Function:
    name: str                        # unique C-safe name
    pyname: str                      # the Python name
    params: tuple                    # of Param
    body: tuple                      # of Stmt
    ret: Type
    locals: tuple = ()               # scalar Vars declared at the top of the body
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class Output:
    """What a kernel returns, for the runtime: ("alloc", k) a new tensor, ("param", i) the argument i itself,
    ("scalar", k) a scalar slot."""
    kind: str
    index: int
    type: Type


@dataclass(frozen=True)
class Kernel:
    entry: Function
    funcs: tuple                     # device Functions, callees before callers where possible
    outputs: tuple                   # of Output, in return order
    returns_tuple: bool
    symbols: tuple = ()              # names of runtime shape symbols (dynamic_shape), in argument order
    file: str = ""
    # values the interpreter must convert to match the typing: ((line, col, end line, end col), ScalarType) for each
    # ternary or Python min/max whose chosen operand can differ in type from the result (Python returns it
    # unchanged); (span + (operator name,), WeakOp) for an operator of two Python numbers it must compute as NumPy does
    conversions: tuple = ()
    sizes: tuple = ()                # of SizeDef: the symbols above that are expressions of other sizes
    # "float32": 16-bit floats computed in float32; "mixed": each operation on 16-bit values rounded to its 16-bit
    # type (asc/passes/mixed_precision.py writes the roundings; docs/tensors.md, "Precision")
    precision: str = "float32"


@dataclass(frozen=True)
class SizeDef:
    """A size symbol of a dynamic_shape kernel that is an expression of other sizes (`lang.empty((n + 1,))`): the
    runtime computes it at each call (asc/ir/sizes.py) and passes it as any size. `expr` is made of int Consts and
    Vars naming size symbols, combined by + - * // %; `text` is the source the user wrote."""
    name: str
    expr: Expr
    text: str
    loc: Optional[Loc] = field(default=None, compare=False)


@dataclass(frozen=True)
class WeakOp:
    """In Kernel.conversions: `a / b`, `a // b`, `a % b` or `a ** b` of two Python numbers, which the interpreter
    computes with NumPy's meaning (as float64 / int64: 7 // 0 is 0, 1.0 / 0.0 is inf, (-2.0) ** 0.5 is nan) as the
    compiled code does, where Python would raise or give a complex number."""
    op: str


def walk_stmts(stmts):
    """Yields every statement in `stmts`, recursively, in order."""
    for s in stmts:
        yield s
        if isinstance(s, (For, While)):
            yield from walk_stmts(s.body)
        elif isinstance(s, MatMul):
            yield from walk_stmts(s.epilogue)
        elif isinstance(s, If):
            yield from walk_stmts(s.then)
            yield from walk_stmts(s.orelse)


EXPR_CHILDREN = {
    Const: (), Var: (), Load: ("tensor", "indices"), Unary: ("x",), Binary: ("a", "b"),
    Compare: ("a", "b"), Logical: ("a", "b"), Select: ("cond", "a", "b"), Cast: ("x",), Call: ("args",),
    FuncCall: ("args",), TupleExpr: ("elems",), View: ("tensor", "offset", "shape", "strides"),
}
STMT_EXPRS = {
    Assign: ("var", "value"), Alloc: ("var", "fill"), Store: ("tensor", "indices", "value"),
    For: ("var", "start", "stop", "step"), While: ("cond",), If: ("cond",), Return: ("value",), ExprStmt: ("expr",),
    Print: ("args",), Break: (), Continue: (), MatMul: ("dst", "a", "b"),
}


STMT_WRITES = {Store: lambda s: s.tensor.name, MatMul: lambda s: s.dst.tensor.name}   # the tensor a statement writes


def walk_expr(e):
    """Yields `e` and every sub-expression."""
    if e is None or isinstance(e, str):
        return
    yield e
    for name in EXPR_CHILDREN[type(e)]:
        v = getattr(e, name)
        if isinstance(v, tuple):
            for x in v:
                yield from walk_expr(x)
        else:
            yield from walk_expr(v)


def map_expr(e, fn):
    """`e` rebuilt bottom-up: `fn(node)` returns a replacement for a node (its children are then not visited) or
    None to keep the node, rebuilt from its mapped children. The tensor of a Load or View is not visited."""
    if e is None or isinstance(e, str):
        return e
    r = fn(e)
    if r is not None:
        return r
    fields = {}
    for name in EXPR_CHILDREN[type(e)]:
        if name == "tensor":
            continue
        v = getattr(e, name)
        fields[name] = tuple(map_expr(x, fn) for x in v) if isinstance(v, tuple) else map_expr(v, fn)
    return replace(e, **fields) if fields else e


def stmt_exprs(s):
    """Yields every expression directly held by statement `s` (not those of nested statements)."""
    for name in STMT_EXPRS[type(s)]:
        v = getattr(s, name)
        if isinstance(v, tuple):
            for x in v:
                yield from walk_expr(x)
        else:
            yield from walk_expr(v)


def written_params(kernel: "Kernel") -> dict:
    """For each function (entry included), the names of its tensor parameters it writes: stored to directly, or
    passed to a device function that writes that parameter."""
    fns = {f.name: f for f in kernel.funcs + (kernel.entry,)}
    written = {name: {STMT_WRITES[type(s)](s) for s in walk_stmts(f.body) if type(s) in STMT_WRITES}
               for name, f in fns.items()}
    changed = True
    while changed:
        changed = False
        for name, f in fns.items():
            for s in walk_stmts(f.body):
                for e in stmt_exprs(s):
                    if isinstance(e, FuncCall) and e.func in fns:
                        callee = fns[e.func]
                        for p, a in zip(callee.params, e.args):
                            if p.var.name in written[e.func] and isinstance(a, Var) and a.name not in written[name]:
                                written[name].add(a.name)
                                changed = True
    return written

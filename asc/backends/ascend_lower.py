"""Lowering for the ascend target: which shape a kernel has, and its vector program.

A kernel is lowered as one of
- "map": one loop nest over all elements (1-D `for i in range(N)`, or 2-D `for i: for j:` over equal shapes) whose
  body reads inputs and writes outputs at the loop's own index. The body's expression DAG becomes count-form vector
  instructions on float32 Unified Buffer tiles (16-bit inputs are Cast to float32 once, outputs Cast back).
- "row": a loop over rows of [R, C] tensors whose body mixes per-row scalar statements with inner loops over the
  row (maps over the row, or reductions sum/max/min along it); 1-D [C] tensors indexed by the inner index are
  loaded once. Reductions use ReduceSum/ReduceMax/ReduceMin with a work buffer and read the result with GetValue.
- "scalar": anything else, as scalar code on one AI core (GlobalTensor GetValue/SetValue), with a warning.
"""
from __future__ import annotations

import linecache
import math
from dataclasses import dataclass, field

from .. import ir
from ..errors import CompileError

UB_BYTES = 196608                 # Unified Buffer per vector core, Ascend910B1
UB_RESERVED = 256                 # runtime tiling sees 192 KB - 256 B
UB_BUDGET = UB_BYTES - UB_RESERVED
TILE_QUANTUM = 256                # tiles are multiples of 256 elements (1 KB of float32: whole 256-byte repeats)
BUFFER_NUM = 2                    # double buffering
SELECT_RESERVE = 8192             # Select modes 1/2 use the top 8 KB of the UB as scratch


class Unsupported(Exception):
    """This kernel (or this part of it) has no vector lowering; the reason names the construct and its line."""

    def __init__(self, reason: str, loc=None, kernel=None):
        super().__init__(reason)
        self.reason, self.loc = reason, loc
        self.kernel = kernel          # the kernel the scalar fallback renders instead (products written as loops)


def adv_tmp_bytes(count_elems: int) -> int:
    """The sharedTmpBuffer asc gives an advanced math API (Tanh, Erf, Sigmoid, ...) for `count` float32 elements:
    two float32 words per element plus 256 B. The CANN host helpers (GetTanhMaxMinTmpSize, ...) give the exact
    minimum; this bound is an assumption documented in docs/ascend.md and checked by ascend-sim."""
    return count_elems * 4 * 2 + 256


def sym_fields(k) -> list:
    """Tiling fields that carry a dynamic-shape kernel's sizes."""
    return [(f"size_{s}", "uint32_t") for s in k.symbols]


def where(loc) -> str:
    return f"{loc!r}: " if loc is not None else ""


# ------------------------------------------------------------------ values and instructions

@dataclass(frozen=True)
class S:
    """A scalar (loop-invariant) value: C++ text of type float (or int64_t for an index)."""
    text: str


@dataclass(frozen=True)
class V:
    """A vector value: a virtual float32 register, an input tile ("in", name), an output tile ("out", name) or a
    loaded 1-D row ("row", name)."""
    kind: str
    ref: object


@dataclass
class Instr:
    api: str
    dst: V | None
    srcs: tuple
    scalar: str | None = None
    mode: str | None = None
    loc: object = None
    work: bool = False            # a reduction's work buffer
    rdst: str | None = None       # a reduction's scalar result name


@dataclass
class GmTensor:
    name: str
    dtype: ir.DType
    shape: tuple
    kind: str                     # "param" | "alloc"
    index: int                    # parameter position, or output index
    reads: bool = False
    writes: bool = False
    loc: object = None            # the allocation's line, for an output
    init: str = "empty"           # an output's initial value: "empty", "zeros" or "full" (with `fill`)
    fill: object = None

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize


@dataclass
class Plan:
    kind: str                                  # map | row | scalar
    kernel: ir.Kernel
    tensors: list = field(default_factory=list)
    scalars: list = field(default_factory=list)       # (name, ScalarType) of scalar params, in order
    pre: list = field(default_factory=list)           # (loc, name, ctype, text): invariant scalars before the loop
    instrs: list = field(default_factory=list)        # map: the loop body; row: see row_items
    row_items: list = field(default_factory=list)     # row: ("scalar", loc, name, ctype, text) | ("vec", Instr)
    nslots: int = 0
    adv: bool = False
    loop_loc: object = None
    numel: object = None                              # map: total elements (int or Sym product text)
    rows: object = None                               # row: R
    cols: object = None                               # row: C
    reason: str | None = None                         # scalar: why
    reason_loc: object = None
    return_loc: object = None
    slot_of: dict = field(default_factory=dict)

    def tensor(self, name):
        return next(t for t in self.tensors if t.name == name)

    def per_elem_bytes(self) -> int:
        """UB bytes per tile element: double-buffered queues of every GM tensor it touches, the float32
        temporaries, and the advanced APIs' scratch."""
        b = 0
        for t in self.tensors:
            b += BUFFER_NUM * t.itemsize * (int(t.reads) + int(t.writes))
        b += 4 * self.nslots
        if self.adv:
            b += 8
        if getattr(self, "select", False):
            b += 1                                     # the Compare mask (1 bit per element, rounded up)
        return b


# ------------------------------------------------------------------ helpers over the IR

def _is_var(e, name):
    return isinstance(e, ir.Var) and e.name == name


def _same_dim(stop, d) -> bool:
    if isinstance(stop, ir.Const) and isinstance(d, int):
        return stop.value == d
    if isinstance(stop, ir.Var) and isinstance(d, ir.Sym):
        return stop.name == d.name
    return False


def _simple_range(loop: ir.For):
    return (isinstance(loop.start, ir.Const) and loop.start.value == 0 and isinstance(loop.step, ir.Const)
            and loop.step.value == 1)


def _fmt_const(v: float) -> str:
    v = float(v)
    if math.isnan(v):
        return "(0.0f / 0.0f)"
    if math.isinf(v):
        return "(1.0f / 0.0f)" if v > 0 else "(-1.0f / 0.0f)"
    f32 = float(__import__("numpy").float32(v))
    text = repr(f32)
    if "e" not in text and "." not in text:
        text += ".0"
    return text + "f"


_TAKEN = {"n", "r", "t", "k", "red", "red2", "work", "tmp", "base", "pipe", "op", "eventId", "tiling"}


def cname_local(name: str) -> str:
    """The C++ name of a per-row scalar local (kept readable; suffixed where it would clash)."""
    import re
    from .cstyle import C_RESERVED
    if name in C_RESERVED or name in _TAKEN or re.fullmatch(r"(buf|sm)\d+", name) or name.endswith(("In", "Out", "Row")):
        return name + "_l"
    return name


def source_line(loc) -> str:
    if loc is None:
        return ""
    return linecache.getline(loc.file, loc.line).strip()


FLOATS = ("float32", "float16", "bfloat16")
# the value a 16-bit tensor holds after storing a float: rounded to its type
STORAGE_ROUND = {"float16": "static_cast<half>({})", "bfloat16": "static_cast<bfloat16_t>({})"}
UNARY_API = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "abs": "Abs"}
ADV_API = {"tanh": "Tanh", "erf": "Erf", "sigmoid": "Sigmoid", "sin": "Sin", "cos": "Cos", "floor": "Floor",
           "ceil": "Ceil"}


class _Lowerer:
    """Turns expressions of one loop body into vector instructions over virtual registers."""

    def __init__(self, plan: Plan, indices: tuple, scalar_names: dict):
        self.plan = plan
        self.indices = indices                 # the loop variables, outermost first, for element access
        self.scalar_names = scalar_names       # python name -> C++ text of a loop-invariant scalar
        self.env: dict = {}                    # locals of the body -> value
        self.stored: dict = {}                 # tensor -> value stored this iteration
        self.loaded: dict = {}                 # tensor -> value of its load
        self.rounded: dict = {}                # 16-bit tensor -> its stored value as read back (rounded)
        self.branch_depth = 0                  # inside the branches of an `if` (if-conversion)
        self.nreg = 0
        self.out: list = []
        self.loc = None

    def reg(self) -> V:
        self.nreg += 1
        return V("v", self.nreg - 1)

    def emit(self, api, dst, srcs, **kw) -> V:
        self.out.append(Instr(api, dst, tuple(srcs), loc=self.loc, **kw))
        return dst

    # ---- scalars
    def scalar(self, e) -> S:
        if isinstance(e, ir.Const):
            if e.type.dtype.kind == "f":
                return S(_fmt_const(e.value))
            if e.type.dtype.kind in "iu":
                return S(f"{int(e.value)}")
            raise Unsupported("a boolean constant in vector code", e.loc)
        if isinstance(e, ir.Var):
            if e.name in self.env and isinstance(self.env[e.name], S):
                return self.env[e.name]
            if e.name in self.scalar_names:
                return S(self.scalar_names[e.name])
            raise Unsupported(f"the value of {e.name!r} is not known before the loop", e.loc)
        raise Unsupported("scalar expression", getattr(e, "loc", None))

    # ---- expressions
    @property
    def loc(self):
        return self._loc

    @loc.setter
    def loc(self, value):
        self._loc = value
        self.memo = {}                          # common subexpressions, within one statement

    def value(self, e):
        """-> S or V (a subexpression that occurs twice in a statement is computed once)."""
        from ..ir.printer import format_expr
        key = format_expr(e)
        if key not in self.memo:
            self.memo[key] = self.value_of(e)
        return self.memo[key]

    def value_of(self, e):
        loc = getattr(e, "loc", None)
        t = getattr(e, "type", None)
        if isinstance(t, ir.ScalarType) and t.dtype.kind == "b":
            raise Unsupported("comparisons and conditions have no vector lowering yet", loc)
        if isinstance(e, (ir.Const,)):
            return self.scalar(e)
        if isinstance(e, ir.Var):
            if e.name in self.env:
                return self.env[e.name]
            return self.scalar(e)
        if isinstance(e, ir.Load):
            return self.load(e)
        if isinstance(e, ir.Unary):
            x = self.value(e.x)
            self.need_float(e)
            if e.op != "neg":
                raise Unsupported(f"the operator {e.op!r}", loc)
            if isinstance(x, S):
                return S(f"(-{x.text})")
            return self.emit("Muls", self.reg(), [x], scalar="-1.0f")
        if isinstance(e, ir.Binary):
            return self.binary(e)
        if isinstance(e, ir.Cast):
            return self.cast(e)
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.Select):
            mm = self.minmax(e)
            if mm is not None:
                return mm
        if isinstance(e, ir.Select):
            return self.select(e)
        if isinstance(e, (ir.Select, ir.Compare, ir.Logical)):
            raise Unsupported("conditional expressions (comparisons, `x if c else y`, Python max/min) have no "
                              "vector lowering yet", loc)
        if isinstance(e, ir.FuncCall):
            raise Unsupported("calls of @lang.func device functions have no vector lowering", loc)
        raise Unsupported(f"the expression {type(e).__name__}", loc)

    def minmax(self, e: ir.Select):
        """`a if a > b else b` (Python's max) and the like, as Max/Min (Maxs/Mins with a scalar)."""
        c = e.cond
        if not (isinstance(c, ir.Compare) and c.op in ("gt", "ge", "lt", "le")):
            return None
        from ..ir.printer import format_expr as f
        if f(c.a) == f(e.a) and f(c.b) == f(e.b):
            fn = "maximum" if c.op in ("gt", "ge") else "minimum"
        elif f(c.a) == f(e.b) and f(c.b) == f(e.a):
            fn = "minimum" if c.op in ("gt", "ge") else "maximum"
        else:
            return None
        return self.call(ir.Call(fn, (e.a, e.b), e.type, e.loc))

    CMP = {"lt": "LT", "gt": "GT", "eq": "EQ", "le": "LE", "ge": "GE", "ne": "NE"}
    FLIP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}

    def select(self, e: ir.Select):
        """`a if x < y else b` (float operands): Compare (or CompareScalar) into a bit mask, then Select. Counts are
        whole 256-byte repeats: Compute pads its input tiles with zeros up to them."""
        self.need_float(e)
        c = e.cond
        if not (isinstance(c, ir.Compare) and c.a.type.dtype.kind == "f" and c.b.type.dtype.kind == "f"):
            raise Unsupported("a condition that is not a comparison of floats has no vector lowering", e.loc)
        a, b = self.vec(self.value(e.a)), self.vec(self.value(e.b))
        x, y, op = self.value(c.a), self.value(c.b), c.op
        if isinstance(x, S) and isinstance(y, S):
            raise Unsupported("a condition on scalars only inside vector code", e.loc)
        if isinstance(x, S):
            x, y, op = y, x, self.FLIP[op]
        self.plan.select = True
        mask = V("mask", 0)
        if isinstance(y, S):
            self.emit("CompareScalar", mask, [x], scalar=y.text, mode=self.CMP[op])
        else:
            self.emit("Compare", mask, [x, y], mode=self.CMP[op])
        return self.emit("Select", self.reg(), [mask, a, b])

    def need_float(self, e):
        t = e.type
        if not (t.dtype.name in FLOATS or (t.weak and t.dtype.kind == "f")):
            raise Unsupported(f"{t!r} arithmetic (vector code computes float32, float16 and bfloat16 only)", e.loc)

    def load(self, e: ir.Load):
        t = e.tensor
        if not all(_is_var(i, v) for i, v in zip(e.indices, self.indices[-len(e.indices):])) or \
                len(e.indices) > len(self.indices):
            raise Unsupported(f"the access {t.name}[...] is not at the loop's own index", e.loc)
        return self.load_stored(t) or self.load_tensor(t, e)

    def load_stored(self, t):
        """The value stored to t at this index earlier in the iteration (rounded, for a 16-bit tensor)."""
        if t.name not in self.stored:
            return None
        v = self.stored[t.name]
        if self.plan.tensor(t.name).dtype.name != "float32":
            if t.name not in self.rounded:         # the value as the 16-bit tensor holds it: rounded
                h = self.emit("CastTo16", self.reg(), [self.vec(v)], mode="CAST_RINT",
                              scalar=self.plan.tensor(t.name).dtype.name)
                self.rounded[t.name] = self.emit("CastFrom16", self.reg(), [h], mode="CAST_NONE",
                                                 scalar=self.plan.tensor(t.name).dtype.name)
            v = self.rounded[t.name]
        return v

    def load_tensor(self, t: ir.Var, e):
        if t.name in self.loaded:
            return self.loaded[t.name]
        gm = self.plan.tensor(t.name)
        if gm.kind == "alloc":
            # element i is touched only by iteration i: before this iteration's store it holds the initial value
            if gm.init == "zeros":
                return S("0.0f")
            if gm.init == "full":
                v = self.value(gm.fill)
                if isinstance(v, S):
                    return S(f"static_cast<float>({STORAGE_ROUND.get(gm.dtype.name, '{}').format(v.text)})")
            raise Unsupported(f"the kernel reads {t.name!r} before writing it", e.loc)
        gm.reads = True
        if gm.dtype.name not in FLOATS:
            raise Unsupported(f"{t.name!r} is {gm.dtype.name}; vector code reads float32, float16 and bfloat16",
                              e.loc)
        src = V("in", t.name)
        if gm.dtype.name != "float32":
            src = self.emit("Cast", self.reg(), [src], mode="CAST_NONE")
        self.loaded[t.name] = src
        return src

    def vec(self, x):
        """A vector from a scalar (Duplicate)."""
        if isinstance(x, V):
            return x
        return self.emit("Duplicate", self.reg(), [], scalar=x.text)

    def binary(self, e: ir.Binary):
        self.need_float(e)
        a, b = self.value(e.a), self.value(e.b)
        op = e.op
        if isinstance(a, S) and isinstance(b, S):
            sym = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}.get(op)
            if sym is None:
                raise Unsupported(f"the scalar operator {op!r}", e.loc)
            return S(f"({a.text} {sym} {b.text})")
        if op == "add":
            if isinstance(a, S):
                a, b = b, a
            return self.emit("Adds", self.reg(), [a], scalar=b.text) if isinstance(b, S) else \
                self.emit("Add", self.reg(), [a, b])
        if op == "mul":
            if isinstance(a, S):
                a, b = b, a
            return self.emit("Muls", self.reg(), [a], scalar=b.text) if isinstance(b, S) else \
                self.emit("Mul", self.reg(), [a, b])
        if op == "sub":
            if isinstance(b, S):
                return self.emit("Adds", self.reg(), [a], scalar=f"(-{b.text})")
            if isinstance(a, S):     # s - v = (-v) + s: exact
                neg = self.emit("Muls", self.reg(), [b], scalar="-1.0f")
                return self.emit("Adds", self.reg(), [neg], scalar=a.text)
            return self.emit("Sub", self.reg(), [a, b])
        if op == "truediv":
            return self.emit("Div", self.reg(), [self.vec(a), self.vec(b)])
        if op == "pow" and isinstance(b, S) and isinstance(e.b, ir.Const) and float(e.b.value) in (2.0, 3.0, 4.0):
            k = int(float(e.b.value))
            r = self.emit("Mul", self.reg(), [a, a])
            for _ in range(k - 2):
                r = self.emit("Mul", self.reg(), [r, a])
            return r
        raise Unsupported(f"the operator {op!r} on vectors", e.loc)

    def cast(self, e: ir.Cast):
        src, dst = e.x.type, e.type
        x = self.value(e.x)
        if isinstance(x, S):
            if dst.dtype.kind == "f":
                if e.explicit and dst.dtype.name in STORAGE_ROUND:
                    return S(f"static_cast<float>({STORAGE_ROUND[dst.dtype.name].format(x.text)})")
                return S(f"(float)({x.text})")
            raise Unsupported(f"a cast to {dst!r}", e.loc)
        if dst.dtype.name in FLOATS and src.dtype.kind == "f" and (not e.explicit or dst.dtype == src.dtype or
                                                                  dst.dtype.name == "float32"):
            return x                # 16-bit floats are carried in float32; the store rounds once
        if dst.dtype.name in STORAGE_ROUND and src.dtype.kind == "f":
            # an explicit lang.cast to 16 bits rounds: float32 -> 16-bit (CAST_RINT) in a slot, and back
            h = self.emit("CastTo16", self.reg(), [x], mode="CAST_RINT", scalar=dst.dtype.name)
            return self.emit("CastFrom16", self.reg(), [h], mode="CAST_NONE", scalar=dst.dtype.name)
        raise Unsupported(f"the conversion {src!r} -> {dst!r}" + (" (an explicit lang.cast)" if e.explicit else ""),
                          e.loc)

    def call(self, e: ir.Call):
        self.need_float(e)
        args = [self.value(a) for a in e.args]
        if all(isinstance(a, S) for a in args):
            if e.fn in ("maximum", "minimum"):
                x, y = (a.text for a in args)
                return S(f"(({x} {'>' if e.fn == 'maximum' else '<'} {y}) ? {x} : {y})")
            if e.fn not in UNARY_API and e.fn not in ADV_API:
                raise Unsupported(f"{e.fn}() of a scalar inside vector code", e.loc)
            args = [self.vec(args[0])]          # math of a loop-invariant scalar: on a tile of copies of it
        if e.fn in UNARY_API:
            return self.emit(UNARY_API[e.fn], self.reg(), [args[0]])
        if e.fn in ADV_API:
            self.plan.adv = True
            return self.emit(ADV_API[e.fn], self.reg(), [args[0]])
        if e.fn in ("maximum", "minimum"):
            a, b = args
            if isinstance(a, S):
                a, b = b, a
            if isinstance(b, S):
                return self.emit("Maxs" if e.fn == "maximum" else "Mins", self.reg(), [a], scalar=b.text)
            return self.emit("Max" if e.fn == "maximum" else "Min", self.reg(), [a, b])
        raise Unsupported(f"{e.fn}() has no vector lowering on the ascend target", e.loc)

    # ---- statements of the body
    def block(self, stmts):
        for s in stmts:
            self.loc = s.loc
            if isinstance(s, ir.Assign):
                before = len(self.out)
                self.env[s.var.name] = self.value(s.value)
                self.note_if_free(s, before)
            elif isinstance(s, ir.Store):
                self.store(s, None)
            elif isinstance(s, ir.If):
                self.if_stmt(s)
            else:
                raise Unsupported(f"the statement {type(s).__name__} in the element loop", getattr(s, "loc", None))

    def if_stmt(self, s: ir.If):
        """if-conversion: both branches are computed over the whole tile, then each variable and each stored
        tensor they change takes Select(condition, then-value, else-value)."""
        c = s.cond
        if not (isinstance(c, ir.Compare) and c.a.type.dtype.kind == "f" and c.b.type.dtype.kind == "f"):
            raise Unsupported("an `if` whose condition is not a comparison of floats has no vector lowering", s.loc)
        x, y, op = self.value(c.a), self.value(c.b), c.op
        if isinstance(x, S) and isinstance(y, S):
            raise Unsupported("an `if` on scalars only inside the element loop", s.loc)
        base_env, base_stored, base_rounded = dict(self.env), dict(self.stored), dict(self.rounded)
        results = []
        for branch in (s.then, s.orelse):
            self.env, self.stored, self.rounded = dict(base_env), dict(base_stored), dict(base_rounded)
            self.branch_depth += 1
            self.block(branch)
            self.branch_depth -= 1
            results.append((self.env, self.stored))
        self.env, self.stored, self.rounded = dict(base_env), dict(base_stored), dict(base_rounded)
        self.loc = s.loc
        (env_t, st_t), (env_f, st_f) = results
        names = [n for n in dict.fromkeys(list(env_t) + list(env_f)) if env_t.get(n) is not env_f.get(n)]
        tensors = [t for t in dict.fromkeys(list(st_t) + list(st_f)) if st_t.get(t) is not st_f.get(t)]
        if not names and not tensors:
            return
        if isinstance(x, S):
            x, y, op = y, x, self.FLIP[op]
        self.plan.select = True
        mask = V("mask", 0)
        if isinstance(y, S):
            self.emit("CompareScalar", mask, [x], scalar=y.text, mode=self.CMP[op])
        else:
            self.emit("Compare", mask, [x, y], mode=self.CMP[op])
        for n in names:
            if n not in env_t or n not in env_f:
                continue                  # set in one branch only: the variable is local to that branch
            self.env[n] = self.emit("Select", self.reg(), [mask, self.vec(env_t[n]), self.vec(env_f[n])])
        for t in tensors:
            gm = self.plan.tensor(t)
            if t not in st_t or t not in st_f:
                if gm.kind == "alloc" and gm.init == "empty" and t not in base_stored:
                    raise Unsupported(f"{t!r} is written in one branch of the `if` only and holds no value before it",
                                      s.loc)
            vals = []
            for st in (st_t, st_f):
                if t in st:
                    vals.append(self.vec(st[t]))
                else:
                    vals.append(self.vec(base_stored[t] if t in base_stored else
                                         self.load_tensor(ir.Var(t, ir.TensorType(gm.dtype, gm.shape)), s)))
            v = self.emit("Select", self.reg(), [mask, vals[0], vals[1]])
            if not self.branch_depth:
                self.emit("Store", V("out", t), [v])
            self.stored[t] = v
            self.rounded.pop(t, None)
            gm.writes = True

    def note_if_free(self, s: ir.Assign, before: int):
        """A statement that needs no instruction (a name for a tile or a scalar) still gets its line comment."""
        if len(self.out) == before:
            v = self.env.get(s.var.name)
            what = f"the {v.ref} tile" if isinstance(v, V) and v.kind in ("in", "row") else \
                ("a value computed above" if isinstance(v, V) else "a scalar")
            self.out.append(Instr("Note", None, (), scalar=f"{s.var.name} is {what}: no instruction", loc=s.loc))

    def store(self, s: ir.Store, out_dtype: ir.DType):
        """Puts value into the output tile of s.tensor."""
        name = s.tensor.name
        if not all(_is_var(i, v) for i, v in zip(s.indices, self.indices)) or len(s.indices) != len(self.indices):
            raise Unsupported(f"the store to {name}[...] is not at the loop's own index", s.loc)
        gm = self.plan.tensor(name)
        gm.writes = True
        if gm.dtype.name not in FLOATS:
            raise Unsupported(f"{name!r} is {gm.dtype.name}; vector code writes float32, float16 and bfloat16", s.loc)
        v = self.value(s.value)
        if isinstance(v, S):
            v = self.vec(v)
        if not self.branch_depth:        # inside an `if`, the Select after the branches stores
            self.emit("Store", V("out", name), [v])
        else:
            self.out.append(Instr("Note", None, (), scalar=f"stored by the Select after the `if`", loc=s.loc))
        self.stored[name] = v
        self.rounded.pop(name, None)


def _body_of(loop: ir.For, tensors_shape):
    """The 1-D or 2-D element loop nest: (indices, body statements, loop locations) or None."""
    if not (_simple_range(loop)):
        return None
    body = loop.body
    if len(body) == 1 and isinstance(body[0], ir.For) and _simple_range(body[0]):
        inner = body[0]
        if any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(inner.body)):
            return None
        return (loop.var.name, inner.var.name), inner.body, (loop, inner)
    if any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(body)):
        return None
    return (loop.var.name,), body, (loop,)


def analyze(k: ir.Kernel) -> Plan:
    """The plan for kernel `k`: a map or row vector program, else the scalar fallback with its reason."""
    try:
        return _vector_plan(k)
    except Unsupported as u:
        k = u.kernel or k
        p = Plan("scalar", k)
        p.reason, p.reason_loc = u.reason, u.loc
        _gm_tensors(p, k)
        return p


def _gm_tensors(p: Plan, k: ir.Kernel):
    fn = k.entry
    for prm in fn.params:
        t = prm.var.type
        if isinstance(t, ir.TensorType):
            p.tensors.append(GmTensor(prm.var.name, t.dtype, t.shape, "param", prm.index))
        else:
            p.scalars.append((prm.var.name, t))
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.Alloc) and s.output is not None:
            p.tensors.append(GmTensor(s.var.name, s.var.type.dtype, s.var.type.shape, "alloc", s.output, loc=s.loc,
                                      init=s.init, fill=s.fill))
        if isinstance(s, ir.Return) and p.return_loc is None:
            p.return_loc = s.loc


def _matrix_operand(v):
    """(tensor Var, transposed) of a view that is a whole 2-D tensor or its transpose, else None."""
    t = v.tensor.type
    if not (isinstance(t, ir.TensorType) and t.ndim == 2 and isinstance(v.offset, ir.Const) and v.offset.value == 0):
        return None
    def txt(e):
        return str(e.value) if isinstance(e, ir.Const) else (e.name if isinstance(e, ir.Var) else repr(e))
    want = [str(d) if isinstance(d, int) else d.name for d in t.shape]
    shape = [txt(d) for d in v.shape]
    strides = [txt(d) for d in v.strides]
    if shape == want and strides == [want[1], "1"]:
        return v.tensor, False
    if shape == want[::-1] and strides == ["1", want[1]]:
        return v.tensor, True
    return None


def products_as_loops(k: ir.Kernel):
    """`k` with every top-level product of whole 2-D tensors (or transposes) written as element loops that
    accumulate in float32 (its epilogue, if any, applied to each element): the scalar fallback's form of a product
    the cube path does not take. None when a product is not of that form."""
    f32 = ir.ScalarType(ir.float32)
    body = []
    for n, s in enumerate(k.entry.body):
        if not isinstance(s, ir.MatMul):
            if any(isinstance(x, ir.MatMul) for x in ir.walk_stmts((s,))):
                return None
            body.append(s)
            continue
        ops = [_matrix_operand(v) for v in (s.dst, s.a, s.b)]
        if any(o is None for o in ops) or ops[0][1]:
            return None
        (dst, _), (a, ta), (b, tb) = ops
        M, K, N = s.a.shape[0], s.a.shape[1], s.b.shape[1]
        i = s.index[0] if s.index else ir.Var(f"_mm{n}_i", ir.INDEX)
        j = s.index[1] if s.index else ir.Var(f"_mm{n}_j", ir.INDEX)
        kk = ir.Var(f"_mm{n}_k", ir.INDEX)
        acc = ir.Var(f"_mm{n}_acc", f32)

        def elem(t, tr, r, c):
            x = ir.Load(t, (c, r) if tr else (r, c), ir.ScalarType(t.type.dtype), s.loc)
            return x if t.type.dtype == ir.float32 else ir.Cast(x, f32, s.loc)
        start = elem(dst, False, i, j) if s.accumulate else ir.Const(0.0, f32)
        prod = ir.Binary("mul", elem(a, ta, i, kk), elem(b, tb, kk, j), f32, s.loc)
        inner = ir.For(kk, ir.Const(0, ir.INDEX), K, ir.Const(1, ir.INDEX),
                       (ir.Assign(acc, ir.Binary("add", acc, prod, f32, s.loc), s.loc),), "serial", s.loc)
        value = acc if dst.type.dtype == ir.float32 else ir.Cast(acc, ir.ScalarType(dst.type.dtype), s.loc)
        row = (ir.Assign(acc, start, s.loc), inner, ir.Store(dst, (i, j), value, s.loc)) + tuple(s.epilogue)
        body.append(ir.For(i, ir.Const(0, ir.INDEX), M, ir.Const(1, ir.INDEX),
                           (ir.For(j, ir.Const(0, ir.INDEX), N, ir.Const(1, ir.INDEX), row, "serial", s.loc),),
                           "serial", s.loc))
    accs = tuple(ir.Var(f"_mm{n}_acc", f32) for n, s in enumerate(k.entry.body) if isinstance(s, ir.MatMul))
    fn = k.entry
    entry = ir.Function(fn.name, fn.pyname, fn.params, tuple(body), fn.ret, fn.locals + accs, fn.loc)
    return ir.Kernel(entry, k.funcs, k.outputs, k.returns_tuple, k.symbols, k.file, k.conversions)


def _scalar_param_text(name: str) -> str:
    return f"{name}_"


def _vector_plan(k: ir.Kernel) -> Plan:
    fn = k.entry
    if k.funcs:
        raise Unsupported("@lang.func device functions have no vector lowering", fn.loc)
    if any(o.kind == "scalar" for o in k.outputs):
        raise Unsupported("returning a scalar has no vector lowering", fn.loc)
    p = Plan("map", k)
    _gm_tensors(p, k)
    products = [s for s in fn.body if isinstance(s, getattr(ir, "MatMul", ()))]
    if products:
        from .ascend_cube import cube_plan
        try:
            return cube_plan(p, products[0])
        except (CompileError, Unsupported) as e:
            looped = products_as_loops(k)
            if looped is None:
                raise
            why = e.msg if isinstance(e, CompileError) else e.reason
            raise Unsupported(f"{why.removeprefix('ascend target: ')} (the product runs as element loops)",
                              e.loc, kernel=looped) from None
    scalar_names = {name: _scalar_param_text(name) for name, _ in p.scalars}
    for sym in k.symbols:                      # dynamic sizes: fields of the tiling, members of the kernel class
        scalar_names[sym] = f"static_cast<float>({sym}_)"
    loops = []
    for s in fn.body:
        if isinstance(s, ir.Alloc):
            if s.output is None:
                raise Unsupported("temporary tensors have no vector lowering yet", s.loc)
        elif isinstance(s, ir.Assign) and isinstance(s.var.type, ir.ScalarType):
            if loops:
                raise Unsupported("statements after the element loop", s.loc)
            low = _Lowerer(p, (), scalar_names)
            v = low.value(s.value)
            if not isinstance(v, S) or s.var.type.dtype.kind != "f":
                raise Unsupported(f"the scalar {s.var.name!r} before the loop", s.loc)
            p.pre.append((s.loc, s.var.name, "float", v.text))
            scalar_names[s.var.name] = f"{s.var.name}_"
        elif isinstance(s, ir.For):
            loops.append(s)
        elif isinstance(s, ir.Return):
            pass
        else:
            raise Unsupported(f"the statement {type(s).__name__} outside the element loop", getattr(s, "loc", None))
    if len(loops) != 1:
        raise Unsupported("a vector kernel has exactly one loop nest over the elements" if loops else
                          "the kernel has no loop", loops[1].loc if len(loops) > 1 else fn.loc)
    loop = loops[0]
    p.loop_loc = loop.loc
    for x in ir.walk_stmts(loop.body):
        if isinstance(x, ir.While):
            raise Unsupported("control flow (`while`) inside the loop has no vector lowering", x.loc)
        if isinstance(x, (ir.Break, ir.Continue, ir.Return)):
            raise Unsupported(f"`{type(x).__name__.lower()}` inside the loop has no vector lowering", x.loc)
    nest = _body_of(loop, None)
    if nest is None:
        from .ascend_row import row_plan
        return row_plan(p, loop, scalar_names)
    indices, body, loops_ = nest
    p.loop_locs = [lp.loc for lp in loops_]
    for t in p.tensors:
        if len(t.shape) != len(indices) or not all(_same_dim(lp.stop, d) for lp, d in zip(loops_, t.shape)):
            if len(indices) == 2:
                from .ascend_row import row_plan
                return row_plan(p, loop, scalar_names)
            raise Unsupported(f"{t.name!r} has shape {t.shape}, not the loop's", loop.loc)
    low = _Lowerer(p, indices, scalar_names)
    low.block(body)
    for t in p.tensors:
        if t.kind == "alloc" and not t.writes:
            raise Unsupported(f"the output {t.name!r} is not written by the element loop", loop.loc)
    shape = p.tensors[0].shape
    p.numel = shape
    p.instrs = finalize(p, low.out, {t.name: t.dtype for t in p.tensors})
    check_budget(p, loop.loc)
    return p


# ------------------------------------------------------------------ stores, register allocation

def finalize(p: Plan, instrs: list, dtypes: dict) -> list:
    """Resolves Store pseudo-instructions -- the value is produced straight into the output tile when nothing
    reads or writes that tile while the value lives, else copied there (Muls by 1, exact) or Cast to a 16-bit
    output -- then assigns the virtual registers to float32 slots."""
    uses: dict = {}
    for k, ins in enumerate(instrs):
        for s in ins.srcs:
            if s.kind == "v":
                uses.setdefault(s.ref, []).append(k)
    defs = {ins.dst.ref: k for k, ins in enumerate(instrs) if ins.dst is not None and ins.dst.kind == "v"}

    def touches(ins, tile):
        return ins.dst == tile or tile in ins.srcs

    def safe(k, v, tile):
        d = defs[v.ref]
        end = max(uses.get(v.ref, [k]))
        for j in range(d + 1, max(end, k) + 1):
            if j != k and touches(instrs[j], tile):
                return False
        return True

    out = []
    rename: dict = {}
    for k, ins in enumerate(instrs):
        if ins.api != "Store":
            out.append(ins)
            continue
        v = ins.srcs[0]
        f32 = dtypes[ins.dst.ref].name == "float32"
        if v.kind == "v" and f32 and v.ref in defs and v.ref not in rename and safe(k, v, ins.dst):
            rename[v.ref] = ins.dst              # produced straight into the output tile
            out.append(Instr("Note", None, (), scalar=f"the value is computed straight into the {ins.dst.ref} tile",
                             loc=ins.loc))
            continue
        if f32:
            out.append(Instr("Muls", ins.dst, (v,), scalar="1.0f", loc=ins.loc))
        else:
            out.append(Instr("Cast", ins.dst, (v,), mode="CAST_RINT", loc=ins.loc))
    for ins in out:
        if ins.dst is not None and ins.dst.kind == "v" and ins.dst.ref in rename:
            ins.dst = rename[ins.dst.ref]
        ins.srcs = tuple(rename.get(s.ref, s) if s.kind == "v" else s for s in ins.srcs)
    return allocate(p, out)


ADV_APIS = set(ADV_API.values())


def allocate(p: Plan, instrs: list) -> list:
    last: dict = {}
    for k, ins in enumerate(instrs):
        for s in ins.srcs:
            if s.kind == "v":
                last[s.ref] = k
    free: list = []
    nslots = 0
    slot: dict = {}
    for k, ins in enumerate(instrs):
        dying = [s.ref for s in ins.srcs if s.kind == "v" and last.get(s.ref) == k]
        reuse_ok = ins.api not in ADV_APIS and not ins.api.startswith(("Cast", "Reduce"))
        if reuse_ok:
            for r in dict.fromkeys(dying):
                free.append(slot[r])
        if ins.dst is not None and ins.dst.kind == "v":
            if ins.dst.ref in slot:
                pass
            elif reuse_ok and dying and slot[dying[0]] in free:
                s = slot[dying[0]]         # in place: dst is the same address as a dying source
                free.remove(s)
                slot[ins.dst.ref] = s
            elif free:
                slot[ins.dst.ref] = free.pop(0)
            else:
                slot[ins.dst.ref] = nslots
                nslots += 1
            if ins.dst.ref not in last:      # never read (dead value): its slot is free again
                free.append(slot[ins.dst.ref])
        if not reuse_ok:
            for r in dict.fromkeys(dying):
                free.append(slot[r])
    p.nslots = max(p.nslots, nslots)
    p.slot_of = slot
    return instrs


def check_budget(p: Plan, loc, per_row_elems=None):
    """Refuses, at compile time, a program whose smallest tile does not fit the Unified Buffer."""
    per = p.per_elem_bytes()
    fixed = UB_RESERVED + (256 if p.adv else 0) + (SELECT_RESERVE if getattr(p, "select", False) else 0)
    if per_row_elems is None:
        need = per * TILE_QUANTUM + fixed
        if need > UB_BYTES:
            best = max(0, (UB_BYTES - fixed) // per)
            raise CompileError(
                f"ascend target: the loop body needs {per} B of Unified Buffer per element ({p.nslots} float32 "
                f"temporaries, double-buffered tiles of {len(p.tensors)} tensor(s)); the smallest tile of "
                f"{TILE_QUANTUM} elements needs {need} B, over the {UB_BYTES} B of the UB",
                loc, (f"suggested tile size: {best} elements (below the {TILE_QUANTUM}-element minimum): split the "
                      f"computation into two kernels",))


def max_tile(p: Plan) -> int:
    per = p.per_elem_bytes()
    fixed = UB_RESERVED + (256 if p.adv else 0) + (SELECT_RESERVE if getattr(p, "select", False) else 0)
    return max(TILE_QUANTUM, (UB_BYTES - fixed) // per // TILE_QUANTUM * TILE_QUANTUM)

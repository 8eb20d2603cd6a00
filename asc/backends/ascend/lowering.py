"""Instruction selection for the vector paths: the expressions and statements of one loop body become count-form
vector instructions (`Instr`) over virtual float32 registers, loop-invariant values stay C++ scalar text (`S`).

16-bit inputs are Cast to float32 once, stores are `Store` pseudo-instructions that regalloc.finalize resolves;
`if` statements are if-converted to Compare + Select. Builtin math reads the op table (ops.OPS). What has no vector
form raises `Unsupported` with its line: the planner then takes the scalar fallback."""
from __future__ import annotations

from ... import ir
from ...ir.printer import format_expr
from ..cstyle import int_literal
from .ctext import FLOATS, STORAGE_ROUND, fmt_const
from .ops import OPS
from .plans import Instr, S, Unsupported, V

CMP = {"lt": "LT", "gt": "GT", "eq": "EQ", "le": "LE", "ge": "GE", "ne": "NE"}
FLIP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
SCALAR_OPS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}


# ------------------------------------------------------------------ IR shapes the vector paths take

def is_var(e, name) -> bool:
    return isinstance(e, ir.Var) and e.name == name


def same_dim(stop, d) -> bool:
    """Does a loop bound `stop` equal the tensor dimension `d`?"""
    if isinstance(stop, ir.Const) and isinstance(d, int):
        return stop.value == d
    if isinstance(stop, ir.Var) and isinstance(d, ir.Sym):
        return stop.name == d.name
    return False


def simple_range(loop: ir.For) -> bool:
    """range(0, stop, 1)."""
    return (isinstance(loop.start, ir.Const) and loop.start.value == 0 and isinstance(loop.step, ir.Const)
            and loop.step.value == 1)


# ------------------------------------------------------------------ the lowerer

_C_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}

def assigned_names(stmts) -> frozenset:
    """The scalar names a loop body assigns (in any branch)."""
    return frozenset(s.var.name for s in ir.walk_stmts(stmts) if isinstance(s, ir.Assign))



def _nonzero_number(e) -> bool:
    """A constant that is a number other than 0 (nor NaN): a tie with it has one set of bits."""
    e = e.x if isinstance(e, ir.Cast) else e
    return isinstance(e, ir.Const) and e.value == e.value and e.value != 0


class Lowerer:
    """Turns expressions of one loop body into vector instructions over virtual registers. `tensors` maps names to
    the plan's GmTensors (their reads / writes are set here); `adv` and `select` tell the plan which buffers the
    program needs."""

    def __init__(self, tensors: dict, indices: tuple, scalar_names: dict):
        self.tensors = tensors
        self.indices = indices                 # the loop variables, outermost first, for element access
        self.unit: set = set()                 # loop variables of loops that run once: index 0 is their own index
        self.scalar_names = scalar_names       # python name -> C++ text of a loop-invariant scalar
        self.env: dict = {}                    # locals of the body -> value
        self.stored: dict = {}                 # tensor -> value stored this iteration
        self.loaded: dict = {}                 # tensor -> value of its load
        self.rounded: dict = {}                # 16-bit tensor -> its stored value as read back (rounded)
        self.branch_depth = 0                  # inside the branches of an `if` (if-conversion)
        self.nreg = 0
        self.out: list = []
        self.adv = False                       # an advanced math API was selected: the plan needs the tmp buffer
        self.select = False                    # Compare / Select: the plan needs the mask buffer
        self.carried: frozenset = frozenset()  # the names the loop body assigns (the loop being lowered)
        self.loc = None

    def reg(self) -> V:
        self.nreg += 1
        return V("v", self.nreg - 1)

    def emit(self, api, dst, srcs, **kw) -> V:
        self.out.append(Instr(api, dst, tuple(srcs), loc=self.loc, **kw))
        return dst

    def note(self, text: str, loc):
        self.out.append(Instr("Note", None, (), scalar=text, loc=loc))

    # ---- scalars
    def scalar(self, e) -> S:
        if isinstance(e, ir.Const):
            if e.type.dtype.kind == "f":
                return S(fmt_const(e.value))
            if e.type.dtype.kind in "iu":
                return S(int_literal(int(e.value), 64 if e.type.weak else e.type.dtype.bits))
            raise Unsupported("a boolean constant in vector code", e.loc)
        if isinstance(e, ir.Var):
            if e.name in self.env and isinstance(self.env[e.name], S):
                return self.env[e.name]
            if e.name in self.carried and e.name not in self.env:
                # read before the body assigns it: the value of the previous iteration, which a tile of
                # independent lanes does not have
                raise Unsupported(f"{e.name!r} carries a value from one iteration of the loop to the next", e.loc)
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
        key = format_expr(e)
        if key not in self.memo:
            self.memo[key] = self.value_of(e)
        return self.memo[key]

    def value_of(self, e):
        loc = getattr(e, "loc", None)
        t = getattr(e, "type", None)
        if isinstance(t, ir.ScalarType) and t.dtype.kind == "b":
            raise Unsupported("comparisons and conditions have no vector lowering yet", loc)
        if isinstance(e, ir.Const):
            return self.scalar(e)
        if isinstance(e, ir.Var):
            return self.env[e.name] if e.name in self.env else self.scalar(e)
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
            return mm if mm is not None else self.select_expr(e)
        if isinstance(e, (ir.Compare, ir.Logical)):
            raise Unsupported("conditional expressions (comparisons, `x if c else y`, Python max/min) have no "
                              "vector lowering yet", loc)
        if isinstance(e, ir.FuncCall):
            raise Unsupported("calls of @lang.func device functions have no vector lowering", loc)
        raise Unsupported(f"the expression {type(e).__name__}", loc)

    def minmax(self, e: ir.Select):
        """`a if a > b else b` (Python's max) and the like, as Max/Min (Maxs/Mins with a scalar), where that is the
        same for nan: Max gives nan when either operand is nan, the selection gives its else operand whenever the
        comparison is false (a nan operand), so only a selection whose then operand is a number (not nan) is a Max
        (`max(x, 0.0)`: `0.0 if 0.0 > x else x`); `x if x > 0 else 0.0` (lang.where) gives 0.0 for nan and stays a
        Compare and Select."""
        c = e.cond
        if not (isinstance(c, ir.Compare) and c.op in ("gt", "lt")):      # (ge, le: the then operand on a tie)
            return None
        then = e.a.x if isinstance(e.a, ir.Cast) else e.a
        if not (isinstance(then, ir.Const) and then.value == then.value) and format_expr(e.a) != format_expr(e.b):
            return None
        f = format_expr
        if f(c.a) == f(e.a) and f(c.b) == f(e.b):
            fn = "maximum" if c.op in ("gt", "ge") else "minimum"
        elif f(c.a) == f(e.b) and f(c.b) == f(e.a):
            fn = "minimum" if c.op in ("gt", "ge") else "maximum"
        else:
            return None
        return self.call(ir.Call(fn, (e.a, e.b), e.type, e.loc))

    def mask(self, x, y, op) -> V:
        """Compare (or CompareScalar) of two float operands, one at least a vector, into the bit mask."""
        if isinstance(x, S):
            x, y, op = y, x, FLIP[op]
        self.select = True
        mask = V("mask", 0)
        if isinstance(y, S):
            self.emit("CompareScalar", mask, [x], scalar=y.text, mode=CMP[op])
        else:
            self.emit("Compare", mask, [x, y], mode=CMP[op])
        return mask

    # ---- conditions that do not vary with the element (uniform): a scalar branch between vector code paths
    def uniform(self, c):
        """C++ text of a condition that is the same for every element of the loop -- built of scalar parameters,
        values computed before the loop (or per row) and constants -- else None (it varies, or has no such form)."""
        if isinstance(c, ir.Const):
            return "true" if c.value else "false"
        if isinstance(c, ir.Var):
            if c.name in self.env:
                v = self.env[c.name]
                return v.text if isinstance(v, S) else None
            return self.scalar(c).text
        if isinstance(c, ir.Unary) and c.op == "not":
            x = self.uniform(c.x)
            return None if x is None else f"(!{x})"
        if isinstance(c, ir.Logical) and c.op in ("and", "or"):
            a, b = self.uniform(c.a), self.uniform(c.b)
            return None if a is None or b is None else f"({a} {'&&' if c.op == 'and' else '||'} {b})"
        if isinstance(c, ir.Compare):
            try:
                x, y = self.value(c.a), self.value(c.b)
            except Unsupported:
                return None
            if isinstance(x, S) and isinstance(y, S):
                return f"({x.text} {_C_CMP[c.op]} {y.text})"
        return None

    def guarded(self, guard: str, lower):
        """Runs `lower()` (which emits the instructions of one side of a uniform condition) with each instruction it
        emits guarded by `guard`; what it computes stays local to that side (no shared subexpressions, loads or
        casts with the rest of the body, which runs whichever side is taken)."""
        memo, loaded, rounded, start = self.memo, dict(self.loaded), dict(self.rounded), len(self.out)
        self.memo = dict(memo)
        result = lower()
        for ins in self.out[start:]:
            if ins.api != "Note":
                ins.guard = guard if ins.guard is None else f"{guard} && {ins.guard}"
        self.memo, self.loaded, self.rounded = memo, loaded, rounded
        return result

    def pick(self, cond: str, a, b):
        """`a if cond else b` for a uniform condition: each side computed under its guard, then one copy of the
        chosen tile (a scalar selection where both sides are scalars)."""
        if isinstance(a, S) and isinstance(b, S):
            return S(f"({cond} ? {a.text} : {b.text})")
        return self.emit("Pick", self.reg(), [self.vec(a), self.vec(b)], scalar=cond)

    def select_expr(self, e: ir.Select):
        """`a if x < y else b` (float operands): Compare (or CompareScalar) into a bit mask, then Select. Counts are
        whole 256-byte repeats: Compute pads its input tiles with zeros up to them. A condition that does not vary
        with the element (`g + m * b if nesterov else b`) is a scalar branch instead: only the chosen side runs."""
        self.need_float(e)
        c = e.cond
        cond = self.uniform(c)
        if cond is not None:
            va = self.guarded(cond, lambda: self.value(e.a))
            vb = self.guarded(f"(!{cond})", lambda: self.value(e.b))
            return self.pick(cond, va, vb)
        if not (isinstance(c, ir.Compare) and c.a.type.dtype.kind == "f" and c.b.type.dtype.kind == "f"):
            raise Unsupported("a condition that is not a comparison of floats has no vector lowering", e.loc)
        va, vb = self.value(e.a), self.value(e.b)
        x, y = self.value(c.a), self.value(c.b)
        if isinstance(x, S) and isinstance(y, S):
            if isinstance(va, S) and isinstance(vb, S):     # loop-invariant scalars: a scalar selection
                return S(f"(({x.text} {_C_CMP[c.op]} {y.text}) ? {va.text} : {vb.text})")
            raise Unsupported("a condition on scalars only inside vector code", e.loc)
        a, b = self.vec(va), self.vec(vb)
        mask = self.mask(x, y, c.op)
        return self.emit("Select", self.reg(), [mask, a, b])

    def need_float(self, e):
        t = e.type
        if not (t.dtype.name in FLOATS or (t.weak and t.dtype.kind == "f")):
            raise Unsupported(f"{t!r} arithmetic (vector code computes float32, float16 and bfloat16 only)", e.loc)

    def own(self, index, var: str) -> bool:
        """Whether `index` is the loop variable `var`'s own index (or 0, where that loop runs once: the tensor
        lowering indexes a dimension of size 1 by 0)."""
        return is_var(index, var) or (var in self.unit and isinstance(index, ir.Const) and index.value == 0)

    def load(self, e: ir.Load):
        t = e.tensor
        if not all(self.own(i, v) for i, v in zip(e.indices, self.indices[-len(e.indices):])) or \
                len(e.indices) > len(self.indices):
            raise Unsupported(f"the access {t.name}[...] is not at the loop's own index", e.loc)
        return self.load_stored(t) or self.load_tensor(t, e)

    def round_trip(self, v, dtype_name: str) -> V:
        """float32 -> 16 bits (CAST_RINT) in a slot, and back: the value as a 16-bit tensor holds it."""
        h = self.emit("CastTo16", self.reg(), [self.vec(v)], mode="CAST_RINT", scalar=dtype_name)
        return self.emit("CastFrom16", self.reg(), [h], mode="CAST_NONE", scalar=dtype_name)

    def load_stored(self, t):
        """The value stored to t at this index earlier in the iteration (rounded, for a 16-bit tensor)."""
        if t.name not in self.stored:
            return None
        v = self.stored[t.name]
        dtype = self.tensors[t.name].dtype.name
        if dtype != "float32":
            if t.name not in self.rounded:         # the value as the 16-bit tensor holds it: rounded
                self.rounded[t.name] = self.round_trip(v, dtype)
            v = self.rounded[t.name]
        return v

    def load_tensor(self, t: ir.Var, e):
        if t.name in self.loaded:
            return self.loaded[t.name]
        gm = self.tensors[t.name]
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
            sym = SCALAR_OPS.get(op)
            if sym is None:
                raise Unsupported(f"the scalar operator {op!r}", e.loc)
            return S(f"({a.text} {sym} {b.text})")
        if op in ("add", "mul"):
            if isinstance(a, S):
                a, b = b, a
            vv, vs = ("Add", "Adds") if op == "add" else ("Mul", "Muls")
            return self.emit(vs, self.reg(), [a], scalar=b.text) if isinstance(b, S) else \
                self.emit(vv, self.reg(), [a, b])
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
            r = self.emit("Mul", self.reg(), [a, a])
            for _ in range(int(float(e.b.value)) - 2):
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
        if dst.dtype.name in FLOATS and src.dtype.kind == "f" and (not e.explicit or dst.dtype.name == "float32" or
                                                                  (dst.dtype == src.dtype and
                                                                   (dst.dtype.name not in STORAGE_ROUND or
                                                                    isinstance(e.x, ir.Load)))):
            # 16-bit floats are carried in float32; the store rounds once. An explicit lang.bfloat16(v) of a
            # bfloat16 value rounds all the same (v = y[i] * y[i] is carried unrounded), unless v is a load.
            return x
        if dst.dtype.name in STORAGE_ROUND and src.dtype.kind == "f":
            return self.round_trip(x, dst.dtype.name)     # an explicit lang.cast to 16 bits rounds
        raise Unsupported(f"the conversion {src!r} -> {dst!r}" + (" (an explicit lang.cast)" if e.explicit else ""),
                          e.loc)

    def call(self, e: ir.Call):
        self.need_float(e)
        op = OPS.get(e.fn)
        args = [self.value(a) for a in e.args]
        if all(isinstance(a, S) for a in args):
            if op is not None and op["cmp"] is not None:
                x, y = (a.text for a in args)
                return S(f"(({x} {op['cmp']} {y}) ? {x} : {y})")
            if op is None or op["args"] != 1:
                raise Unsupported(f"{e.fn}() of a scalar inside vector code", e.loc)
            args = [self.vec(args[0])]          # math of a loop-invariant scalar: on a tile of copies of it
        if op is not None and op["args"] == 1:
            self.adv = self.adv or op["tmp"]
            return self.emit(op["api"], self.reg(), [args[0]])
        if op is not None and op["scalar_api"] is not None:
            a, b = args
            if isinstance(a, S) and e.fn in ("maximum", "minimum") and not _nonzero_number(e.args[0]):
                # numpy.maximum(s, x) is Maxs(x, s) but on a tie, x (lang.maximum(0.0, x) of x = -0.0 is -0.0),
                # and of two NaNs, s
                return self.emit(op["api"], self.reg(), [self.vec(a), b])
            if isinstance(a, S):
                a, b = b, a
            if isinstance(b, S):
                return self.emit(op["scalar_api"], self.reg(), [a], scalar=b.text)
            return self.emit(op["api"], self.reg(), [a, b])
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
                self.store(s)
            elif isinstance(s, ir.If):
                self.if_stmt(s)
            else:
                raise Unsupported(f"the statement {type(s).__name__} in the element loop", getattr(s, "loc", None))

    def if_stmt(self, s: ir.If):
        """if-conversion: both branches are computed over the whole tile, then each variable and each stored
        tensor they change takes Select(condition, then-value, else-value)."""
        c = s.cond
        cond = self.uniform(c)          # the same for every element: a scalar branch, only the side taken runs
        if cond is None:
            if not (isinstance(c, ir.Compare) and c.a.type.dtype.kind == "f" and c.b.type.dtype.kind == "f"):
                raise Unsupported("an `if` whose condition is not a comparison of floats has no vector lowering",
                                  s.loc)
            x, y = self.value(c.a), self.value(c.b)
        base_env, base_stored, base_rounded = dict(self.env), dict(self.stored), dict(self.rounded)
        results = []
        for branch, guard in ((s.then, cond), (s.orelse, None if cond is None else f"(!{cond})")):
            self.env, self.stored, self.rounded = dict(base_env), dict(base_stored), dict(base_rounded)
            self.branch_depth += 1
            if guard is None:
                self.block(branch)
            else:
                self.guarded(guard, lambda: self.block(branch))
            self.branch_depth -= 1
            results.append((self.env, self.stored))
        self.env, self.stored, self.rounded = dict(base_env), dict(base_stored), dict(base_rounded)
        self.loc = s.loc
        (env_t, st_t), (env_f, st_f) = results
        names = [n for n in dict.fromkeys(list(env_t) + list(env_f)) if env_t.get(n) is not env_f.get(n)]
        tensors = [t for t in dict.fromkeys(list(st_t) + list(st_f)) if st_t.get(t) is not st_f.get(t)]
        if not names and not tensors:
            return
        if cond is None:
            mask = self.mask(x, y, c.op)

            def choose(a, b):
                return self.emit("Select", self.reg(), [mask, self.vec(a), self.vec(b)])
        else:
            def choose(a, b):
                return self.pick(cond, a, b)
        for n in names:
            if n not in env_t or n not in env_f:
                continue                  # set in one branch only: the variable is local to that branch
            self.env[n] = choose(env_t[n], env_f[n])
        for t in tensors:
            gm = self.tensors[t]
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
            v = choose(vals[0], vals[1])
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
            self.note(f"{s.var.name} is {what}: no instruction", s.loc)

    def store(self, s: ir.Store):
        """Puts the stored value into the output tile of s.tensor."""
        name = s.tensor.name
        if not all(self.own(i, v) for i, v in zip(s.indices, self.indices)) or len(s.indices) != len(self.indices):
            raise Unsupported(f"the store to {name}[...] is not at the loop's own index", s.loc)
        gm = self.tensors[name]
        gm.writes = True
        if gm.dtype.name not in FLOATS:
            raise Unsupported(f"{name!r} is {gm.dtype.name}; vector code writes float32, float16 and bfloat16", s.loc)
        v = self.value(s.value)
        if isinstance(v, S):
            v = self.vec(v)
        if not self.branch_depth:        # inside an `if`, the Select after the branches stores
            self.emit("Store", V("out", name), [v])
        else:
            self.note("stored by the Select after the `if`", s.loc)
        self.stored[name] = v
        self.rounded.pop(name, None)

"""Row plans: softmax / layernorm style loops over the rows of [R, C] tensors.

The row's body is per-row scalar statements (on the scalar unit) and inner loops over the row: maps become
count-form vector instructions over the row, reductions along it (`s += e`, `m = max(m, e)`) become ReduceSum /
ReduceMax / ReduceMin with a work buffer, read back with GetValue after a V_S sync. 1-D [C] tensors indexed by the
inner loop (a layernorm's weight and bias) are loaded once per core. Builtin math on per-row values
(`rsqrt(var + eps)`) runs as a one-repeat vector instruction (ScalarMath), from the same op table as the map path."""
from __future__ import annotations

from ... import ir
from ...errors import CompileError
from ...passes.loops import update_op
from .budget import max_cols, row_bytes
from .ctext import FLOATS, STORAGE, STORAGE_ROUND, cname
from .half_ops import half_ops
from .lowering import Lowerer, assigned_names, is_var, same_dim, simple_range
from .packed_rows import pack
from .per_row import check_per_row_dtype, per_row_ref, same_size
from .ops import OPS
from .plans import Instr, Plan, RowPlan, S, Unsupported, V
from .regalloc import finalize
from .soc import UB_BYTES

REDUCE_API = {"add": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}     # by the reduction's operator
COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


class RowLowerer(Lowerer):
    """The lowerer of one row: scalar statements of the row as C++ text, inner loops as vector instructions."""

    def __init__(self, tensors: dict, row_var, rows_dim, scalar_names):
        super().__init__(tensors, (row_var,), scalar_names)
        self.row_var = row_var
        self.rows_dim = rows_dim
        self.col_var = None
        self.cols_dim = None
        self.nscalar = 0
        self.rows_1d: set = set()
        self.per_row: set = set()           # 1-D [R] tensors indexed by the row: a value per row (per_row.py)
        self.row_locals: dict = {}          # per-row scalar locals -> C type
        self.row_defined: set = set()       # the per-row locals assigned so far in the row's body
        self.row_set: dict = {}             # per-row output -> the value this row stored (C++ text)
        self.tile_reads = 0                 # scalar reads of a row tile (GetValue after MTE2_S / V_S syncs)

    # ---- scalars of the row
    def scalar(self, e):
        if isinstance(e, ir.Var) and e.name in self.row_locals:
            self.defined_in_row(e.name, getattr(e, "loc", None) or self.loc)
            return S(cname(e.name))
        return super().scalar(e)

    def value_of(self, e):
        if self.col_var is None or not self.varies(e):
            return self.scalar_expr(e)
        if isinstance(e, ir.Select):
            col = self.one_column(e.cond)
            if col is not None:
                return self.patch(e, *col)
        return super().value_of(e)

    # ---- `a if j == c else b`: the row of b with the one element at column c replaced by a's
    def one_column(self, cond):
        """(the column's C++ index, whether `==`) if cond compares the column index with a per-row integer
        (`j == t`, `t != j`), else None."""
        if not (isinstance(cond, ir.Compare) and cond.op in ("eq", "ne")):
            return None

        def col(x):
            while isinstance(x, ir.Cast) and x.type.dtype.kind in "iu":
                x = x.x
            return is_var(x, self.col_var)
        for a, b in ((cond.a, cond.b), (cond.b, cond.a)):
            if col(a) and b.type.dtype.kind in "iu" and not self.varies(b):
                return self.scalar_expr(b).text, cond.op == "eq"
        return None

    def patch(self, e: ir.Select, index: str, eq: bool):
        """Where the condition holds at one column only, the selection is the other operand's row with that one
        element replaced (a scalar read of the chosen operand's element, a copy of the row, a scalar write):
        bit-equal to the selection, with no compare mask and no padded repeats. An index outside the row replaces
        nothing, as no column equals it."""
        one, rest = (e.a, e.b) if eq else (e.b, e.a)
        self.need_float(e)
        v1, v0 = self.vec(self.value(one)), self.vec(self.value(rest))
        return self.emit("Patch", self.reg(), [v0, v1], scalar=index)

    def defined_in_row(self, name: str, loc):
        """A per-row local read (or reduced into) before the row assigns it carries a value from one row to the
        next: rows are split over the cores, which do not share it."""
        if name not in self.row_defined:
            raise Unsupported(f"{name!r} carries a value from one row to the next", loc)

    def varies(self, e) -> bool:
        """Does e depend on the inner (column) index?"""
        for x in ir.walk_expr(e):
            if isinstance(x, ir.Var) and (x.name == self.col_var or
                                          (x.name in self.env and isinstance(self.env[x.name], V))):
                return True
        return False

    def scalar_expr(self, e) -> S:
        loc = getattr(e, "loc", None)
        if isinstance(e, (ir.Const, ir.Var)):
            if isinstance(e, ir.Var) and e.name in self.env:
                return self.env[e.name]
            return self.scalar(e)
        if isinstance(e, ir.Load):
            return self.scalar_load(e)
        if isinstance(e, ir.Unary) and e.op == "neg":
            return S(f"(-{self.scalar_expr(e.x).text})")
        if isinstance(e, ir.Binary) and e.op in ("add", "sub", "mul", "truediv"):
            sym = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}[e.op]
            return S(f"({self.scalar_expr(e.a).text} {sym} {self.scalar_expr(e.b).text})")
        if isinstance(e, ir.Cast):
            x = self.scalar_expr(e.x)
            src, dst = e.x.type.dtype, e.type.dtype
            if dst.kind == "f" and (not e.explicit or dst.name == "float32") and src.kind in "fiu":
                return S(f"static_cast<float>({x.text})")
            if dst.kind == "f" and e.explicit and dst.name in STORAGE_ROUND and src.kind == "f":
                return S(f"static_cast<float>({STORAGE_ROUND[dst.name].format(x.text)})")
            if dst.kind in "iu" and src.kind in "iu" and dst.bits >= src.bits:
                return S(f"static_cast<{STORAGE[dst.name]}>({x.text})")
            raise Unsupported(f"the conversion {e.x.type!r} -> {e.type!r} in row code", loc)
        if isinstance(e, ir.Compare):
            return S(f"({self.scalar_expr(e.a).text} {COMPARE[e.op]} {self.scalar_expr(e.b).text})")
        if isinstance(e, ir.Select):
            return S(f"({self.scalar_expr(e.cond).text} ? {self.scalar_expr(e.a).text} : "
                     f"{self.scalar_expr(e.b).text})")
        op = OPS.get(e.fn) if isinstance(e, ir.Call) else None
        if op is not None and op["cmp"] is not None:
            a, b = (self.scalar_expr(x).text for x in e.args)
            return S(f"(({a} {op['cmp']} {b}) ? {a} : {b})")
        if op is not None and op["args"] == 1:
            arg = self.scalar_expr(e.args[0])
            name = f"sm{self.nscalar}"
            self.nscalar += 1
            self.adv = self.adv or op["tmp"]
            self.out.append(Instr("ScalarMath", None, (), scalar=arg.text, mode=op["api"], rdst=name, loc=self.loc))
            return S(name)
        raise Unsupported(f"the scalar expression {type(e).__name__} in row code", loc)

    def scalar_load(self, e: ir.Load) -> S:
        t = e.tensor
        gm = self.tensors[t.name]
        if len(e.indices) == 2 and is_var(e.indices[0], self.row_var) and gm.shape[0] == self.rows_dim \
                and gm.kind == "param" and not self.varies(e.indices[1]):
            # one element of the row's tile: a constant column (x[i, 0]) or a data-dependent one (the gather
            # logits[i, target[i]]), read by the scalar unit after the copy and the vector unit are done with it
            if t.name in self.stored:
                raise Unsupported(f"a scalar read of {t.name!r} after the row wrote it", e.loc)
            col = self.scalar_expr(e.indices[1]).text if not isinstance(e.indices[1], ir.Const) \
                else str(int(e.indices[1].value))
            self.load_tensor(t, e)
            self.tile_reads += 1
            return S(f"static_cast<float>({cname(t.name)}In.GetValue(static_cast<uint32_t>({col})))"
                     if not isinstance(e.indices[1], ir.Const) else
                     f"static_cast<float>({cname(t.name)}In.GetValue({col}))")
        if len(e.indices) == 1 and is_var(e.indices[0], self.row_var) and self.is_per_row(t.name, e.loc):
            return self.per_row_load(gm, e)
        raise Unsupported(f"the access {t.name}[...] in row code", e.loc)

    # ---- per-row 1-D tensors (a value per row: per_row.py renders their UB copies)
    def is_per_row(self, name: str, loc) -> bool:
        gm = self.tensors[name]
        if len(gm.shape) != 1 or not same_size(gm.shape[0], self.rows_dim):
            return False
        if name in self.rows_1d:
            raise Unsupported(f"{name!r} is indexed both by the row and by the column", loc)
        return True

    def per_row_load(self, gm, e) -> S:
        check_per_row_dtype(gm, e.loc)
        if gm.kind == "alloc":
            if gm.name in self.row_set:
                # read back from its buffer (the value as stored, not its expression: its operands may change)
                back = f"{per_row_ref(gm)}.GetValue(r)"
                if gm.dtype.name in STORAGE_ROUND:
                    back = f"static_cast<float>({STORAGE_ROUND[gm.dtype.name].format(back)})"
                return S(back)
            if gm.init == "zeros":
                return S("0.0f")
            raise Unsupported(f"the kernel reads {gm.name!r} before writing it", e.loc)
        gm.reads = True
        self.per_row.add(gm.name)
        return S(f"{per_row_ref(gm)}.GetValue(r)")

    def per_row_store(self, s: ir.Store):
        gm = self.tensors[s.tensor.name]
        check_per_row_dtype(gm, s.loc)
        if gm.kind != "alloc" or gm.dtype.kind != "f":
            raise Unsupported(f"a store to the per-row {gm.dtype.name} tensor {gm.name!r}", s.loc)
        value = s.value
        if isinstance(value, ir.Cast) and value.explicit and value.type.dtype == gm.dtype:
            value = value.x             # d[i] = float16(dd): the store rounds once, as the explicit cast does
        before = self.tile_reads
        v = self.scalar_expr(value)
        gm.writes = True
        self.per_row.add(gm.name)
        self.row_set[gm.name] = True
        self.out.append(Instr("RowSet", None, (), scalar=v.text, rdst=per_row_ref(gm),
                              mode="tile" if self.tile_reads > before else None, loc=s.loc))

    # ---- vector loads over the row
    def load(self, e: ir.Load):
        t = e.tensor
        gm = self.tensors[t.name]
        if len(e.indices) == 2 and is_var(e.indices[0], self.row_var) and is_var(e.indices[1], self.col_var):
            return self.load_stored(t) or self.load_tensor(t, e)
        if len(e.indices) == 1 and is_var(e.indices[0], self.col_var) and gm.name not in self.stored \
                and same_size(gm.shape[0], self.cols_dim) and gm.name not in self.per_row:
            return self.load_row(t, e)
        raise Unsupported(f"the access {t.name}[...] is not [row, column] or [column]", e.loc)

    def load_tensor(self, t: ir.Var, e):
        """A row tile; an 8-bit integer one (q8_0's quants) is Cast to float32 through float16 (int8/uint8 -> half
        CAST_NONE, half -> float CAST_NONE: both exact), so that only a conversion to float may read it."""
        gm = self.tensors[t.name]
        if gm.dtype.name not in ("int8", "uint8") or gm.kind != "param" or t.name in self.loaded:
            return super().load_tensor(t, e)
        gm.reads = True
        h = self.emit("CastTo16", self.reg(), [V("in", t.name)], mode="CAST_NONE", scalar="float16")
        self.loaded[t.name] = self.emit("CastFrom16", self.reg(), [h], mode="CAST_NONE", scalar="float16")
        return self.loaded[t.name]

    def cast(self, e: ir.Cast):
        src, dst = e.x.type.dtype, e.type.dtype
        if dst.name == "float32" and src.name in ("int8", "uint8"):
            x = self.value(e.x)
            if isinstance(x, V):
                return x                # the tile's float32 copy holds the integers exactly
        return super().cast(e)

    def load_row(self, t, e):
        if t.name in self.loaded:
            return self.loaded[t.name]
        gm = self.tensors[t.name]
        gm.reads = True
        self.rows_1d.add(t.name)
        if gm.dtype.name not in FLOATS:
            raise Unsupported(f"{t.name!r} is {gm.dtype.name}; vector code reads floats", e.loc)
        src = V("row", t.name)
        if gm.dtype.name != "float32":
            src = self.emit("Cast", self.reg(), [src], mode="CAST_NONE")
        self.loaded[t.name] = src
        return src

    def store_row(self, s: ir.Store):
        if not (len(s.indices) == 2 and is_var(s.indices[0], self.row_var) and is_var(s.indices[1], self.col_var)):
            raise Unsupported(f"the store to {s.tensor.name}[...] is not at [row, column]", s.loc)
        self.indices = (self.row_var, self.col_var)
        gm = self.tensors[s.tensor.name]
        if gm.dtype.name in ("int8", "uint8"):
            return self.store_int8(s, gm)
        self.store(s)

    def store_int8(self, s: ir.Store, gm):
        """`q[i, j] = int8(r)`: NumPy's float -> int8 (x86): truncated to int32 (NaN and out of range: INT_MIN),
        then wrapped to 8 bits. On the vector unit, exactly: Cast to int32 (CAST_TRUNC; it saturates, and NaN is 0
        -- every such value is 0 mod 256, as x86's INT_MIN), back to float32 (exact: a truncated float, or +-2^31),
        w = t - 256 * floor((t + 128) / 256) (int8; uint8: t - 256 * floor(t / 256)) -- each step exact for
        |t| <= 2^31 --, then float32 -> half -> int8 (CAST_NONE; exact for integers of 8 bits)."""
        value = s.value
        if not (isinstance(value, ir.Cast) and value.type.dtype == gm.dtype and value.x.type.dtype.kind == "f"):
            raise Unsupported(f"a store to the {gm.dtype.name} row {gm.name!r} that is not a conversion of a float",
                              s.loc)
        gm.writes = True
        v = self.vec(self.value(value.x))
        i32 = self.emit("CastToI32", self.reg(), [v], mode="CAST_TRUNC")
        t = self.emit("CastFromI32", self.reg(), [i32], mode="CAST_NONE")
        a = self.emit("Adds", self.reg(), [t], scalar="128.0f") if gm.dtype.name == "int8" else t
        b = self.emit("Muls", self.reg(), [a], scalar="0.00390625f")
        c = self.emit("Cast", self.reg(), [b], mode="CAST_FLOOR")
        d = self.emit("Muls", self.reg(), [c], scalar="256.0f")
        w = self.emit("Sub", self.reg(), [t, d])
        h = self.emit("CastTo16", self.reg(), [w], mode="CAST_NONE", scalar="float16")
        self.emit("CastTo8", V("out", gm.name), [h], mode="CAST_NONE")
        self.stored[gm.name] = w

    # ---- the loops over the row
    def inner(self, loop: ir.For, cols_dim):
        if not (simple_range(loop) and same_dim(loop.stop, cols_dim)):
            raise Unsupported("an inner loop that does not run over the whole row", loop.loc)
        if any(isinstance(x, (ir.For, ir.While, ir.If)) for x in ir.walk_stmts(loop.body)):
            raise Unsupported("control flow inside the loop over the row", loop.loc)
        self.col_var = loop.var.name
        self.cols_dim = cols_dim
        self.indices = (self.row_var, self.col_var)
        self.note("the loop over the row: count-form instructions on its n elements", loop.loc)
        inner_env, outer_carried = dict(self.env), self.carried
        self.carried = assigned_names(loop.body) - set(self.row_locals)
        reductions = []
        online = _online_normalizer(loop.body, self.row_locals)
        for s in ([] if online else loop.body):
            self.loc = s.loc
            if isinstance(s, ir.Assign) and s.var.name in self.row_locals:
                self.defined_in_row(s.var.name, s.loc)
                op = update_op(s.value, s.var.name)
                if op not in REDUCE_API:
                    if isinstance(s.value, ir.Cast) and s.value.explicit and \
                            update_op(s.value.x, s.var.name) in REDUCE_API:
                        raise Unsupported(f"{s.var.name!r} accumulates in {s.var.type.dtype.name}, each step rounded "
                                          f"(precision=\"mixed\", as NumPy adds 16-bit values; start it as "
                                          f"lang.float32(0.0) to accumulate in float32)", s.loc)
                    raise Unsupported(f"{s.var.name!r} is carried across the row's columns but is not a sum, max or "
                                      f"min reduction", s.loc)
                v = self.value(_element(s.value, s.var.name))
                if isinstance(v, S):
                    raise Unsupported("a reduction of a value that does not depend on the column", s.loc)
                reductions.append((s, op, v))
            elif isinstance(s, ir.Assign):
                before = len(self.out)
                self.env[s.var.name] = self.value(s.value)
                self.note_if_free(s, before)
            elif isinstance(s, ir.Store):
                self.store_row(s)
            else:
                raise Unsupported(f"the statement {type(s).__name__} in the loop over the row",
                                  getattr(s, "loc", None))
        for s, op, v in reductions:
            self.loc = s.loc
            self.out.append(Instr(REDUCE_API[op], None, (v,), rdst=cname(s.var.name), mode=op, loc=s.loc))
        if online:
            self.online_normalizer(*online)
        self.env = inner_env
        self.carried = outer_carried
        self.col_var = None
        self.indices = (self.row_var,)

    def fresh_scalar(self) -> str:
        name = f"sm{self.nscalar}"
        self.nscalar += 1
        return name

    def online_normalizer(self, stmts, m: str, m_new: str, s: str, e, x):
        """The online-softmax normalizer over the row (Milakov & Gimelshein's recurrence)

            m_new = max(m, e_j);  s = s * exp(m - m_new) + exp(x_j - m_new);  m = m_new

        in two passes over the row's tile: m' = max(m, ReduceMax(e)), then s' = s * exp(m - m') + ReduceSum(exp(x -
        m')). In exact arithmetic the two are equal: the recurrence's term j is exp(x_j - m_j) times the rescale
        factors exp(m_{k-1} - m_k) of every later step, whose product is exp(m_j - m'), so it is exp(x_j - m'). They
        differ in rounding only: the recurrence rounds one exp and one product per rescale (as many as the running
        max grows along the row), the two passes round each exp(x_j - m') once, then the sum; both stay within the
        kernel's few ulps of exp and division. The special values agree: a NaN in the row makes m' and s' NaN; a row
        of -inf (with m = -inf, s = 0 at the start) gives exp(-inf - -inf) = NaN, hence s' = NaN, as the recurrence
        does at its first step; a larger m at the start rescales s by exp(m - m') exactly as one step would."""
        for st in stmts:
            self.defined_in_row(st.var.name, st.loc) if st.var.name in self.row_locals else None
        self.loc = stmts[0].loc
        ve = self.value(e)
        if isinstance(ve, S):
            raise Unsupported("an online normalizer of a value that does not depend on the column", self.loc)
        m_old = self.fresh_scalar()
        self.out.append(Instr("Scalar", None, (), scalar=cname(m), rdst=m_old, loc=self.loc))
        self.out.append(Instr("ReduceMax", None, (ve,), rdst=cname(m), mode="max", loc=self.loc))
        self.loc = stmts[1].loc
        self.env[m_new] = S(cname(m))
        vx = self.value(ir.Call("exp", (ir.Binary("sub", x, ir.Var(m_new, x.type), x.type),), x.type))
        if isinstance(vx, S):
            raise Unsupported("an online normalizer of a value that does not depend on the column", self.loc)
        total = self.fresh_scalar()
        self.out.append(Instr("Scalar", None, (), scalar="0.0f", rdst=total, loc=self.loc))
        self.out.append(Instr("ReduceSum", None, (vx,), rdst=total, mode="add", loc=self.loc))
        factor = self.fresh_scalar()
        self.out.append(Instr("ScalarMath", None, (), scalar=f"({m_old} - {cname(m)})", mode=OPS["exp"]["api"],
                              rdst=factor, loc=self.loc))
        self.out.append(Instr("Scalar", None, (), scalar=f"(({cname(s)} * {factor}) + {total})", rdst=cname(s),
                              loc=self.loc))
        self.loc = stmts[2].loc
        self.note(f"{m} = {m_new}: {m} holds the row's new max", self.loc)


def _online_normalizer(body, row_locals):
    """(statements, m, m_new, s, e, x) if the loop body is the online-softmax recurrence
    `m_new = max(m, e); s = s * exp(m - m_new) + exp(x - m_new); m = m_new` (m, s per-row floats; e, x free of
    m, m_new and s; the operands of + and * in either order), else None."""
    if len(body) != 3 or not all(isinstance(st, ir.Assign) for st in body):
        return None
    a, b, c = body
    m_new = a.var.name
    if not (isinstance(a.value, ir.Call) and a.value.fn == "maximum" and len(a.value.args) == 2):
        return None
    m = e = None
    for p, q in ((a.value.args[0], a.value.args[1]), (a.value.args[1], a.value.args[0])):
        if isinstance(p, ir.Var) and p.name in row_locals and row_locals[p.name] == "float":
            m, e = p.name, q
            break
    s = b.var.name
    if m is None or s == m or s not in row_locals or not (is_var(c.value, m_new) and c.var.name == m):
        return None

    def exp_of(z):
        return z.args[0] if isinstance(z, ir.Call) and z.fn == "exp" and len(z.args) == 1 else None

    def sub(z, rhs):
        return z.a if isinstance(z, ir.Binary) and z.op == "sub" and is_var(z.b, rhs) else None
    v = b.value
    if not (isinstance(v, ir.Binary) and v.op == "add"):
        return None
    for p, q in ((v.a, v.b), (v.b, v.a)):
        if not (isinstance(p, ir.Binary) and p.op == "mul"):
            continue
        for p1, p2 in ((p.a, p.b), (p.b, p.a)):
            d = exp_of(p2)
            if is_var(p1, s) and d is not None and is_var(sub(d, m_new), m) and exp_of(q) is not None:
                x = sub(exp_of(q), m_new)
                names = {m, m_new, s}
                if x is not None and not any(isinstance(z, ir.Var) and z.name in names
                                             for y in (x, e) for z in ir.walk_expr(y)):
                    return body, m, m_new, s, e, x
    return None


def _element(value, name):
    """The element expression e of acc = acc + e / max(acc, e)."""
    if isinstance(value, ir.Binary):
        return value.b if is_var(value.a, name) else value.a
    if isinstance(value, ir.Call):          # maximum(acc, e) / minimum: a float max / min
        return value.args[1] if is_var(value.args[0], name) else value.args[0]
    c = value.cond
    return c.a if is_var(c.b, name) else c.b


def row_plan(base: Plan, pre: list, loop: ir.For, scalar_names: dict) -> RowPlan:
    """The row plan of `loop`, the kernel's one loop, over the rows of its 2-D tensors (`base`: the kernel and its
    GM interface; `pre`: the scalars computed before the loop)."""
    tensors = base.tensors
    if not simple_range(loop):
        raise Unsupported("the row loop does not run over range(R)", loop.loc)
    rows_dim = None
    for t in tensors:
        if len(t.shape) == 2:
            if rows_dim is None:
                rows_dim, cols_dim = t.shape
            elif t.shape != (rows_dim, cols_dim):
                raise Unsupported(f"2-D tensors of different shapes ({t.name!r} {t.shape}, others "
                                  f"{(rows_dim, cols_dim)}): neither an element-wise map nor a row kernel (matmul-like "
                                  f"loops have no vector or cube lowering yet)", loop.loc)
    if rows_dim is None or not same_dim(loop.stop, rows_dim):
        raise Unsupported("the loop is not over the rows of the kernel's 2-D tensors", loop.loc)
    for t in tensors:
        per_row = len(t.shape) == 1 and same_size(t.shape[0], rows_dim)
        if len(t.shape) == 1 and not same_size(t.shape[0], cols_dim) and not per_row:
            raise Unsupported(f"the 1-D tensor {t.name!r} is as long as neither a row nor a column", loop.loc)
        if len(t.shape) == 1 and t.kind == "alloc" and not per_row:
            raise Unsupported(f"the 1-D output {t.name!r} in a row kernel", loop.loc)
        if len(t.shape) not in (1, 2):
            raise Unsupported(f"{t.name!r} has {len(t.shape)} dimensions", loop.loc)
    low = RowLowerer({t.name: t for t in tensors}, loop.var.name, rows_dim, scalar_names)
    inner_ids = {id(x) for f in loop.body if isinstance(f, ir.For) for x in ir.walk_stmts(f.body)}
    for s in ir.walk_stmts(loop.body):
        if isinstance(s, ir.Assign) and isinstance(s.var.type, ir.ScalarType) and id(s) not in inner_ids:
            kind = s.var.type.dtype
            low.row_locals[s.var.name] = "float" if kind.kind == "f" else STORAGE.get(kind.name, "?")
    for s in loop.body:
        low.loc = s.loc
        if isinstance(s, ir.Assign):
            dt = s.var.type.dtype
            if dt.kind != "f" and not (dt.kind in "iu" and dt.name in ("int32", "int64")):
                raise Unsupported(f"the {s.var.type!r} scalar {s.var.name!r} in row code", s.loc)
            before = low.tile_reads
            v = low.scalar_expr(s.value)
            low.out.append(Instr("Scalar", None, (), scalar=v.text, rdst=cname(s.var.name),
                                 mode="tile" if low.tile_reads > before else None, loc=s.loc))
            low.row_defined.add(s.var.name)
        elif isinstance(s, ir.Store) and len(s.indices) == 1 and is_var(s.indices[0], low.row_var) \
                and low.is_per_row(s.tensor.name, s.loc):
            low.per_row_store(s)
        elif isinstance(s, ir.For):
            low.inner(s, cols_dim)
        else:
            raise Unsupported(f"the statement {type(s).__name__} in the row loop", getattr(s, "loc", None))
    for t in tensors:
        if t.kind == "alloc" and not t.writes:
            raise Unsupported(f"the output {t.name!r} is not written by the row loop", loop.loc)
    if low.select and any(t.reads and t.dtype.name in ("int8", "uint8") for t in tensors):
        raise Unsupported("a conditional expression next to an 8-bit integer row", loop.loc)
    dtypes = {t.name: t.dtype for t in tensors}
    alloc = finalize(half_ops(low.out, dtypes), dtypes)
    p = RowPlan(**base.interface(), pre=pre, loop_loc=loop.loc,
                rows_dim=rows_dim, cols_dim=cols_dim, rows_1d=sorted(low.rows_1d), per_row=sorted(low.per_row),
                row_locals=dict(low.row_locals),
                nscalar=low.nscalar, reduces=any(i.api.startswith("Reduce") for i in low.out), instrs=alloc.instrs,
                nslots=alloc.nslots, slot_of=alloc.slot_of, adv=low.adv, select=low.select)
    if isinstance(cols_dim, int):
        need = row_bytes(p, cols_dim)
        if need > UB_BYTES:
            best = max_cols(p)
            raise CompileError(
                f"ascend target: a row of {cols_dim} elements needs {need} B of Unified Buffer (double-buffered row "
                f"tiles of {len(p.tensors)} tensor(s), {p.nslots} float32 temporaries, reduction work space), over "
                f"the {UB_BYTES} B of the UB", loop.loc,
                (f"suggested tile size: rows of at most {best} elements fit; split the row loop into tiles of "
                 f"{best} columns",))
    return pack(p)

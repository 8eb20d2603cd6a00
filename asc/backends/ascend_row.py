"""Row kernels for the ascend target: softmax / layernorm style loops over the rows of [R, C] tensors.

The outer loop over rows is split across vector cores; each row is one UB tile (double-buffered queues). The
row's body is per-row scalar statements (on the scalar unit) and inner loops over the row: maps become count-form
vector instructions over the row, reductions along it (`s += e`, `m = max(m, e)`) become ReduceSum / ReduceMax /
ReduceMin with a work buffer, read back with GetValue after a V_S sync. 1-D [C] tensors indexed by the inner loop
(a layernorm's weight and bias) are loaded once per core. Scalar math on per-row values (`rsqrt(var + eps)`) runs
as a one-repeat vector instruction."""
from __future__ import annotations

from .. import ir
from ..errors import CompileError
from ..passes.loops import _update_op
from . import ascend_lower as L
from .ascend_lower import S, V, Instr, Unsupported

SCALAR_MATH = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "abs": "Abs", "tanh": "Tanh",
               "erf": "Erf", "sigmoid": "Sigmoid"}
REDUCE_API = {"add": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}
COL_QUANTUM = 16                  # a row tile holds the row padded to 16 elements (32 B of 16-bit data)


class _RowLowerer(L._Lowerer):
    def __init__(self, plan, row_var, scalar_names):
        super().__init__(plan, (row_var,), scalar_names)
        self.row_var = row_var
        self.col_var = None
        self.nscalar = 0
        self.rows_1d: set = set()
        self.row_locals: dict = {}          # per-row scalar locals -> C type

    # ---- scalars of the row
    def scalar(self, e):
        if isinstance(e, ir.Var) and e.name in self.row_locals:
            return S(L.cname_local(e.name))
        return super().scalar(e)

    def value_of(self, e):
        if self.col_var is None or not self._varies(e):
            return self.scalar_expr(e)
        return super().value_of(e)

    def _varies(self, e) -> bool:
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
            if e.type.dtype.kind == "f" and not e.explicit:
                return S(f"static_cast<float>({x.text})")
            raise Unsupported(f"the conversion {e.x.type!r} -> {e.type!r} in row code", loc)
        if isinstance(e, ir.Compare):
            sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[e.op]
            return S(f"({self.scalar_expr(e.a).text} {sym} {self.scalar_expr(e.b).text})")
        if isinstance(e, ir.Select):
            return S(f"({self.scalar_expr(e.cond).text} ? {self.scalar_expr(e.a).text} : "
                     f"{self.scalar_expr(e.b).text})")
        if isinstance(e, ir.Call) and e.fn in ("maximum", "minimum"):
            a, b = (self.scalar_expr(x).text for x in e.args)
            op = ">" if e.fn == "maximum" else "<"
            return S(f"(({a} {op} {b}) ? {a} : {b})")
        if isinstance(e, ir.Call) and e.fn in SCALAR_MATH:
            arg = self.scalar_expr(e.args[0])
            name = f"sm{self.nscalar}"
            self.nscalar += 1
            if SCALAR_MATH[e.fn] in L.ADV_APIS:
                self.plan.adv = True
            self.out.append(Instr("ScalarMath", None, (), scalar=arg.text, mode=SCALAR_MATH[e.fn], rdst=name,
                                  loc=self.loc))
            return S(name)
        raise Unsupported(f"the scalar expression {type(e).__name__} in row code", loc)

    def scalar_load(self, e: ir.Load) -> S:
        t = e.tensor
        gm = self.plan.tensor(t.name)
        if len(e.indices) == 2 and L._is_var(e.indices[0], self.row_var) and isinstance(e.indices[1], ir.Const) \
                and gm.shape[0] == self.plan.rows_dim and gm.kind == "param":
            if t.name in self.stored:
                raise Unsupported(f"a scalar read of {t.name!r} after the row wrote it", e.loc)
            self.load_tensor(t, e)
            return S(f"static_cast<float>({L.cname_local(t.name)}In.GetValue({int(e.indices[1].value)}))")
        raise Unsupported(f"the access {t.name}[...] in row code", e.loc)

    # ---- vector loads over the row
    def load(self, e: ir.Load):
        t = e.tensor
        gm = self.plan.tensor(t.name)
        if len(e.indices) == 2 and L._is_var(e.indices[0], self.row_var) and L._is_var(e.indices[1], self.col_var):
            return self.load_stored(t) or self.load_tensor(t, e)
        if len(e.indices) == 1 and L._is_var(e.indices[0], self.col_var) and gm.name not in self.stored:
            return self.load_row(t, e)
        raise Unsupported(f"the access {t.name}[...] is not [row, column] or [column]", e.loc)

    def load_row(self, t, e):
        if t.name in self.loaded:
            return self.loaded[t.name]
        gm = self.plan.tensor(t.name)
        gm.reads = True
        self.rows_1d.add(t.name)
        if gm.dtype.name not in L.FLOATS:
            raise Unsupported(f"{t.name!r} is {gm.dtype.name}; vector code reads floats", e.loc)
        src = V("row", t.name)
        if gm.dtype.name != "float32":
            src = self.emit("Cast", self.reg(), [src], mode="CAST_NONE")
        self.loaded[t.name] = src
        return src

    def store_row(self, s: ir.Store):
        if not (len(s.indices) == 2 and L._is_var(s.indices[0], self.row_var) and
                L._is_var(s.indices[1], self.col_var)):
            raise Unsupported(f"the store to {s.tensor.name}[...] is not at [row, column]", s.loc)
        self.indices = (self.row_var, self.col_var)
        self.store(s, None)


def row_plan(p: L.Plan, loop: ir.For, scalar_names: dict) -> L.Plan:
    if not L._simple_range(loop):
        raise Unsupported("the row loop does not run over range(R)", loop.loc)
    rows_dim = None
    for t in p.tensors:
        if len(t.shape) == 2:
            if rows_dim is None:
                rows_dim, cols_dim = t.shape
            elif t.shape != (rows_dim, cols_dim):
                raise Unsupported(f"2-D tensors of different shapes ({t.name!r} {t.shape}, others "
                                  f"{(rows_dim, cols_dim)}): neither an element-wise map nor a row kernel (matmul-like "
                                  f"loops have no vector or cube lowering yet)", loop.loc)
    if rows_dim is None or not L._same_dim(loop.stop, rows_dim):
        raise Unsupported("the loop is not over the rows of the kernel's 2-D tensors", loop.loc)
    for t in p.tensors:
        if len(t.shape) == 1 and t.shape[0] != cols_dim:
            raise Unsupported(f"the 1-D tensor {t.name!r} is not as long as a row", loop.loc)
        if len(t.shape) == 1 and t.kind == "alloc":
            raise Unsupported(f"the 1-D output {t.name!r} in a row kernel", loop.loc)
        if len(t.shape) not in (1, 2):
            raise Unsupported(f"{t.name!r} has {len(t.shape)} dimensions", loop.loc)
    p.kind = "row"
    p.rows_dim, p.cols_dim = rows_dim, cols_dim
    p.loop_loc = loop.loc
    low = _RowLowerer(p, loop.var.name, scalar_names)
    inner_ids = {id(x) for f in loop.body if isinstance(f, ir.For) for x in ir.walk_stmts(f.body)}
    for s in ir.walk_stmts(loop.body):
        if isinstance(s, ir.Assign) and isinstance(s.var.type, ir.ScalarType) and id(s) not in inner_ids:
            low.row_locals[s.var.name] = "float"
    for s in loop.body:
        low.loc = s.loc
        if isinstance(s, ir.Assign):
            if s.var.type.dtype.kind != "f":
                raise Unsupported(f"the {s.var.type!r} scalar {s.var.name!r} in row code", s.loc)
            v = low.scalar_expr(s.value)
            low.out.append(Instr("Scalar", None, (), scalar=v.text, rdst=L.cname_local(s.var.name), loc=s.loc))
        elif isinstance(s, ir.For):
            _inner(low, s, cols_dim)
        else:
            raise Unsupported(f"the statement {type(s).__name__} in the row loop", getattr(s, "loc", None))
    for t in p.tensors:
        if t.kind == "alloc" and not t.writes:
            raise Unsupported(f"the output {t.name!r} is not written by the row loop", loop.loc)
    if getattr(p, "select", False):
        raise Unsupported("conditional expressions (`x if c else y`) in row kernels have no vector lowering yet",
                          loop.loc)
    p.rows_1d = sorted(low.rows_1d)
    p.row_locals = dict(low.row_locals)
    p.nscalar = low.nscalar
    p.reduces = any(i.api.startswith("Reduce") for i in low.out)
    p.instrs = L.finalize(p, low.out, {t.name: t.dtype for t in p.tensors})
    if isinstance(cols_dim, int):
        need = row_bytes(p, cols_dim)
        if need > L.UB_BYTES:
            best = max_cols(p)
            raise CompileError(
                f"ascend target: a row of {cols_dim} elements needs {need} B of Unified Buffer (double-buffered row "
                f"tiles of {len(p.tensors)} tensor(s), {p.nslots} float32 temporaries, reduction work space), over "
                f"the {L.UB_BYTES} B of the UB", loop.loc,
                (f"suggested tile size: rows of at most {best} elements fit; split the row loop into tiles of "
                 f"{best} columns",))
    return p


def _inner(low: _RowLowerer, loop: ir.For, cols_dim):
    if not (L._simple_range(loop) and L._same_dim(loop.stop, cols_dim)):
        raise Unsupported("an inner loop that does not run over the whole row", loop.loc)
    if any(isinstance(x, (ir.For, ir.While, ir.If)) for x in ir.walk_stmts(loop.body)):
        raise Unsupported("control flow inside the loop over the row", loop.loc)
    low.col_var = loop.var.name
    low.indices = (low.row_var, low.col_var)
    low.out.append(Instr("Note", None, (), scalar=f"the loop over the row: count-form instructions on its n "
                                                   f"elements", loc=loop.loc))
    inner_env = dict(low.env)
    reductions = []
    for s in loop.body:
        low.loc = s.loc
        if isinstance(s, ir.Assign) and s.var.name in low.row_locals:
            op = _update_op(s.value, s.var.name)
            if op not in REDUCE_API:
                raise Unsupported(f"{s.var.name!r} is carried across the row's columns but is not a sum, max or "
                                  f"min reduction", s.loc)
            e = _element(s.value, s.var.name, op)
            v = low.value(e)
            if isinstance(v, S):
                raise Unsupported("a reduction of a value that does not depend on the column", s.loc)
            reductions.append((s, op, v))
        elif isinstance(s, ir.Assign):
            before = len(low.out)
            low.env[s.var.name] = low.value(s.value)
            low.note_if_free(s, before)
        elif isinstance(s, ir.Store):
            low.store_row(s)
        else:
            raise Unsupported(f"the statement {type(s).__name__} in the loop over the row",
                              getattr(s, "loc", None))
    for s, op, v in reductions:
        acc = L.cname_local(s.var.name)
        low.loc = s.loc
        low.out.append(Instr(REDUCE_API[op], None, (v,), rdst=acc, mode=op, loc=s.loc))
    low.env = inner_env
    low.col_var = None
    low.indices = (low.row_var,)


def _element(value, name, op):
    """The element expression e of acc = acc + e / max(acc, e)."""
    if isinstance(value, ir.Binary):
        return value.b if L._is_var(value.a, name) else value.a
    c = value.cond
    return c.a if L._is_var(c.b, name) else c.b


# ------------------------------------------------------------------ UB budget and tiling

def cols_pad(cols: int) -> int:
    return max(COL_QUANTUM, -(-cols // COL_QUANTUM) * COL_QUANTUM)


def work_elems(cols: int) -> int:
    """Work tensor of ReduceSum/ReduceMax/ReduceMin for `cols` float32 elements (the documented size, x2)."""
    first = max(1, cols // 64)
    return 2 * (-(-first // 8) * 8)


def row_bytes(p: L.Plan, cols: int) -> int:
    cp = cols_pad(cols)
    b = 0
    for t in p.tensors:
        if len(t.shape) == 2:
            b += L.BUFFER_NUM * t.itemsize * cp * (int(t.reads) + int(t.writes))
        elif t.name in p.rows_1d:
            b += t.itemsize * cp
    b += p.nslots * 4 * cp
    if p.reduces:
        b += work_elems(cols) * 4
    b += 64 if (p.reduces or p.nscalar) else 0
    if p.adv:
        b += L.adv_tmp_bytes(cp)
    return b + L.UB_RESERVED


def max_cols(p: L.Plan) -> int:
    lo, hi = 0, 1 << 20
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if row_bytes(p, mid) <= L.UB_BYTES:
            lo = mid
        else:
            hi = mid - 1
    return lo // COL_QUANTUM * COL_QUANTUM


ROW_FIELDS = [("rows", "uint32_t"), ("cols", "uint32_t"), ("colsPad", "uint32_t"), ("perCore", "uint32_t"),
              ("lastCore", "uint32_t"), ("workElems", "uint32_t")]
ROW_DOC = {"rows": "rows in all", "cols": "elements per row", "colsPad": "row tile length (multiple of 16)",
           "perCore": "rows per block", "lastCore": "rows of the last block",
           "workElems": "float32 elements of the reduction work tensor"}


def row_tiling(p: L.Plan, symbols: dict, soc, cores=None, tile_cap=None):
    from .ascend import soc_info
    dim = lambda d: d if isinstance(d, int) else symbols[d.name]  # noqa: E731
    rows, cols = dim(p.rows_dim), dim(p.cols_dim)
    need = row_bytes(p, cols)
    if need > L.UB_BYTES:
        raise CompileError(f"ascend target: a row of {cols} elements needs {need} B of Unified Buffer, over the "
                           f"{L.UB_BYTES} B of the UB", p.loop_loc,
                           (f"suggested tile size: rows of at most {max_cols(p)} elements fit",))
    ncores = cores or soc_info(soc)["aiv"]
    per = max(1, -(-rows // ncores))
    block_dim = max(1, -(-rows // per))
    last = rows - (block_dim - 1) * per
    values = {"rows": rows, "cols": cols, "colsPad": cols_pad(cols), "perCore": per, "lastCore": last,
              "workElems": work_elems(cols)}
    values.update({f"size_{s}": symbols[s] for s in p.kernel.symbols})
    return block_dim, values


# ------------------------------------------------------------------ rendering

def render_row(kernel: ir.Kernel, p: L.Plan):
    from .ascend import (STORAGE, AscendSource, _entry, _entry_params, _header, _Out, _ref, _scalar_ctype,
                         _tiling_struct, camel, cname, render_instr, _copy_in, copy_in_method,
                         copy_out_method)
    name = cname(kernel.entry.name)
    cls = f"Kernel{camel(kernel.entry.name)}"
    sname = f"{camel(kernel.entry.name)}Tiling"
    out = _Out()
    _header(out, kernel, "row kernel: rows split across vector cores, one double-buffered UB tile per row, "
                         "reductions with ReduceSum/ReduceMax")
    fields = ROW_FIELDS + L.sym_fields(kernel)
    _tiling_struct(out, sname, fields, ROW_DOC)
    params = _entry_params(p)
    st = {t.name: STORAGE[t.dtype.name] for t in p.tensors}
    t2 = [t for t in p.tensors if len(t.shape) == 2]
    ins_t = [t for t in t2 if t.reads]
    outs_t = [t for t in t2 if t.writes]
    rows1 = [p.tensor(n) for n in p.rows_1d]
    out.emit(f"class {cls} {{")
    out.emit("public:")
    out.depth += 1
    out.emit(f"__aicore__ inline {cls}() {{}}")
    init_params = ", ".join([f"{ct} {cname(n)}" for _, n, ct in params if n != "tiling"] +
                            [f"const {sname}& t", "TPipe* pipe"])
    out.emit(f"__aicore__ inline void Init({init_params})")
    out.emit("{")
    out.depth += 1
    out.comment(p.loop_loc)
    out.emit("cols_ = t.cols;")
    out.emit("colsPad_ = t.colsPad;")
    out.emit("rows_ = (GetBlockIdx() == GetBlockNum() - 1) ? t.lastCore : t.perCore;")
    out.emit("const uint64_t base = static_cast<uint64_t>(GetBlockIdx()) * t.perCore * t.cols;")
    for t in rows1:
        out.emit(f"{cname(t.name)}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {st[t.name]}*>({cname(t.name)}), cols_);")
    for t in t2:
        if t.loc is not None:
            out.comment(t.loc)
        out.emit(f"{cname(t.name)}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {st[t.name]}*>({cname(t.name)}) + base, "
                 f"static_cast<uint64_t>(rows_) * cols_);")
    out.comment(p.loop_loc)
    for t in ins_t:
        out.emit(f"pipe->InitBuffer({cname(t.name)}InQue_, {L.BUFFER_NUM}, colsPad_ * sizeof({st[t.name]}));")
    for t in outs_t:
        out.emit(f"pipe->InitBuffer({cname(t.name)}OutQue_, {L.BUFFER_NUM}, colsPad_ * sizeof({st[t.name]}));")
    for t in rows1:
        out.emit(f"pipe->InitBuffer({cname(t.name)}RowQue_, 1, colsPad_ * sizeof({st[t.name]}));")
    if p.nslots:
        out.emit(f"pipe->InitBuffer(calcBuf_, {p.nslots} * colsPad_ * sizeof(float));")
    if p.reduces:
        out.emit("pipe->InitBuffer(workBuf_, t.workElems * sizeof(float));")
    if p.reduces or p.nscalar:
        out.emit("pipe->InitBuffer(redBuf_, 64);")
    if p.adv:
        out.emit("pipe->InitBuffer(tmpBuf_, colsPad_ * 8 + 256);  // sharedTmpBuffer of the advanced math APIs")
    for pname, ty in p.scalars:
        out.emit(f"{cname(pname)}_ = {cname(pname)};")
    for sym in kernel.symbols:
        out.emit(f"{sym}_ = t.size_{sym};")
    for loc, pname, ct, text in p.pre:
        out.comment(loc)
        out.emit(f"{cname(pname)}_ = {text};")
    out.depth -= 1
    out.emit("}")
    out.emit()
    out.emit("__aicore__ inline void Process()")
    out.emit("{")
    out.depth += 1
    out.comment(p.loop_loc)
    for t in rows1:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Load = {c}RowQue_.AllocTensor<{ty}>();")
        _copy_in(out, f"{c}Load", f"{c}Gm_", ty, "cols_")
        out.emit(f"{c}RowQue_.EnQue({c}Load);")
        out.emit(f"{c}Row_ = {c}RowQue_.DeQue<{ty}>();")
    out.emit("for (uint32_t r = 0; r < rows_; ++r) {")
    out.emit("  CopyIn(r);")
    out.emit("  Compute();")
    out.emit("  CopyOut(r);")
    out.emit("}")
    for t in rows1:
        c = cname(t.name)
        out.emit(f"{c}RowQue_.FreeTensor({c}Row_);")
    out.depth -= 1
    out.emit("}")
    out.emit()
    out.depth -= 1
    out.emit("private:")
    out.depth += 1
    copy_in_method(out, "CopyIn(uint32_t r)", ins_t, st, p.loop_loc, "[static_cast<uint64_t>(r) * cols_]", "cols_")
    out.emit("__aicore__ inline void Compute()")
    out.emit("{")
    out.depth += 1
    out.emit("const uint32_t n = cols_;")
    for t in ins_t:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}In = {c}InQue_.DeQue<{ty}>();")
    for t in outs_t:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Out = {c}OutQue_.AllocTensor<{ty}>();")
    for k in range(p.nslots):
        out.emit(f"LocalTensor<float> buf{k} = calcBuf_.GetWithOffset<float>(colsPad_, {k} * colsPad_ * sizeof(float));")
    if p.reduces:
        out.emit("LocalTensor<float> work = workBuf_.Get<float>();")
    if p.reduces or p.nscalar:
        out.emit("LocalTensor<float> red = redBuf_.GetWithOffset<float>(8, 0);")
        out.emit("LocalTensor<float> red2 = redBuf_.GetWithOffset<float>(8, 32);")
    if p.adv:
        out.emit("LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();")
    for nm in p.row_locals:
        out.emit(f"float {L.cname_local(nm)} = 0.0f;")
    for k in range(p.nscalar):
        out.emit(f"float sm{k} = 0.0f;")
    for t in rows1:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Row = {c}Row_;")
    last = object()
    for ins in p.instrs:
        if ins.loc is not last:
            out.comment(ins.loc)
            last = ins.loc
        _render_row_instr(out, ins, p, _ref, render_instr)
    for t in outs_t:
        c = cname(t.name)
        out.emit(f"{c}OutQue_.EnQue({c}Out);")
    for t in ins_t:
        c = cname(t.name)
        out.emit(f"{c}InQue_.FreeTensor({c}In);")
    out.depth -= 1
    out.emit("}")
    out.emit()
    copy_out_method(out, "CopyOut(uint32_t r)", outs_t, st, p.return_loc or p.loop_loc,
                    "[static_cast<uint64_t>(r) * cols_]", "cols_")
    for t in t2 + rows1:
        out.emit(f"GlobalTensor<{st[t.name]}> {cname(t.name)}Gm_;")
    for t in ins_t:
        out.emit(f"TQue<TPosition::VECIN, 1> {cname(t.name)}InQue_;")
    for t in outs_t:
        out.emit(f"TQue<TPosition::VECOUT, 1> {cname(t.name)}OutQue_;")
    for t in rows1:
        out.emit(f"TQue<TPosition::VECIN, 1> {cname(t.name)}RowQue_;")
        out.emit(f"LocalTensor<{st[t.name]}> {cname(t.name)}Row_;")
    if p.nslots:
        out.emit("TBuf<TPosition::VECCALC> calcBuf_;")
    if p.reduces:
        out.emit("TBuf<TPosition::VECCALC> workBuf_;")
    if p.reduces or p.nscalar:
        out.emit("TBuf<TPosition::VECCALC> redBuf_;")
    if p.adv:
        out.emit("TBuf<TPosition::VECCALC> tmpBuf_;")
    for pname, ty in p.scalars:
        out.emit(f"{_scalar_ctype(ty)} {cname(pname)}_;")
    for loc, pname, ct, text in p.pre:
        out.emit(f"{ct} {cname(pname)}_;")
    for sym in kernel.symbols:
        out.emit(f"int64_t {sym}_;")
    out.emit("uint32_t rows_;")
    out.emit("uint32_t cols_;")
    out.emit("uint32_t colsPad_;")
    out.depth -= 1
    out.emit("};")
    out.emit()
    call = ", ".join([cname(n) for _, n, _ in params if n != "tiling"] + ["t", "&pipe"])
    _entry(out, name, params, sname, ["TPipe pipe;", f"{cls} op;", f"op.Init({call});", "op.Process();"])
    return AscendSource(name, "\n".join(out.lines) + "\n", p, out.locs, fields, params)


def _sync(out, event):
    out.emit("{")
    out.emit(f"  int32_t eventId = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::{event}));")
    out.emit(f"  SetFlag<HardEvent::{event}>(eventId);")
    out.emit(f"  WaitFlag<HardEvent::{event}>(eventId);")
    out.emit("}")


def _render_row_instr(out, ins: Instr, p, ref, render_instr):
    if ins.api == "Scalar":
        if "GetValue" in ins.scalar:
            _sync(out, "MTE2_S")
            _sync(out, "V_S")
        out.emit(f"{ins.rdst} = {ins.scalar};")
    elif ins.api in REDUCE_API.values():
        src = ref(ins.srcs[0], p)
        out.emit(f"{ins.api}(red, {src}, work, n);")
        _sync(out, "V_S")
        acc = ins.rdst
        if ins.mode == "add":
            out.emit(f"{acc} = {acc} + red.GetValue(0);")
        else:
            op = ">" if ins.mode == "max" else "<"
            out.emit(f"{acc} = (red.GetValue(0) {op} {acc}) ? red.GetValue(0) : {acc};")
    elif ins.api == "ScalarMath":
        out.emit(f"Duplicate(red, (float)({ins.scalar}), 8);")
        if ins.mode in L.ADV_APIS:
            out.emit(f"{ins.mode}(red2, red, tmp, 8);")
        else:
            out.emit(f"{ins.mode}(red2, red, 8);")
        _sync(out, "V_S")
        out.emit(f"{ins.rdst} = red2.GetValue(0);")
    else:
        render_instr(out, ins, p, "n")

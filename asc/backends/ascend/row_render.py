"""The kernel .cpp of a row plan: rows split across vector cores, each row one double-buffered UB tile; 1-D rows
loaded once per core; reductions into `red` with a work tensor, per-row scalar math through `red` / `red2`."""
from __future__ import annotations

from .host_scalars import host_doc, host_fields
from .budget import ROW_DOC, row_fields, sym_fields
from .ctext import STORAGE, cname, scalar_ctype
from .emitter import (AscendSource, Out, class_entry, copy_in, copy_in_method, copy_out_method, entry_params, header,
                      names, tiling_struct)
from . import packed_rows, per_row
from .instructions import emit_instr, ref
from .plans import RowPlan
from .scalar_math import emit_blocks, emit_helpers, emit_members
from .soc import ADV_MIN_BYTES, BUFFER_NUM


def _init(out: Out, p: RowPlan, params: list, sname: str, st: dict, t2: list, ins_t: list, outs_t: list,
          rows1: list, prow: list):
    init_params = ", ".join([f"{ct} {cname(n)}" for k, n, ct in params if k != "tiling"] +
                            [f"const {sname}& t", "TPipe* pipe"])
    out.emit(f"__aicore__ inline void Init({init_params})")
    out.emit("{")
    out.depth += 1
    out.comment(p.loop_loc)
    out.emit("cols_ = t.cols;")
    out.emit("colsPad_ = t.colsPad;")
    tile = "colsPad_"
    if p.packed:
        out.emit("pack_ = t.pack;")
        tile = "pack_ * colsPad_"
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
        out.emit(f"pipe->InitBuffer({cname(t.name)}InQue_, {BUFFER_NUM}, {tile} * sizeof({st[t.name]}));")
    for t in outs_t:
        out.emit(f"pipe->InitBuffer({cname(t.name)}OutQue_, {BUFFER_NUM}, {tile} * sizeof({st[t.name]}));")
    for t in rows1:
        out.emit(f"pipe->InitBuffer({cname(t.name)}RowQue_, 1, colsPad_ * sizeof({st[t.name]}));")
    if p.nslots:
        out.emit(f"pipe->InitBuffer(calcBuf_, {p.nslots} * {tile} * sizeof(float));")
    if p.reduces:
        out.emit("pipe->InitBuffer(workBuf_, t.workElems * sizeof(float));")
    if p.reduces or p.nscalar:
        out.emit("pipe->InitBuffer(redBuf_, 64);")
    if p.adv:
        out.emit(f"pipe->InitBuffer(tmpBuf_, colsPad_ * 8 + 256 > {ADV_MIN_BYTES} ? colsPad_ * 8 + 256 : "
                 f"{ADV_MIN_BYTES});  // sharedTmpBuffer of the advanced math APIs")
    if p.select:
        out.emit("pipe->InitBuffer(maskBuf_, colsPad_ / 8);  // Compare's bit mask")
    per_row.init(out, prow, st)
    if p.packed:
        packed_rows.init(out, p)
    for pname, ty in p.scalars:
        out.emit(f"{cname(pname)}_ = {cname(pname)};")
    for sym in p.kernel.symbols:
        out.emit(f"{cname(sym)}_ = t.size_{sym};")
    if p.pre_math:
        emit_blocks(out, p.pre_math)
    for loc, pname, ct, text in p.pre:
        out.comment(loc)
        out.emit(f"{cname(pname)}_ = {text};")
    out.depth -= 1
    out.emit("}")
    out.emit()


def _pad(out: Out, tile: str, ty: str, itemsize: int, n: str, nv: str):
    """Zeros in a tile from the end of what its copy wrote up to the padded count (only where there is a tail: at
    the tile's length the offset would be past its end, which LocalTensor::operator[] refuses)."""
    per = 32 // itemsize
    out.emit("{")
    out.emit(f"  const uint32_t padded = ({n} + {per - 1}) / {per} * {per};  // written by the copy")
    out.emit(f"  if (padded < {nv}) {{")
    out.emit(f"    Duplicate({tile}[padded], static_cast<{ty}>(0.0f), static_cast<int32_t>({nv} - padded));")
    out.emit("  }")
    out.emit("}")


def _process(out: Out, p: RowPlan, st: dict, rows1: list, prow: list):
    out.emit("__aicore__ inline void Process()")
    out.emit("{")
    out.depth += 1
    out.comment(p.loop_loc)
    per_row.prologue(out, prow, st, pad=p.packed)
    for t in rows1:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Load = {c}RowQue_.AllocTensor<{ty}>();")
        copy_in(out, f"{c}Load", f"{c}Gm_", ty, "cols_")
        out.emit(f"{c}RowQue_.EnQue({c}Load);")
        out.emit(f"{c}Row_ = {c}RowQue_.DeQue<{ty}>();")
        if p.select:
            _pad(out, f"{c}Row_", ty, t.itemsize, "cols_", "(cols_ + 63) / 64 * 64")
    if p.packed:
        packed_rows.loop(out)
    else:
        out.emit("for (uint32_t r = 0; r < rows_; ++r) {")
        out.emit("  CopyIn(r);")
        out.emit("  Compute(r);" if prow else "  Compute();")
        out.emit("  CopyOut(r);")
        out.emit("}")
    for t in rows1:
        c = cname(t.name)
        out.emit(f"{c}RowQue_.FreeTensor({c}Row_);")
    per_row.epilogue(out, prow, st)
    out.depth -= 1
    out.emit("}")
    out.emit()


def _compute(out: Out, p: RowPlan, st: dict, ins_t: list, outs_t: list, rows1: list, prow: list):
    if p.packed:
        out.emit("__aicore__ inline void Compute(uint32_t r, uint32_t m)")
    else:
        out.emit("__aicore__ inline void Compute(uint32_t r)" if prow else "__aicore__ inline void Compute()")
    out.emit("{")
    out.depth += 1
    tile = "pack_ * colsPad_" if p.packed else "colsPad_"
    out.emit("const uint32_t n = m * cols_;" if p.packed else "const uint32_t n = cols_;")
    for t in ins_t:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}In = {c}InQue_.DeQue<{ty}>();")
    for t in outs_t:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Out = {c}OutQue_.AllocTensor<{ty}>();")
    for k in range(p.nslots):
        out.emit(f"LocalTensor<float> buf{k} = calcBuf_.GetWithOffset<float>({tile}, "
                 f"{k} * {tile} * sizeof(float));")
    if p.reduces:
        out.emit("LocalTensor<float> work = workBuf_.Get<float>();")
    if p.reduces or p.nscalar:
        out.emit("LocalTensor<float> red = redBuf_.GetWithOffset<float>(8, 0);")
        out.emit("LocalTensor<float> red2 = redBuf_.GetWithOffset<float>(8, 32);")
    if p.adv:
        out.emit("LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();")
    if p.select:
        out.emit("LocalTensor<uint8_t> mask = maskBuf_.Get<uint8_t>();")
        out.emit("const uint32_t nv = (n + 63) / 64 * 64;  // whole 256-byte repeats, as Compare needs")
        for t in ins_t:
            _pad(out, f"{cname(t.name)}In", st[t.name], t.itemsize, "n", "nv")
    for nm, ct in p.row_locals.items():
        out.emit(f"float {cname(nm)} = 0.0f;" if ct == "float" else f"{ct} {cname(nm)} = 0;")
    for k in range(p.nscalar):
        out.emit(f"float sm{k} = 0.0f;")
    for t in rows1:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Row = {c}Row_;")
    per_row.locals_(out, prow, st)
    if p.packed:
        packed_rows.broadcasts(out, p)
    last = object()
    for ins in p.instrs:
        if ins.loc is not last:
            out.comment(ins.loc)
            last = ins.loc
        if ins.api in ("RowMul", "RowAdd"):
            f = {"d": ref(ins.dst, p.slot_of), "s0": ref(ins.srcs[0], p.slot_of)}
            packed_rows.row_op(out, ins, f, p.cols_dim)
            continue
        # element-wise instructions run on the padded count where Compare / Select do; reductions on the row
        emit_instr(out, ins, p.slot_of, "nv" if p.select and not ins.api.startswith("Reduce") else "n")
    for t in outs_t:
        c = cname(t.name)
        out.emit(f"{c}OutQue_.EnQue({c}Out);")
    for t in ins_t:
        c = cname(t.name)
        out.emit(f"{c}InQue_.FreeTensor({c}In);")
    out.depth -= 1
    out.emit("}")
    out.emit()


def _members(out: Out, p: RowPlan, st: dict, t2: list, ins_t: list, outs_t: list, rows1: list, prow: list):
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
    emit_members(out, p.pre_math)
    if p.select:
        out.emit("TBuf<TPosition::VECCALC> maskBuf_;")
    per_row.members(out, prow, st)
    if p.packed:
        packed_rows.members(out, p)
    for pname, ty in p.scalars:
        out.emit(f"{scalar_ctype(ty)} {cname(pname)}_;")
    for loc, pname, ct, text in p.pre:
        out.emit(f"{ct} {cname(pname)}_;")
    for sym in p.kernel.symbols:
        out.emit(f"int64_t {cname(sym)}_;")
    out.emit("uint32_t rows_;")
    out.emit("uint32_t cols_;")
    out.emit("uint32_t colsPad_;")


def render_row(p: RowPlan) -> AscendSource:
    """The kernel .cpp of a row plan."""
    kernel = p.kernel
    name, cls, sname = names(kernel)
    out = Out()
    header(out, kernel, "row kernel: rows split across vector cores, " +
           ("tiles of several short rows, per-row values spread by Brcb" if p.packed else
            "one double-buffered UB tile per row, reductions with ReduceSum/ReduceMax"))
    fields = row_fields(p) + sym_fields(kernel) + host_fields(p)
    tiling_struct(out, sname, fields, ROW_DOC | host_doc(p))
    params = entry_params(p)
    st = {t.name: STORAGE[t.dtype.name] for t in p.tensors}
    t2 = [t for t in p.tensors if len(t.shape) == 2]
    ins_t = [t for t in t2 if t.reads]
    outs_t = [t for t in t2 if t.writes]
    rows1 = [p.tensor(n) for n in p.rows_1d]
    emit_helpers(out, p.pre_math)
    prow = [p.tensor(n) for n in p.per_row]
    out.emit(f"class {cls} {{")
    out.emit("public:")
    out.depth += 1
    out.emit(f"__aicore__ inline {cls}() {{}}")
    _init(out, p, params, sname, st, t2, ins_t, outs_t, rows1, prow)
    _process(out, p, st, rows1, prow)
    out.depth -= 1
    out.emit("private:")
    out.depth += 1
    sig, count = ("(uint32_t r, uint32_t m)", "m * cols_") if p.packed else ("(uint32_t r)", "cols_")
    copy_in_method(out, "CopyIn" + sig, ins_t, st, p.loop_loc, "[static_cast<uint64_t>(r) * cols_]", count)
    _compute(out, p, st, ins_t, outs_t, rows1, prow)
    copy_out_method(out, "CopyOut" + sig, outs_t, st, p.return_loc or p.loop_loc,
                    "[static_cast<uint64_t>(r) * cols_]", count)
    _members(out, p, st, t2, ins_t, outs_t, rows1, prow)
    out.depth -= 1
    out.emit("};")
    out.emit()
    class_entry(out, name, cls, params, sname, [n for k, n, _ in params if k != "tiling"])
    return AscendSource(name, out.text(), p, out.locs, fields, params)

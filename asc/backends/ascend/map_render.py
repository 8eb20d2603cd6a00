"""The kernel .cpp of a map plan: the elements split across vector cores, each core's slice walked in UB tiles
through a double-buffered CopyIn / Compute / CopyOut pipeline (TPipe, TQue of depth 1 with two buffers)."""
from __future__ import annotations

from .host_scalars import host_doc, host_fields
from .budget import MAP_DOC, MAP_FIELDS, sym_fields
from .ctext import STORAGE, cname, scalar_ctype
from .emitter import (AscendSource, Out, class_entry, copy_in_method, copy_out_method, entry_params, header, names,
                      tiling_struct)
from .instructions import emit_instr
from .plans import MapPlan
from .scalar_math import emit_blocks, emit_helpers, emit_members
from .soc import BUFFER_NUM


def _init(out: Out, plan: MapPlan, params: list, sname: str, st: dict, ins_t: list, outs_t: list):
    kernel = plan.kernel
    init_params = ", ".join([f"{ct} {cname(n)}" for k, n, ct in params if k != "tiling"] +
                            [f"const {sname}& t", "TPipe* pipe"])
    out.emit(f"__aicore__ inline void Init({init_params})")
    out.emit("{")
    out.depth += 1
    out.comment(plan.loop_loc)
    out.emit("tile_ = t.tile;")
    out.emit("length_ = (GetBlockIdx() == GetBlockNum() - 1) ? t.lastCore : t.perCore;")
    out.emit("const uint64_t base = static_cast<uint64_t>(GetBlockIdx()) * t.perCore;")
    for t in plan.tensors:
        if t.loc is not None:
            out.comment(t.loc)
        out.emit(f"{cname(t.name)}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {st[t.name]}*>({cname(t.name)}) + base, "
                 f"length_);")
    out.comment(plan.loop_loc)
    for t in ins_t:
        out.emit(f"pipe->InitBuffer({cname(t.name)}InQue_, {BUFFER_NUM}, tile_ * sizeof({st[t.name]}));")
    for t in outs_t:
        out.emit(f"pipe->InitBuffer({cname(t.name)}OutQue_, {BUFFER_NUM}, tile_ * sizeof({st[t.name]}));")
    if plan.nslots:
        out.emit(f"pipe->InitBuffer(calcBuf_, {plan.nslots} * tile_ * sizeof(float));")
    if plan.adv:
        out.emit("pipe->InitBuffer(tmpBuf_, tile_ * 8 + 256);  // sharedTmpBuffer of the advanced math APIs")
    if plan.select:
        out.emit("pipe->InitBuffer(maskBuf_, tile_ / 8);  // Compare's bit mask")
    for pname, t in plan.scalars:
        out.emit(f"{cname(pname)}_ = {cname(pname)};")
    for sym in kernel.symbols:
        out.emit(f"{cname(sym)}_ = t.size_{sym};")
    if plan.pre_math:
        emit_blocks(out, plan.pre_math)
    for loc, pname, ct, text in plan.pre:
        out.comment(loc)
        out.emit(f"{cname(pname)}_ = {text};")
    out.depth -= 1
    out.emit("}")
    out.emit()


def _process(out: Out, plan: MapPlan):
    out.emit("__aicore__ inline void Process()")
    out.emit("{")
    out.depth += 1
    for loc in plan.loop_locs:
        out.comment(loc)
    out.emit("const uint32_t loops = length_ / tile_;")
    out.emit("for (uint32_t k = 0; k < loops; ++k) {")
    out.emit("  CopyIn(k * tile_, tile_);")
    out.emit("  Compute(tile_);")
    out.emit("  CopyOut(k * tile_, tile_);")
    out.emit("}")
    out.emit("const uint32_t tail = length_ - loops * tile_;")
    out.emit("if (tail > 0) {")
    out.emit("  CopyIn(loops * tile_, tail);")
    out.emit("  Compute(tail);")
    out.emit("  CopyOut(loops * tile_, tail);")
    out.emit("}")
    out.depth -= 1
    out.emit("}")
    out.emit()


def _compute(out: Out, plan: MapPlan, st: dict, ins_t: list, outs_t: list):
    out.emit("__aicore__ inline void Compute(uint32_t n)")
    out.emit("{")
    out.depth += 1
    for t in ins_t:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}In = {c}InQue_.DeQue<{ty}>();")
    for t in outs_t:
        c, ty = cname(t.name), st[t.name]
        out.emit(f"LocalTensor<{ty}> {c}Out = {c}OutQue_.AllocTensor<{ty}>();")
    for k in range(plan.nslots):
        out.emit(f"LocalTensor<float> buf{k} = calcBuf_.GetWithOffset<float>(tile_, {k} * tile_ * sizeof(float));")
    if plan.adv:
        out.emit("LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();")
    count = "n"
    if plan.select:
        count = "nv"
        out.emit("LocalTensor<uint8_t> mask = maskBuf_.Get<uint8_t>();")
        out.emit("const uint32_t nv = (n + 63) / 64 * 64;  // whole 256-byte repeats, as Compare needs")
        for t in ins_t:
            c, ty = cname(t.name), st[t.name]
            per = 32 // t.itemsize
            out.emit(f"const uint32_t {c}Padded = (n + {per - 1}) / {per} * {per};  // written by the copy")
            # only where there is a tail to pad: on a full tile the offset would be the tensor's length, which
            # LocalTensor::operator[] refuses
            out.emit(f"if ({c}Padded < nv) {{")
            out.emit(f"  Duplicate({c}In[{c}Padded], static_cast<{ty}>(0.0f), static_cast<int32_t>(nv - {c}Padded));")
            out.emit("}")
    last = object()
    for ins in plan.instrs:
        if ins.loc is not last:
            out.comment(ins.loc)
            last = ins.loc
        emit_instr(out, ins, plan.slot_of, count)
    for t in outs_t:
        c = cname(t.name)
        out.emit(f"{c}OutQue_.EnQue({c}Out);")
    for t in ins_t:
        c = cname(t.name)
        out.emit(f"{c}InQue_.FreeTensor({c}In);")
    out.depth -= 1
    out.emit("}")
    out.emit()


def _members(out: Out, plan: MapPlan, st: dict, ins_t: list, outs_t: list):
    for t in plan.tensors:
        out.emit(f"GlobalTensor<{st[t.name]}> {cname(t.name)}Gm_;")
    for t in ins_t:
        out.emit(f"TQue<TPosition::VECIN, 1> {cname(t.name)}InQue_;")
    for t in outs_t:
        out.emit(f"TQue<TPosition::VECOUT, 1> {cname(t.name)}OutQue_;")
    if plan.nslots:
        out.emit("TBuf<TPosition::VECCALC> calcBuf_;")
    if plan.adv:
        out.emit("TBuf<TPosition::VECCALC> tmpBuf_;")
    if plan.select:
        out.emit("TBuf<TPosition::VECCALC> maskBuf_;")
    emit_members(out, plan.pre_math)
    for pname, t in plan.scalars:
        out.emit(f"{scalar_ctype(t)} {cname(pname)}_;")
    for loc, pname, ct, text in plan.pre:
        out.emit(f"{ct} {cname(pname)}_;")
    for sym in plan.kernel.symbols:
        out.emit(f"int64_t {cname(sym)}_;")
    out.emit("uint32_t tile_;")
    out.emit("uint32_t length_;")


def render_map(plan: MapPlan) -> AscendSource:
    """The kernel .cpp of a map plan."""
    kernel = plan.kernel
    name, cls, sname = names(kernel)
    out = Out()
    header(out, kernel, "element-wise map, split across vector cores, double-buffered CopyIn/Compute/CopyOut")
    fields = MAP_FIELDS + sym_fields(kernel) + host_fields(plan)
    tiling_struct(out, sname, fields, MAP_DOC | host_doc(plan))
    params = entry_params(plan)
    ins_t = [t for t in plan.tensors if t.reads]
    outs_t = [t for t in plan.tensors if t.writes]
    st = {t.name: STORAGE[t.dtype.name] for t in plan.tensors}
    emit_helpers(out, plan.pre_math)
    out.emit(f"class {cls} {{")
    out.emit("public:")
    out.depth += 1
    out.emit(f"__aicore__ inline {cls}() {{}}")
    _init(out, plan, params, sname, st, ins_t, outs_t)
    _process(out, plan)
    out.depth -= 1
    out.emit("private:")
    out.depth += 1
    copy_in_method(out, "CopyIn(uint32_t offset, uint32_t n)", ins_t, st, plan.loop_loc, "[offset]", "n")
    _compute(out, plan, st, ins_t, outs_t)
    copy_out_method(out, "CopyOut(uint32_t offset, uint32_t n)", outs_t, st, plan.return_loc or plan.loop_loc,
                    "[offset]", "n")
    _members(out, plan, st, ins_t, outs_t)
    out.depth -= 1
    out.emit("};")
    out.emit()
    class_entry(out, name, cls, params, sname, [n for k, n, _ in params if k != "tiling"])
    return AscendSource(name, out.text(), plan, out.locs, fields, params)

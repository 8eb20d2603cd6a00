"""The kernel .cpp of a window plan (window_lowering): units of (row, column chunk) spread over the vector cores,
each unit double-buffered through CopyIn / Compute / CopyOut with one UB tile per window, every GM copy a
DataCopyPad at the window's element offset; the fill of initialized outputs outside the window; the boundary
statements on block 0."""
from __future__ import annotations

from .ctext import STORAGE, cname, scalar_ctype
from .emitter import AscendSource, Out, class_entry, entry_params, header, names, tiling_struct
from .instructions import emit_instr, ref, sync
from .soc import BUFFER_NUM
from .window_budget import SUM_COMBINE, SUM_LANES, SUM_PARTS, WINDOW_DOC, loads_of, sum_fixed_bytes, sum_work_elems, \
    window_fields

WORKSPACE = "sumParts"      # the GM workspace of a sum's partials (a kernel argument before the tiling)
from .budget import sym_fields


def _pad_in(out, local, gm, ty, n):
    out.emit(f"DataCopyPad({local}, {gm}, DataCopyExtParams(1, static_cast<uint32_t>({n} * sizeof({ty})), 0, 0, 0), "
             f"DataCopyPadExtParams<{ty}>(false, 0, 0, 0));")


def _pad_out(out, gm, local, ty, n):
    out.emit(f"DataCopyPad({gm}, {local}, DataCopyExtParams(1, static_cast<uint32_t>({n} * sizeof({ty})), 0, 0, 0));")


def render_window(p) -> AscendSource:
    kernel = p.kernel
    name, cls, sname = names(kernel)
    out = Out()
    header(out, kernel, "element-wise map over windows of the tensors (shifted tiles, sub-ranges, column offsets), "
                        + ("with a sum of the loop: fixed blocks of elements split across vector cores, each summed "
                           "into its own partial (256 lanes, then ReduceSum) in a GM workspace; after SyncAll, block "
                           "0 adds the partials in order and runs the epilogue"
                           if p.sum_of is not None else
                           "with sums across the rows (a column reduction): chunks of columns split across vector "
                           "cores, each summed over the rows with vector Add into a UB accumulator" if p.acc_keys else
                           "units of (row, column chunk) split across vector cores, double-buffered"))
    fields = window_fields(p) + sym_fields(kernel)
    tiling_struct(out, sname, fields, WINDOW_DOC)
    params = entry_params(p)
    if p.sum_of is not None:
        params = params[:-1] + [("gm", WORKSPACE, "GM_ADDR")] + params[-1:]
    st = {t.name: STORAGE[t.dtype.name] for t in p.tensors}
    used = [t for t in p.tensors if t.reads or t.writes]
    ins = [(k, a) for k, a in enumerate(p.accesses) if a.role == "in"]
    outs = [(k, a) for k, a in enumerate(p.accesses) if a.role == "out" and a.key not in p.acc_keys]
    accs = [(k, a) for k, a in enumerate(p.accesses) if a.key in p.acc_keys]
    init_of = {name: val for name, _, val in p.fills}
    accn = {tn: f"acc{g}" for g, (tn, _) in enumerate(groups(accs))}
    points = [pt for b in p.boundary for pt in b.points]
    ty = lambda a: st[a.tensor]  # noqa: E731
    out.emit(f"class {cls} {{")
    out.emit("public:")
    out.depth += 1
    out.emit(f"__aicore__ inline {cls}() {{}}")
    # ---- Init
    init_params = ", ".join([f"{ct} {cname(n)}" for k, n, ct in params if k != "tiling"] +
                            [f"const {sname}& t", "TPipe* pipe"])
    out.emit(f"__aicore__ inline void Init({init_params})")
    out.emit("{")
    out.depth += 1
    out.comment(p.loop_loc)
    out.emit("t_ = t;")
    out.emit("const uint32_t blk = static_cast<uint32_t>(GetBlockIdx());")
    out.emit("first_ = blk * t.perCore + (blk < t.rem ? blk : t.rem);")
    out.emit("count_ = t.perCore + (blk < t.rem ? 1 : 0);")
    for t in used:
        if t.loc is not None:
            out.comment(t.loc)
        size = " * ".join(f"static_cast<uint64_t>({d if isinstance(d, int) else f't.size_{d.name}'})"
                          for d in t.shape) or "1"
        out.emit(f"{cname(t.name)}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {st[t.name]}*>({cname(t.name)}), "
                 f"{size});")
    if p.sum_of is not None:
        out.comment(p.sum_of[2])
        out.emit(f"{WORKSPACE}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>({cname(WORKSPACE)}), "
                 f"(t.units > 8 ? t.units : 8));  // the partials of the sum, one per block of t.sumBlock elements")
    out.comment(p.loop_loc)
    for tn, ws in groups(ins):
        size = _load_offsets(loads_of(p, ws))[-1].replace("t_.", "t.")
        out.emit(f"pipe->InitBuffer({cname(tn)}InQue_, {BUFFER_NUM}, {size} * sizeof({st[tn]}));  "
                 f"// its {len(ws)} window(s), one after the other")
    for tn, ws in groups(outs):
        out.emit(f"pipe->InitBuffer({cname(tn)}OutQue_, {BUFFER_NUM}, {len(ws)} * t.hrows * t.chunk * "
                 f"sizeof({st[tn]}));")
    for tn, ws in groups(accs):
        out.emit(f"pipe->InitBuffer({accn[tn]}Que_, 1, {len(ws)} * t.chunk * sizeof(float));  // the sums of a "
                 f"chunk of columns over the rows")
    if p.nslots:
        out.emit(f"pipe->InitBuffer(calcBuf_, {p.nslots} * t.hrows * t.chunk * sizeof(float));")
    if p.adv:
        out.emit("pipe->InitBuffer(tmpBuf_, t.hrows * t.chunk * 8 + 512);  // sharedTmpBuffer of the advanced math "
                 "APIs")
    for k, (fname, _, _) in enumerate(p.fills):
        out.emit(f"pipe->InitBuffer(fillBuf{k}_, t.chunk * sizeof({st[fname]}));")
    if points:
        out.emit(f"pipe->InitBuffer(pointBuf_, {32 * len(points)});  // one 32-byte block per boundary element")
    if p.sum_of is not None:
        out.emit(f"pipe->InitBuffer(sumBuf_, {sum_fixed_bytes()});  // the {SUM_LANES} lanes of the sum, its "
                 f"total, ReduceSum's work tensor, {SUM_PARTS} partials, the combine's tile")
    for pname, _ in p.scalars:
        out.emit(f"{cname(pname)}_ = {cname(pname)};")
    for sym in kernel.symbols:
        out.emit(f"{cname(sym)}_ = t.size_{sym};")
    for loc, pname, ct, text in p.pre:
        out.comment(loc)
        out.emit(f"{cname(pname)}_ = {text};")
    out.depth -= 1
    out.emit("}")
    out.emit()
    # ---- Process
    out.emit("__aicore__ inline void Process()")
    out.emit("{")
    out.depth += 1
    for k, (fname, key, val) in enumerate(p.fills):
        tyf = st[fname]
        out.comment(p.tensor(fname).loc)
        out.emit(f"LocalTensor<{tyf}> fillTile{k} = fillBuf{k}_.Get<{tyf}>();")
        out.emit(f"Duplicate(fillTile{k}, static_cast<{tyf}>({val}), static_cast<int32_t>(t_.chunk));")
    if p.fills:
        sync(out, "V_MTE3")
        out.emit("if (GetBlockIdx() == 0) {  // the parts of the initialized outputs before and after the window")
        out.depth += 1
        for k in range(len(p.fills)):
            out.emit(f"Fill{k}(0, t_.ftop{k});")
            out.emit(f"Fill{k}(t_.fbot{k}, t_.fend{k} - t_.fbot{k});")
        out.depth -= 1
        out.emit("}")
    for loc in p.loop_locs:
        out.comment(loc)
    if p.sum_of is not None:
        _sum_units(out, p)
    elif accs:
        out.emit("for (uint32_t unit = first_; unit < first_ + count_; ++unit) {  // a chunk of columns, all rows")
        out.depth += 1
        out.emit("const uint32_t col0 = unit * t_.chunk;")
        out.emit("const uint32_t n = (t_.cols - col0 < t_.chunk) ? t_.cols - col0 : t_.chunk;")
        for tn, ws in groups(accs):
            c = accn[tn]
            out.comment(p.tensor(tn).loc)
            out.emit(f"{c}_ = {c}Que_.AllocTensor<float>();")
            for w, (k, a) in enumerate(ws):
                out.emit(f"Duplicate({c}_[{w} * t_.chunk], static_cast<float>({init_of[tn]}), "
                         f"static_cast<int32_t>(n));")
        out.comment(p.loop_loc)
        out.emit("for (uint32_t r = 0; r < t_.rows; ++r) {")
        out.emit("  CopyIn(r, col0, n, 1);")
        out.emit("  Compute(n, 1);")
        out.emit("  CopyOut(r, col0, n, 1, unit);")
        out.emit("}")
        for tn, ws in groups(accs):
            c = accn[tn]
            out.comment(p.return_loc or p.loop_loc)
            out.emit(f"{c}Que_.EnQue({c}_);")
            out.emit(f"LocalTensor<float> {c}Sum = {c}Que_.DeQue<float>();")
            for w, (k, a) in enumerate(ws):
                _pad_out(out, f"{cname(tn)}Gm_[static_cast<uint64_t>(col0) + t_.b{k}]", f"{c}Sum[{w} * t_.chunk]",
                         "float", "n")
            out.emit(f"{c}Que_.FreeTensor({c}Sum);")
        out.depth -= 1
        out.emit("}")
    else:
        out.emit("for (uint32_t unit = first_; unit < first_ + count_; ++unit) {  // hrows rows x a chunk")
        out.emit("  const uint32_t rowBlock = unit / t_.chunks;")
        out.emit("  const uint32_t chunkIdx = unit - rowBlock * t_.chunks;")
        out.emit("  const uint32_t r = rowBlock * t_.hrows;")
        out.emit("  const uint32_t h = (t_.rows - r < t_.hrows) ? t_.rows - r : t_.hrows;")
        out.emit("  const uint32_t col0 = chunkIdx * t_.chunk;")
        out.emit("  const uint32_t n = (t_.cols - col0 < t_.chunk) ? t_.cols - col0 : t_.chunk;")
        out.emit("  CopyIn(r, col0, n, h);")
        out.emit("  Compute(n, h);")
        out.emit("  CopyOut(r, col0, n, h, chunkIdx);")
        out.emit("}")
    if p.sum_of is not None:
        _sum_combine(out, p)
    if p.boundary and p.sum_of is None:
        out.emit("if (GetBlockIdx() == 0) {")
        out.emit("  Boundary();")
        out.emit("}")
    out.depth -= 1
    out.emit("}")
    out.emit()
    out.depth -= 1
    out.emit("private:")
    out.depth += 1
    # ---- Fill
    for k, (fname, key, _) in enumerate(p.fills):
        tyf = st[fname]
        out.emit(f"__aicore__ inline void Fill{k}(uint64_t fillAt, uint64_t fillN)")
        out.emit("{")
        out.depth += 1
        out.emit(f"LocalTensor<{tyf}> fillTile = fillBuf{k}_.Get<{tyf}>();")
        out.emit("for (uint64_t k = 0; k < fillN; k += t_.chunk) {")
        out.emit("  const uint64_t m = (fillN - k < t_.chunk) ? fillN - k : t_.chunk;")
        out.depth += 1
        _pad_out(out, f"{cname(fname)}Gm_[fillAt + k]", "fillTile", tyf, "m")
        out.depth -= 1
        out.emit("}")
        out.depth -= 1
        out.emit("}")
        out.emit()
    # ---- CopyIn
    at = lambda k: f"static_cast<uint64_t>(r) * t_.p{k} + col0 + t_.b{k}"  # noqa: E731
    out.emit("__aicore__ inline void CopyIn(uint32_t r, uint32_t col0, uint32_t n, uint32_t h)")
    out.emit("{")
    out.depth += 1
    for tn, ws in groups(ins):
        c, tyt = cname(tn), st[tn]
        out.comment(p.loop_loc)
        out.emit(f"LocalTensor<{tyt}> {c}In = {c}InQue_.AllocTensor<{tyt}>();")
        loads = loads_of(p, ws)
        for (k0, span, _), off in zip(loads, _load_offsets(loads)):
            if p.row_blocks:      # h + span - 1 rows, each padded to 32 bytes in UB (the pitch of the views)
                out.emit(f"DataCopyPad({c}In[{off}], {c}Gm_[{at(k0)}], DataCopyExtParams(static_cast<uint16_t>(h + "
                         f"{span - 1}), static_cast<uint32_t>(n * sizeof({tyt})), static_cast<uint32_t>((t_.p{k0} - n) "
                         f"* sizeof({tyt})), 0, 0), DataCopyPadExtParams<{tyt}>(false, 0, 0, 0));")
            else:
                _pad_in(out, f"{c}In[{off}]", f"{c}Gm_[{at(k0)}]", tyt, "n")
        out.emit(f"{c}InQue_.EnQue({c}In);")
    out.depth -= 1
    out.emit("}")
    out.emit()
    # ---- Compute
    out.emit("__aicore__ inline void Compute(uint32_t n, uint32_t h)")
    out.emit("{")
    out.depth += 1
    count = "n"
    if p.row_blocks:
        per = 32 // next(p.tensor(a.tensor).itemsize for a in p.accesses)
        out.emit(f"const uint32_t pitch = (n + {per - 1}) / {per} * {per};  // a row of a tile, padded to 32 bytes")
        out.emit("const uint32_t cnt = (h - 1) * pitch + n;  // the h rows, their padding between them included")
        count = "cnt"
    for tn, ws in groups(ins):
        c, tyt = cname(tn), st[tn]
        out.emit(f"LocalTensor<{tyt}> {c}In = {c}InQue_.DeQue<{tyt}>();")
        loads = loads_of(p, ws)
        for (k0, span, views), off in zip(loads, _load_offsets(loads)):
            for k, a, d in views:
                at_row = f" + {d} * pitch" if d else ""
                out.emit(f"LocalTensor<{tyt}> {cname(a.key)}In = {c}In[{off}{at_row}];")
    for tn, ws in groups(outs):
        c, tyt = cname(tn), st[tn]
        out.emit(f"LocalTensor<{tyt}> {c}Out = {c}OutQue_.AllocTensor<{tyt}>();")
        for w, (k, a) in enumerate(ws):
            out.emit(f"LocalTensor<{tyt}> {cname(a.key)}Out = {c}Out[{w} * t_.hrows * t_.chunk];")
    for tn, ws in groups(accs):
        for w, (k, a) in enumerate(ws):
            out.emit(f"LocalTensor<float> {cname(a.key)}Out = {accn[tn]}_[{w} * t_.chunk];")
    _slots(out, p)
    if p.sum_of is not None:
        out.emit(f"LocalTensor<float> lanes = sumBuf_.GetWithOffset<float>({SUM_LANES}, {_sum_offsets()['lanes']});")
    last = object()
    for i in p.instrs:
        if i.loc is not last:
            out.comment(i.loc)
            last = i.loc
        if i.api == "SumLanes":
            src = ref(i.srcs[0], p.slot_of)
            out.emit(f"for (uint32_t lane = 0; lane < n; lane += {SUM_LANES}) {{  // element k into lane k % "
                     f"{SUM_LANES}")
            out.emit(f"  Add(lanes, lanes, {src}[lane], (n - lane < {SUM_LANES}) ? n - lane : {SUM_LANES});")
            out.emit("}")
            continue
        emit_instr(out, i, p.slot_of, count)
    for tn, ws in groups(outs):
        out.emit(f"{cname(tn)}OutQue_.EnQue({cname(tn)}Out);")
    for tn, ws in groups(ins):
        out.emit(f"{cname(tn)}InQue_.FreeTensor({cname(tn)}In);")
    out.depth -= 1
    out.emit("}")
    out.emit()
    # ---- CopyOut
    out.emit("__aicore__ inline void CopyOut(uint32_t r, uint32_t col0, uint32_t n, uint32_t h, uint32_t chunkIdx)")
    out.emit("{")
    out.depth += 1
    for tn, ws in groups(outs):
        c, tyt = cname(tn), st[tn]
        out.comment(p.return_loc or p.loop_loc)
        out.emit(f"LocalTensor<{tyt}> {c}Out = {c}OutQue_.DeQue<{tyt}>();")
        for w, (k, a) in enumerate(ws):
            if p.row_blocks:      # h rows, each padded to 32 bytes in UB; only their n elements reach GM
                out.emit(f"DataCopyPad({c}Gm_[{at(k)}], {c}Out[{w} * t_.hrows * t_.chunk], DataCopyExtParams("
                         f"static_cast<uint16_t>(h), static_cast<uint32_t>(n * sizeof({tyt})), 0, "
                         f"static_cast<uint32_t>((t_.p{k} - n) * sizeof({tyt})), 0));")
            else:
                _pad_out(out, f"{c}Gm_[{at(k)}]", f"{c}Out[{w} * t_.hrows * t_.chunk]", tyt, "n")
        out.emit(f"{c}OutQue_.FreeTensor({c}Out);")
    for f, (fname, key, _) in enumerate(p.fills):
        if key is None:
            continue
        k = next(i for i, a in enumerate(p.accesses) if a.key == key)
        out.emit(f"if (chunkIdx + 1 == t_.chunks && t_.fgap{f} > 0) {{  // between a row's window and the next")
        out.emit("  for (uint32_t hh = 0; hh < h && r + hh + 1 < t_.rows; ++hh) {")
        out.emit(f"    Fill{f}(static_cast<uint64_t>(r + hh) * t_.p{k} + col0 + t_.b{k} + n, t_.fgap{f});")
        out.emit("  }")
        out.emit("}")
    out.depth -= 1
    out.emit("}")
    out.emit()
    # ---- Boundary
    if p.boundary:
        out.emit("__aicore__ inline void Boundary()")
        out.emit("{")
        out.depth += 1
        m = 0
        for b in p.boundary:
            out.comment(b.loc)
            out.emit("{")
            out.depth += 1
            for pt in b.points:
                tyt = st[pt.tensor]
                suffix = "In" if pt.role == "in" else "Out"
                per = 32 // p.tensor(pt.tensor).itemsize
                out.emit(f"LocalTensor<{tyt}> {cname(pt.key)}{suffix} = pointBuf_.GetWithOffset<{tyt}>({per}, {32 * m});")
                pt_m = m
                m += 1
                if pt.role == "in":
                    _pad_in(out, f"{cname(pt.key)}In", f"{cname(pt.tensor)}Gm_[t_.q{pt_m}]", tyt, "1")
                else:
                    pt.q = pt_m
            sync(out, "MTE2_V")
            _slots(out, p, b.nslots)
            for i in b.instrs:
                emit_instr(out, i, b.slot_of, "1")
            sync(out, "V_MTE3")
            for pt in b.points:
                if pt.role == "out":
                    _pad_out(out, f"{cname(pt.tensor)}Gm_[t_.q{pt.q}]", f"{cname(pt.key)}Out", st[pt.tensor], "1")
            out.depth -= 1
            out.emit("}")
        out.depth -= 1
        out.emit("}")
        out.emit()
    # ---- members
    for t in used:
        out.emit(f"GlobalTensor<{st[t.name]}> {cname(t.name)}Gm_;")
    for tn, _ in groups(ins):
        out.emit(f"TQue<TPosition::VECIN, 1> {cname(tn)}InQue_;")
    for tn, _ in groups(outs):
        out.emit(f"TQue<TPosition::VECOUT, 1> {cname(tn)}OutQue_;")
    for tn, _ in groups(accs):
        out.emit(f"TQue<TPosition::VECOUT, 1> {accn[tn]}Que_;")
        out.emit(f"LocalTensor<float> {accn[tn]}_;")
    if p.nslots:
        out.emit("TBuf<TPosition::VECCALC> calcBuf_;")
    if p.adv:
        out.emit("TBuf<TPosition::VECCALC> tmpBuf_;")
    for k in range(len(p.fills)):
        out.emit(f"TBuf<TPosition::VECCALC> fillBuf{k}_;")
    if points:
        out.emit("TBuf<TPosition::VECCALC> pointBuf_;")
    if p.sum_of is not None:
        out.emit("TBuf<TPosition::VECCALC> sumBuf_;")
        out.emit(f"GlobalTensor<float> {WORKSPACE}Gm_;")
    for pname, t in p.scalars:
        out.emit(f"{scalar_ctype(t)} {cname(pname)}_;")
    for loc, pname, ct, text in p.pre:
        out.emit(f"{ct} {cname(pname)}_;")
    for sym in kernel.symbols:
        out.emit(f"int64_t {cname(sym)}_;")
    out.emit(f"{sname} t_;")
    out.emit("uint32_t first_;")
    out.emit("uint32_t count_;")
    out.depth -= 1
    out.emit("};")
    out.emit()
    class_entry(out, name, cls, params, sname, [n for k, n, _ in params if k != "tiling"],
                "KERNEL_TYPE_AIV_ONLY" if p.sum_of is None else "KERNEL_TYPE_MIX_AIV_1_0")   # SyncAll: MIX AIV 1:0
    src = AscendSource(name, out.text(), p, out.locs, fields, params)
    if p.sum_of is not None:
        src.workspaces = [(WORKSPACE, "ws_sumParts")]       # its bytes: the tiling value of that name
    return src


def _sum_offsets() -> dict:
    """Byte offsets in sumBuf_: the lanes, the total, ReduceSum's work tensor, the partials, the combine's tile."""
    off, at = {}, 0
    for key, nbytes in (("lanes", 4 * SUM_LANES), ("total", 32), ("work", 4 * sum_work_elems()),
                        ("parts", 32 * SUM_PARTS), ("combine", 4 * SUM_COMBINE)):
        off[key] = at
        at += nbytes
    return off


def _sum_tensors(out: Out):
    o = _sum_offsets()
    out.emit(f"LocalTensor<float> lanes = sumBuf_.GetWithOffset<float>({SUM_LANES}, {o['lanes']});")
    out.emit(f"LocalTensor<float> sumTotal = sumBuf_.GetWithOffset<float>(8, {o['total']});")
    out.emit(f"LocalTensor<float> sumWork = sumBuf_.GetWithOffset<float>({sum_work_elems()}, {o['work']});")


def _sum_units(out: Out, p):
    """Each core's blocks of t_.sumBlock elements: a block's elements into the lanes (element k into lane k % 256),
    ReduceSum into the block's partial (a 32-byte slot), the partials copied to the workspace SUM_PARTS at a time."""
    o = _sum_offsets()
    out.comment(p.sum_of[2])
    _sum_tensors(out)
    out.emit(f"LocalTensor<float> parts = sumBuf_.GetWithOffset<float>({8 * SUM_PARTS}, {o['parts']});")
    out.emit("uint32_t nPart = 0;")
    out.comment(p.loop_loc)
    out.emit("for (uint32_t unit = first_; unit < first_ + count_; ++unit) {  // a block of t_.sumBlock elements")
    out.depth += 1
    out.emit(f"Duplicate(lanes, 0.0f, {SUM_LANES});")
    out.emit("const uint32_t b0 = unit * t_.sumBlock;")
    out.emit("const uint32_t bn = (t_.cols - b0 < t_.sumBlock) ? t_.cols - b0 : t_.sumBlock;")
    out.emit("for (uint32_t c = 0; c < bn; c += t_.chunk) {")
    out.emit("  const uint32_t n = (bn - c < t_.chunk) ? bn - c : t_.chunk;")
    out.emit("  CopyIn(0, b0 + c, n, 1);")
    out.emit("  Compute(n, 1);")
    out.emit("}")
    out.comment(p.sum_of[2])
    out.emit(f"ReduceSum(parts[8 * nPart], lanes, sumWork, {SUM_LANES});  // the block's partial")
    out.emit("++nPart;")
    out.emit(f"if (nPart == {SUM_PARTS} || unit + 1 == first_ + count_) {{")
    out.depth += 1
    sync(out, "V_MTE3")
    out.emit(f"DataCopyPad({WORKSPACE}Gm_[unit + 1 - nPart], parts, DataCopyExtParams(static_cast<uint16_t>(nPart), "
             f"4, 0, 0, 0));  // one float from each 32-byte slot")
    sync(out, "MTE3_V")    # the next partials overwrite the slots the copy reads
    out.emit("nPart = 0;")
    out.depth -= 1
    out.emit("}")
    out.depth -= 1
    out.emit("}")


def _sum_combine(out: Out, p):
    """After SyncAll, block 0 adds the partials in block order (partial b into lane b % 256, then ReduceSum), stores
    the total and runs the epilogue (the boundary statements)."""
    o = _sum_offsets()
    name_s = p.sum_of[0]
    out.comment(p.sum_of[2])
    out.emit("SyncAll();  // every vector core's partials are in the workspace")
    out.emit("if (GetBlockIdx() == 0) {")
    out.depth += 1
    _sum_tensors(out)
    out.emit(f"LocalTensor<float> comb = sumBuf_.GetWithOffset<float>({SUM_COMBINE}, {o['combine']});")
    out.emit(f"Duplicate(lanes, 0.0f, {SUM_LANES});")
    out.emit(f"for (uint32_t c = 0; c < t_.units; c += {SUM_COMBINE}) {{")
    out.depth += 1
    out.emit(f"const uint32_t m = (t_.units - c < {SUM_COMBINE}) ? t_.units - c : {SUM_COMBINE};")
    out.emit(f"DataCopyPad(comb, {WORKSPACE}Gm_[c], DataCopyExtParams(1, static_cast<uint32_t>(m * sizeof(float)), "
             f"0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));")
    sync(out, "MTE2_V")
    out.emit(f"for (uint32_t l = 0; l < m; l += {SUM_LANES}) {{  // partial b into lane b % {SUM_LANES}")
    out.emit(f"  Add(lanes, lanes, comb[l], (m - l < {SUM_LANES}) ? m - l : {SUM_LANES});")
    out.emit("}")
    sync(out, "V_MTE2")    # the next copy overwrites the tile the Adds read
    out.depth -= 1
    out.emit("}")
    out.emit(f"ReduceSum(sumTotal, lanes, sumWork, {SUM_LANES});")
    sync(out, "V_MTE3")
    _pad_out(out, f"{cname(name_s)}Gm_[t_.qsum]", "sumTotal", "float", "1")
    sync(out, "MTE3_MTE2")   # the epilogue reads the sum back from GM
    if p.boundary:
        out.emit("Boundary();")
    out.depth -= 1
    out.emit("}")


def _load_offsets(loads) -> list:
    """Element offset (C++) of each copy in its tensor's tile: copies of (h + span - 1) rows, one after the other."""
    offs, n_h, extra = [], 0, 0
    for _, span, _ in loads:
        offs.append(f"({n_h} * t_.hrows + {extra}) * t_.chunk")
        n_h, extra = n_h + 1, extra + span - 1
    return offs + [f"({n_h} * t_.hrows + {extra}) * t_.chunk"]


def groups(windows: list) -> list:
    """[(tensor, [(k, access), ...])]: the windows of each tensor, which share one queue (a tile after the other)."""
    g: dict = {}
    for k, a in windows:
        g.setdefault(a.tensor, []).append((k, a))
    return list(g.items())


def _slots(out: Out, p, nslots=None):
    for k in range(p.nslots if nslots is None else nslots):
        out.emit(f"LocalTensor<float> buf{k} = calcBuf_.GetWithOffset<float>(t_.hrows * t_.chunk, "
                 f"{k} * t_.hrows * t_.chunk * sizeof(float));")
    if p.adv:
        out.emit("LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();")

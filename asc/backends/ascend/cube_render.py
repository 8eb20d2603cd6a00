"""The kernel .cpp of a cube plan: each block computes baseM x baseN tiles of C (block-cyclic over the tiles);
for each tile it walks K in baseK steps (the stages of one step: cube_stages.py), Mmad accumulating into L0C in
float32, then Fixpipe L0C -> GM with NZ -> ND and the float32 -> C conversion. Queues on A1/B1/A2/B2/CO1 carry the
pipe syncs."""
from __future__ import annotations

from .budget import CUBE_DOC, cube_fields
from .ctext import STORAGE, cname
from .cube_stages import cube_stages
from .emitter import AscendSource, Out, class_entry, entry_params, header, names, tiling_struct
from .plans import CubePlan


def render_cube(p: CubePlan) -> AscendSource:
    """The kernel .cpp of a cube plan."""
    kernel = p.kernel
    mm = p.mm
    name, cls, sname = names(kernel)
    ta, tb, tc = mm.a.tensor, mm.b.tensor, mm.dst.tensor
    ab = STORAGE[ta.type.dtype.name]
    ct = STORAGE[tc.type.dtype.name]
    A, B, C = cname(ta.name), cname(tb.name), cname(tc.name)
    out = Out()
    header(out, kernel, "matrix product on the cube units (ND->NZ copy, LoadData, Mmad, Fixpipe)")
    fields = cube_fields(p)
    tiling_struct(out, sname, fields, CUBE_DOC)
    nb = "static_cast<uint64_t>(t.batch) * " if p.batch else ""
    params = entry_params(p)
    cur = "_" if p.batch else "Gm_"                          # the product's operands: the batch's, or the whole
    alloc_loc = next((t.loc for t in p.tensors if t.name == tc.name), None)
    e = out.emit
    e(f"class {cls} {{")
    e("public:")
    out.depth += 1
    e(f"__aicore__ inline {cls}() {{}}")
    init_params = ", ".join([f"GM_ADDR {cname(n)}" for k, n, _ in params if k == "gm"] + [f"const {sname}& t",
                                                                                         "TPipe* pipe"])
    e(f"__aicore__ inline void Init({init_params})")
    e("{")
    out.depth += 1
    out.comment(mm.loc)
    e("t_ = t;")
    e(f"{A}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ab}*>({A}), {nb}static_cast<uint64_t>(t.M) * t.K);")
    e(f"{B}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ab}*>({B}), {nb}static_cast<uint64_t>(t.K) * t.N);")
    if alloc_loc is not None:
        out.comment(alloc_loc)
    e(f"{C}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ct}*>({C}), {nb}static_cast<uint64_t>(t.M) * t.N);")
    out.comment(mm.loc)
    e(f"pipe->InitBuffer(a1Que_, 2, t.baseM * t.baseK * sizeof({ab}));   // L1")
    e(f"pipe->InitBuffer(b1Que_, 2, t.baseK * t.baseN * sizeof({ab}));   // L1")
    e(f"pipe->InitBuffer(a2Que_, 2, t.baseM * t.baseK * sizeof({ab}));   // L0A")
    e(f"pipe->InitBuffer(b2Que_, 2, t.baseK * t.baseN * sizeof({ab}));   // L0B")
    e("pipe->InitBuffer(c1Que_, 1, t.baseM * t.baseN * sizeof(float));   // L0C")
    out.depth -= 1
    e("}")
    e()
    e("__aicore__ inline void Process()")
    e("{")
    out.depth += 1
    out.comment(mm.loc)
    e("for (uint32_t tile = GetBlockIdx(); tile < t_.tiles; tile += GetBlockNum()) {")
    if p.batch:
        e("  const uint32_t bt = tile % t_.batchTiles;               // the tile within its product")
        e("  SetBatch(tile / t_.batchTiles);")
    else:
        e("  const uint32_t bt = tile;")
    e("  const uint32_t m0 = (bt / t_.tilesN) * t_.baseM;")
    e("  const uint32_t n0 = (bt % t_.tilesN) * t_.baseN;")
    e("  const uint32_t m = (t_.M - m0 < t_.baseM) ? t_.M - m0 : t_.baseM;")
    e("  const uint32_t n = (t_.N - n0 < t_.baseN) ? t_.N - n0 : t_.baseN;")
    e("  LocalTensor<float> c1 = c1Que_.AllocTensor<float>();")
    e("  for (uint32_t k0 = 0; k0 < t_.K; k0 += t_.baseK) {")
    e("    const uint32_t k = (t_.K - k0 < t_.baseK) ? t_.K - k0 : t_.baseK;")
    e("    CopyIn(m0, n0, k0, m, n, k);")
    e("    SplitA(m, k);")
    e("    SplitB(k, n);")
    e("    Compute(c1, m, n, k, k0 == 0);")
    e("  }")
    e("  c1Que_.EnQue(c1);")
    e("  CopyOut(m0, n0, m, n);")
    e("}")
    out.depth -= 1
    e("}")
    e()
    out.depth -= 1
    e("private:")
    out.depth += 1
    if p.batch:
        e("__aicore__ inline void SetBatch(uint32_t b)            // product b of the batch: its A, B and C")
        e("{")
        out.depth += 1
        out.comment(mm.loc)
        e(f"{A}_ = {A}Gm_[static_cast<uint64_t>(b) * t_.M * t_.K];")
        e(f"{B}_ = {B}Gm_[static_cast<uint64_t>(b) * t_.K * t_.N];")
        e(f"{C}_ = {C}Gm_[static_cast<uint64_t>(b) * t_.M * t_.N];")
        out.depth -= 1
        e("}")
        e()
    cube_stages(out, p, ab, A, B, C, cur)
    e(f"GlobalTensor<{ab}> {A}Gm_;")
    e(f"GlobalTensor<{ab}> {B}Gm_;")
    e(f"GlobalTensor<{ct}> {C}Gm_;")
    if p.batch:
        e(f"GlobalTensor<{ab}> {A}_;                             // the current product's operands and result")
        e(f"GlobalTensor<{ab}> {B}_;")
        e(f"GlobalTensor<{ct}> {C}_;")
    e("TQue<TPosition::A1, 1> a1Que_;")
    e("TQue<TPosition::B1, 1> b1Que_;")
    e("TQue<TPosition::A2, 1> a2Que_;")
    e("TQue<TPosition::B2, 1> b2Que_;")
    e("TQue<TPosition::CO1, 1> c1Que_;")
    e(f"{sname} t_;")
    out.depth -= 1
    e("};")
    e()
    class_entry(out, name, cls, params, sname, [n for k, n, _ in params if k == "gm"], "KERNEL_TYPE_AIC_ONLY")
    return AscendSource(name, out.text(), p, out.locs, fields, params)

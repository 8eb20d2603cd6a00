"""The cube path of the ascend target: `A @ B` (`@lang.cube_kernel`, `lang.matmul`) on the AI cores' matrix units.

Each block computes baseM x baseN tiles of C (block-cyclic over the tiles); for each tile it walks K in baseK steps:
GM -> L1 with the ND -> NZ DataCopy (Nd2NzParams), L1 -> L0A (LoadData, "Zz") and L1 -> L0B (LoadData with the
fractal transpose, "Zn"), Mmad into L0C (float32 accumulation, initialised on the first K step), then Fixpipe L0C ->
GM with NZ -> ND and the float32 -> float16/bfloat16 conversion. Queues on A1/B1/A2/B2/CO1 carry the pipe syncs.
Shapes: M, N and K multiples of 16 (one fractal)."""
from __future__ import annotations

from .. import ir
from ..errors import CompileError
from . import ascend_lower as L

BASE_M, BASE_N, BASE_K = 128, 128, 64
CUBE_FIELDS = [("M", "uint32_t"), ("N", "uint32_t"), ("K", "uint32_t"), ("baseM", "uint32_t"),
               ("baseN", "uint32_t"), ("baseK", "uint32_t"), ("tilesN", "uint32_t"), ("tiles", "uint32_t")]
CUBE_DOC = {"tilesN": "tiles of C along N", "tiles": "tiles of C in all (block-cyclic over the blocks)"}
QUANT = {"float16": "F322F16", "bfloat16": "F322BF16", "float32": "NoQuant"}


def _whole(view: ir.View) -> bool:
    t = view.tensor.type
    if not (isinstance(view.offset, ir.Const) and view.offset.value == 0) or len(view.shape) != 2:
        return False
    shape = tuple(s.value if isinstance(s, ir.Const) else None for s in view.shape)
    strides = tuple(s.value if isinstance(s, ir.Const) else None for s in view.strides)
    return shape == tuple(t.shape) and strides == (t.shape[1], 1)


def cube_plan(p: L.Plan, mm: ir.MatMul) -> L.Plan:
    fn = p.kernel.entry
    loc = mm.loc
    for s in fn.body:
        if not isinstance(s, (ir.Alloc, ir.MatMul, ir.Return)) or (isinstance(s, ir.MatMul) and s is not mm):
            raise L.Unsupported("a matrix product next to other statements has no lowering on the ascend target "
                                "yet", getattr(s, "loc", None))
    if mm.accumulate or mm.epilogue:
        raise CompileError("ascend target: a matrix product with an accumulation or a fused epilogue has no cube "
                           "lowering yet", loc)
    if not all(isinstance(v.tensor.type, ir.TensorType) and v.tensor.type.ndim == 2 and _whole(v)
               for v in (mm.dst, mm.a, mm.b)):
        raise CompileError("ascend target: the cube path takes products of whole 2-D tensors (no slices, no batches)"
                           " in this version of asc", loc)
    a, b, c = mm.a.tensor.type, mm.b.tensor.type, mm.dst.tensor.type
    if a.dtype != b.dtype or a.dtype.name not in ("float16", "bfloat16") or c.dtype.name not in QUANT:
        raise CompileError(f"ascend target: the cube path multiplies float16 or bfloat16 matrices into float16, "
                           f"bfloat16 or float32 (got {a.dtype.name} @ {b.dtype.name} -> {c.dtype.name})", loc)
    dims = (a.shape[0], b.shape[1], a.shape[1])
    if not all(isinstance(d, int) for d in dims):
        raise CompileError("ascend target: the cube path needs static shapes (dynamic_shape=False)", loc)
    if any(d % 16 for d in dims) or any(d > 65535 for d in dims):
        raise CompileError(f"ascend target: the cube path needs M, N and K multiples of 16 (one fractal) up to "
                           f"65535; got M={dims[0]}, N={dims[1]}, K={dims[2]}", loc,
                           ("pad the matrices to multiples of 16",))
    p.kind = "cube"
    p.mm = mm
    p.loop_loc = loc
    p.dims = dims
    for t in p.tensors:
        t.reads = t.name in (mm.a.tensor.name, mm.b.tensor.name)
        t.writes = t.name == mm.dst.tensor.name
    return p


def cube_tiling(p: L.Plan, symbols: dict, soc: str, cores=None, tile_cap=None):
    from .ascend import soc_info
    M, N, K = p.dims
    tiles_n = -(-N // BASE_N)
    tiles = -(-M // BASE_M) * tiles_n
    ncores = cores or soc_info(soc)["aic"]
    block_dim = max(1, min(ncores, tiles))
    return block_dim, {"M": M, "N": N, "K": K, "baseM": BASE_M, "baseN": BASE_N, "baseK": BASE_K, "tilesN": tiles_n,
                       "tiles": tiles}


def render_cube(kernel: ir.Kernel, p: L.Plan):
    from .ascend import STORAGE, AscendSource, _entry, _entry_params, _header, _Out, _tiling_struct, camel, cname
    mm = p.mm
    name = cname(kernel.entry.name)
    cls = f"Kernel{camel(kernel.entry.name)}"
    sname = f"{camel(kernel.entry.name)}Tiling"
    ta, tb, tc = mm.a.tensor, mm.b.tensor, mm.dst.tensor
    ab = STORAGE[ta.type.dtype.name]
    ct = STORAGE[tc.type.dtype.name]
    A, B, C = cname(ta.name), cname(tb.name), cname(tc.name)
    out = _Out()
    _header(out, kernel, "matrix product on the cube units (ND->NZ copy, LoadData, Mmad, Fixpipe)")
    _tiling_struct(out, sname, CUBE_FIELDS, CUBE_DOC)
    params = _entry_params(p)
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
    e(f"{A}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ab}*>({A}), static_cast<uint64_t>(t.M) * t.K);")
    e(f"{B}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ab}*>({B}), static_cast<uint64_t>(t.K) * t.N);")
    if alloc_loc is not None:
        out.comment(alloc_loc)
    e(f"{C}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ct}*>({C}), static_cast<uint64_t>(t.M) * t.N);")
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
    e("  const uint32_t m0 = (tile / t_.tilesN) * t_.baseM;")
    e("  const uint32_t n0 = (tile % t_.tilesN) * t_.baseN;")
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
    e("__aicore__ inline void CopyIn(uint32_t m0, uint32_t n0, uint32_t k0, uint32_t m, uint32_t n, uint32_t k)")
    e("{")
    out.depth += 1
    out.comment(mm.loc)
    e(f"LocalTensor<{ab}> a1 = a1Que_.AllocTensor<{ab}>();")
    e("Nd2NzParams aParams(1, m, k, 0, t_.K, m, 1, 0);      // m rows of k, NZ strips of m rows")
    e(f"DataCopy(a1, {A}Gm_[static_cast<uint64_t>(m0) * t_.K + k0], aParams);")
    e("a1Que_.EnQue(a1);")
    e(f"LocalTensor<{ab}> b1 = b1Que_.AllocTensor<{ab}>();")
    e("Nd2NzParams bParams(1, k, n, 0, t_.N, k, 1, 0);")
    e(f"DataCopy(b1, {B}Gm_[static_cast<uint64_t>(k0) * t_.N + n0], bParams);")
    e("b1Que_.EnQue(b1);")
    out.depth -= 1
    e("}")
    e()
    e("__aicore__ inline void SplitA(uint32_t m, uint32_t k)")
    e("{")
    out.depth += 1
    out.comment(mm.loc)
    e(f"LocalTensor<{ab}> a1 = a1Que_.DeQue<{ab}>();")
    e(f"LocalTensor<{ab}> a2 = a2Que_.AllocTensor<{ab}>();")
    e("for (uint32_t mb = 0; mb < m / 16; ++mb) {       // one 16-row strip of A: k/16 fractals, Zz order")
    e("  LoadData2DParams params(0, k / 16, m / 16, 0, 0, false, 0);")
    e("  LoadData(a2[mb * k * 16], a1[mb * 256], params);")
    e("}")
    e("a2Que_.EnQue(a2);")
    e("a1Que_.FreeTensor(a1);")
    out.depth -= 1
    e("}")
    e()
    e("__aicore__ inline void SplitB(uint32_t k, uint32_t n)")
    e("{")
    out.depth += 1
    out.comment(mm.loc)
    e(f"LocalTensor<{ab}> b1 = b1Que_.DeQue<{ab}>();")
    e(f"LocalTensor<{ab}> b2 = b2Que_.AllocTensor<{ab}>();")
    e("for (uint32_t kb = 0; kb < k / 16; ++kb) {       // one 16-row strip of B: n/16 fractals, transposed (Zn)")
    e("  LoadData2DParams params(0, n / 16, k / 16, 0, 0, true, 0);")
    e("  LoadData(b2[kb * n * 16], b1[kb * 256], params);")
    e("}")
    e("b2Que_.EnQue(b2);")
    e("b1Que_.FreeTensor(b1);")
    out.depth -= 1
    e("}")
    e()
    e("__aicore__ inline void Compute(const LocalTensor<float>& c1, uint32_t m, uint32_t n, uint32_t k, bool first)")
    e("{")
    out.depth += 1
    out.comment(mm.loc)
    e(f"LocalTensor<{ab}> a2 = a2Que_.DeQue<{ab}>();")
    e(f"LocalTensor<{ab}> b2 = b2Que_.DeQue<{ab}>();")
    e("MmadParams params(m, n, k, 0, false, first);        // C = A*B on the first K step, C += A*B after")
    e("Mmad(c1, a2, b2, params);")
    e("a2Que_.FreeTensor(a2);")
    e("b2Que_.FreeTensor(b2);")
    out.depth -= 1
    e("}")
    e()
    e("__aicore__ inline void CopyOut(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)")
    e("{")
    out.depth += 1
    if p.return_loc is not None:
        out.comment(p.return_loc)
    e("LocalTensor<float> c1 = c1Que_.DeQue<float>();")
    e("FixpipeParamsV220 params(n, m, m, t_.N, false);       // NZ -> ND, rows of N")
    e(f"params.quantPre = QuantMode_t::{QUANT[tc.type.dtype.name]};")
    e(f"Fixpipe<{ct}, float, CFG_ROW_MAJOR>({C}Gm_[static_cast<uint64_t>(m0) * t_.N + n0], c1, params);")
    e("c1Que_.FreeTensor(c1);")
    out.depth -= 1
    e("}")
    e()
    e(f"GlobalTensor<{ab}> {A}Gm_;")
    e(f"GlobalTensor<{ab}> {B}Gm_;")
    e(f"GlobalTensor<{ct}> {C}Gm_;")
    e("TQue<TPosition::A1, 1> a1Que_;")
    e("TQue<TPosition::B1, 1> b1Que_;")
    e("TQue<TPosition::A2, 1> a2Que_;")
    e("TQue<TPosition::B2, 1> b2Que_;")
    e("TQue<TPosition::CO1, 1> c1Que_;")
    e(f"{sname} t_;")
    out.depth -= 1
    e("};")
    e()
    call = ", ".join([cname(n) for k, n, _ in params if k == "gm"] + ["t", "&pipe"])
    _entry(out, name, params, sname, ["TPipe pipe;", f"{cls} op;", f"op.Init({call});", "op.Process();"],
           kernel_type="KERNEL_TYPE_AIC_ONLY")
    return AscendSource(name, "\n".join(out.lines) + "\n", p, out.locs, CUBE_FIELDS, params)

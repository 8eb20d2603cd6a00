"""pyasc's cube basic API in a kernel: `asc.load_data` (LoadData2DParams, L1 -> L0A/L0B), `asc.mmad` (MmadParams),
`asc.fixpipe` (FixpipeParamsV220, FixpipeConfig, the cbuf_workspace form) and the parameter structs, translated 1:1
to CANN's LoadData, Mmad, Fixpipe<T, U, cfg> and their structs. ascend-sim's cube path (kernel_operator.h) runs them
and holds the rules (fractal layouts, L0 alignment, Fixpipe dtype/quant pairs, the quantization words); the
translator refuses what it can see at compile time: operand dtypes the cube does not pair (Mmad.md, Fixpipe.md for
Atlas A2/A3)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import KernelTypeError, UnsupportedError
from . import data_types as dtypes, enums
from .values import Const, Val

# the quantization pre-modes of FixpipeParamsV220 (all nine are emulated by ascend-sim)
EMULATED_QUANT = tuple(enums.QuantModes)
# Mmad's operand -> L0C pairs (Mmad.md, Atlas A2/A3): half / bfloat16 / float into float, int8 into int32
_MMAD_PAIRS = {dtypes.float16: dtypes.float32, dtypes.bfloat16: dtypes.float32, dtypes.float32: dtypes.float32,
               dtypes.int8: dtypes.int32}
# Fixpipe's L0C -> GM pairs (Fixpipe.md, Atlas A2/A3)
_FIXPIPE_PAIRS = {dtypes.float32: (dtypes.float32, dtypes.float16, dtypes.bfloat16, dtypes.int8, dtypes.uint8),
                  dtypes.int32: (dtypes.int32, dtypes.float16, dtypes.int8, dtypes.uint8)}


@dataclass(frozen=True)
class FixpipeConfig:
    """FixpipeConfig(layout): the layout Fixpipe writes (a compile-time value, Fixpipe's template argument):
    FixpipeConfig.cfg_row_major (CFG_ROW_MAJOR, the default) or FixpipeConfig.cfg_nz (CFG_NZ)."""
    layout: enums.CO2Layout = enums.CO2Layout.ROW_MAJOR

    @classmethod
    def cfg_row_major(cls) -> "FixpipeConfig":
        return cls(enums.CO2Layout.ROW_MAJOR)

    @classmethod
    def cfg_nz(cls) -> "FixpipeConfig":
        return cls(enums.CO2Layout.NZ)

    def cname(self) -> str | None:
        return {enums.CO2Layout.ROW_MAJOR: "AscendC::CFG_ROW_MAJOR", enums.CO2Layout.NZ: "AscendC::CFG_NZ"}.get(
            self.layout)


def _text(tr, node, v, what) -> str:
    if isinstance(v, Const) and isinstance(v.value, enums.ALL):
        return v.value.cname
    if isinstance(v, Const) and v.value is None:
        raise tr.err(node, f"{what} is required", KernelTypeError)
    return tr.value_text(v, node)


# pyasc's keyword order of MmadParams: the two C++ constructors share m, n, k
_MMAD_BIAS = ("is_bias", "fm_offset", "en_ssparse", "en_winograd_a", "en_winograd_b")
_MMAD_UNIT = ("unit_flag", "cmatrix_source", "cmatrix_init_val")
# FixpipeParamsV220: pyasc's order, then the C++ constructor's (reluEn comes fifth there)
_FIX_PY = ("n_size", "m_size", "src_stride", "dst_stride", "quant_pre", "deq_scalar", "nd_num", "src_nd_stride",
           "dst_nd_stride", "relu_en", "unit_flag", "is_channel_split")
_FIX_C = ("n_size", "m_size", "src_stride", "dst_stride", "relu_en", "quant_pre", "deq_scalar", "nd_num",
          "src_nd_stride", "dst_nd_stride", "unit_flag", "is_channel_split")
_FIX_DEFAULTS = {"quant_pre": enums.QuantModes.NoQuant, "deq_scalar": 0, "nd_num": 1, "src_nd_stride": 0,
                 "dst_nd_stride": 0, "relu_en": False, "unit_flag": 0, "is_channel_split": False}


def _bind(tr, node, what, names, args, kwargs) -> dict:
    if len(args) > len(names):
        raise tr.err(node, f"asc.{what} takes at most {len(names)} arguments", KernelTypeError)
    got = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in got:
            raise tr.err(node, f"asc.{what}: unexpected argument {k!r}", KernelTypeError)
        got[k] = v
    return got


def mmad_params(tr, node, args, kwargs) -> Val:
    """MmadParams(m, n, k, is_bias, fm_offset, en_ssparse, en_winograd_a, en_winograd_b, unit_flag, cmatrix_source,
    cmatrix_init_val), as pyasc: all five of is_bias..en_winograd_b give CANN's 8-argument constructor, all three of
    unit_flag, cmatrix_source, cmatrix_init_val (and none of the first set) its 6-argument one, no argument
    MmadParams(). Any other mix makes pyasc build an empty MmadParams() (m = n = k = 0, a Mmad that computes
    nothing): asc refuses it."""
    names = ("m", "n", "k") + _MMAD_BIAS + _MMAD_UNIT
    got = _bind(tr, node, "MmadParams", names, args, kwargs)
    if not got:
        return Val("struct", "AscendC::MmadParams()", "AscendC::MmadParams")
    given = lambda keys: [k for k in keys if k in got and not (isinstance(got[k], Const) and got[k].value is None)]
    mnk, bias, unit = given(("m", "n", "k")), given(_MMAD_BIAS), given(_MMAD_UNIT)
    if len(mnk) == 3 and len(bias) == len(_MMAD_BIAS) and not unit:
        keys = ("m", "n", "k") + _MMAD_BIAS
    elif len(mnk) == 3 and len(unit) == len(_MMAD_UNIT) and not bias:
        keys = ("m", "n", "k") + _MMAD_UNIT
    else:
        raise tr.err(node, "asc.MmadParams: give m, n, k and either all of (is_bias, fm_offset, en_ssparse, "
                           "en_winograd_a, en_winograd_b) or all of (unit_flag, cmatrix_source, cmatrix_init_val); "
                           "pyasc builds an empty MmadParams() (m = n = k = 0) from any other mix", KernelTypeError)
    vals = [_text(tr, node, got[k], f"asc.MmadParams: {k}") for k in keys]
    return Val("struct", f"AscendC::MmadParams({', '.join(vals)})", "AscendC::MmadParams")


def fixpipe_params(tr, node, args, kwargs) -> Val:
    """FixpipeParamsV220(n_size, m_size, src_stride, dst_stride, quant_pre=NoQuant, deq_scalar=0, nd_num=1,
    src_nd_stride=0, dst_nd_stride=0, relu_en=False, unit_flag=0, is_channel_split=False) -> CANN's 12-argument
    constructor (nSize, mSize, srcStride, dstStride, reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride,
    unitFlag, isChannelSplit)."""
    got = _bind(tr, node, "FixpipeParamsV220", _FIX_PY, args, kwargs)
    if not got:
        return Val("struct", "AscendC::FixpipeParamsV220()", "AscendC::FixpipeParamsV220")
    q = got.get("quant_pre", Const(_FIX_DEFAULTS["quant_pre"]))
    if not (isinstance(q, Const) and isinstance(q.value, enums.QuantModes)):
        raise tr.err(node, "asc.FixpipeParamsV220: quant_pre must be an asc.QuantModes member (a compile-time "
                           "value)", KernelTypeError)
    if q.value not in EMULATED_QUANT:
        raise tr.err(node, f"asc.FixpipeParamsV220: quant_pre=QuantModes.{q.value.name} is not a pre-mode of "
                           f"FixpipeParamsV220")
    vals = [_text(tr, node, got.get(k, Const(_FIX_DEFAULTS.get(k))), f"asc.FixpipeParamsV220: {k}") for k in _FIX_C]
    return Val("struct", f"AscendC::FixpipeParamsV220({', '.join(vals)})", "AscendC::FixpipeParamsV220")


PARAMS_CTORS = {"MmadParams": mmad_params, "FixpipeParamsV220": fixpipe_params}


# ------------------------------------------------------------------ the calls

def _tensor(tr, node, v, what, kinds) -> Val:
    if not (isinstance(v, Val) and v.kind in kinds):
        got = v.value if isinstance(v, Const) else v.kind
        raise tr.err(node, f"{what} must be a {' or '.join(kinds)}, got {got!r}", KernelTypeError)
    return v


def _struct(tr, node, v, what, cname) -> Val:
    if not (isinstance(v, Val) and v.kind == "struct" and v.ctype == f"AscendC::{cname}"):
        raise tr.err(node, f"{what} must be an asc.{cname}", KernelTypeError)
    return v


def _void(text) -> Val:
    return Val("call", text, "void")


def sp_load_data(tr, node, a, args, kwargs) -> Val:
    """load_data(dst, src, params): LoadData2DParams from L1 (A1/B1) to L0A/L0B (A2/B2) -> AscendC::LoadData."""
    _on_cube(tr, node, "load_data")
    got = _bind(tr, node, "load_data", ("dst", "src", "params"), args, kwargs)
    if len(got) != 3:
        raise tr.err(node, "asc.load_data takes (dst, src, params)", KernelTypeError)
    dst = _tensor(tr, node, got["dst"], "asc.load_data: dst", ("ltensor",))
    src = _tensor(tr, node, got["src"], "asc.load_data: src", ("ltensor", "gtensor"))
    p = got["params"]
    if not (isinstance(p, Val) and p.kind == "struct" and p.ctype == "AscendC::LoadData2DParams"):
        raise tr.err(node, "asc.load_data: asc takes LoadData2DParams (L1 -> L0A/L0B) so far; LoadData2DParamsV2 "
                           "and the 3-D (img2col) forms are not supported yet", KernelTypeError)
    if src.kind == "gtensor":
        raise tr.err(node, "asc.load_data from a GlobalTensor (GM -> L1/L0 with LoadData2DParams) is not supported "
                           "yet by asc: copy GM -> A1/B1 with asc.data_copy(dst, src, asc.Nd2NzParams(...)) and load "
                           "L1 -> A2/B2 with asc.load_data")
    _same_dtype(tr, node, "load_data", dst, src)
    return _void(f"AscendC::LoadData({dst.text}, {src.text}, {p.text})")


def sp_load_data_with_transpose(tr, node, a, args, kwargs) -> Val:
    """load_data_with_transpose(dst, src, params): LoadData2dTransposeParams, L1 -> L0A/L0B, float32 (each 16 x 16
    square of two 16 x 8 fractals transposed) -> AscendC::LoadDataWithTranspose."""
    _on_cube(tr, node, "load_data_with_transpose")
    got = _bind(tr, node, "load_data_with_transpose", ("dst", "src", "params"), args, kwargs)
    if len(got) != 3:
        raise tr.err(node, "asc.load_data_with_transpose takes (dst, src, params)", KernelTypeError)
    dst = _tensor(tr, node, got["dst"], "asc.load_data_with_transpose: dst", ("ltensor",))
    src = _tensor(tr, node, got["src"], "asc.load_data_with_transpose: src", ("ltensor",))
    p = got["params"]
    if not (isinstance(p, Val) and p.kind == "struct" and p.ctype == "AscendC::LoadData2dTransposeParams"):
        raise tr.err(node, "asc.load_data_with_transpose: asc takes LoadData2dTransposeParams so far "
                           "(LoadData2dTransposeParamsV2 is not supported yet)", KernelTypeError)
    _same_dtype(tr, node, "load_data_with_transpose", dst, src)
    if dst.dtype is not dtypes.float32:
        raise tr.err(node, f"asc.load_data_with_transpose of {dst.dtype.name} is not supported by asc: ascend-sim "
                           f"emulates float32 (16-bit fractals: asc.load_data with if_transpose=True)")
    return _void(f"AscendC::LoadDataWithTranspose({dst.text}, {src.text}, {p.text})")


def sp_mmad(tr, node, a, args, kwargs) -> Val:
    """mmad(dst, fm, filter, params) -> AscendC::Mmad; mmad(dst, fm, filter, bias, params) (the bias row in the
    BiasTable buffer, TPosition.C2, of the L0C's type) -> AscendC::Mmad(dst, fm, filter, bias, params)."""
    _on_cube(tr, node, "mmad")
    with_bias = len(args) + len(kwargs) == 5 or "bias" in kwargs
    names = ("dst", "fm", "filter", "bias", "params") if with_bias else ("dst", "fm", "filter", "params")
    got = _bind(tr, node, "mmad", names, args, kwargs)
    if len(got) != len(names):
        raise tr.err(node, "asc.mmad takes (dst, fm, filter, params) or (dst, fm, filter, bias, params)",
                     KernelTypeError)
    ts = [_tensor(tr, node, got[k], f"asc.mmad: {k}", ("ltensor",)) for k in ("dst", "fm", "filter")]
    p = _struct(tr, node, got["params"], "asc.mmad: params", "MmadParams")
    dst, fm, flt = ts
    if fm.dtype is not flt.dtype:
        raise tr.err(node, f"asc.mmad: fm holds {fm.dtype.name}, filter {flt.dtype.name}: the cube multiplies "
                           f"operands of one type", KernelTypeError)
    want = _MMAD_PAIRS.get(fm.dtype)
    if want is None:
        raise tr.err(node, f"asc.mmad of {fm.dtype.name} operands is not supported: the cube (Atlas A2/A3) takes "
                           f"float16, bfloat16, float32 or int8", KernelTypeError)
    if dst.dtype is not want:
        raise tr.err(node, f"asc.mmad: dst (L0C) holds {dst.dtype.name}: {fm.dtype.name} operands accumulate in "
                           f"{want.name}", KernelTypeError)
    bias = ""
    if with_bias:
        bt = _tensor(tr, node, got["bias"], "asc.mmad: bias", ("ltensor",))
        if bt.dtype is not want:
            raise tr.err(node, f"asc.mmad: the bias holds {bt.dtype.name}: the bias of {fm.dtype.name} operands is "
                               f"{want.name} (the L0C's type)", KernelTypeError)
        bias = f"{bt.text}, "
    return _void(f"AscendC::Mmad({dst.text}, {fm.text}, {flt.text}, {bias}{p.text})")


def sp_fixpipe(tr, node, a, args, kwargs) -> Val:
    """fixpipe(dst, src, params, config=FixpipeConfig.cfg_row_major) -> AscendC::Fixpipe<T, U, cfg>(dst, src,
    params); fixpipe(dst, src, cbuf_workspace, params, config) (the per-column scales of VDEQF16 / VQF322B8_PRE /
    VREQ8, a uint64 LocalTensor in L1) -> AscendC::Fixpipe<T, U, cfg>(dst, src, cbufWorkspace, params)."""
    _on_cube(tr, node, "fixpipe")
    with_ws = "cbuf_workspace" in kwargs or (len(args) >= 3 and isinstance(args[2], Val) and args[2].kind == "ltensor")
    names = ("dst", "src", "cbuf_workspace", "params", "config") if with_ws else ("dst", "src", "params", "config")
    got = _bind(tr, node, "fixpipe", names, args, kwargs)
    if any(k not in got for k in names[:-1]):
        raise tr.err(node, "asc.fixpipe takes (dst, src, params, config=FixpipeConfig.cfg_row_major) or (dst, src, "
                           "cbuf_workspace, params, config=FixpipeConfig.cfg_row_major)", KernelTypeError)
    dst = _tensor(tr, node, got["dst"], "asc.fixpipe: dst", ("gtensor",))
    src = _tensor(tr, node, got["src"], "asc.fixpipe: src", ("ltensor",))
    p = _struct(tr, node, got["params"], "asc.fixpipe: params", "FixpipeParamsV220")
    outs = _FIXPIPE_PAIRS.get(src.dtype)
    if outs is None:
        raise tr.err(node, f"asc.fixpipe: src (L0C) holds {src.dtype.name}: Fixpipe reads a float32 or int32 L0C",
                     KernelTypeError)
    if dst.dtype not in outs:
        an = "an" if src.dtype is dtypes.int32 else "a"
        raise tr.err(node, f"asc.fixpipe: {an} {src.dtype.name} L0C goes to {', '.join(o.name for o in outs)} in GM, "
                           f"not {dst.dtype.name}", KernelTypeError)
    ws = ""
    if with_ws:
        w = _tensor(tr, node, got["cbuf_workspace"], "asc.fixpipe: cbuf_workspace", ("ltensor",))
        if w.dtype is not dtypes.uint64:
            raise tr.err(node, f"asc.fixpipe: cbuf_workspace holds {w.dtype.name}: the quantization words are uint64 "
                               f"(one per column)", KernelTypeError)
        ws = f"{w.text}, "
    cfg = got.get("config", Const(FixpipeConfig.cfg_row_major))
    c = cfg.value if isinstance(cfg, Const) else None
    if callable(c) and not isinstance(c, FixpipeConfig):
        c = c()
    if not isinstance(c, FixpipeConfig):
        raise tr.err(node, "asc.fixpipe: config must be an asc.FixpipeConfig (FixpipeConfig.cfg_row_major or "
                           "FixpipeConfig.cfg_nz)", KernelTypeError)
    cn = c.cname()
    if cn is None:
        raise tr.err(node, f"asc.fixpipe: FixpipeConfig(CO2Layout.{c.layout.name}) is not supported by asc (CANN "
                           f"names CFG_ROW_MAJOR and CFG_NZ)")
    targs = "" if c.layout is enums.CO2Layout.ROW_MAJOR else f"<{dst.dtype.cname}, {src.dtype.cname}, {cn}>"
    return _void(f"AscendC::Fixpipe{targs}({dst.text}, {src.text}, {ws}{p.text})")


def _on_cube(tr, node, name):
    if tr.prog.cube_call is None:
        tr.prog.cube_call = (tr.loc(node), name)


def check_kernel_type(prog, options):
    """A kernel with cube basic calls runs on the cube core: pyasc gives a kernel without a Matmul (no
    REGIST_MATMUL_OBJ) the type AIV_ONLY, where those calls cannot run; such a kernel needs
    @asc.jit(kernel_type=KernelType.AIC_ONLY) or a MIX type. Raised at the first cube call."""
    if prog.cube_call is None or prog.uses_matmul:
        return
    from ..runtime.config import KernelType
    kt = KernelType.AIV_ONLY if options.kernel_type is None else KernelType(options.kernel_type)
    if kt in (KernelType.AIV_ONLY, KernelType.MIX_AIV_HARD_SYNC, KernelType.MIX_AIV_1_0):
        loc, name = prog.cube_call
        default = " (pyasc's default for a kernel without a Matmul)" if options.kernel_type is None else ""
        raise UnsupportedError(f"asc.{name} runs on the cube core (AIC), and this kernel is {kt.name}{default}: "
                               f"give @asc.jit(kernel_type=config.KernelType.AIC_ONLY) or a MIX kernel type", loc)


def _same_dtype(tr, node, name, dst, src):
    if dst.dtype is not src.dtype:
        raise tr.err(node, f"asc.{name}: dst holds {dst.dtype.name}, src {src.dtype.name}", KernelTypeError)


def sp_sys_workspace(tr, node, a, args, kwargs) -> Val:
    """set_sys_workspace(workspace: GlobalAddress) -> SetSysWorkspace((GM_ADDR)workspace); get_sys_workspace() ->
    GetSysWorkspacePtr(), a GlobalAddress of uint8."""
    if a.name == "get_sys_workspace":
        _bind(tr, node, a.name, (), args, kwargs)
        return Val("gaddr", "((__gm__ uint8_t*)AscendC::GetSysWorkspacePtr())", "__gm__ uint8_t*", dtypes.uint8)
    got = _bind(tr, node, a.name, ("workspace",), args, kwargs)
    ws = got.get("workspace")
    if not (isinstance(ws, Val) and ws.kind == "gaddr"):
        raise tr.err(node, "asc.set_sys_workspace: workspace must be a GlobalAddress (a kernel argument)",
                     KernelTypeError)
    return _void(f"AscendC::SetSysWorkspace((GM_ADDR){ws.text})")


SPECIALS = {"sys_workspace": sp_sys_workspace, "load_data": sp_load_data,
            "load_data_with_transpose": sp_load_data_with_transpose, "mmad": sp_mmad, "fixpipe": sp_fixpipe}

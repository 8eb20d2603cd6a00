"""The Python names of pyasc's API that a kernel calls or constructs: the tensor, pipe and queue classes, the
parameter structs, and one function per API of the declaration table (api.py). Inside an @asc.jit function the
translator reads them; called from plain Python (outside a kernel) they are an error naming the call."""
from __future__ import annotations

from . import api as _api
from .matmul import MatmulConfig as _MatmulConfig
from .matmul import MatmulType as _MatmulType
from .quant import QuantConfig as _QuantConfig
from .tiling import TCubeTiling as _TCubeTiling


class KernelOnly:
    """Base of the names that exist inside kernels only."""
    _asc_name = "?"

    def __init__(self, *args, **kwargs):
        from ..errors import UnsupportedError
        raise UnsupportedError(f"asc.{self._asc_name} is the Ascend C API: use it inside an @asc.jit function")


def _kclass(name: str, doc: str, base=KernelOnly):
    cls = type(name.split(".")[-1], (base,), {"__doc__": doc, "_asc_name": name, "__module__": "asc"})
    return cls


GlobalTensor = _kclass("GlobalTensor", "A tensor in global memory (AscendC::GlobalTensor<T>).")
LocalTensor = _kclass("LocalTensor", "A tensor in a core's local memory (AscendC::LocalTensor<T>): from a queue "
                                     "or a TBuf, or LocalTensor(dtype, position, address, length).")
LocalTensorAuto = _kclass("LocalTensorAuto", "LocalTensorAuto(dtype, length): a Unified Buffer tensor whose memory "
                                             "and synchronization the compiler provides (insert_sync).")
TPipe = _kclass("TPipe", "The memory manager of a kernel (AscendC::TPipe).")
TQue = _kclass("TQue", "TQue(position, depth): a queue of local buffers (AscendC::TQue<position, depth>).")
TQueBind = _kclass("TQueBind", "TQueBind(src, dst, depth): a queue between two positions.")
TBuf = _kclass("TBuf", "TBuf(position): a buffer without queue semantics (AscendC::TBuf<position>).")
ShapeInfo = _kclass("ShapeInfo", "ShapeInfo(shape, original_shape=None, data_format=ND).")
Matmul = _kclass("adv.Matmul", "asc.adv.Matmul(a=MatmulType, b=..., c=..., bias=None, matmul_config=None): the Matmul "
                               "high-level API (AscendC::Matmul<...>): register_matmul, then set_tensor_a/b, "
                               "iterate_all or iterate/get_tensor_c, end.")


class Params:
    """A parameter struct of the Ascend C API: its C name and its fields in the constructor's order, with the
    default of each (the asc-devkit header's)."""

    def __init__(self, cname: str, fields: tuple, doc: str = ""):
        self.cname, self.fields, self.__doc__ = cname, fields, doc
        self.__name__ = cname

    def __call__(self, *args, **kwargs):
        return KernelOnly.__init__(type("x", (), {"_asc_name": self.__name__})(), *args)

    def __repr__(self) -> str:
        return f"asc.{self.cname}"


BinaryRepeatParams = Params("BinaryRepeatParams", (("dst_blk_stride", 1), ("src0_blk_stride", 1),
                                                   ("src1_blk_stride", 1), ("dst_rep_stride", 8),
                                                   ("src0_rep_stride", 8), ("src1_rep_stride", 8)))
UnaryRepeatParams = Params("UnaryRepeatParams", (("dst_blk_stride", 1), ("src_blk_stride", 1),
                                                 ("dst_rep_stride", 8), ("src_rep_stride", 8)))
CopyRepeatParams = Params("CopyRepeatParams", (("dst_stride", 1), ("src_stride", 1), ("dst_repeat_size", 8),
                                               ("src_repeat_size", 8)))
DataCopyParams = Params("DataCopyParams", (("block_count", 1), ("block_len", 0), ("src_stride", 0),
                                           ("dst_stride", 0)))
DataCopyExtParams = Params("DataCopyExtParams", (("block_count", 1), ("block_len", 0), ("src_stride", 0),
                                                 ("dst_stride", 0), ("rsv", 0)))
DataCopyPadExtParams = Params("DataCopyPadExtParams", (("dtype", None), ("is_pad", False), ("left_padding", 0),
                                                       ("right_padding", 0), ("padding_value", 0)))
DataCopyPadParams = Params("DataCopyPadParams", (("is_pad", False), ("left_padding", 0), ("right_padding", 0),
                                                 ("padding_value", 0)),
                           "The padding of DataCopyPad's DataCopyParams form (AscendC::DataCopyPadParams): left and "
                           "right padding in elements, padding_value a uint64 that Ascend C documents as 0 only.")
TransposeParamsExt = Params("TransposeParamsExt", (("n_size", 0), ("c_size", 0), ("h_size", 0), ("w_size", 0),
                                                   ("transpose_type", None)))
TransDataTo5HDParams = Params("TransDataTo5HDParams", (("dst_high_half", False), ("src_high_half", False),
                                                       ("repeat_times", 1), ("dst_rep_stride", 0),
                                                       ("src_rep_stride", 0)))
SoftmaxTiling = Params("SoftMaxTiling", ())

# the cube path (cube.py): Nd2NzParams and LoadData2DParams in the C++ constructors' order (pyasc's), MmadParams and
# FixpipeParamsV220 built by cube.py (two C++ constructors; a different C++ order)
Nd2NzParams = Params("Nd2NzParams", (("nd_num", None), ("n_value", None), ("d_value", None),
                                     ("src_nd_matrix_stride", None), ("src_d_value", None), ("dst_nz_c0_stride", None),
                                     ("dst_nz_n_stride", None), ("dst_nz_matrix_stride", None)))
LoadData2DParams = Params("LoadData2DParams", (("start_index", 0), ("repeat_times", 1), ("src_stride", 0),
                                               ("sid", 0), ("dst_gap", 0), ("if_transpose", False), ("addr_mode", 0)))
LoadData2dTransposeParams = Params("LoadData2dTransposeParams", (("start_index", 0), ("repeat_times", 1),
                                                                 ("src_stride", 0), ("dst_gap", 0),
                                                                 ("dst_frac_gap", 0), ("addr_mode", 0)))
MmadParams = Params("MmadParams", (("m", 0), ("n", 0), ("k", 0), ("is_bias", False), ("fm_offset", 0),
                                   ("en_ssparse", False), ("en_winograd_a", False), ("en_winograd_b", False),
                                   ("unit_flag", 0), ("cmatrix_source", False), ("cmatrix_init_val", True)))
FixpipeParamsV220 = Params("FixpipeParamsV220", (("n_size", None), ("m_size", None), ("src_stride", None),
                                                 ("dst_stride", None), ("quant_pre", None), ("deq_scalar", 0),
                                                 ("nd_num", 1), ("src_nd_stride", 0), ("dst_nd_stride", 0),
                                                 ("relu_en", False), ("unit_flag", 0), ("is_channel_split", False)))

# AIPP (image pre-processing) configuration, as asc-devkit's kernel_struct_aipp.h: the parts are compile-time
# values that AippParams(dtype, ...) assembles into one AscendC::AippParams<dtype> (dtype: the output pixel type)
AippPaddingParams = Params("AippPaddingParams", (("padding_mode", 0), ("padding_value_ch0", 0),
                                                 ("padding_value_ch1", 0), ("padding_value_ch2", 0),
                                                 ("padding_value_ch3", 0)))
AippSwapParams = Params("AippSwapParams", (("is_swap_rb", False), ("is_swap_uv", False), ("is_swap_ax", False)))
AippSingleLineParams = Params("AippSingleLineParams", (("is_single_line_copy", False),))
AippDataTypeConvParams = Params("AippDataTypeConvParams", (
    ("dtc_mean_ch0", 0), ("dtc_mean_ch1", 0), ("dtc_mean_ch2", 0), ("dtc_min_ch0", 0.0), ("dtc_min_ch1", 0.0),
    ("dtc_min_ch2", 0.0), ("dtc_var_ch0", 1.0), ("dtc_var_ch1", 1.0), ("dtc_var_ch2", 1.0), ("dtc_round_mode", 0)))
AippChannelPaddingParams = Params("AippChannelPaddingParams", (("c_padding_mode", 0), ("c_padding_value", 0)))
AippColorSpaceConvParams = Params("AippColorSpaceConvParams", (("is_enable_csc", False),) + tuple(
    (f"csc_matrix_r{r}_c{c}", 0) for r in range(3) for c in range(3)) + tuple(
    (f"csc_bias_{io}_{i}", 0) for io in ("in", "out") for i in range(3)))
AippParams = Params("AippParams", (("dtype", None), ("padding_params", None), ("swap_params", None),
                                   ("single_line_params", None), ("dtc_params", None), ("c_padding_params", None),
                                   ("csc_params", None)))

PARAMS = (BinaryRepeatParams, UnaryRepeatParams, CopyRepeatParams, DataCopyParams, DataCopyExtParams,
          DataCopyPadExtParams, DataCopyPadParams, TransposeParamsExt, TransDataTo5HDParams, SoftmaxTiling, Nd2NzParams,
          LoadData2DParams, LoadData2dTransposeParams, MmadParams, FixpipeParamsV220)


def array(dtype, values):
    """asc.array(dtype, values): a compile-time array (ShapeInfo's shape)."""
    return ("array", dtype, tuple(values))


def _api_function(a: _api.Api):
    def f(*args, **kwargs):
        from ..errors import UnsupportedError
        raise UnsupportedError(f"asc.{a.name} is the Ascend C API: call it inside an @asc.jit function")
    f.__name__ = a.name.split(".")[-1]
    f.__qualname__ = f.__name__
    f.__doc__ = f"{a.name}: AscendC::{a.cname} ({a.status})." + (f" {a.note}" if a.note else "")
    f._asc_api = a
    return f


FUNCTIONS = {}
for _a in _api.TABLE:
    if "." in _a.name and not _a.name.startswith("adv."):
        continue
    if _a.special == "ctor" or _a.name[0].isupper() or _a.name.startswith("adv.") and _a.name[4].isupper():
        continue
    FUNCTIONS[_a.name] = _api_function(_a)


class _Adv:
    """asc.adv: the advanced APIs (softmax, quant, ...)."""

    SoftmaxTiling = SoftmaxTiling
    TCubeTiling = _TCubeTiling
    Matmul = Matmul
    MatmulType = _MatmulType
    MatmulConfig = _MatmulConfig
    QuantConfig = _QuantConfig

    def __repr__(self) -> str:
        return "<module 'asc.adv'>"


adv = _Adv()
for _n, _f in FUNCTIONS.items():
    if _n.startswith("adv."):
        setattr(adv, _n[4:], _f)


def ceildiv(a, b):
    """(a + b - 1) // b."""
    return -(-a // b)


class range:  # noqa: A001 -- pyasc's asc.range
    """asc.range(start, stop, step): a loop range inside kernels (as Python's range)."""

    def __new__(cls, *args):
        import builtins
        return builtins.range(*args)

"""C++ text that every part of the ascend backend spells the same way: storage types, the names of kernel
parameters, classes and locals, float constants, and the Python line a statement comes from."""
from __future__ import annotations

import linecache
import math
import re

import numpy as np

from ... import ir
from ..cstyle import C_RESERVED, float_literal
from .emitted_api import API

# the C++ storage type of each dtype in GM and in UB
STORAGE = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t", "int8": "int8_t", "int16": "int16_t",
           "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "bool": "bool", "float64": "double"}

# the dtypes vector code computes on (in float32)
FLOATS = ("float32", "float16", "bfloat16")

# the value a 16-bit tensor holds after storing a float: rounded to its type
STORAGE_ROUND = {"float16": "static_cast<half>({})", "bfloat16": "static_cast<bfloat16_t>({})"}

# Every identifier the ascend renderers write of their own in a kernel's .cpp and its host main.cpp: locals,
# members, parameters, types, enums, API calls. tests/backends/test_ascend_names.py finds them by rendering kernels
# whose every name is a placeholder, and fails on one missing here.
GENERATED = frozenset("""
    A1 A2 B1 B2 C1 C2 CO1 CO2 GM VECIN VECOUT VECCALC V_S MTE2_S MTE3_V V_MTE3 S_V MTE2_V S_MTE3
    AscendC TPipe TQue TBuf TPosition LocalTensor GlobalTensor HardEvent RoundMode CacheLine DcciDst QuantMode_t
    GM_ADDR KERNEL_TASK_TYPE_DEFAULT KERNEL_TYPE_AIV_ONLY KERNEL_TYPE_AIC_ONLY KERNEL_TYPE_MIX_AIC_1_2
    ASCENDC_CPU_DEBUG CACHELINE_OUT ENTIRE_DATA_CACHE CFG_ROW_MAJOR CAST_NONE CAST_RINT CAST_FLOOR CAST_CEIL
    CAST_ROUND CAST_TRUNC CAST_ODD F322F16 F322BF16 NoQuant CMPMODE SELMODE LT GT LE GE EQ NE
    VSEL_CMPMASK_SPR VSEL_TENSOR_SCALAR_MODE VSEL_TENSOR_TENSOR_MODE
    DataCopyExtParams DataCopyPadExtParams LoadData2DParams MmadParams Nd2NzParams FixpipeParamsV220
    Init Process Compute CopyIn CopyOut SplitA SplitB
    half bfloat16_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t nullptr
    __aicore__ __global__ __gm__ INFINITY NAN
    t t_ pipe op tiling words dst k k0 kb n n0 m m0 mb r base offset loops tail tile tile_ tiles tilesN total
    pack pack_ perCore lastCore length_ rows rows_ cols cols_ colsPad colsPad_ red red2 tmp work workElems done first
    unused params aParams bParams quantPre copyParams padParams eventId calcBuf_ redBuf_ tmpBuf_ workBuf_
    maskBuf_ a1 a2 b1 b2 c1 a1Que_ a2Que_ b1Que_ b2Que_ c1Que_ baseM baseN baseK
    main argc argv argi arg stream blockDim tilingDev aclrtStream aclError err_ std ReadInput f path buf call
    static_cast reinterpret_cast mask nv __FILE__ __LINE__ stderr INT32_MIN INT64_MIN
    rowBase rowsPad_ pIdx pIn pVal padded bt mp np kp kf
    blk unit chunkIdx col0 lane lanes sumTotal sumWork fillAt fillN fillTile pointBuf_ sumBuf_ first_ count_ Boundary
""".split())

# what the renderers append to a tensor's or scalar's C++ name: xGm_, xInQue_, xIn, wRow_, t_, xHost (main.cpp) ...
DERIVED = ("Gm", "Gm_", "Ub", "In", "InQue_", "Out", "OutQue_", "Row", "RowQue_", "Row_", "Load", "Padded", "_", "Host",
           "Dev", "Rows", "Rows_", "RowsF", "RowsF_", "RowsBuf_", "RowsFBuf_",
           "Brcb", "BrcbBuf_")

# the API's functions and the types and enums of their documented prototypes (not their parameter names, nor
# template parameters such as T)
API_NAMES = frozenset(API) | frozenset(w for v in API.values() for w in re.findall(r"[A-Z]\w+", v))

# (scalar math on the vector unit, scalar_math.py: the helpers scalarExp_ ... scalarPow_ and pwTwo_ / pwSplit_, their
# locals pw..._, the blocks smIn_ / smOut_ / smTmp_ of smBuf_ / smTmpBuf_; a user's name of those forms is suffixed, so a
# member `scalarPow_` of a scalar `scalarPow` never hides the helper)
GENERATED_FORMS = re.compile(r"(buf|sm|ret)\d+|Kernel[A-Z]\w*|\w*Tiling|acl\w*|ACL_\w*|CHECK_ACL"
                             r"|scalar[A-Z][A-Za-z]*_?|pw[A-Z]\w*_?|sm(In|Out|Tmp|Buf|TmpBuf)_?|[sv]_[sv]Event"
                             r"|(win\d+|pt\d+_\d+)(In|Out)?|(Fill|fillTile|fillBuf)\d+_?|acc\d+(Que_|_|Sum)")


def cname(name: str) -> str:
    """The C++ name of a user's name (a parameter, tensor or local): the name itself, readable, unless it is a C++
    keyword, a name the renderers write of their own (GENERATED, the API's names) or shaped like one they derive from
    a name (DERIVED, ending in _v): then it is suffixed with `_v`. The map is one to one (a suffixed name ends in
    `_v`, no kept name does), and no generated name is a user's name or a suffixed one."""
    if name in C_RESERVED or name in GENERATED or name in API_NAMES or name.endswith(DERIVED + ("_v",)) or \
            GENERATED_FORMS.fullmatch(name):
        return f"{name}_v"
    return name


def camel(name: str) -> str:
    """snake_case -> CamelCase, for the kernel class and tiling struct names."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p) or "Kernel"


def scalar_ctype(t: ir.ScalarType) -> str:
    """The C++ type a scalar kernel parameter is passed as."""
    return "float" if t.dtype.kind == "f" else ("bool" if t.dtype.kind == "b" else "int64_t")


def type_text(t) -> str:
    """A parameter's type as the header comment shows it: float32[*, *] for a tensor."""
    if isinstance(t, ir.TensorType):
        return f"{t.dtype.name}[{', '.join('*' for _ in t.shape)}]"
    return repr(t)


def fmt_const(v: float) -> str:
    """A float constant as float32 C++ text (infinities as divisions; a NaN as the quiet NaN with its sign, as the
    interpreter's float('nan') and -float('nan') are: 0.0f / 0.0f is the hardware's default NaN, -nan on x86)."""
    v = float(v)
    if math.isnan(v):
        return "(-__builtin_nanf(\"\"))" if math.copysign(1.0, v) < 0 else "__builtin_nanf(\"\")"
    if math.isinf(v):
        return "(1.0f / 0.0f)" if v > 0 else "(-1.0f / 0.0f)"
    text = repr(float(np.float32(v)))
    if "e" not in text and "." not in text:
        text += ".0"
    return float_literal(text + "f")


def source_line(loc) -> str:
    """The Python source line of `loc`, stripped ("" without one)."""
    if loc is None:
        return ""
    return linecache.getline(loc.file, loc.line).strip()


def where(loc) -> str:
    """`file:line:col: ` for a message, or "" without a location."""
    return f"{loc!r}: " if loc is not None else ""

"""The enumerations of the Ascend C API as pyasc names them (`asc.TPosition.VECIN`, `asc.HardEvent.MTE2_V`, ...);
each member knows its Ascend C spelling."""
from __future__ import annotations

from enum import Enum


class _CEnum(Enum):
    @property
    def cname(self) -> str:
        return f"{self._cnamespace()}{self._cprefix()}{self.name}"

    @classmethod
    def _cnamespace(cls) -> str:
        return "AscendC::"

    @classmethod
    def _cprefix(cls) -> str:
        return f"{cls.__name__}::"


class _GlobalCEnum(_CEnum):
    """An enumeration CANN declares at global scope, not in namespace AscendC: CubeFormat and LayoutMode
    (adv_api/matmul/matmul_config.h), QuantMode_t (the compiler's). `AscendC::CubeFormat::ND` does not compile."""

    @classmethod
    def _cnamespace(cls) -> str:
        return ""


class TPosition(_CEnum):
    """Logical positions of tensors (TPosition)."""
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 12
    SPM = 13
    SHM = 14
    TSCM = 15
    C2PIPE2GM = 16
    C2PIPE2LOCAL = 17
    MAX = 18


class HardEvent(_CEnum):
    """Events between the pipes of one core (SetFlag / WaitFlag)."""
    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34


class PipeID(_CEnum):
    """The pipes of a core (pipe_t: PIPE_S, PIPE_V, ...)."""
    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6

    @property
    def cname(self) -> str:
        return self.name


class RoundMode(_CEnum):
    """Cast round modes."""
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class CMPMODE(_CEnum):
    """Compare modes."""
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(_CEnum):
    """Select modes."""
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


class ReduceOrder(_CEnum):
    """Where WholeReduceMax / WholeReduceMin put the value and its index (ReduceOrder)."""
    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


class TransposeType(_CEnum):
    """The layouts of Transpose with TransposeParamsExt."""
    TRANSPOSE_TYPE_NONE = 0
    TRANSPOSE_NZ2ND_0213 = 1
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10
    TRANSPOSE_NCHW2NHWC = 11
    TRANSPOSE_NHWC2NCHW = 12


class DataFormat(_CEnum):
    """Tensor data formats (ShapeInfo)."""
    ND = 0
    NZ = 1
    NCHW = 2
    NC1HWC0 = 3
    NHWC = 4


class AippInputFormat(_CEnum):
    """The source image formats of AIPP (SetAippFunctions), all of uint8_t pixels."""
    YUV420SP_U8 = 0
    XRGB8888_U8 = 1
    RGB888_U8 = 4
    YUV400_U8 = 9


class CubeFormat(_GlobalCEnum):
    """The layouts of a Matmul operand (MatmulType): ND row-major, NZ fractals, ..."""
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    COLUMN_MAJOR = 8


class LayoutMode(_GlobalCEnum):
    """The batch layouts of a Matmul operand (MatmulType)."""
    NONE = 0
    BSNGD = 1
    SBNGD = 2
    BNGS1S2 = 3
    NORMAL = 4


class QuantModes(_GlobalCEnum):
    """Fixpipe's quantization pre-modes (QuantMode_t, FixpipeParamsV220.quant_pre)."""
    NoQuant = 0
    F322F16 = 1
    F322BF16 = 2
    DEQF16 = 3
    VDEQF16 = 4
    QF322B8_PRE = 5
    VQF322B8_PRE = 6
    REQ8 = 7
    VREQ8 = 8

    @classmethod
    def _cprefix(cls) -> str:
        return "QuantMode_t::"


class CO2Layout(_CEnum):
    """The layout Fixpipe writes (FixpipeConfig)."""
    NZ = 0
    ROW_MAJOR = 1
    COLUMN_MAJOR = 2


ALL = (TPosition, HardEvent, PipeID, RoundMode, CMPMODE, SELMODE, ReduceOrder, TransposeType, DataFormat, AippInputFormat,
       CubeFormat, LayoutMode, QuantModes, CO2Layout)

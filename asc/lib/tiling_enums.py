"""The enumerations of CANN's matmul_tiling and platform API (`asc.lib.host.DataType`, ...), with CANN's values: what
a host tiling is asked in (asc/lib/host.py) and what its solver works in (asc/lib/tiling_solver.py)."""
from __future__ import annotations

from enum import Enum


class CubeFormat(Enum):
    """The data format of a Matmul operand."""
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 0          # an alias of ND
    COLUMN_MAJOR = 8


class DataType(Enum):
    """The data types of matmul_tiling (ge::DataType values)."""
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_STRING_REF = 24
    DT_DUAL = 25
    DT_VARIANT = 26
    DT_BF16 = 27
    DT_UNDEFINED = 28
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_BFLOAT16 = 33
    DT_MAX = 40


class MatrixTraverse(Enum):
    """The order of a core's base blocks: M first (FIRSTM) or N first (FIRSTN); NOSET lets the tiling choose."""
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(Enum):
    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(Enum):
    SCALAR = 0
    TENSOR = 1


class ScheduleType(Enum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


class CoreMemType(Enum):
    """The memories PlatformAscendC.get_core_mem_size reports."""
    L0_A = 0
    L0_B = 1
    L0_C = 2
    L1 = 3
    L2 = 4
    UB = 5
    HBM = 6

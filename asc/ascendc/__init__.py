"""pyasc's Ascend C API in Python (`import asc; @asc.jit`): the declaration table (api.py), data types, the
translator to Ascend C, sync insertion, and the launch on the CPU twin (ascend-sim). See docs/pyasc.md."""
from __future__ import annotations

from .data_types import (ConstExpr, DataType, GlobalAddress, KnownTypes, bfloat16, bool_, float16, float32,  # noqa: F401
                     float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from .enums import (CMPMODE, SELMODE, AippInputFormat, CubeFormat, DataFormat, HardEvent,  # noqa: F401
                    LayoutMode, PipeID, QuantModes, CO2Layout, ReduceOrder, RoundMode, TPosition, TransposeType)
from .objects import (AippChannelPaddingParams, AippColorSpaceConvParams, AippDataTypeConvParams,  # noqa: F401
                      AippPaddingParams, AippParams, AippSingleLineParams, AippSwapParams)
from .objects import (BinaryRepeatParams, CopyRepeatParams, DataCopyExtParams, DataCopyPadExtParams,  # noqa: F401
                      DataCopyPadParams, DataCopyParams, GlobalTensor, LocalTensor, LocalTensorAuto, ShapeInfo, TBuf, TPipe, TQue,
                      TQueBind, TransDataTo5HDParams, TransposeParamsExt, UnaryRepeatParams, adv, array, ceildiv,
                      range)
from .objects import (FixpipeParamsV220, LoadData2DParams, LoadData2dTransposeParams, MmadParams,  # noqa: F401
                      Nd2NzParams)
from .cube import FixpipeConfig  # noqa: F401
from .objects import FUNCTIONS as _FUNCTIONS
from .properties import (DEFAULT_C0_SIZE, ONE_BLK_SIZE, TOTAL_L0C_SIZE, TOTAL_L1_SIZE, Property,  # noqa: F401
                         property)
from .jit import JITFunction, jit  # noqa: F401
from .launch import ModelNotice  # noqa: F401

for _n, _f in _FUNCTIONS.items():
    if "." not in _n:
        globals()[_n] = _f

import types as _types  # noqa: E402

PUBLIC = sorted(n for n, v in globals().items() if not n.startswith("_") and n != "annotations" and
                not isinstance(v, _types.ModuleType))

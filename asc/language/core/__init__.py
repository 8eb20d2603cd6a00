"""pyasc's `asc.language.core` import path (re-exports of asc.ascendc: tensors, data types, structs). The
high-level language `import asc.language as lang` is unchanged; this package sits beside it."""
from ...ascendc import (ConstExpr, DataType, GlobalAddress, GlobalTensor, LocalTensor,  # noqa: F401
                        LocalTensorAuto, ShapeInfo, array, property)
from . import dtype, struct  # noqa: F401

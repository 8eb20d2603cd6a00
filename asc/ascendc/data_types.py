"""pyasc's data types: `asc.float16`, `x.dtype.sizeof()`, `asc.DataType("int32")`, with the C++ name each becomes in
Ascend C and the NumPy/torch dtypes it stands for; `asc.ConstExpr[T]` and `asc.GlobalAddress`, the annotations."""
from __future__ import annotations

import numpy as np


class DataType:
    """One element type of the Ascend C API (a compile-time value inside a kernel)."""

    __slots__ = ("name", "cname", "np", "size")

    def __init__(self, name: str = "float32", cname: str | None = None, npname: str | None = None, size: int = 0):
        if cname is None:           # DataType("int32"): __new__ returned the known type, already set up
            return
        self.name, self.cname, self.np, self.size = name, cname, npname, size

    def __new__(cls, name: str = "float32", *rest):
        if not rest:                                  # asc.DataType("int32"): the known type of that name
            known = _BY_NAME.get(name)
            if known is None:
                from ..errors import ArgumentError
                raise ArgumentError(f"unknown data type {name!r}; known: {', '.join(sorted(_BY_NAME))}")
            return known
        return object.__new__(cls)

    def sizeof(self) -> int:
        """The size of one element in bytes."""
        return self.size

    def __repr__(self) -> str:
        return f"asc.{self.name}"

    def __reduce__(self):
        return (DataType, (self.name,))

    @property
    def is_float(self) -> bool:
        return self.name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_int(self) -> bool:
        return not self.is_float and self.name != "bool"


_BY_NAME: dict = {}


def _t(name, cname, npname, size, *aliases):
    t = object.__new__(DataType)
    DataType.__init__(t, name, cname, npname, size)
    for n in (name,) + aliases:
        _BY_NAME[n] = t
    return t


int8 = _t("int8", "int8_t", "int8", 1)
uint8 = _t("uint8", "uint8_t", "uint8", 1)
int16 = _t("int16", "int16_t", "int16", 2)
uint16 = _t("uint16", "uint16_t", "uint16", 2)
int32 = _t("int32", "int32_t", "int32", 4)
uint32 = _t("uint32", "uint32_t", "uint32", 4)
int64 = _t("int64", "int64_t", "int64", 8)
uint64 = _t("uint64", "uint64_t", "uint64", 8)
float16 = _t("float16", "half", "float16", 2, "half")
bfloat16 = _t("bfloat16", "bfloat16_t", None, 2)
float32 = _t("float32", "float", "float32", 4, "float")
float64 = _t("float64", "double", "float64", 8, "double")
bool_ = _t("bool", "bool", "bool", 1, "bool_", "int1")

ALL = tuple(dict.fromkeys(_BY_NAME.values()))


class KnownTypes:
    """The known data types by name (pyasc's `asc.language.core.dtype.KnownTypes`)."""


for _d in ALL:
    setattr(KnownTypes, _d.name, _d)
KnownTypes.half = float16
KnownTypes.float = float32
KnownTypes.bool_ = bool_
KnownTypes.int1 = bool_


def from_numpy(dt) -> DataType | None:
    dt = np.dtype(dt)
    for d in ALL:
        if d.np is not None and np.dtype(d.np) == dt:
            return d
    if dt.name == "bfloat16":
        return bfloat16
    return None


def from_torch(dt) -> DataType | None:
    name = str(dt).replace("torch.", "")
    alias = {"half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32",
             "long": "int64"}
    return _BY_NAME.get(alias.get(name, name))


def of_python(value) -> DataType:
    """The type a Python scalar takes in a kernel: bool, int (int32 when it fits, else int64), float (float32)."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        if isinstance(value, np.integer):
            return from_numpy(np.asarray(value).dtype)
        return int32 if -2**31 <= value < 2**31 else int64
    if isinstance(value, np.floating):
        return from_numpy(np.asarray(value).dtype)
    return float32


class _ConstExprMeta(type):
    def __getitem__(cls, t):
        return ConstExpr(t)


class ConstExpr(metaclass=_ConstExprMeta):
    """`asc.ConstExpr[int]`: a compile-time parameter; the kernel is specialized on its value."""

    def __init__(self, t=None):
        self.type = t

    def __repr__(self) -> str:
        return f"asc.ConstExpr[{getattr(self.type, '__name__', self.type)}]"


class GlobalAddress:
    """The annotation of a kernel parameter that is a tensor in global memory (a typed GM pointer in Ascend C)."""

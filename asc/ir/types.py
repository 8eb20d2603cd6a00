"""Types of the IR: dtypes, scalar and tensor types, NumPy 2 (NEP 50) promotion.

A scalar type is *weak* when it stands for a Python number (a literal, a loop index, a shape, an `int`/`float`
parameter): weak values take the dtype of the strong operand they meet, as in NumPy 2.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

KINDS = "biuf"  # bool < int (signed or unsigned) < float, for promotion of weak scalars


@dataclass(frozen=True)
class DType:
    name: str          # "float32"
    kind: str          # one of "b", "i", "u", "f"
    bits: int
    np_name: str       # the NumPy / ml_dtypes name

    def __repr__(self) -> str:
        return self.name

    @property
    def itemsize(self) -> int:
        return max(self.bits // 8, 1)

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_16bit_float(self) -> bool:
        return self.kind == "f" and self.bits == 16


bool_ = DType("bool", "b", 8, "bool")
int8 = DType("int8", "i", 8, "int8")
int16 = DType("int16", "i", 16, "int16")
int32 = DType("int32", "i", 32, "int32")
int64 = DType("int64", "i", 64, "int64")
uint8 = DType("uint8", "u", 8, "uint8")
float16 = DType("float16", "f", 16, "float16")
bfloat16 = DType("bfloat16", "f", 16, "bfloat16")
float32 = DType("float32", "f", 32, "float32")
float64 = DType("float64", "f", 64, "float64")

ALL_DTYPES = (bool_, int8, int16, int32, int64, uint8, float16, bfloat16, float32, float64)
DTYPES_BY_NAME = {d.name: d for d in ALL_DTYPES}
DTYPES_BY_NAME["bool_"] = bool_


def _rank(d: DType) -> int:
    return KINDS.index(d.kind if d.kind != "u" else "i")


def promote_dtypes(a: DType, b: DType) -> DType:
    """NumPy 2 result_type of two strong dtypes (the subset of dtypes asc has)."""
    if a == b:
        return a
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        hi, lo = (a, b) if ra > rb else (b, a)
        if hi.kind == "f" and lo.kind in "iu":
            # numpy: int8/uint8 + f16 -> f16, int16 + f16 -> f32, int32/int64 + f16/f32 -> f64
            need = {8: 16, 16: 32, 32: 64, 64: 64}[lo.bits]
            if hi == bfloat16:
                return bfloat16 if lo.bits == 8 else (float32 if lo.bits == 16 else float64)
            return hi if hi.bits >= need else {16: float16, 32: float32, 64: float64}[need]
        return hi  # bool with anything
    if a.kind == "f":
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.bits > b.bits else b
    if a.kind == b.kind:  # both signed or both unsigned
        return a if a.bits > b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if s.bits > u.bits:
        return s
    return {8: int16, 16: int32, 32: int64, 64: float64}[u.bits]


# ---------------------------------------------------------------- types of values

@dataclass(frozen=True)
class ScalarType:
    dtype: DType
    weak: bool = False  # a Python int/float/bool: adapts to the strong operand it meets

    def __repr__(self) -> str:
        if self.weak:
            return {"b": "bool", "i": "int", "f": "float"}.get(self.dtype.kind, self.dtype.name)
        return self.dtype.name


@dataclass(frozen=True)
class Sym:
    """A symbolic size, bound at call time (only left symbolic with dynamic_shape=True)."""
    name: str

    def __repr__(self) -> str:
        return self.name


Dim = Union[int, Sym]


@dataclass(frozen=True)
class TensorType:
    dtype: DType
    shape: tuple  # of Dim

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"{self.dtype.name}[{', '.join(map(repr, self.shape))}]"


@dataclass(frozen=True)
class TupleType:
    elems: tuple

    def __repr__(self) -> str:
        return f"tuple[{', '.join(map(repr, self.elems))}]"


@dataclass(frozen=True)
class NoneType:
    def __repr__(self) -> str:
        return "None"


Type = Union[ScalarType, TensorType, TupleType, NoneType]

WEAK_INT = ScalarType(int64, weak=True)
WEAK_FLOAT = ScalarType(float64, weak=True)
WEAK_BOOL = ScalarType(bool_, weak=True)
INDEX = WEAK_INT  # loop indices and shapes are Python ints
NONE = NoneType()


def promote(a: ScalarType, b: ScalarType) -> ScalarType:
    """NEP 50: the result type of a binary arithmetic operation."""
    if a.weak and b.weak:
        return a if _rank(a.dtype) >= _rank(b.dtype) else b
    if a.weak or b.weak:
        weak, strong = (a, b) if a.weak else (b, a)
        if _rank(weak.dtype) <= _rank(strong.dtype):
            return ScalarType(strong.dtype)
        # a Python float meeting an integer array: the default float
        return ScalarType(float64 if weak.dtype.kind == "f" else int64)
    return ScalarType(promote_dtypes(a.dtype, b.dtype))


def to_float(t: ScalarType) -> ScalarType:
    """The type of a math function's result on `t` (ints become float64, as in NumPy)."""
    if t.dtype.kind == "f":
        return t
    return ScalarType(float64, weak=t.weak)


def unify(old: Type, new: Type) -> Type | None:
    """The type a variable keeps when assigned both: weak values adopt a strong type of equal or higher kind."""
    if old == new:
        return old
    if isinstance(old, ScalarType) and isinstance(new, ScalarType):
        if old.weak and not new.weak and _rank(old.dtype) <= _rank(new.dtype):
            return new
        if new.weak and not old.weak and _rank(new.dtype) <= _rank(old.dtype):
            return old
        if old.weak and new.weak:
            return old if _rank(old.dtype) >= _rank(new.dtype) else new
    return None
